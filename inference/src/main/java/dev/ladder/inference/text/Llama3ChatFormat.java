package dev.ladder.inference.text;

import dev.ladder.inference.ChatMessage;
import dev.ladder.inference.PromptFormat;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The Llama 3 Instruct chat format, as Meta's reference {@code ChatFormat} and the {@code chat_template} of
 * Meta-Llama-3-8B-Instruct write it:
 *
 * <pre>
 * &lt;|begin_of_text|&gt;                                   once
 * &lt;|start_header_id|&gt;{role}&lt;|end_header_id|&gt;\n\n{content}&lt;|eot_id|&gt;   per message, role in lower case
 * &lt;|start_header_id|&gt;assistant&lt;|end_header_id|&gt;\n\n   the turn the model writes
 * </pre>
 *
 * Each content is stripped of surrounding whitespace like Meta's {@code message["content"].strip()} and the
 * template's {@code | trim} (both Python {@code str.strip()}: {@link #pythonStrip}). The generation prompt is always
 * appended, also after a trailing assistant message, as both references do. The text starts with the BOS token, so
 * {@link #writesBos()} is true and it must be encoded without adding another one ({@link Tokenizer#encode} never
 * adds one).
 */
public final class Llama3ChatFormat implements PromptFormat {

    public static final String NAME = "llama3-chat";

    public static final String BEGIN_OF_TEXT = "<|begin_of_text|>";
    public static final String START_HEADER = "<|start_header_id|>";
    public static final String END_HEADER = "<|end_header_id|>";
    public static final String END_OF_TURN = "<|eot_id|>";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String format(List<ChatMessage> messages) {
        Objects.requireNonNull(messages, "messages");
        StringBuilder out = new StringBuilder(BEGIN_OF_TEXT);
        for (ChatMessage m : messages) {
            header(out, m.role().name().toLowerCase(Locale.ROOT));
            out.append(pythonStrip(m.content())).append(END_OF_TURN);
        }
        header(out, "assistant");
        return out.toString();
    }

    private static void header(StringBuilder out, String role) {
        out.append(START_HEADER).append(role).append(END_HEADER).append("\n\n");
    }

    @Override
    public boolean writesBos() {
        return true;
    }

    @Override
    public String toString() {
        return NAME;
    }

    /**
     * Python's {@code str.strip()} (and so Jinja's {@code trim}): removes leading and trailing characters for which
     * {@code str.isspace()} is true. Unlike {@link String#strip()} this includes U+00A0, U+2007 and U+202F
     * (non-breaking spaces) and U+0085, U+001C–U+001F.
     */
    static String pythonStrip(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && isPythonSpace(s.charAt(start))) {
            start++;
        }
        while (end > start && isPythonSpace(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(start, end);
    }

    /** Python 3's {@code str.isspace()} for one BMP character (all such characters are in the BMP). */
    static boolean isPythonSpace(char c) {
        return switch (c) {
            case '\t', '\n', '\u000B', '\f', '\r', '\u001C', '\u001D', '\u001E', '\u001F', ' ', '\u0085', '\u00A0',
                 '\u1680', '\u2028', '\u2029', '\u202F', '\u205F', '\u3000' -> true;
            default -> c >= '\u2000' && c <= '\u200A';
        };
    }
}
