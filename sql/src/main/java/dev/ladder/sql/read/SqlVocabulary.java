package dev.ladder.sql.read;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.SqlToken;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The one list of SQL words every reader of a query uses: aggregates, ranking windows, clause words, keywords that
 * are never column references, select modifiers, comparison operators, and the post-processor's reserved words and
 * function names. Words are upper case.
 *
 * <p>Aggregates come per dialect ({@link #aggregates(Dialect)}); a reader that judges what a model <em>meant</em>
 * (the agent, the scorers, the taxonomy) uses {@link #AGGREGATES}, the union of every dialect's names: a model that
 * writes {@code LISTAGG} against MySQL meant an aggregate, and whether it runs is the database's verdict, not the
 * reader's.
 */
public final class SqlVocabulary {

    private SqlVocabulary() {}

    /** Aggregates MySQL 8 and MariaDB know ({@code MEDIAN} is MariaDB's, as a window function). */
    public static final Set<String> MYSQL_AGGREGATES = Set.of(
            "COUNT", "SUM", "AVG", "MIN", "MAX", "GROUP_CONCAT", "STD", "STDDEV", "STDDEV_POP", "STDDEV_SAMP",
            "VARIANCE", "VAR_POP", "VAR_SAMP", "BIT_AND", "BIT_OR", "BIT_XOR", "JSON_ARRAYAGG", "JSON_OBJECTAGG",
            "MEDIAN");

    /** Aggregates SQLite knows. */
    public static final Set<String> SQLITE_AGGREGATES = Set.of(
            "COUNT", "SUM", "AVG", "MIN", "MAX", "GROUP_CONCAT", "TOTAL", "STRING_AGG", "JSON_GROUP_ARRAY",
            "JSON_GROUP_OBJECT");

    /** Every dialect's aggregates plus other servers' names a model may write (PostgreSQL, Oracle). */
    public static final Set<String> AGGREGATES = union(MYSQL_AGGREGATES, SQLITE_AGGREGATES, Set.of(
            "LISTAGG", "ARRAY_AGG", "BOOL_AND", "BOOL_OR", "EVERY"));

    /** The aggregates Spider's evaluator knows (its AGG_OPS without "none"), in a fixed order: edits iterate it. */
    public static final List<String> SPIDER_AGGREGATES = List.of("MIN", "MAX", "SUM", "AVG", "COUNT");

    /** Window functions that rank rows (top rows per group). */
    public static final Set<String> RANKING_WINDOWS = Set.of("ROW_NUMBER", "RANK", "DENSE_RANK");

    /** Words that start a clause of a query. */
    public static final Set<String> CLAUSE_STARTS = Set.of(
            "SELECT", "FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "OFFSET", "FETCH", "WINDOW", "QUALIFY",
            "UNION", "INTERSECT", "EXCEPT", "MINUS");

    public static final Set<String> SET_OPERATIONS = Set.of("UNION", "INTERSECT", "EXCEPT", "MINUS");

    /** Words between SELECT and its first item (DISTINCT and DISTINCTROW included). */
    public static final Set<String> SELECT_MODIFIERS = Set.of(
            "ALL", "DISTINCT", "DISTINCTROW", "HIGH_PRIORITY", "STRAIGHT_JOIN", "SQL_SMALL_RESULT",
            "SQL_BIG_RESULT", "SQL_BUFFER_RESULT", "SQL_NO_CACHE", "SQL_CACHE", "SQL_CALC_FOUND_ROWS");

    public static final Set<String> COMPARISONS = Set.of("=", "<>", "!=", "<", ">", "<=", ">=", "<=>");

    /** Words that are never a column reference inside an expression (keywords, units, type names). */
    public static final Set<String> NOT_COLUMNS = Set.of(
            "AS", "CASE", "WHEN", "THEN", "ELSE", "END", "NULL", "AND", "OR", "NOT", "XOR", "IS", "IN", "LIKE",
            "RLIKE", "REGEXP", "GLOB", "BETWEEN", "DISTINCT", "DISTINCTROW", "ALL", "ANY", "SOME", "EXISTS",
            "INTERVAL", "TRUE", "FALSE", "UNKNOWN", "DIV", "MOD", "ESCAPE", "COLLATE", "BINARY", "SEPARATOR",
            "OVER", "PARTITION", "BY", "ORDER", "ASC", "DESC", "ROWS", "RANGE", "UNBOUNDED", "PRECEDING",
            "FOLLOWING", "CURRENT", "ROW", "FILTER", "WHERE", "FROM", "FOR", "USING", "NULLS", "FIRST", "LAST",
            "LEADING", "TRAILING", "BOTH", "MICROSECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH",
            "QUARTER", "YEAR", "DAY_SECOND", "DAY_MINUTE", "DAY_HOUR", "YEAR_MONTH", "HOUR_MINUTE", "HOUR_SECOND",
            "MINUTE_SECOND", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP",
            "UTC_DATE", "UTC_TIME", "UTC_TIMESTAMP", "SIGNED", "UNSIGNED", "INTEGER", "INT", "BIGINT", "DECIMAL",
            "NUMERIC", "CHAR", "VARCHAR", "TEXT", "REAL", "FLOAT", "DOUBLE", "DATE", "DATETIME", "TIME",
            "TIMESTAMP", "CHARACTER", "SET", "PRECISION");

    /** Words that end a table reference in a FROM clause rather than alias it. */
    public static final Set<String> TABLE_REFERENCE_ENDS = Set.of(
            "JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "NATURAL", "STRAIGHT_JOIN", "OUTER", "ON", "USING",
            "WHERE", "GROUP", "ORDER", "LIMIT", "HAVING", "WINDOW", "UNION", "INTERSECT", "EXCEPT", "USE", "FORCE",
            "IGNORE", "PARTITION", "LATERAL", "AS");

    /** Words after which the FROM list of the current query is over. */
    public static final Set<String> FROM_LIST_ENDS = Set.of(
            "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "EXCEPT", "INTERSECT", "WINDOW", "SELECT");

    /**
     * Reserved words: they cannot be unquoted column names in MySQL, so the post-processor upper-cases them wherever
     * they stand as a word.
     */
    public static final Set<String> RESERVED = Set.of(
            "ALL", "AND", "AS", "ASC", "BETWEEN", "BY", "CASE", "COLLATE", "CROSS", "CURRENT_DATE", "CURRENT_TIME",
            "CURRENT_TIMESTAMP", "DESC", "DISTINCT", "DISTINCTROW", "DIV", "ELSE", "EXCEPT", "EXISTS", "FALSE",
            "FROM", "GLOB", "GROUP", "HAVING", "IN", "INNER", "INTERSECT", "INTERVAL", "IS", "JOIN", "LEFT", "LIKE",
            "LIMIT", "NATURAL", "NOT", "NULL", "ON", "OR", "ORDER", "OUTER", "OVER", "PARTITION", "RECURSIVE",
            "REGEXP", "RIGHT", "RLIKE", "SELECT", "STRAIGHT_JOIN", "THEN", "TRUE", "UNION", "USING", "WHEN", "WHERE",
            "WINDOW", "WITH", "XOR");

    /** Function names of both dialects (a column may share one: they are SQL only right before {@code (}). */
    public static final Set<String> FUNCTIONS = Set.of(
            "ABS", "ANY", "AVG", "CAST", "CEIL", "CEILING", "CHAR_LENGTH", "COALESCE", "CONCAT", "CONCAT_WS",
            "CONVERT", "COUNT", "CURDATE", "CURTIME", "DATE", "DATEDIFF", "DATETIME", "DATE_ADD", "DATE_FORMAT",
            "DATE_SUB", "DAY", "DAYNAME", "DAYOFMONTH", "DAYOFWEEK", "DENSE_RANK", "EXTRACT", "FIRST_VALUE", "FLOOR",
            "FORMAT", "GREATEST", "GROUP_CONCAT", "HOUR", "IF", "IFNULL", "IIF", "INSTR", "JULIANDAY", "LAG",
            "LAST_VALUE", "LCASE", "LEAD", "LEAST", "LENGTH", "LOCATE", "LOWER", "LTRIM", "MAX", "MIN", "MINUTE",
            "MOD", "MONTH", "MONTHNAME", "NOW", "NTILE", "NULLIF", "POSITION", "POW", "POWER", "PRINTF", "QUARTER",
            "RANK", "REPLACE", "ROUND", "ROW_NUMBER", "RTRIM", "SECOND", "SOME", "SQRT", "STDDEV", "STRFTIME",
            "STR_TO_DATE", "SUBSTR", "SUBSTRING", "SUM", "TIME", "TIMESTAMPDIFF", "TOTAL", "TRIM", "TRUNCATE",
            "UCASE", "UPPER", "VARIANCE", "WEEK", "YEAR");

    /** Further words that are SQL in a query but may also be column names (types, frame words, units). */
    public static final Set<String> OTHER_SQL = Set.of(
            "BINARY", "CHAR", "CURRENT", "DATE", "DECIMAL", "DOUBLE", "END", "ESCAPE", "FIRST", "FLOAT",
            "FOLLOWING", "FULL", "INT", "INTEGER", "LAST", "LATERAL", "NULLS", "NUMERIC", "OFFSET", "PRECEDING",
            "RANGE", "REAL", "ROLLUP", "ROW", "ROWS", "SEPARATOR", "SIGNED", "TEXT", "TIMESTAMP", "UNBOUNDED",
            "UNSIGNED", "VARCHAR");

    /** Keywords after which a statement cannot end. */
    public static final Set<String> DANGLING = Set.of(
            "ALL", "AND", "ANY", "AS", "BETWEEN", "BY", "CASE", "COLLATE", "CROSS", "DISTINCT", "DISTINCTROW", "DIV",
            "ELSE", "ESCAPE", "EXCEPT", "EXISTS", "FROM", "FULL", "GLOB", "GROUP", "HAVING", "IN", "INNER",
            "INTERSECT", "INTERVAL", "IS", "JOIN", "LEFT", "LIKE", "LIMIT", "NATURAL", "NOT", "OFFSET", "ON", "OR",
            "ORDER", "OUTER", "OVER", "PARTITION", "RECURSIVE", "REGEXP", "RIGHT", "RLIKE", "SELECT", "SOME",
            "STRAIGHT_JOIN", "THEN", "UNION", "USING", "WHEN", "WHERE", "WINDOW", "WITH", "XOR");

    private static final Set<String> SQL_WORDS = union(RESERVED, FUNCTIONS, OTHER_SQL, DANGLING);

    /** The aggregates a server of this dialect knows. */
    public static Set<String> aggregates(Dialect dialect) {
        return dialect == Dialect.SQLITE ? SQLITE_AGGREGATES : MYSQL_AGGREGATES;
    }

    /** Any word known as SQL (reserved word, function, type, clause word). */
    public static boolean isSqlWord(String word) {
        return SQL_WORDS.contains(upper(word));
    }

    public static boolean isReserved(SqlToken t) {
        return t.type() == SqlToken.Type.WORD && RESERVED.contains(upper(t.text()));
    }

    /** A word token that is in {@code words}. */
    public static boolean is(SqlToken t, Set<String> words) {
        return t != null && t.type() == SqlToken.Type.WORD && words.contains(upper(t.text()));
    }

    /** An aggregate name of any dialect ({@link #AGGREGATES}). */
    public static boolean isAggregate(SqlToken t) {
        return is(t, AGGREGATES);
    }

    /**
     * The operator of a comparison with its operands swapped ({@code a < b} is {@code b > a}); symmetric operators
     * are themselves. The schema binder and exact match both put the column side first with it.
     */
    public static String mirrored(String op) {
        return switch (op) {
            case ">" -> "<";
            case "<" -> ">";
            case ">=" -> "<=";
            case "<=" -> ">=";
            default -> op;
        };
    }

    public static String upper(String word) {
        return word.toUpperCase(Locale.ROOT);
    }

    @SafeVarargs
    private static Set<String> union(Set<String>... sets) {
        Set<String> all = new HashSet<>();
        for (Set<String> s : sets) all.addAll(s);
        return Set.copyOf(all);
    }
}
