package dev.ladder.pipeline.sql.post;

import dev.ladder.pipeline.sql.SqlToken;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * The fixed word lists of the post-processor. Only words that cannot be unquoted column names in MySQL (reserved
 * words) are upper-cased everywhere; function names only right before {@code (}, where no column name can stand, so
 * a column called {@code date} or {@code count} is never touched.
 */
final class SqlWords {

    /** Reserved words upper-cased wherever they stand as a word (never next to a dot). */
    static final Set<String> KEYWORDS = Set.of(
            "ALL", "AND", "AS", "ASC", "BETWEEN", "BY", "CASE", "COLLATE", "CROSS", "CURRENT_DATE", "CURRENT_TIME",
            "CURRENT_TIMESTAMP", "DESC", "DISTINCT", "DISTINCTROW", "DIV", "ELSE", "EXCEPT", "EXISTS", "FALSE",
            "FROM", "GLOB", "GROUP", "HAVING", "IN", "INNER", "INTERSECT", "INTERVAL", "IS", "JOIN", "LEFT", "LIKE",
            "LIMIT", "NATURAL", "NOT", "NULL", "ON", "OR", "ORDER", "OUTER", "OVER", "PARTITION", "RECURSIVE",
            "REGEXP", "RIGHT", "RLIKE", "SELECT", "STRAIGHT_JOIN", "THEN", "TRUE", "UNION", "USING", "WHEN", "WHERE",
            "WINDOW", "WITH", "XOR");

    /** Function names upper-cased only when the next token is {@code (}. */
    static final Set<String> FUNCTIONS = Set.of(
            "ABS", "ANY", "AVG", "CAST", "CEIL", "CEILING", "CHAR_LENGTH", "COALESCE", "CONCAT", "CONCAT_WS",
            "CONVERT", "COUNT", "CURDATE", "CURTIME", "DATE", "DATEDIFF", "DATETIME", "DATE_ADD", "DATE_FORMAT",
            "DATE_SUB", "DAY", "DAYNAME", "DAYOFMONTH", "DAYOFWEEK", "DENSE_RANK", "EXTRACT", "FIRST_VALUE", "FLOOR",
            "FORMAT", "GREATEST", "GROUP_CONCAT", "HOUR", "IF", "IFNULL", "IIF", "INSTR", "JULIANDAY", "LAG",
            "LAST_VALUE", "LCASE", "LEAD", "LEAST", "LENGTH", "LOCATE", "LOWER", "LTRIM", "MAX", "MIN", "MINUTE",
            "MOD", "MONTH", "MONTHNAME", "NOW", "NTILE", "NULLIF", "POSITION", "POW", "POWER", "PRINTF", "QUARTER",
            "RANK", "REPLACE", "ROUND", "ROW_NUMBER", "RTRIM", "SECOND", "SOME", "SQRT", "STDDEV", "STRFTIME",
            "STR_TO_DATE", "SUBSTR", "SUBSTRING", "SUM", "TIME", "TIMESTAMPDIFF", "TOTAL", "TRIM", "TRUNCATE",
            "UCASE", "UPPER", "VARIANCE", "WEEK", "YEAR");

    /**
     * Further words that are SQL in a query but may also be column names: never upper-cased, but a line made of
     * them is not prose.
     */
    private static final Set<String> OTHER_SQL = Set.of(
            "BINARY", "CHAR", "CURRENT", "DATE", "DECIMAL", "DOUBLE", "END", "ESCAPE", "FIRST", "FLOAT",
            "FOLLOWING", "FULL", "INT", "INTEGER", "LAST", "LATERAL", "NULLS", "NUMERIC", "OFFSET", "PRECEDING",
            "RANGE", "REAL", "ROLLUP", "ROW", "ROWS", "SEPARATOR", "SIGNED", "TEXT", "TIMESTAMP", "UNBOUNDED",
            "UNSIGNED", "VARCHAR");

    /** Keywords after which a statement cannot end. */
    static final Set<String> DANGLING = Set.of(
            "ALL", "AND", "ANY", "AS", "BETWEEN", "BY", "CASE", "COLLATE", "CROSS", "DISTINCT", "DISTINCTROW", "DIV",
            "ELSE", "ESCAPE", "EXCEPT", "EXISTS", "FROM", "FULL", "GLOB", "GROUP", "HAVING", "IN", "INNER",
            "INTERSECT", "INTERVAL", "IS", "JOIN", "LEFT", "LIKE", "LIMIT", "NATURAL", "NOT", "OFFSET", "ON", "OR",
            "ORDER", "OUTER", "OVER", "PARTITION", "RECURSIVE", "REGEXP", "RIGHT", "RLIKE", "SELECT", "SOME",
            "STRAIGHT_JOIN", "THEN", "UNION", "USING", "WHEN", "WHERE", "WINDOW", "WITH", "XOR");

    /** Operators and punctuation after which a statement cannot end ({@code *} is decided by context). */
    private static final Set<String> DANGLING_SYMBOLS = Set.of(
            ",", "(", ".", "=", "<", ">", "<=", ">=", "<>", "!=", "<=>", "+", "-", "/", "%", "||", "&&", "|", "&",
            "^", "!", "~", "<<", ">>", ":=", "::", "->", "->>", ":");

    /** Words after which the FROM list of the current query is over. */
    static final Set<String> FROM_LIST_ENDS = Set.of(
            "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "EXCEPT", "INTERSECT", "WINDOW", "SELECT");

    private static final Set<String> SQL_WORDS = new HashSet<>();

    static {
        SQL_WORDS.addAll(KEYWORDS);
        SQL_WORDS.addAll(FUNCTIONS);
        SQL_WORDS.addAll(OTHER_SQL);
        SQL_WORDS.addAll(DANGLING);
    }

    private SqlWords() {}

    static String upper(String word) {
        return word.toUpperCase(Locale.ROOT);
    }

    static boolean isKeyword(SqlToken t) {
        return t.type() == SqlToken.Type.WORD && KEYWORDS.contains(upper(t.text()));
    }

    /** Any word the post-processor knows as SQL (keyword, function, type, clause word). */
    static boolean isSqlWord(String word) {
        return SQL_WORDS.contains(upper(word));
    }

    /** A plain identifier: an unquoted word that is no SQL keyword, or a quoted identifier. */
    static boolean isIdentifier(SqlToken t) {
        return (t.type() == SqlToken.Type.WORD && !KEYWORDS.contains(upper(t.text())))
                || t.type() == SqlToken.Type.QUOTED_IDENTIFIER;
    }

    static boolean isQueryStart(SqlToken t) {
        return t != null && (t.isWord("SELECT") || t.isWord("WITH"));
    }

    /**
     * What a statement ending in {@code last} (preceded by {@code before}, may be null) leaves dangling, in words for a
     * rejection; null when it may end there.
     */
    static String dangling(SqlToken last, SqlToken before) {
        if (last == null) return null;
        if (last.type() == SqlToken.Type.WORD && DANGLING.contains(upper(last.text()))) return upper(last.text());
        if (last.type() != SqlToken.Type.SYMBOL) return null;
        String s = last.text();
        if (s.equals(",")) return "comma";
        if (s.equals("(")) return "open parenthesis";
        if (s.equals("*")) {
            // "SELECT *" and "t.*" are complete; "price *" is a multiplication missing its operand
            return before != null && isOperand(before) ? "operator '*'" : null;
        }
        if (s.equals(".")) return "'.'";
        return DANGLING_SYMBOLS.contains(s) ? "operator '" + s + "'" : null;
    }

    private static boolean isOperand(SqlToken t) {
        return switch (t.type()) {
            case NUMBER, STRING, QUOTED_IDENTIFIER, VARIABLE -> true;
            case WORD -> !KEYWORDS.contains(upper(t.text())) && !DANGLING.contains(upper(t.text()));
            case SYMBOL -> t.text().equals(")");
            default -> false;
        };
    }
}
