package dev.ladder.eval.view;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.common.StableJson;
import java.io.UncheckedIOException;

/**
 * Escaping, one place: every text that reaches a page (model output is untrusted) goes through {@link #text}; data for
 * the page's script goes through {@link #json}, which also escapes {@code <}, {@code >} and {@code &} so that no
 * string can close the script element.
 */
final class Html {

    private static final ObjectMapper JSON = StableJson.mapper();

    private Html() {}

    static String text(Object o) {
        String s = o == null ? "" : o.toString();
        StringBuilder out = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    static String json(Object value) {
        try {
            return JSON.writeValueAsString(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
                    .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029");
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A page: title, the shared style, a navigation bar, the body. */
    static String page(String title, String root, String body) {
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                + "<title>" + text(title) + " · ladder view</title><style>" + STYLE + "</style></head><body>"
                + "<nav><a href=\"" + root + "index.html\">Overview</a> <a href=\"" + root + "items.html\">Items</a></nav>"
                + "<main>" + body + "</main></body></html>\n";
    }

    static final String STYLE = """
            body{font-family:system-ui,sans-serif;margin:0;color:#222}nav{background:#243;padding:.5em 1em}
            nav a{color:#fff;margin-right:1.5em;text-decoration:none}main{padding:1em 1.5em}
            table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.2em .5em;font-size:.9em}
            th{background:#eef}td.num{text-align:right}pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap;
            word-break:break-word;margin:.2em 0}.ok{color:#070}.bad{color:#b00}.warn{color:#a60}.step{border-left:3px solid #9ab;
            padding-left:.6em;margin:.4em 0}.kind{font-weight:bold}.muted{color:#777}.filters select,.filters input{margin:0 .6em .4em 0}
            .sql-kw{color:#00f;font-weight:bold}.del{background:#fdd;text-decoration:line-through}.ins{background:#dfd}
            img{max-width:720px;display:block;margin:.5em 0}.oracle{background:#fff3cd;border:1px solid #e0c060;padding:.5em}
            """;
}
