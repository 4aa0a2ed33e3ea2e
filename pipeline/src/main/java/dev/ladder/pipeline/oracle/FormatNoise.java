package dev.ladder.pipeline.oracle;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The format defects instruct models write around an answer that is itself right, each for the replies it fits. */
public enum FormatNoise {
    /** a markdown fence around the answer ({@code ```sql} or a bare {@code ```}) */
    FENCE(EnumSet.of(ReplyShape.SQL, ReplyShape.JSON)),
    /** a sentence of prose before the answer */
    PROSE_BEFORE(EnumSet.allOf(ReplyShape.class)),
    /** an explanation after the answer */
    EXPLANATION(EnumSet.allOf(ReplyShape.class)),
    /** the verdict in bold: {@code **CORRECT**: YES} */
    MARKDOWN_VERDICT(EnumSet.of(ReplyShape.VERDICT)),
    /** the reply cut as if the token budget ran out */
    TRUNCATED(EnumSet.allOf(ReplyShape.class)),
    /** raw newlines inside JSON strings (invalid JSON that many models write) */
    RAW_NEWLINES(EnumSet.of(ReplyShape.JSON)),
    /** the prompt's question repeated before the answer */
    PROMPT_ECHO(EnumSet.allOf(ReplyShape.class));

    private final Set<ReplyShape> fits;

    FormatNoise(Set<ReplyShape> fits) {
        this.fits = fits;
    }

    public boolean fits(ReplyShape shape) {
        return fits.contains(shape);
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    private static final Pattern QUESTION = Pattern.compile("(?m)^Question:\\s*(.+)$");
    private static final Pattern JSON_STRING = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");

    /** The reply with this defect; {@link #TRUNCATED} is applied by the engine, which counts tokens. */
    String apply(String reply, ReplyShape shape, String prompt, Random random) {
        return switch (this) {
            case FENCE -> (shape == ReplyShape.JSON ? "```json\n" : random.nextBoolean() ? "```sql\n" : "```\n") + reply + "\n```";
            case PROSE_BEFORE -> pick(random, "Here is the answer:", "Sure! Based on the schema, this should work:",
                    "To answer this, we need the following.") + "\n\n" + reply;
            case EXPLANATION -> reply + "\n\n" + pick(random,
                    "This reads the tables the question is about and keeps the rows it asks for.",
                    "Explanation: the query joins the needed tables and filters them as the question says.",
                    "Note: adjust the values if the data is written differently.");
            case MARKDOWN_VERDICT -> reply.replaceFirst("CORRECT:", "**CORRECT**:").replaceFirst("REASONING:", "**REASONING**:");
            case TRUNCATED -> reply;
            case RAW_NEWLINES -> rawNewlines(reply);
            case PROMPT_ECHO -> echo(prompt) + reply;
        };
    }

    private static String pick(Random random, String... options) {
        return options[random.nextInt(options.length)];
    }

    /** The first string value with a space holds a raw line break there instead (before a SQL keyword when it can). */
    private static String rawNewlines(String json) {
        Matcher m = JSON_STRING.matcher(json);
        while (m.find()) {
            String inside = m.group(1);
            if (!inside.contains(" ")) continue;
            String broken = inside.replaceFirst(" (FROM|WHERE|JOIN|GROUP|ORDER|from|where|join|group|order) ", "\n$1 ");
            if (broken.equals(inside)) broken = inside.replaceFirst(" ", "\n");
            return json.substring(0, m.start(1)) + broken + json.substring(m.end(1));
        }
        return json;
    }

    /** The prompt's question as a model repeats it, or its last line. */
    private static String echo(String prompt) {
        Matcher m = QUESTION.matcher(prompt);
        String last = null;
        while (m.find()) last = m.group(0);
        if (last != null) return last.strip() + "\n";
        String[] lines = prompt.replaceAll("<\\|[^|>]*\\|>", "").strip().split("\n");
        return lines.length == 0 ? "" : lines[lines.length - 1].strip() + "\n";
    }
}
