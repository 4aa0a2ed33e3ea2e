package dev.ladder.pipeline.agent;

import dev.ladder.pipeline.kit.Intent;
import dev.ladder.pipeline.kit.IntentProfile;
import dev.ladder.sql.SqlToken;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.QueryResult;
import dev.ladder.sql.read.ExpressionFacts;
import dev.ladder.sql.read.Identifiers;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SelectShape;
import dev.ladder.sql.schema.Schema;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

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
            parts = Collections.unmodifiableMap(new LinkedHashMap<>(parts));
            reasons = List.copyOf(reasons);
        }
    }

    /** Part names, in the order {@link CandidateScore#parts()} lists them. */
    static final List<String> PARTS =
            List.of("executes", "intent", "relevance", "projection", "result-shape", "simplicity");
    /** Weights of {@link #PARTS}, same order; they sum to 1 so the total is in [0, 1]. */
    static final List<Double> WEIGHTS = List.of(0.25, 0.25, 0.20, 0.10, 0.15, 0.05);


    private CandidateScorer() {}

    public static CandidateScore score(String question, IntentProfile intent, String sql, Schema schema,
                                       Execution execution) {
        Objects.requireNonNull(intent, "intent");
        Objects.requireNonNull(schema, "schema");
        String q = question == null ? "" : question;
        Query query = Query.read(sql);
        List<String> reasons = new ArrayList<>();
        String gateFailure = IntentGate.failure(intent, query);
        if (gateFailure != null) reasons.add("intent gate: " + gateFailure);

        double[] parts = {
            executes(execution, reasons),
            intentPart(intent, query, gateFailure, reasons),
            Relevance.score(q, schema, query, reasons),
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
                && !s.limit() && !IntentGate.extremeFilter(s)) {
            misses.add("the question asks for " + intent.limitN() + " rows but there is no LIMIT");
        }
        for (String m : misses) reasons.add("intent: " + m);
        return Math.max(0.25, 1 - 0.25 * misses.size());
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
}
