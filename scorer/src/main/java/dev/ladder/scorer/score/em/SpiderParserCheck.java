package dev.ladder.scorer.score.em;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * A conservative test of what the official Spider parser ({@code process_sql.py} of taoyds/spider and
 * taoyds/test-suite-sql-eval) cannot read. It reports a reason only where that parser certainly fails;
 * queries it may or may not read pass. Each rule names the step of {@code process_sql.py} that fails
 * (see docs/exact-match.md, "EM mode spider-strict").
 *
 * <p>Tokens are made as the official {@code tokenize} makes them: single quotes become double quotes,
 * quoted strings become one token, the rest is split on whitespace and on {@code ( ) , ;}, lower-cased.
 * A comment is one {@link #COMMENT} token here (the official keeps its words as tokens): where the official
 * parser reads it, no column or clause matches it and the query fails; where that parser has already stopped
 * reading (after the last ORDER BY or GROUP BY item, after {@code LIMIT n}, after {@code ;}, outside
 * parentheses), it and everything after it are never read.
 */
public final class SpiderParserCheck {

    /** CLAUSE_KEYWORDS of process_sql.py. */
    private static final Set<String> CLAUSES = Set.of("select", "from", "where", "group", "order", "limit",
            "intersect", "union", "except");
    private static final Set<String> AGGREGATES = Set.of("max", "min", "count", "sum", "avg");
    private static final Set<String> OPERATORS = Set.of("=", "<", ">", "<=", ">=", "!=");
    /** Words followed by "(" that are not function calls. */
    private static final Set<String> NOT_FUNCTIONS = Set.of("in", "exists", "not", "and", "or", "select", "from",
            "where", "on", "join", "by", "as", "union", "intersect", "except", "having", "between", "like", "is",
            "distinct", "all", "any", "some", "limit", "group", "order", "asc", "desc", "=", "<", ">", "<=", ">=",
            "!=", "+", "-", "*", "/");

    /** One token for a whole comment. */
    static final String COMMENT = "--";
    /** Starts a condition in parse_condition (an AND that closes a BETWEEN does not). */
    private static final Set<String> CONDITION_STARTS = Set.of("where", "having", "on", "and", "or");
    /** Clauses that parse_sql reads in turn; the last one seen outside parentheses says where a comment sits. */
    private static final Set<String> TOP_CLAUSES = Set.of("select", "from", "where", "group", "having", "order",
            "limit", "intersect", "union", "except");

    private final Set<String> columns;

    /**
     * @param columns every column name of the schema, lower-cased; empty when unknown (then a word
     *                followed by "(" is never taken for an unreadable function call)
     */
    public SpiderParserCheck(Set<String> columns) {
        this.columns = Set.copyOf(columns);
    }

    /** Why the official parser cannot read {@code sql}, or empty when it may. */
    public Optional<String> unreadable(String sql) {
        String text = sql.strip();
        long quotes = text.chars().filter(c -> c == '\'' || c == '"').count();
        // tokenize: assert len(quote_idxs) % 2 == 0, "Unexpected quote"
        if (quotes % 2 != 0) return Optional.of("an odd number of quote characters");
        List<String> toks = tokens(text);
        int depth = 0;
        List<Integer> selectDepths = new ArrayList<>();
        String clause = null; // the clause being read outside parentheses
        int limitAt = -1;
        boolean ended = false; // a ';' outside parentheses: parse_sql reads nothing after it
        boolean conditionStart = false;
        List<Integer> openBetweens = new ArrayList<>(); // depths of BETWEENs waiting for their AND
        for (int i = 0; i < toks.size(); i++) {
            String t = toks.get(i);
            String next = i + 1 < toks.size() ? toks.get(i + 1) : null;
            String prev = i > 0 ? toks.get(i - 1) : null;
            if (t.equals(COMMENT)) {
                if (depth == 0 && (ended || ("group".equals(clause) || "order".equals(clause)) && endsItem(prev)
                        || "limit".equals(clause) && i >= limitAt + 2)) {
                    return Optional.empty(); // the official parser has stopped reading: the rest is never read
                }
                return Optional.of("a comment where the official parser reads on (tokenize keeps its words; no column matches)");
            }
            if (t.startsWith("`")) return Optional.of("a backquoted name (the tokenizer keeps the quotes; no column matches)");
            // parse_condition reads a val_unit first: a unary NOT or a value there is no column
            if (conditionStart && !t.equals("(")) {
                if (t.equals("not")) return Optional.of("NOT at the start of a condition (parse_condition has no unary NOT)");
                if (isString(t) || isNumber(t)) {
                    return Optional.of("a value on the left of a condition (" + t + "; parse_condition reads a column first)");
                }
            }
            if (!t.equals("(")) conditionStart = false;
            if (t.equals("between")) openBetweens.add(depth);
            if (CONDITION_STARTS.contains(t)) {
                conditionStart = !(t.equals("and") && openBetweens.remove(Integer.valueOf(depth)));
            }
            if (depth == 0 && TOP_CLAUSES.contains(t)) {
                clause = t;
                if (t.equals("limit")) limitAt = i;
            }
            if (depth == 0 && t.equals(";")) ended = true;
            if (t.contains("<>")) return Optional.of("'<>' (WHERE_OPS knows only '!=')");
            if (!OPERATORS.contains(t) && !isString(t) && (t.contains("=") || t.contains("<") || t.contains(">"))) {
                return Optional.of("an operator without spaces around it: " + t);
            }
            switch (t) {
                case "(" -> depth++;
                case ")" -> {
                    depth--;
                    while (!selectDepths.isEmpty() && selectDepths.get(selectDepths.size() - 1) > depth) {
                        selectDepths.remove(selectDepths.size() - 1);
                    }
                }
                case "select" -> selectDepths.add(depth);
                case "from" -> {
                    if (!selectDepths.isEmpty() && selectDepths.get(selectDepths.size() - 1) == depth) {
                        selectDepths.remove(selectDepths.size() - 1);
                    }
                }
                default -> { }
            }
            boolean inSelectList = !selectDepths.isEmpty() && selectDepths.get(selectDepths.size() - 1) == depth;
            // parse_select has no aliases: "as" is read as a column
            if (t.equals("as") && inSelectList) return Optional.of("a column alias (AS in the SELECT list)");
            // parse_from / parse_table_unit: a table is followed by AS alias, JOIN, ON, a clause, ')' or ';'
            if ((t.equals("from") || t.equals("join")) && next != null && !next.equals("(")) {
                int k = i + 2;
                if (k < toks.size() && toks.get(k).equals("as")) k += 2;
                if (k < toks.size() && !endsTableUnit(toks.get(k))) {
                    return Optional.of("'" + toks.get(k) + "' after a table (a table alias without AS, a comma join, "
                            + "or a join other than JOIN ... ON)");
                }
            }
            if (t.equals(")") && closesDerivedTable(toks, i) && next != null && !endsTableUnit(next)) {
                return Optional.of("a derived table with an alias (FROM (SELECT ...) alias)");
            }
            // parse_col_unit: an aggregate takes '*' or one column, DISTINCT allowed
            if (AGGREGATES.contains(t) && "(".equals(next)) {
                int close = toks.indexOf(")") < 0 ? -1 : matching(toks, i + 1);
                if (close < 0) return Optional.empty();
                List<String> arg = toks.subList(i + 2, close);
                if (!arg.isEmpty() && arg.get(0).equals("distinct")) arg = arg.subList(1, arg.size());
                if (arg.size() != 1 || !(arg.get(0).equals("*") || isName(arg.get(0)))) {
                    return Optional.of("an aggregate of something other than one column or * (" + t + "("
                            + String.join(" ", toks.subList(i + 2, close)) + "))");
                }
            }
            // parse_col: a word followed by "(" that is no column of the schema is an unknown column
            if ("(".equals(next) && !columns.isEmpty() && isName(t) && !AGGREGATES.contains(t)
                    && !NOT_FUNCTIONS.contains(t) && !columns.contains(t)) {
                return Optional.of("a function call " + t + "(...) (only max, min, count, sum, avg are read)");
            }
            // parse_value reads NULL as a column name
            if (t.equals("is") && ("null".equals(next) || "not".equals(next))) return Optional.of("IS [NOT] NULL");
            if (t.equals("case")) return Optional.of("CASE");
            // parse_limit reads LIMIT n only; inside parentheses the next token must be ')'
            if (depth > 0 && t.equals("offset")) return Optional.of("OFFSET in a subquery");
            if (depth > 0 && t.equals("limit") && i + 2 < toks.size() && toks.get(i + 2).equals(",")) {
                return Optional.of("LIMIT m, n in a subquery");
            }
        }
        return Optional.empty();
    }

    /** Whether {@code prev} ends an ORDER BY / GROUP BY item (a column, a call, ASC/DESC), so the item list stops. */
    private static boolean endsItem(String prev) {
        return prev != null && !prev.equals("by") && !prev.equals(",") && !prev.equals("(") && !prev.equals("distinct")
                && !Set.of("+", "-", "*", "/").contains(prev);
    }

    private static boolean isNumber(String t) {
        return t.matches("[-+]?(\\d+\\.?\\d*|\\.\\d+)([e][-+]?\\d+)?");
    }

    private static boolean endsTableUnit(String t) {
        // a comment is judged where it stands
        return CLAUSES.contains(t) || t.equals("join") || t.equals("on") || t.equals(")") || t.equals(";") || t.equals(COMMENT);
    }

    /** Whether the ')' at {@code close} ends "FROM ( SELECT ..." or "JOIN ( SELECT ...". */
    private static boolean closesDerivedTable(List<String> toks, int close) {
        int depth = 0;
        for (int k = close; k >= 0; k--) {
            if (toks.get(k).equals(")")) depth++;
            else if (toks.get(k).equals("(") && --depth == 0) {
                return k > 0 && (toks.get(k - 1).equals("from") || toks.get(k - 1).equals("join"))
                        && k + 1 < toks.size() && toks.get(k + 1).equals("select");
            }
        }
        return false;
    }

    private static int matching(List<String> toks, int open) {
        int depth = 0;
        for (int k = open; k < toks.size(); k++) {
            if (toks.get(k).equals("(")) depth++;
            else if (toks.get(k).equals(")") && --depth == 0) return k;
        }
        return -1;
    }

    private static boolean isString(String t) {
        return t.startsWith("\"");
    }

    /** A column name as parse_col may read it: a word or alias.word, not a number or a string. */
    private static boolean isName(String t) {
        return t.matches("[a-z_][a-z0-9_]*(\\.[a-z_][a-z0-9_]*)?");
    }

    /**
     * The official tokens (approximately); a comment is one {@link #COMMENT} token, a backquoted name one token
     * starting with a backquote.
     */
    static List<String> tokens(String sql) {
        List<String> out = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                // the official turns ' into " and pairs quotes in order of appearance
                int end = i + 1;
                while (end < sql.length() && sql.charAt(end) != '\'' && sql.charAt(end) != '"') end++;
                flush(word, out);
                out.add("\"" + sql.substring(i + 1, Math.min(end, sql.length())) + "\"");
                i = end + 1;
                continue;
            }
            boolean line = c == '#' || (c == '-' && i + 1 < sql.length() && sql.charAt(i + 1) == '-');
            if (line || (c == '/' && i + 1 < sql.length() && sql.charAt(i + 1) == '*')) {
                flush(word, out);
                out.add(COMMENT);
                int end = line ? sql.indexOf('\n', i) : sql.indexOf("*/", i + 2);
                i = end < 0 ? sql.length() : end + (line ? 1 : 2);
                continue;
            }
            if (c == '`') {
                flush(word, out);
                int end = sql.indexOf('`', i + 1);
                end = end < 0 ? sql.length() : end + 1;
                out.add(sql.substring(i, end).toLowerCase(Locale.ROOT));
                i = end;
                continue;
            }
            if (Character.isWhitespace(c)) {
                flush(word, out);
            } else if (c == '(' || c == ')' || c == ',' || c == ';') {
                flush(word, out);
                out.add(String.valueOf(c));
            } else {
                word.append(c);
            }
            i++;
        }
        flush(word, out);
        return out;
    }

    private static void flush(StringBuilder word, List<String> out) {
        if (!word.isEmpty()) out.add(word.toString().toLowerCase(Locale.ROOT));
        word.setLength(0);
    }
}
