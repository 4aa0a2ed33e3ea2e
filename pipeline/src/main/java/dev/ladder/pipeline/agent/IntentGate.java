package dev.ladder.pipeline.agent;

import dev.ladder.pipeline.kit.IntentProfile;
import dev.ladder.sql.SqlToken;
import dev.ladder.sql.read.ExpressionFacts;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SelectShape;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The agent's intent gate: does a query's outermost structure fit the kind of answer the question asks for
 * ({@link IntentProfile})? A candidate that fails it is dropped before ranking (agent-1 and up) and is the trigger
 * for a repair (agent-3); {@code ladder bench gate-check} measures how many golds pass their own question's gate.
 * It reads structure only, through {@link Query}: nothing is executed.
 */
public final class IntentGate {

    private IntentGate() {}

    public static boolean passes(IntentProfile intent, String sql) {
        return failure(intent, sql).isEmpty();
    }

    /** Why {@code sql} fails the gate, or empty when it passes (for reports: {@code ladder bench gate-check}). */
    public static Optional<String> failure(IntentProfile intent, String sql) {
        return Optional.ofNullable(failure(Objects.requireNonNull(intent, "intent"), Query.read(sql)));
    }

    /** Why the query's outermost structure does not fit the intent, or null when it does. */
    static String failure(IntentProfile intent, Query q) {
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
    static boolean extremeFilter(SelectShape s) {
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
}
