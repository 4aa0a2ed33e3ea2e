package dev.ladder.sql.post;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.SqlToken;
import dev.ladder.sql.read.TableReferences;
import dev.ladder.sql.schema.Schema;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Turns a raw model output into one SELECT statement, or rejects it. Conservative: it only ever removes text around
 * the query and normalises whitespace, keyword case and table-name case; it never adds a column, table or clause.
 * The rules, in order, with the step names reported in {@link Cleaned#steps()} (docs/agent.md, "Post-processing"):
 * <ol>
 *   <li>{@code stop-remnant}: end-of-turn special tokens, and a cut stop string ({@code Question:}) on the last line;</li>
 *   <li>{@code code-fence}: the first fenced block that holds a query;</li>
 *   <li>{@code prompt-echo}: echoed {@code Question:} lines, labels ({@code SQL:}, {@code Answer:}), a role name, and
 *       a first line introducing the answer ("Here is the SQL query:");</li>
 *   <li>{@code first-statement} (or {@code comment}): text before the first SELECT/WITH;
 *       {@code backticks} / {@code markdown}: inline-code or bold marks around the query;</li>
 *   <li>{@code semicolon}: the statement ends at its first {@code ;} outside strings, identifiers and comments;
 *       {@code trailing-text}: whatever follows the statement (a second statement, prose, an invented exemplar);</li>
 *   <li>checks: unterminated literal, unbalanced parentheses, empty select list, no FROM (a query that reads no
 *       table does not answer a question about the data), WITH without SELECT, dangling end;</li>
 *   <li>{@code comment}, {@code whitespace}, {@code keyword-case}, {@code table-case}: normalisation.</li>
 * </ol>
 * Leading and trailing whitespace is always stripped and not reported as a step.
 */
public final class SqlPostProcessor {

    /**
     * @param sql       the cleaned statement (no trailing semicolon), null when rejected
     * @param steps     short names of the steps that changed something, in order
     * @param rejection why the output was rejected, null when it was not
     */
    public record Cleaned(String sql, List<String> steps, String rejection) {
        public Cleaned {
            steps = List.copyOf(steps);
        }

        public boolean ok() {
            return sql != null;
        }
    }

    static final String EMPTY = "empty output";
    static final String NO_QUERY = "no SELECT or WITH statement";
    static final String NO_FROM = "no FROM clause";
    static final String UNBALANCED = "unbalanced parentheses";
    static final String EMPTY_SELECT_LIST = "empty select list";
    static final String WITH_WITHOUT_SELECT = "no SELECT after the WITH clause";

    /** Fence markers with their language tag: text made of nothing else is empty. */
    private static final Pattern FENCE_MARKS = Pattern.compile("(?:```+|~~~+)[\\w+#.-]*");

    private SqlPostProcessor() {}

    /**
     * @param raw     the model's text (may be null)
     * @param schema  the database's schema for table-name case; null skips that step
     * @param dialect lexing rules (quotes, comments); null is read as MySQL
     */
    public static Cleaned clean(String raw, Schema schema, Dialect dialect) {
        Steps steps = new Steps();
        try {
            return run(raw, schema, dialect == null ? Dialect.MYSQL : dialect, steps);
        } catch (RuntimeException e) {
            // the contract is a verdict for any input; a failure here is a bug, reported as a rejection
            return new Cleaned(null, steps.list(), "could not be processed (" + e.getClass().getSimpleName() + ")");
        }
    }

    private static Cleaned run(String raw, Schema schema, Dialect dialect, Steps steps) {
        if (raw == null || raw.isBlank()) return reject(steps, EMPTY);
        String text = TextPhases.stopRemnant(raw);
        if (!text.equals(raw)) steps.add(Steps.STOP_REMNANT);
        String fenced = TextPhases.firstFencedQuery(text);
        if (fenced != null) {
            text = fenced;
            steps.add(Steps.CODE_FENCE);
        }
        String echoFree = TextPhases.promptEcho(text);
        if (!echoFree.equals(text)) steps.add(Steps.PROMPT_ECHO);
        text = echoFree;
        if (FENCE_MARKS.matcher(text).replaceAll("").isBlank()) return reject(steps, EMPTY);

        StatementStart.Start start = StatementStart.find(text);
        if (start == null) return reject(steps, NO_QUERY);
        prefixSteps(text.substring(0, start.index()), start, dialect, steps);

        StatementScanner.Statement statement =
                StatementScanner.scan(text.substring(start.index()), start, dialect, steps);
        if (statement.problem() != null) return reject(steps, statement.problem());
        List<SqlToken> sig = statement.tokens().stream().filter(t -> !t.isTrivia()).toList();
        String problem = check(sig);
        if (problem != null) return reject(steps, problem);
        TableReferences shape = TableReferences.of(sig);
        if (!shape.readsTable()) return reject(steps, NO_FROM);
        if (sig.get(0).isWord("WITH") && !shape.withHasSelect()) return reject(steps, WITH_WITHOUT_SELECT);
        int n = sig.size();
        String dangling = SqlWords.dangling(sig.get(n - 1), n > 1 ? sig.get(n - 2) : null);
        if (dangling != null) return reject(steps, "ends in a dangling " + dangling);
        String sql = Renderer.render(statement.tokens(), sig, shape, schema, steps);
        return new Cleaned(sql, steps.list(), null);
    }

    /** Names what was dropped before the query: wrapper marks, comments only, or other text. */
    private static void prefixSteps(String prefix, StatementStart.Start start, Dialect dialect, Steps steps) {
        String rest = prefix.stripTrailing();
        if (start.backtick()) {
            while (rest.endsWith("`")) rest = rest.substring(0, rest.length() - 1);
        }
        if (start.bold()) {
            rest = rest.stripTrailing();
            if (rest.endsWith("**")) rest = rest.substring(0, rest.length() - 2);
        }
        if (!rest.isBlank()) {
            TolerantLexer.Lexed lexed = TolerantLexer.lex(rest, dialect);
            boolean commentsOnly = lexed.problem() == null && lexed.tokens().stream().allMatch(SqlToken::isTrivia);
            steps.add(commentsOnly ? Steps.COMMENT : Steps.FIRST_STATEMENT);
        }
        if (start.backtick()) steps.add(Steps.BACKTICKS);
        if (start.bold()) steps.add(Steps.MARKDOWN);
    }

    /** Parentheses must balance and no SELECT may go straight on to FROM. */
    private static String check(List<SqlToken> sig) {
        if (sig.isEmpty()) return EMPTY;
        int depth = 0;
        for (SqlToken t : sig) {
            if (t.isSymbol("(")) depth++;
            if (t.isSymbol(")") && --depth < 0) return UNBALANCED;
        }
        if (depth != 0) return UNBALANCED;
        for (int i = 0; i + 1 < sig.size(); i++) {
            if (!sig.get(i).isWord("SELECT")) continue;
            int j = i + 1;
            if (sig.get(j).isWord("DISTINCT") || sig.get(j).isWord("ALL")) j++;
            if (j < sig.size() && sig.get(j).isWord("FROM")) return EMPTY_SELECT_LIST;
        }
        return null;
    }

    private static Cleaned reject(Steps steps, String reason) {
        return new Cleaned(null, steps.list(), reason);
    }
}
