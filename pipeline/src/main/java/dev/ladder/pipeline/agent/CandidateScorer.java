package dev.ladder.pipeline.agent;

import dev.ladder.pipeline.agent.SchemaSubset.Lexicon;
import dev.ladder.pipeline.db.Dialect;
import dev.ladder.pipeline.db.Execution;
import dev.ladder.pipeline.db.ForeignKey;
import dev.ladder.pipeline.db.QueryResult;
import dev.ladder.pipeline.db.Schema;
import dev.ladder.pipeline.db.Table;
import dev.ladder.pipeline.sql.SqlToken;
import dev.ladder.pipeline.sql.read.ExpressionFacts;
import dev.ladder.pipeline.sql.read.Identifiers;
import dev.ladder.pipeline.sql.read.Query;
import dev.ladder.pipeline.sql.read.SelectShape;
import dev.ladder.pipeline.sql.read.SqlVocabulary;
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
        Query query = Query.read(sql);
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
        return Optional.ofNullable(gateFailure(Objects.requireNonNull(intent, "intent"), Query.read(sql)));
    }

    // ------------------------------------------------------------------ the gate

    /** Why the SQL's outermost structure does not fit the intent, or null when it does. */
    static String gateFailure(IntentProfile intent, Query q) {
        SelectShape s = q.shape();
        if (s.items().isEmpty()) return "no SELECT list found";
        List<ExpressionFacts> items = s.items().stream().map(Query::facts).toList();
        boolean aggregateInSelect = items.stream().anyMatch(ExpressionFacts::aggregate);
        boolean onlyAggregates = !s.star() && items.stream().allMatch(f -> f.aggregate() && !f.column());
        Integer n = intent.limitN();
        switch (intent.intent()) {
            case AGGREGATE -> {
                // a GROUP BY that only splits the asked-for value fails; one with HAVING uses the aggregate as a
                // condition on groups ("which lines hold more than 100,000 units altogether"), which fits
                if (s.groupBy() && s.having().isBlank()) {
                    return "AGGREGATE wants one value over all matching rows, GROUP BY gives one per group";
                }
                boolean scalarSubqueries = !s.from() && items.stream().noneMatch(ExpressionFacts::column)
                        && items.stream().anyMatch(ExpressionFacts::subquery);
                // the aggregate may also sit in a subquery or CTE the outer query filters or joins on
                if (!aggregateInSelect && !scalarSubqueries && !q.aggregateAnywhere()) {
                    return "AGGREGATE wants an aggregate function";
                }
            }
            case GROUPED_AGGREGATE -> {
                boolean elsewhere = Query.facts(s.having()).aggregate()
                        || s.orderBy().stream().anyMatch(o -> Query.facts(o).aggregate());
                if (s.groupBy()) {
                    if (!aggregateInSelect && !elsewhere) {
                        return "GROUPED_AGGREGATE wants an aggregate in SELECT, HAVING or ORDER BY";
                    }
                } else if (!q.groupingAnywhere()) {
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
                        || n == null && q.rankingWindow())) {
                    return s.orderBy().isEmpty() ? "TOP_K wants ORDER BY with LIMIT" : "TOP_K wants a LIMIT";
                }
            }
            case LOOKUP -> {
                if (onlyAggregates && !s.groupBy()) {
                    boolean superlative = intent.wantsLimit() && (n == null || n == 1)
                            && items.stream().allMatch(ExpressionFacts::onlyMinMax);
                    if (!superlative) return "LOOKUP wants rows, the SELECT list is only aggregates";
                }
            }
        }
        return null;
    }

    /**
     * The extreme value itself: a SELECT list of MIN/MAX only, no GROUP BY ("the date of the most recent order"); only
     * when the question names no field to return, since "the name of the most expensive product" wants the row.
     */
    private static boolean extremeValue(IntentProfile intent, SelectShape s, List<ExpressionFacts> items) {
        return intent.namedFields().isEmpty() && !s.groupBy() && !s.setOperation() && !items.isEmpty()
                && items.stream().allMatch(ExpressionFacts::onlyMinMax);
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

    /**
     * A WHERE or HAVING that keeps the rows at the extreme: {@code x = (SELECT MAX(x) ...)} (also MIN, IN, or the
     * subquery on the left) or {@code x >= ALL (SELECT ...)}; the top-1 form that keeps ties.
     */
    private static boolean extremeFilter(SelectShape s) {
        for (String text : List.of(s.where(), s.having())) {
            List<SqlToken> t = Query.read(text).tokens();
            for (int i = 0; i + 1 < t.size(); i++) {
                if (!t.get(i).isSymbol("(") || !t.get(i + 1).isWord("SELECT")) continue;
                SqlToken before = i > 0 ? t.get(i - 1) : null;
                if (before != null && before.isWord("ALL") && i > 1
                        && (t.get(i - 2).isSymbol(">=") || t.get(i - 2).isSymbol("<="))) return true;
                int f = i + 2 < t.size() && (t.get(i + 2).isWord("DISTINCT") || t.get(i + 2).isWord("ALL")) ? i + 3 : i + 2;
                if (f + 1 >= t.size() || !(t.get(f).isWord("MAX") || t.get(f).isWord("MIN"))
                        || !t.get(f + 1).isSymbol("(")) continue;
                int close = Query.close(t, i);
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
        SelectShape s = q.shape();
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
            String name = Identifiers.name(t, i);
            if (name != null) schema.table(name).ifPresent(tab -> tables.putIfAbsent(tab.name().toLowerCase(Locale.ROOT), tab));
        }
        Collection<Table> scope = tables.isEmpty() ? schema.tables() : tables.values();
        Map<String, String> columns = new LinkedHashMap<>();
        for (int i = 0; i < t.size(); i++) {
            String name = Identifiers.name(t, i);
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
            String name = Identifiers.name(t, i);
            if (name == null || !columns.containsKey(name.toLowerCase(Locale.ROOT))) continue;
            SqlToken value = comparedValue(t, i);
            if (value == null) continue;
            double s = value.type() == SqlToken.Type.STRING
                    ? literalSupport(Identifiers.unquote(value), questionLower, questionTokens)
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
            String lit = Identifiers.unquote(tok);
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
        SelectShape s = q.shape();
        if (s.items().isEmpty()) return 0;
        if (s.star()) {
            reasons.add("projection: SELECT * instead of the asked-for columns");
            return 0.5;
        }
        List<String> fields = intent.namedFields();
        if (fields.isEmpty()) return 1;
        List<List<SqlToken>> items = s.items().stream().map(i -> Query.read(i).tokens()).toList();
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
            if (!mentions[i] && !ExpressionFacts.of(items.get(i)).aggregate()) extras++;
        }
        if (extras > 0) reasons.add("projection: " + extras + " selected item(s) the question does not name");
        return 0.6 * presence / fields.size() + 0.2 * order + 0.2 * (1 - extras / (double) items.size());
    }

    private static boolean mentions(List<SqlToken> t, String field) {
        for (int i = 0; i < t.size(); i++) {
            String name = Identifiers.name(t, i);
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
        SelectShape s = q.shape();
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

    // ------------------------------------------------------------------ tokens

    /** The literal a column at {@code i} is compared with ({@code col = 'x'}, {@code YEAR(col) = 2004}, IN, LIKE). */
    private static SqlToken comparedValue(List<SqlToken> t, int i) {
        int j = i + 1;
        if (j < t.size() && t.get(j).isSymbol(")")) j++;
        if (j < t.size() && t.get(j).isWord("NOT")) j++;
        if (j >= t.size()) return null;
        SqlToken op = t.get(j);
        boolean comparison = op.type() == SqlToken.Type.SYMBOL && SqlVocabulary.COMPARISONS.contains(op.text());
        if (!comparison && !op.isWord("LIKE") && !op.isWord("IN") && !op.isWord("BETWEEN")) return null;
        int k = j + 1;
        if (op.isWord("IN") && k < t.size() && t.get(k).isSymbol("(")) k++;
        if (k >= t.size()) return null;
        SqlToken v = t.get(k);
        return v.type() == SqlToken.Type.STRING || v.type() == SqlToken.Type.NUMBER ? v : null;
    }
}
