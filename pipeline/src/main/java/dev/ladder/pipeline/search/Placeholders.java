package dev.ladder.pipeline.search;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Named placeholders ({@code :year}) in a sketch's SQL: the constants the model could not state. Found outside string
 * literals, quoted names and comments; {@code ::} casts and {@code :=} assignments are not placeholders.
 */
final class Placeholders {

    private Placeholders() {}

    /** The placeholder names in order of first use, lower-cased. */
    static List<String> names(String sql) {
        Set<String> out = new LinkedHashSet<>();
        scan(sql, (name, s, e) -> out.add(name));
        return List.copyOf(out);
    }

    /**
     * The SQL with each placeholder that has a value replaced by it ({@link #literal}); placeholders without one stay.
     *
     * @param values lower-case name -> the value as the model gave it (null: unknown)
     */
    static String bind(String sql, Map<String, String> values) {
        StringBuilder out = new StringBuilder();
        int[] last = {0};
        scan(sql, (name, s, e) -> {
            String v = values.get(name);
            if (v == null) return;
            out.append(sql, last[0], s).append(literal(v));
            last[0] = e;
        });
        return out.append(sql.substring(last[0])).toString();
    }

    /**
     * A value as a SQL literal: numbers, {@code NULL}, {@code TRUE}/{@code FALSE} and text already in single quotes
     * as they are; anything else in single quotes, its quotes doubled.
     */
    static String literal(String value) {
        String v = value.strip();
        if (v.matches("-?\\d+(\\.\\d+)?") || v.matches("(?i)null|true|false")) return v;
        if (v.length() >= 2 && v.startsWith("'") && v.endsWith("'") && !v.substring(1, v.length() - 1).replace("''", "").contains("'")) {
            return v;
        }
        return "'" + v.replace("'", "''") + "'";
    }

    private interface Found {
        void at(String name, int start, int end);
    }

    private static void scan(String sql, Found found) {
        int n = sql.length();
        for (int i = 0; i < n; i++) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"' || c == '`') {
                i = closing(sql, i, c);
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int eol = sql.indexOf('\n', i);
                i = eol < 0 ? n : eol;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int close = sql.indexOf("*/", i + 2);
                i = close < 0 ? n : close + 1;
            } else if (c == ':' && i + 1 < n && isStart(sql.charAt(i + 1)) && (i == 0 || sql.charAt(i - 1) != ':')) {
                int e = i + 1;
                while (e < n && (Character.isLetterOrDigit(sql.charAt(e)) || sql.charAt(e) == '_')) e++;
                found.at(sql.substring(i + 1, e).toLowerCase(Locale.ROOT), i, e);
                i = e - 1;
            }
        }
    }

    private static boolean isStart(char c) {
        return Character.isLetter(c) || c == '_';
    }

    /** The index of the quote closing the one at {@code open} (a doubled quote or a backslash escape continues). */
    private static int closing(String sql, int open, char quote) {
        for (int i = open + 1; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\\' && quote != '`') {
                i++;
            } else if (c == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) i++;
                else return i;
            }
        }
        return sql.length();
    }

    /** Placeholders of {@code names} still in {@code sql}. */
    static List<String> unbound(String sql) {
        return new ArrayList<>(names(sql));
    }
}
