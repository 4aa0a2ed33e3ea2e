package dev.ladder.sql.post;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The names of the steps that changed something, each once, always in the order of {@link #ORDER} (the order the
 * rules run in), so that equal step sets read the same whatever the text looked like.
 */
final class Steps {

    static final String STOP_REMNANT = "stop-remnant";
    static final String CODE_FENCE = "code-fence";
    static final String PROMPT_ECHO = "prompt-echo";
    static final String FIRST_STATEMENT = "first-statement";
    static final String BACKTICKS = "backticks";
    static final String MARKDOWN = "markdown";
    static final String SEMICOLON = "semicolon";
    static final String TRAILING_TEXT = "trailing-text";
    static final String COMMENT = "comment";
    static final String WHITESPACE = "whitespace";
    static final String KEYWORD_CASE = "keyword-case";
    static final String TABLE_CASE = "table-case";

    static final List<String> ORDER = List.of(STOP_REMNANT, CODE_FENCE, PROMPT_ECHO, FIRST_STATEMENT, BACKTICKS,
            MARKDOWN, SEMICOLON, TRAILING_TEXT, COMMENT, WHITESPACE, KEYWORD_CASE, TABLE_CASE);

    private final Set<String> names = new HashSet<>();

    void add(String name) {
        if (!ORDER.contains(name)) throw new IllegalArgumentException("unknown step " + name);
        names.add(name);
    }

    List<String> list() {
        return ORDER.stream().filter(names::contains).toList();
    }
}
