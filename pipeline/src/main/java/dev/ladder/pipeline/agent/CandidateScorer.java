package dev.ladder.pipeline.agent;

import dev.ladder.pipeline.agent.SchemaSubset.Lexicon;
import dev.ladder.pipeline.db.Dialect;
import dev.ladder.pipeline.db.Execution;
import dev.ladder.pipeline.db.ForeignKey;
import dev.ladder.pipeline.db.QueryResult;
import dev.ladder.pipeline.db.Schema;
import dev.ladder.pipeline.db.Table;
import dev.ladder.pipeline.sql.SqlLexer;
import dev.ladder.pipeline.sql.SqlToken;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.AllValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.Fetch;
import net.sf.jsqlparser.statement.select.Limit;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperationList;

/**
 * Scores an executed candidate against the question: an intent gate on the SQL's outermost structure, then six
 * parts in [0, 1] (execution, intent, question relevance, projection, result shape, simplicity) and their weighted
 * sum. Purely lexical and structural: nothing here talks to the database or a model, and nothing throws on bad SQL.
 */
public final class CandidateScorer {
    /**
     * @param total            the weighted sum of the parts (higher is better)
     * @param parts            each criterion's score, by name, in a fixed order
     * @param passesIntentGate the SQL's structure fits the intent (see the gate rules)
     * @param reasons          why points were lost or the gate failed, in words
     */
    public record CandidateScore(double total, Map<String, Double> parts, boolean passesIntentGate,
                                 List<String> reasons) {
        public CandidateScore {
            parts = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(parts));
            reasons = List.copyOf(reasons);
        }
    }

    /** Part names, in the order {@link CandidateScore#parts()} lists them. */
    static final List<String> PARTS =
            List.of("executes", "intent", "relevance", "projection", "result-shape", "simplicity");
    /** Weights of {@link #PARTS}, same order; they sum to 1 so the total is in [0, 1]. */
    static final List<Double> WEIGHTS = List.of(0.25, 0.25, 0.20, 0.10, 0.15, 0.05);

    private static final Set<String> AGGREGATES = Set.of(
            "COUNT", "SUM", "AVG", "MIN", "MAX", "GROUP_CONCAT", "STRING_AGG", "LISTAGG", "ARRAY_AGG",
            "JSON_ARRAYAGG", "JSON_OBJECTAGG", "JSON_GROUP_ARRAY", "JSON_GROUP_OBJECT", "TOTAL", "STD", "STDDEV",
            "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP", "BIT_AND", "BIT_OR", "BIT_XOR",
            "MEDIAN", "BOOL_AND", "BOOL_OR", "EVERY");

    /** Words that are never a column reference inside an expression (keywords, units, type names). */
    private static final Set<String> KEYWORDS = Set.of(
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

    /** Words that start a clause of a query (the lexical fallback splits on them at the query's own level). */
    private static final Set<String> CLAUSES = Set.of(
            "SELECT", "FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "OFFSET", "FETCH", "WINDOW", "QUALIFY",
            "UNION", "INTERSECT", "EXCEPT", "MINUS");
    private static final Set<String> SET_OPERATIONS = Set.of("UNION", "INTERSECT", "EXCEPT", "MINUS");
    private static final Set<String> SELECT_MODIFIERS = Set.of(
            "ALL", "DISTINCT", "DISTINCTROW", "HIGH_PRIORITY", "STRAIGHT_JOIN", "SQL_SMALL_RESULT",
            "SQL_BIG_RESULT", "SQL_BUFFER_RESULT", "SQL_NO_CACHE", "SQL_CACHE", "SQL_CALC_FOUND_ROWS");
    private static final Set<String> COMPARISONS = Set.of("=", "<>", "!=", "<", ">", "<=", ">=", "<=>");
    /** Month and day names: questions spell them, SQL writes dates as numbers, so they are not value words. */
    private static final Set<String> CALENDAR = Set.of(
            "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
            "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday");
    private static final Pattern NUMBER = Pattern.compile("\\d+(?:,\\d{3})*(?:\\.\\d+)?");

    private CandidateScorer() {}

    public static CandidateScore score(String question, IntentProfile intent, String sql, Schema schema,
                                       Execution execution) {
        Objects.requireNonNull(intent, "intent");
        Objects.requireNonNull(schema, "schema");
        String q = question == null ? "" : question;
        Query query = Query.of(sql);
        List<String> reasons = new ArrayList<>();
        String gateFailure = gateFailure(intent, query);
        if (gateFailure != null) reasons.add("intent gate: " + gateFailure);

        double[] parts = {
            executes(execution, reasons),
            intentPart(intent, query, gateFailure, reasons),
            relevance(q, schema, query, reasons),
            projection(intent, query, reasons),
            resultShape(q, intent, execution, reasons),
            simplicity(intent, query, reasons)
        };
        Map<String, Double> named = new LinkedHashMap<>();
        double total = 0;
        for (int i = 0; i < parts.length; i++) {
            double p = round(Math.max(0, Math.min(1, parts[i])));
            named.put(PARTS.get(i), p);
            total += WEIGHTS.get(i) * p;
        }
        return new CandidateScore(round(total), named, gateFailure == null, reasons);
    }

    /** The intent gate alone (used for repairs and for scoring). */
    public static boolean passesIntentGate(IntentProfile intent, String sql) {
        return intentGateFailure(intent, sql).isEmpty();
    }

    /** Why {@code sql} fails the intent gate, or empty when it passes (for reports: {@code ladder bench gate-check}). */
    public static Optional<String> intentGateFailure(IntentProfile intent, String sql) {
        return Optional.ofNullable(gateFailure(Objects.requireNonNull(intent, "intent"), Query.of(sql)));
    }

    // ------------------------------------------------------------------ the gate

    /** Why the SQL's outermost structure does not fit the intent, or null when it does. */
    static String gateFailure(IntentProfile intent, Query q) {
        Shape s = q.shape();
        if (s.items().isEmpty()) return "no SELECT list found";
        List<Facts> items = s.items().stream().map(CandidateScorer::facts).toList();
        boolean aggregateInSelect = items.stream().anyMatch(Facts::aggregate);
        boolean onlyAggregates = !s.star() && items.stream().allMatch(f -> f.aggregate() && !f.column());
        Integer n = intent.limitN();
        switch (intent.intent()) {
            case AGGREGATE -> {
                // a GROUP BY that only splits the asked-for value fails; one with HAVING uses the aggregate as a
                // condition on groups ("which lines hold more than 100,000 units altogether"), which fits
                if (s.groupBy() && s.having().isBlank()) {
                    return "AGGREGATE wants one value over all matching rows, GROUP BY gives one per group";
                }
                boolean scalarSubqueries = !s.from() && items.stream().noneMatch(Facts::column)
                        && items.stream().anyMatch(Facts::subquery);
                // the aggregate may also sit in a subquery or CTE the outer query filters or joins on
                if (!aggregateInSelect && !scalarSubqueries && !aggregateAnywhere(q)) {
                    return "AGGREGATE wants an aggregate function";
                }
            }
            case GROUPED_AGGREGATE -> {
                boolean elsewhere = facts(s.having()).aggregate()
                        || s.orderBy().stream().anyMatch(o -> facts(o).aggregate());
                if (s.groupBy()) {
                    if (!aggregateInSelect && !elsewhere) {
                        return "GROUPED_AGGREGATE wants an aggregate in SELECT, HAVING or ORDER BY";
                    }
                } else if (!groupingAnywhere(q)) {
                    // per-group values can also come from a window (PARTITION BY), a grouped subquery or a
                    // correlated aggregate subquery; with none of these there is no group at all
                    return "GROUPED_AGGREGATE wants GROUP BY (or a window or grouped subquery)";
                }
            }
            case TOP_K -> {
                boolean singleBest = n == null || n == 1;
                if (!s.orderBy().isEmpty() && s.limit()) {
                    if (n != null && (s.limitCount() == null || s.limitCount() != n.longValue())) {
                        return "TOP_K wants LIMIT " + n + ", found "
                                + (s.limitCount() == null ? "a limit that is not a number" : "LIMIT " + s.limitCount());
                    }
                } else if (!(singleBest && (extremeFilter(s) || extremeValue(intent, s, items) || nestedTopOne(q))
                        || n == null && rankingWindow(q))) {
                    return s.orderBy().isEmpty() ? "TOP_K wants ORDER BY with LIMIT" : "TOP_K wants a LIMIT";
                }
            }
            case LOOKUP -> {
                if (onlyAggregates && !s.groupBy()) {
                    boolean superlative = intent.wantsLimit() && (n == null || n == 1)
                            && items.stream().allMatch(Facts::onlyMinMax);
                    if (!superlative) return "LOOKUP wants rows, the SELECT list is only aggregates";
                }
            }
        }
        return null;
    }

    /** An aggregate function call anywhere in the statement (subqueries and CTE bodies included). */
    private static boolean aggregateAnywhere(Query q) {
        List<SqlToken> t = q.tokens();
        for (int i = 0; i + 1 < t.size(); i++) {
            if (t.get(i).type() == SqlToken.Type.WORD && AGGREGATES.contains(upper(t.get(i))) && t.get(i + 1).isSymbol("(")
                    && !windowed(t, i + 1)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the call whose argument list opens at {@code open} is a window ({@code ... ) OVER}). */
    private static boolean windowed(List<SqlToken> t, int open) {
        int depth = 0;
        for (int i = open; i < t.size(); i++) {
            if (t.get(i).isSymbol("(")) depth++;
            else if (t.get(i).isSymbol(")") && --depth == 0) return i + 1 < t.size() && t.get(i + 1).isWord("OVER");
        }
        return false;
    }

    /** GROUP BY at any depth, a window ({@code OVER}), or an aggregate inside a subquery. */
    private static boolean groupingAnywhere(Query q) {
        List<SqlToken> t = q.tokens();
        int depth = 0;
        for (int i = 0; i < t.size(); i++) {
            SqlToken tok = t.get(i);
            if (tok.isSymbol("(")) depth++;
            else if (tok.isSymbol(")")) depth--;
            else if (tok.isWord("GROUP") && i + 1 < t.size() && t.get(i + 1).isWord("BY")) return true;
            else if (tok.isWord("OVER")) return true;
            else if (depth > 0 && tok.type() == SqlToken.Type.WORD && AGGREGATES.contains(upper(tok))
                    && i + 1 < t.size() && t.get(i + 1).isSymbol("(")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The extreme value itself: a SELECT list of MIN/MAX only, no GROUP BY ("the date of the most recent order"); only
     * when the question names no field to return, since "the name of the most expensive product" wants the row.
     */
    private static boolean extremeValue(IntentProfile intent, Shape s, List<Facts> items) {
        return intent.namedFields().isEmpty() && !s.groupBy() && !s.setOperation() && !items.isEmpty()
                && items.stream().allMatch(Facts::onlyMinMax);
    }

    /** A subquery that picks the top row ({@code ORDER BY ... LIMIT 1}), used as a filter. */
    private static boolean nestedTopOne(Query q) {
        List<SqlToken> t = q.tokens();
        int depth = 0;
        boolean orderInside = false;
        for (int i = 0; i < t.size(); i++) {
            SqlToken tok = t.get(i);
            if (tok.isSymbol("(")) depth++;
            else if (tok.isSymbol(")")) depth--;
            else if (depth > 0 && tok.isWord("ORDER")) orderInside = true;
            else if (depth > 0 && orderInside && tok.isWord("LIMIT") && i + 1 < t.size()
                    && t.get(i + 1).text().equals("1")) {
                return true;
            }
        }
        return false;
    }

    /** A ranking window (ROW_NUMBER / RANK / DENSE_RANK ... OVER): top rows per group. */
    private static boolean rankingWindow(Query q) {
        for (SqlToken tok : q.tokens()) {
            if (tok.isWord("ROW_NUMBER") || tok.isWord("RANK") || tok.isWord("DENSE_RANK")) return true;
        }
        return false;
    }

    /**
     * A WHERE or HAVING that keeps the rows at the extreme: {@code x = (SELECT MAX(x) ...)} (also MIN, IN, or the
     * subquery on the left) or {@code x >= ALL (SELECT ...)}; the top-1 form that keeps ties.
     */
    private static boolean extremeFilter(Shape s) {
        for (String text : List.of(s.where(), s.having())) {
            List<SqlToken> t = tokens(text);
            for (int i = 0; i + 1 < t.size(); i++) {
                if (!t.get(i).isSymbol("(") || !t.get(i + 1).isWord("SELECT")) continue;
                SqlToken before = i > 0 ? t.get(i - 1) : null;
                if (before != null && before.isWord("ALL") && i > 1
                        && (t.get(i - 2).isSymbol(">=") || t.get(i - 2).isSymbol("<="))) return true;
                int f = i + 2 < t.size() && (t.get(i + 2).isWord("DISTINCT") || t.get(i + 2).isWord("ALL")) ? i + 3 : i + 2;
                if (f + 1 >= t.size() || !(t.get(f).isWord("MAX") || t.get(f).isWord("MIN"))
                        || !t.get(f + 1).isSymbol("(")) continue;
                int close = close(t, i);
                SqlToken after = close + 1 < t.size() ? t.get(close + 1) : null;
                if (before != null && (before.isSymbol("=") || before.isWord("IN"))) return true;
                if (after != null && after.isSymbol("=")) return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ the parts

    private static double executes(Execution execution, List<String> reasons) {
        if (execution == null) {
            reasons.add("executes: not executed");
            return 0;
        }
        if (execution instanceof Execution.Failure f) {
            reasons.add("executes: failed (" + f.error() + ")");
            return 0;
        }
        QueryResult r = ((Execution.Success) execution).result();
        if (r.rows().isEmpty()) {
            reasons.add("executes: no rows returned");
            return 0.5;
        }
        if (onlyNulls(r)) {
            reasons.add("executes: one row of NULLs returned");
            return 0.5;
        }
        return 1;
    }

    private static double intentPart(IntentProfile intent, Query q, String gateFailure, List<String> reasons) {
        if (gateFailure != null) return 0;
        Shape s = q.shape();
        Intent kind = intent.intent();
        List<String> misses = new ArrayList<>();
        if (intent.wantsOrder() && kind != Intent.AGGREGATE && s.orderBy().isEmpty()) {
            misses.add("the question asks for an order but there is no ORDER BY");
        }
        if (intent.wantsDistinct() && !q.anyDistinct() && !s.groupBy()) {
            misses.add("the question asks for distinct values but there is no DISTINCT or GROUP BY");
        }
        if (intent.wantsGrouping() && kind != Intent.AGGREGATE && !s.groupBy()) {
            misses.add("the question asks for a result per group but there is no GROUP BY");
        }
        if (intent.wantsLimit() && intent.limitN() != null && (kind == Intent.LOOKUP || kind == Intent.GROUPED_AGGREGATE)
                && !s.limit() && !extremeFilter(s)) {
            misses.add("the question asks for " + intent.limitN() + " rows but there is no LIMIT");
        }
        for (String m : misses) reasons.add("intent: " + m);
        return Math.max(0.25, 1 - 0.25 * misses.size());
    }

    /**
     * Half precision, half coverage. Precision: the mean support of what the SQL uses — each schema table (by its
     * name, or by the best-supported column of it the SQL uses), each schema column except foreign-key columns
     * between two used tables when the SQL joins or nests (join plumbing), and each string literal. Coverage: the share of the question's schema words and value words the SQL covers.
     */
    private static double relevance(String question, Schema schema, Query q, List<String> reasons) {
        Lexicon lex = Lexicon.of(schema);
        Set<String> words = new HashSet<>(Lexicon.questionWords(question));
        String questionLower = question.toLowerCase(Locale.ROOT);
        Set<String> questionTokens = new HashSet<>();
        for (String w : questionLower.split("[^\\p{L}\\p{N}]+")) {
            if (!w.isEmpty()) {
                questionTokens.add(w);
                questionTokens.add(Lexicon.stem(w));
            }
        }
        Set<String> questionNumbers = numbers(question);
        List<SqlToken> t = q.tokens();

        Map<String, Table> tables = new LinkedHashMap<>();
        for (int i = 0; i < t.size(); i++) {
            String name = name(t, i);
            if (name != null) schema.table(name).ifPresent(tab -> tables.putIfAbsent(tab.name().toLowerCase(Locale.ROOT), tab));
        }
        Collection<Table> scope = tables.isEmpty() ? schema.tables() : tables.values();
        Map<String, String> columns = new LinkedHashMap<>();
        for (int i = 0; i < t.size(); i++) {
            String name = name(t, i);
            if (name == null || tables.containsKey(name.toLowerCase(Locale.ROOT))) continue;
            for (Table tab : scope) {
                var col = tab.column(name);
                if (col.isPresent()) {
                    columns.putIfAbsent(name.toLowerCase(Locale.ROOT), col.get().name());
                    break;
                }
            }
        }
        Set<String> joinKeys = new HashSet<>();
        if (q.joins() + q.subqueries() > 0) {
            for (ForeignKey fk : schema.foreignKeys()) {
                if (tables.containsKey(fk.table().toLowerCase(Locale.ROOT))
                        && tables.containsKey(fk.referencedTable().toLowerCase(Locale.ROOT))) {
                    fk.columns().forEach(c -> joinKeys.add(c.toLowerCase(Locale.ROOT)));
                    fk.referencedColumns().forEach(c -> joinKeys.add(c.toLowerCase(Locale.ROOT)));
                }
            }
        }
        // a column compared with a value the question states is supported by that value
        Map<String, Double> byValue = new LinkedHashMap<>();
        for (int i = 0; i < t.size(); i++) {
            String name = name(t, i);
            if (name == null || !columns.containsKey(name.toLowerCase(Locale.ROOT))) continue;
            SqlToken value = comparedValue(t, i);
            if (value == null) continue;
            double s = value.type() == SqlToken.Type.STRING
                    ? literalSupport(unquote(value), questionLower, questionTokens)
                    : questionNumbers.contains(value.text()) ? 1 : 0;
            byValue.merge(name.toLowerCase(Locale.ROOT), s, Math::max);
        }

        List<Double> supports = new ArrayList<>();
        List<String> unsupported = new ArrayList<>();
        for (Table tab : tables.values()) {
            // a table the question does not name is still justified by a column of it the question names
            double s = support(lex.parts(tab.name()), words);
            for (Map.Entry<String, String> c : columns.entrySet()) {
                if (!joinKeys.contains(c.getKey()) && tab.column(c.getValue()).isPresent()) {
                    s = Math.max(s, support(lex.parts(c.getValue()), words));
                }
            }
            supports.add(s);
            if (s == 0) unsupported.add(tab.name());
        }
        for (Map.Entry<String, String> c : columns.entrySet()) {
            if (joinKeys.contains(c.getKey())) continue;
            double s = Math.max(support(lex.parts(c.getValue()), words), byValue.getOrDefault(c.getKey(), 0.0));
            supports.add(s);
            if (s == 0) unsupported.add(c.getValue());
        }
        List<String> literals = new ArrayList<>();
        for (SqlToken tok : t) {
            if (tok.type() != SqlToken.Type.STRING) continue;
            String lit = unquote(tok);
            literals.add(lit.toLowerCase(Locale.ROOT));
            double s = literalSupport(lit, questionLower, questionTokens);
            supports.add(s);
            if (s == 0) unsupported.add("'" + lit + "'");
        }
        double precision = supports.isEmpty() ? 0 : supports.stream().mapToDouble(Double::doubleValue).average().orElse(0);

        Set<String> usedParts = new HashSet<>();
        tables.values().forEach(tab -> usedParts.addAll(lex.parts(tab.name())));
        columns.values().forEach(c -> usedParts.addAll(lex.parts(c)));
        for (String lit : literals) {
            for (String w : lit.split("[^\\p{L}\\p{N}]+")) if (!w.isEmpty()) usedParts.add(Lexicon.stem(w));
        }
        Set<String> sqlNumbers = new HashSet<>();
        for (SqlToken tok : t) if (tok.type() == SqlToken.Type.NUMBER) sqlNumbers.add(tok.text());
        List<String> uncovered = new ArrayList<>();
        int wanted = 0;
        Map<String, String> spelled = new LinkedHashMap<>();
        for (String w : question.split("[^\\p{L}\\p{N}]+")) {
            List<String> stem = Lexicon.questionWords(w);
            if (!stem.isEmpty()) spelled.putIfAbsent(stem.get(0), w.toLowerCase(Locale.ROOT));
        }
        for (String w : spelled.keySet()) {
            if (!lex.vocabulary().contains(w)) continue;
            wanted++;
            if (!usedParts.contains(w)) uncovered.add(spelled.get(w));
        }
        for (String v : questionValues(question, lex)) {
            wanted++;
            if (!valueCovered(v, literals, sqlNumbers)) uncovered.add(v);
        }
        double coverage = wanted == 0 ? 1 : (wanted - uncovered.size()) / (double) wanted;

        if (supports.isEmpty()) reasons.add("relevance: the SQL uses no table, column or value of the schema");
        else if (!unsupported.isEmpty()) {
            reasons.add("relevance: the question does not mention " + String.join(", ", unsupported));
        }
        if (!uncovered.isEmpty()) reasons.add("relevance: the SQL does not cover " + String.join(", ", uncovered));
        return 0.5 * precision + 0.5 * coverage;
    }

    /** The share of an identifier's parts that are question words. */
    private static double support(List<String> parts, Set<String> words) {
        if (parts.isEmpty()) return 0;
        return parts.stream().filter(words::contains).count() / (double) parts.size();
    }

    /**
     * 1 when the literal (without LIKE wildcards) is part of the question; otherwise the share of its words found in
     * the question, where numbers of one or two digits (month and day parts of dates) do not count.
     */
    private static double literalSupport(String literal, String questionLower, Set<String> questionTokens) {
        String text = literal.toLowerCase(Locale.ROOT).replace("%", " ").replace("_", " ").strip();
        if (text.isEmpty()) return 0;
        if (questionLower.contains(text)) return 1;
        List<String> parts = new ArrayList<>();
        for (String w : text.split("[^\\p{L}\\p{N}]+")) {
            if (w.isEmpty() || (w.length() <= 2 && w.chars().allMatch(Character::isDigit))) continue;
            parts.add(w);
        }
        if (parts.isEmpty()) return 0;
        long found = parts.stream().filter(w -> questionTokens.contains(w) || questionTokens.contains(Lexicon.stem(w)))
                .count();
        return found / (double) parts.size();
    }

    /** A value word is covered by a literal that contains it (or its first letters: Australian, 'Australia'). */
    private static boolean valueCovered(String value, List<String> literals, Set<String> sqlNumbers) {
        if (sqlNumbers.contains(value)) return true;
        String prefix = value.length() >= 6 ? value.substring(0, value.length() - 2) : value;
        return literals.stream().anyMatch(l -> l.contains(value) || l.contains(prefix));
    }

    /**
     * Words of the question that name values rather than schema elements: numbers (thousands separators removed),
     * words with letters and digits (codes like S18_3232), all-capital words (USA, EMEA) and capitalised words that
     * do not start a sentence (France, Harley) — unless they are schema words, stop words or month and day names.
     */
    static List<String> questionValues(String question, Lexicon lex) {
        Set<String> out = new LinkedHashSet<>();
        boolean sentenceStart = true;
        for (String chunk : question.strip().split("\\s+")) {
            boolean initial = sentenceStart;
            sentenceStart = chunk.matches(".*[.?!:]['\")]*");
            String w = chunk.replaceAll("^[^\\p{L}\\p{N}]+|[^\\p{L}\\p{N}]+$", "");
            if (w.isEmpty()) continue;
            String lower = w.toLowerCase(Locale.ROOT);
            if (w.chars().anyMatch(Character::isDigit)) {
                if (NUMBER.matcher(w).matches()) out.add(w.replace(",", ""));
                else out.add(lower);
                continue;
            }
            boolean acronym = w.length() >= 2 && w.equals(w.toUpperCase(Locale.ROOT));
            boolean capital = Character.isUpperCase(w.charAt(0));
            if (!acronym && !(capital && !initial)) continue;
            if (lex.vocabulary().contains(Lexicon.stem(lower)) || CALENDAR.contains(lower)) continue;
            if (!acronym && Lexicon.STOPWORDS.contains(lower)) continue;
            for (String part : lower.split("[^\\p{L}\\p{N}]+")) if (part.length() > 1) out.add(part);
        }
        return List.copyOf(out);
    }

    private static Set<String> numbers(String text) {
        Set<String> out = new HashSet<>();
        Matcher m = NUMBER.matcher(text);
        while (m.find()) out.add(m.group().replace(",", ""));
        return out;
    }

    /**
     * 0.6 x presence + 0.2 x order + 0.2 x (1 - extras). Presence: each named field counts 1 in the SELECT list,
     * 0.5 when only elsewhere (a filter or the ranking measure), 0 when absent. Order: the share of pairs of named
     * fields in the SELECT list that keep the question's order. Extras: SELECT items that mention no named field
     * and hold no aggregate, as a share of all items. {@code SELECT *} scores 0.5; no named fields scores 1.
     */
    private static double projection(IntentProfile intent, Query q, List<String> reasons) {
        Shape s = q.shape();
        if (s.items().isEmpty()) return 0;
        if (s.star()) {
            reasons.add("projection: SELECT * instead of the asked-for columns");
            return 0.5;
        }
        List<String> fields = intent.namedFields();
        if (fields.isEmpty()) return 1;
        List<List<SqlToken>> items = s.items().stream().map(CandidateScorer::tokens).toList();
        double presence = 0;
        List<Integer> positions = new ArrayList<>();
        boolean[] mentions = new boolean[items.size()];
        for (String f : fields) {
            int at = -1;
            for (int i = 0; i < items.size(); i++) {
                if (mentions(items.get(i), f)) {
                    mentions[i] = true;
                    if (at < 0) at = i;
                }
            }
            if (at >= 0) {
                presence += 1;
                positions.add(at);
            } else if (mentions(q.tokens(), f)) {
                presence += 0.5;
                reasons.add("projection: " + f + " is used but not selected");
            } else {
                reasons.add("projection: " + f + " is missing");
            }
        }
        int pairs = 0;
        int inOrder = 0;
        for (int i = 0; i < positions.size(); i++) {
            for (int j = i + 1; j < positions.size(); j++) {
                pairs++;
                if (positions.get(i) <= positions.get(j)) inOrder++;
            }
        }
        double order = pairs == 0 ? 1 : inOrder / (double) pairs;
        if (order < 1) reasons.add("projection: the selected fields are not in the question's order");
        int extras = 0;
        for (int i = 0; i < items.size(); i++) {
            if (!mentions[i] && !facts(items.get(i)).aggregate()) extras++;
        }
        if (extras > 0) reasons.add("projection: " + extras + " selected item(s) the question does not name");
        return 0.6 * presence / fields.size() + 0.2 * order + 0.2 * (1 - extras / (double) items.size());
    }

    private static boolean mentions(List<SqlToken> t, String field) {
        for (int i = 0; i < t.size(); i++) {
            String name = name(t, i);
            if (name != null && name.equalsIgnoreCase(field)) return true;
        }
        return false;
    }

    /**
     * Rows against what the intent implies: AGGREGATE one row; GROUPED_AGGREGATE two or more (one: 0.5); TOP_K
     * 1..limitN rows (any number when limitN is unknown); LOOKUP one or more, and exactly one for a singular
     * question (more: 0.5). No rows, a failure or a lone row of NULLs score 0; a result cut at the row cap halves.
     */
    private static double resultShape(String question, IntentProfile intent, Execution execution,
                                      List<String> reasons) {
        if (!(execution instanceof Execution.Success success)) return 0;
        QueryResult r = success.result();
        int rows = r.rowCount();
        if (rows == 0 || onlyNulls(r)) {
            reasons.add("result-shape: no answer rows");
            return 0;
        }
        double score = 1;
        String why = null;
        switch (intent.intent()) {
            case AGGREGATE -> {
                if (rows != 1) {
                    score = 0;
                    why = "one value was asked for, " + rows + " rows came back";
                }
            }
            case GROUPED_AGGREGATE -> {
                if (rows == 1) {
                    score = 0.5;
                    why = "a result per group was asked for, one row came back";
                }
            }
            case TOP_K -> {
                Integer n = intent.limitN();
                if (n != null && rows > n) {
                    score = 0;
                    why = "at most " + n + " rows were asked for, " + rows + " came back";
                }
            }
            case LOOKUP -> {
                if (rows > 1 && (Objects.equals(intent.limitN(), 1) || singularQuestion(question))) {
                    score = 0.5;
                    why = "a singular question got " + rows + " rows";
                }
            }
        }
        if (r.truncated()) {
            score *= 0.5;
            why = why == null ? "the result was cut at the row cap" : why + "; the result was cut at the row cap";
        }
        if (why != null) reasons.add("result-shape: " + why);
        return score;
    }

    /**
     * A question asks for one thing when its first auxiliary verb is singular (is, was, does, did, has) and it
     * says none of every, each, all, list.
     */
    static boolean singularQuestion(String question) {
        for (String w : question.toLowerCase(Locale.ROOT).split("[^\\p{L}]+")) {
            switch (w) {
                case "every", "each", "all", "list" -> {
                    return false;
                }
                default -> { }
            }
        }
        for (String w : question.toLowerCase(Locale.ROOT).split("[^\\p{L}]+")) {
            switch (w) {
                case "is", "was", "does", "did", "has" -> {
                    return true;
                }
                case "are", "were", "do", "have" -> {
                    return false;
                }
                default -> { }
            }
        }
        return false;
    }

    private static boolean onlyNulls(QueryResult r) {
        return r.rowCount() == 1 && r.rows().get(0).stream().allMatch(Objects::isNull);
    }

    /**
     * 1 / (1 + c / 4), where c counts joins (JOIN and comma joins), subqueries (CTEs included), set operations and
     * clauses the question does not ask for: ORDER BY without wantsOrder, LIMIT without wantsLimit, DISTINCT without
     * wantsDistinct, GROUP BY without HAVING in a LOOKUP that does not want grouping.
     */
    private static double simplicity(IntentProfile intent, Query q, List<String> reasons) {
        Shape s = q.shape();
        List<String> extra = new ArrayList<>();
        if (!s.orderBy().isEmpty() && !intent.wantsOrder() && intent.intent() != Intent.TOP_K) extra.add("ORDER BY");
        if (s.limit() && !intent.wantsLimit() && intent.intent() != Intent.TOP_K) extra.add("LIMIT");
        if (s.distinct() && !intent.wantsDistinct()) extra.add("DISTINCT");
        if (s.groupBy() && intent.intent() == Intent.LOOKUP && !intent.wantsGrouping() && s.having().isBlank()) {
            extra.add("GROUP BY");
        }
        int c = q.joins() + q.subqueries() + q.setOperations() + extra.size();
        if (c > 0) {
            List<String> what = new ArrayList<>();
            if (q.joins() > 0) what.add(q.joins() + " join(s)");
            if (q.subqueries() > 0) what.add(q.subqueries() + " subquery(ies)");
            if (q.setOperations() > 0) what.add(q.setOperations() + " set operation(s)");
            if (!extra.isEmpty()) what.add("unasked " + String.join(", ", extra));
            reasons.add("simplicity: " + String.join(", ", what));
        }
        return 1 / (1 + c / 4.0);
    }

    private static double round(double v) {
        return Math.round(v * 10_000) / 10_000.0;
    }

    // ------------------------------------------------------------------ SQL structure

    /**
     * The outermost query's structure. For a set operation: the first branch's SELECT list, FROM and WHERE, GROUP BY
     * and HAVING from any branch, ORDER BY and LIMIT of the whole. Texts are SQL fragments.
     *
     * @param items      SELECT items without aliases; empty when no query was found
     * @param limit      a LIMIT, FETCH FIRST or TOP bounds the rows
     * @param limitCount that bound when it is a number literal
     */
    record Shape(boolean parsed, List<String> items, boolean star, boolean distinct, boolean from,
                 boolean setOperation, boolean groupBy, String where, String having, List<String> orderBy,
                 boolean limit, Long limitCount) {
        static final Shape NONE = new Shape(false, List.of(), false, false, false, false, false, "", "", List.of(),
                false, null);

        Shape withOrderAndLimit(List<String> order, boolean lim, Long count) {
            return new Shape(parsed, items, star, distinct, from, setOperation, groupBy, where, having,
                    order.isEmpty() ? orderBy : order, lim || limit, lim ? count : limitCount);
        }
    }

    /**
     * A candidate's SQL with its tokens, outermost shape and whole-statement counts.
     *
     * @param joins         JOIN keywords plus comma joins in FROM lists, at any depth
     * @param subqueries    parenthesised SELECT / WITH, at any depth (CTE bodies included)
     * @param anyDistinct   DISTINCT anywhere (COUNT(DISTINCT x) included)
     */
    record Query(String sql, List<SqlToken> tokens, Shape shape, int joins, int subqueries, int setOperations,
                 boolean anyDistinct) {

        static Query of(String sql) {
            String text = sql == null ? "" : sql.strip();
            while (text.endsWith(";")) text = text.substring(0, text.length() - 1).strip();
            List<SqlToken> t = CandidateScorer.tokens(text);
            Shape shape = parsedShape(text);
            if (shape == null) shape = lexicalShape(text, t);
            int subqueries = 0;
            int setOps = 0;
            boolean distinct = false;
            for (int i = 0; i < t.size(); i++) {
                SqlToken tok = t.get(i);
                if (tok.isSymbol("(") && i + 1 < t.size() && (t.get(i + 1).isWord("SELECT") || t.get(i + 1).isWord("WITH"))) {
                    subqueries++;
                }
                if (tok.type() == SqlToken.Type.WORD && SET_OPERATIONS.contains(upper(tok))) setOps++;
                if (tok.isWord("DISTINCT") || tok.isWord("DISTINCTROW")) distinct = true;
            }
            return new Query(text, t, shape, countJoins(t), subqueries, setOps, distinct);
        }
    }

    /** The shape from JSqlParser (without {@code useParser}: from the lexical fallback); for tests. */
    static Shape shape(String sql, boolean useParser) {
        Shape s = useParser ? parsedShape(sql) : lexicalShape(sql, tokens(sql));
        return s == null ? Shape.NONE : s;
    }

    private static int countJoins(List<SqlToken> t) {
        int joins = 0;
        int depth = 0;
        Set<Integer> inFromList = new HashSet<>();
        for (int i = 0; i < t.size(); i++) {
            SqlToken tok = t.get(i);
            if (tok.isSymbol("(")) {
                depth++;
                continue;
            }
            if (tok.isSymbol(")")) {
                inFromList.remove(depth);
                depth = Math.max(0, depth - 1);
                continue;
            }
            if (tok.isWord("JOIN")) {
                joins++;
                inFromList.remove(depth);
            } else if (tok.isWord("FROM")) {
                // FROM inside a function call (EXTRACT(YEAR FROM d)) follows no SELECT at this depth; harmless
                inFromList.add(depth);
            } else if (tok.type() == SqlToken.Type.WORD && CLAUSES.contains(upper(tok))) {
                inFromList.remove(depth);
            } else if (tok.isSymbol(",") && inFromList.contains(depth)) {
                joins++;
            }
        }
        return joins;
    }

    private static Shape parsedShape(String sql) {
        if (sql.isBlank()) return null;
        Statement st;
        try {
            // MySQL strings take backslash escapes; SQLite's do not, hence the second try
            st = CCJSqlParserUtil.parse(sql, p -> p.withBackslashEscapeCharacter(true));
        } catch (JSQLParserException | RuntimeException | StackOverflowError e) {
            try {
                st = CCJSqlParserUtil.parse(sql);
            } catch (JSQLParserException | RuntimeException | StackOverflowError e2) {
                return null;
            }
        }
        return st instanceof Select select ? fromSelect(select) : null;
    }

    private static Shape fromSelect(Select s) {
        Shape inner;
        if (s instanceof ParenthesedSelect p) {
            if (p.getSelect() == null) return null;
            inner = fromSelect(p.getSelect());
        } else if (s instanceof SetOperationList list) {
            List<Shape> branches = new ArrayList<>();
            for (Select b : list.getSelects()) {
                Shape shape = fromSelect(b);
                if (shape == null) return null;
                branches.add(shape);
            }
            if (branches.isEmpty()) return null;
            Shape first = branches.get(0);
            String having = String.join(" AND ", branches.stream().map(Shape::having).filter(h -> !h.isBlank()).toList());
            inner = new Shape(true, first.items(), first.star(), first.distinct(), first.from(), true,
                    branches.stream().anyMatch(Shape::groupBy), first.where(), having, List.of(), false, null);
        } else if (s instanceof PlainSelect ps) {
            List<String> items = new ArrayList<>();
            boolean star = false;
            for (SelectItem<?> item : ps.getSelectItems()) {
                Expression e = item.getExpression();
                if (e instanceof AllColumns) star = true;
                items.add(e.toString());
            }
            Long top = null;
            if (ps.getTop() != null && ps.getTop().getExpression() instanceof LongValue v) top = v.getValue();
            inner = new Shape(true, items, star, ps.getDistinct() != null, ps.getFromItem() != null, false,
                    ps.getGroupBy() != null, text(ps.getWhere()), text(ps.getHaving()), List.of(),
                    ps.getTop() != null, top);
        } else {
            return null;
        }
        if (inner == null) return null;
        List<String> order = new ArrayList<>();
        if (s.getOrderByElements() != null) {
            for (OrderByElement o : s.getOrderByElements()) order.add(text(o.getExpression()));
        }
        boolean limited = false;
        Long count = null;
        Limit limit = s.getLimit();
        // LIMIT ALL and LIMIT NULL parse to a row count of AllValue / NullValue: no bound
        if (limit != null && limit.getRowCount() != null && !(limit.getRowCount() instanceof AllValue)
                && !(limit.getRowCount() instanceof NullValue)) {
            limited = true;
            if (limit.getRowCount() instanceof LongValue v) count = v.getValue();
        }
        Fetch fetch = s.getFetch();
        if (fetch != null) {
            limited = true;
            // FETCH FIRST ROW ONLY has no number: one row
            if (fetch.getExpression() == null) count = 1L;
            else if (fetch.getExpression() instanceof LongValue v) count = v.getValue();
        }
        return inner.withOrderAndLimit(order, limited, count);
    }

    private static String text(Object node) {
        return node == null ? "" : node.toString();
    }

    /**
     * The lexical fallback for SQL JSqlParser cannot read: the query's level is the smallest parenthesis depth that
     * holds a SELECT; clause words at that depth (or shallower, for set operations of parenthesised branches) split
     * the statement into branches and clauses.
     */
    private static Shape lexicalShape(String sql, List<SqlToken> t) {
        int n = t.size();
        int[] depth = new int[n];
        int d = 0;
        int level = Integer.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            if (t.get(i).isSymbol(")")) d = Math.max(0, d - 1);
            depth[i] = d;
            if (t.get(i).isSymbol("(")) d++;
            if (t.get(i).isWord("SELECT")) level = Math.min(level, depth[i]);
        }
        if (level == Integer.MAX_VALUE) return Shape.NONE;

        // clause starts: [token index, branch]; the clause runs to the next start or a token shallower than level
        List<int[]> starts = new ArrayList<>();
        int branch = 0;
        boolean started = false;
        for (int i = 0; i < n; i++) {
            SqlToken tok = t.get(i);
            if (depth[i] > level || tok.type() != SqlToken.Type.WORD || !CLAUSES.contains(upper(tok))) continue;
            if (tok.isWord("SELECT")) started = true;
            if (!started) continue;
            if (SET_OPERATIONS.contains(upper(tok))) branch++;
            starts.add(new int[] {i, branch});
        }
        boolean seenSelect = false;
        List<String> items = new ArrayList<>();
        boolean star = false;
        boolean distinct = false;
        boolean from = false;
        boolean groupBy = false;
        String where = "";
        List<String> havings = new ArrayList<>();
        List<String> order = new ArrayList<>();
        boolean limit = false;
        Long count = null;
        for (int k = 0; k < starts.size(); k++) {
            int at = starts.get(k)[0];
            int br = starts.get(k)[1];
            int end = k + 1 < starts.size() ? starts.get(k + 1)[0] : n;
            for (int i = at + 1; i < end; i++) {
                if (depth[i] < depth[at]) {
                    end = i;
                    break;
                }
            }
            String word = upper(t.get(at));
            int body = at + 1;
            if ((word.equals("GROUP") || word.equals("ORDER")) && body < end && t.get(body).isWord("BY")) body++;
            boolean last = br == branch;
            switch (word) {
                case "SELECT" -> {
                    if (br != 0 || seenSelect) break;
                    seenSelect = true;
                    while (body < end && t.get(body).type() == SqlToken.Type.WORD
                            && (SELECT_MODIFIERS.contains(upper(t.get(body))) || t.get(body).isWord("TOP"))) {
                        if (t.get(body).isWord("DISTINCT") || t.get(body).isWord("DISTINCTROW")) distinct = true;
                        if (t.get(body).isWord("TOP") && body + 1 < end && t.get(body + 1).type() == SqlToken.Type.NUMBER) {
                            limit = true;
                            count = parseLong(t.get(body + 1).text());
                            body++;
                        }
                        body++;
                    }
                    for (int[] range : split(t, depth, body, end, depth[at])) {
                        List<SqlToken> item = withoutAlias(t.subList(range[0], range[1]));
                        if (item.isEmpty()) continue;
                        if (item.get(item.size() - 1).isSymbol("*") && (item.size() == 1 || item.size() == 3)) star = true;
                        items.add(sql.substring(item.get(0).start(), item.get(item.size() - 1).end()));
                    }
                }
                case "FROM" -> from |= br == 0;
                case "WHERE" -> {
                    if (br == 0) where = slice(sql, t, body, end);
                }
                case "GROUP" -> groupBy = true;
                case "HAVING" -> havings.add(slice(sql, t, body, end));
                case "ORDER" -> {
                    if (!last) break;
                    order.clear();
                    for (int[] range : split(t, depth, body, end, depth[at])) {
                        List<SqlToken> o = new ArrayList<>(t.subList(range[0], range[1]));
                        while (!o.isEmpty() && (o.get(o.size() - 1).isWord("ASC") || o.get(o.size() - 1).isWord("DESC"))) {
                            o.remove(o.size() - 1);
                        }
                        if (!o.isEmpty()) order.add(sql.substring(o.get(0).start(), o.get(o.size() - 1).end()));
                    }
                }
                case "LIMIT" -> {
                    if (!last || body >= end) break;
                    if (t.get(body).isWord("ALL") || t.get(body).isWord("NULL")) break;
                    limit = true;
                    int c = body + 2 < end && t.get(body + 1).isSymbol(",") ? body + 2 : body;
                    count = t.get(c).type() == SqlToken.Type.NUMBER ? parseLong(t.get(c).text()) : null;
                }
                case "FETCH" -> {
                    if (!last) break;
                    limit = true;
                    SqlToken amount = body + 1 < end ? t.get(body + 1) : null;
                    count = amount == null ? null
                            : amount.type() == SqlToken.Type.NUMBER ? parseLong(amount.text())
                            : amount.isWord("ROW") || amount.isWord("ROWS") ? Long.valueOf(1) : null;
                }
                default -> { }
            }
        }
        if (!seenSelect) return Shape.NONE;
        return new Shape(false, items, star, distinct, from, branch > 0, groupBy, where,
                String.join(" AND ", havings), order, limit, count);
    }

    /** Ranges [from, to) of the comma-separated parts of tokens[from, to) at the given depth. */
    private static List<int[]> split(List<SqlToken> t, int[] depth, int from, int to, int atDepth) {
        List<int[]> out = new ArrayList<>();
        int start = from;
        for (int i = from; i < to; i++) {
            if (t.get(i).isSymbol(",") && depth[i] == atDepth) {
                out.add(new int[] {start, i});
                start = i + 1;
            }
        }
        if (start < to) out.add(new int[] {start, to});
        return out;
    }

    /** A SELECT item without {@code AS alias} or a bare trailing alias ({@code COUNT(*) n}, {@code c.name nm}). */
    private static List<SqlToken> withoutAlias(List<SqlToken> item) {
        int n = item.size();
        if (n >= 3 && item.get(n - 2).isWord("AS")) return item.subList(0, n - 2);
        if (n >= 2 && isName(item.get(n - 1))) {
            SqlToken before = item.get(n - 2);
            boolean operand = before.type() != SqlToken.Type.SYMBOL || before.isSymbol(")");
            if (operand && !(before.type() == SqlToken.Type.WORD && KEYWORDS.contains(upper(before)))) {
                return item.subList(0, n - 1);
            }
        }
        return item;
    }

    private static boolean isName(SqlToken tok) {
        return tok.type() == SqlToken.Type.QUOTED_IDENTIFIER
                || (tok.type() == SqlToken.Type.WORD && !KEYWORDS.contains(upper(tok)) && !CLAUSES.contains(upper(tok)));
    }

    private static String slice(String sql, List<SqlToken> t, int from, int to) {
        return from >= to ? "" : sql.substring(t.get(from).start(), t.get(to - 1).end());
    }

    private static Long parseLong(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    // ------------------------------------------------------------------ expressions

    /**
     * What a scan of one expression finds outside subqueries.
     *
     * @param aggregate  an aggregate call that is not a window function
     * @param column     a column reference outside every aggregate call
     * @param subquery   a parenthesised SELECT
     * @param onlyMinMax every aggregate call found is MIN or MAX
     */
    record Facts(boolean aggregate, boolean column, boolean subquery, boolean onlyMinMax) {}

    static Facts facts(String expression) {
        return facts(tokens(expression));
    }

    private static Facts facts(List<SqlToken> t) {
        boolean aggregate = false;
        boolean column = false;
        boolean subquery = false;
        boolean onlyMinMax = true;
        int i = 0;
        while (i < t.size()) {
            SqlToken tok = t.get(i);
            boolean call = i + 1 < t.size() && t.get(i + 1).isSymbol("(");
            if (tok.isSymbol("(") && i + 1 < t.size() && (t.get(i + 1).isWord("SELECT") || t.get(i + 1).isWord("WITH"))) {
                subquery = true;
                i = close(t, i) + 1;
                continue;
            }
            if (call && tok.type() == SqlToken.Type.WORD && AGGREGATES.contains(upper(tok))) {
                int end = close(t, i + 1);
                if (!(end + 1 < t.size() && t.get(end + 1).isWord("OVER"))) {
                    aggregate = true;
                    onlyMinMax &= tok.isWord("MIN") || tok.isWord("MAX");
                    i = end + 1;
                    continue;
                }
            }
            if (identifier(t, i) != null) column = true;
            i++;
        }
        return new Facts(aggregate, column, subquery, aggregate && onlyMinMax);
    }

    /**
     * The name at {@code i} when it may be a schema name: a word or quoted identifier that is not called as a
     * function. Keywords pass (a column may be called {@code date}); callers match the name against the schema.
     */
    private static String name(List<SqlToken> t, int i) {
        SqlToken tok = t.get(i);
        if (i + 1 < t.size() && t.get(i + 1).isSymbol("(")) return null;
        if (tok.type() == SqlToken.Type.QUOTED_IDENTIFIER) return unquote(tok);
        return tok.type() == SqlToken.Type.WORD ? tok.text() : null;
    }

    /** The name a token refers to when it is a column or table reference (not a keyword or function), else null. */
    private static String identifier(List<SqlToken> t, int i) {
        SqlToken tok = t.get(i);
        if (i + 1 < t.size() && t.get(i + 1).isSymbol("(")) return null;
        if (tok.type() == SqlToken.Type.QUOTED_IDENTIFIER) return unquote(tok);
        if (tok.type() != SqlToken.Type.WORD) return null;
        boolean qualified = i > 0 && t.get(i - 1).isSymbol(".");
        String u = upper(tok);
        if (!qualified && (KEYWORDS.contains(u) || CLAUSES.contains(u) || AGGREGATES.contains(u))) return null;
        return tok.text();
    }

    /** The literal a column at {@code i} is compared with ({@code col = 'x'}, {@code YEAR(col) = 2004}, IN, LIKE). */
    private static SqlToken comparedValue(List<SqlToken> t, int i) {
        int j = i + 1;
        if (j < t.size() && t.get(j).isSymbol(")")) j++;
        if (j < t.size() && t.get(j).isWord("NOT")) j++;
        if (j >= t.size()) return null;
        SqlToken op = t.get(j);
        boolean comparison = op.type() == SqlToken.Type.SYMBOL && COMPARISONS.contains(op.text());
        if (!comparison && !op.isWord("LIKE") && !op.isWord("IN") && !op.isWord("BETWEEN")) return null;
        int k = j + 1;
        if (op.isWord("IN") && k < t.size() && t.get(k).isSymbol("(")) k++;
        if (k >= t.size()) return null;
        SqlToken v = t.get(k);
        return v.type() == SqlToken.Type.STRING || v.type() == SqlToken.Type.NUMBER ? v : null;
    }

    /** Index of the parenthesis closing the one at {@code open} (the last token when it is never closed). */
    private static int close(List<SqlToken> t, int open) {
        int depth = 0;
        for (int i = open; i < t.size(); i++) {
            if (t.get(i).isSymbol("(")) depth++;
            else if (t.get(i).isSymbol(")") && --depth == 0) return i;
        }
        return t.size() - 1;
    }

    /** Significant tokens: MySQL rules first, SQLite's when those fail, none when both fail. */
    static List<SqlToken> tokens(String sql) {
        if (sql == null || sql.isBlank()) return List.of();
        for (Dialect d : List.of(Dialect.MYSQL, Dialect.SQLITE)) {
            try {
                return SqlLexer.significant(sql, d);
            } catch (SqlLexer.LexException e) {
                // try the next dialect
            }
        }
        return List.of();
    }

    private static String unquote(SqlToken tok) {
        String s = tok.text();
        if (s.length() < 2) return s;
        char q = s.charAt(0);
        if (q == '[') return s.substring(1, s.length() - 1);
        String inner = s.substring(1, s.length() - 1).replace(String.valueOf(q).repeat(2), String.valueOf(q));
        return tok.type() == SqlToken.Type.STRING ? inner.replace("\\'", "'").replace("\\\"", "\"") : inner;
    }

    private static String upper(SqlToken tok) {
        return tok.text().toUpperCase(Locale.ROOT);
    }
}
