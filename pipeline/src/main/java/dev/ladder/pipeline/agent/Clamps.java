package dev.ladder.pipeline.agent;

import dev.ladder.pipeline.kit.Intent;
import dev.ladder.pipeline.kit.IntentProfile;
import dev.ladder.sql.Dialect;
import dev.ladder.sql.read.Identifiers;
import dev.ladder.sql.read.OuterClauses;
import dev.ladder.sql.read.OuterClauses.Clause;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Removes ORDER BY, LIMIT, DISTINCT and GROUP BY that the question does not ask for (docs/agent.md, "Clamps").
 * Clamps only remove, never add or rewrite: a wrong LIMIT N is left for the scorer. They touch only the outermost
 * query (never a subquery, CTE body or set-operation branch) and cut clauses out by their token spans, so the rest
 * of the text stays byte-identical.
 */
public final class Clamps {
    /** @param applied short names of the clamps applied, in order; empty when the SQL is unchanged */
    public record Clamped(String sql, List<String> applied) {
        public Clamped {
            applied = List.copyOf(applied);
        }
    }

    public static final String DROP_ORDER_BY = "drop-order-by";
    public static final String DROP_LIMIT = "drop-limit";
    public static final String DROP_DISTINCT = "drop-distinct";
    public static final String DROP_GROUP_BY = "drop-group-by";

    private Clamps() {}

    public static Clamped apply(String sql, IntentProfile intent, Dialect dialect) {
        Objects.requireNonNull(sql, "sql");
        Objects.requireNonNull(intent, "intent");
        Objects.requireNonNull(dialect, "dialect");
        OuterClauses q = OuterClauses.parse(sql, dialect).orElse(null);
        if (q == null) return new Clamped(sql, List.of());

        List<String> applied = new ArrayList<>();
        List<int[]> cuts = new ArrayList<>(); // character ranges [from, to)

        // ORDER BY and LIMIT: LIMIT goes unless a limit is wanted; ORDER BY goes unless order is wanted or a kept
        // LIMIT depends on it
        boolean dropLimit = q.limit != null && !intent.wantsLimit();
        boolean limitKept = q.limit != null && !dropLimit;
        boolean dropOrder = q.orderBy != null && !intent.wantsOrder() && !limitKept;
        if (dropOrder) {
            cuts.add(span(q, q.orderBy));
            applied.add(DROP_ORDER_BY);
        }
        if (dropLimit) {
            cuts.add(span(q, q.limit));
            applied.add(DROP_LIMIT);
        }
        boolean orderKept = q.orderBy != null && !dropOrder;

        if (!q.setOperation) {
            if (q.distinct >= 0 && dropDistinct(q, intent, limitKept)) {
                int next = q.tokens.get(q.distinct + 1).start();
                cuts.add(new int[] {q.tokens.get(q.distinct).start(), next});
                applied.add(DROP_DISTINCT);
            }
            if (q.groupBy != null && (splitsSingleAggregate(q, intent, orderKept, limitKept)
                    || groupsLikeDistinct(q, intent, orderKept, limitKept))) {
                cuts.add(span(q, q.groupBy));
                applied.add(DROP_GROUP_BY);
            }
        }
        if (cuts.isEmpty()) return new Clamped(sql, List.of());
        cuts.sort(Comparator.comparingInt((int[] c) -> c[0]).reversed());
        StringBuilder out = new StringBuilder(sql);
        for (int[] c : cuts) out.delete(c[0], c[1]);
        return new Clamped(out.toString(), applied);
    }

    /** A clause with the whitespace and comments before it, so what follows keeps its own leading space. */
    private static int[] span(OuterClauses q, Clause c) {
        return new int[] {q.removalStart(c.start()), q.tokens.get(c.end() - 1).end()};
    }

    /**
     * DISTINCT goes when the question does not ask for distinct values, the FROM clause is a single base table
     * (a DISTINCT over a join usually removes the join's fan-out, which questions imply without saying), and no
     * kept LIMIT depends on which rows are distinct.
     */
    private static boolean dropDistinct(OuterClauses q, IntentProfile intent, boolean limitKept) {
        return !intent.wantsDistinct() && q.singleTable() && !limitKept;
    }

    /**
     * A GROUP BY that splits an asked-for single aggregate: intent AGGREGATE, no grouping asked, no HAVING, no
     * ROLLUP, no kept ORDER BY or LIMIT (those may rank groups), and every SELECT item is an aggregate
     * (so no group key is shown and the groups' rows could not be told apart).
     */
    private static boolean splitsSingleAggregate(OuterClauses q, IntentProfile intent, boolean orderKept, boolean limitKept) {
        if (intent.intent() != Intent.AGGREGATE || intent.wantsGrouping() || q.having != null || orderKept || limitKept) {
            return false;
        }
        if (q.contains(q.groupBy.start(), q.groupBy.end(), "rollup")) return false;
        for (Clause item : q.items) {
            if (!q.hasAggregate(item.start(), item.end()) || q.contains(item.start(), item.end(), "over")) return false;
        }
        return true;
    }

    /**
     * A GROUP BY used as DISTINCT: intent LOOKUP, neither distinct values nor grouping asked, single base table,
     * no HAVING, no ROLLUP, no aggregate in SELECT or a kept ORDER BY, no kept LIMIT, and the group keys are
     * exactly the SELECT items (compared as text without spaces, quotes and case, or by alias).
     */
    private static boolean groupsLikeDistinct(OuterClauses q, IntentProfile intent, boolean orderKept, boolean limitKept) {
        if (intent.intent() != Intent.LOOKUP || intent.wantsDistinct() || intent.wantsGrouping() || q.having != null
                || limitKept || !q.singleTable()) {
            return false;
        }
        if (q.contains(q.groupBy.start(), q.groupBy.end(), "rollup")) return false;
        if (q.hasAggregate(q.select.start(), q.select.end())) return false;
        if (orderKept && q.hasAggregate(q.orderBy.start(), q.orderBy.end())) return false;
        Set<String> selected = new HashSet<>();
        for (Clause item : q.items) {
            ItemForm form = ItemForm.of(q, item);
            selected.add(form.expression());
            if (form.alias() != null) selected.add(form.alias());
        }
        Set<String> keys = new HashSet<>();
        for (Clause key : q.elements(q.groupBy)) keys.add(normalize(q.text(key)));
        return selected.containsAll(keys) && keysCoverItems(q, keys);
    }

    /** Every SELECT item is one of the group keys (by expression or alias). */
    private static boolean keysCoverItems(OuterClauses q, Set<String> keys) {
        for (Clause item : q.items) {
            ItemForm form = ItemForm.of(q, item);
            if (!keys.contains(form.expression()) && (form.alias() == null || !keys.contains(form.alias()))) return false;
        }
        return true;
    }

    static String normalize(String text) {
        return text.replaceAll("[\\s`\"]", "").toLowerCase(Locale.ROOT);
    }

    /** A SELECT item as expression text (normalised) and optional alias (normalised). */
    record ItemForm(String expression, String alias) {
        static ItemForm of(OuterClauses q, Clause item) {
            int end = item.end();
            String alias = null;
            // "expr AS alias" or "expr alias" where the alias is a single identifier after a complete expression
            if (end - item.start() >= 3 && q.tokens.get(end - 2).isWord("as") && Identifiers.isIdentifier(q.tokens.get(end - 1))) {
                alias = normalize(Identifiers.unquote(q.tokens.get(end - 1).text()));
                end -= 2;
            } else if (end - item.start() >= 2 && Identifiers.isIdentifier(q.tokens.get(end - 1))
                    && !OuterClauses.keyword(q.tokens.get(end - 1)) && !q.tokens.get(end - 2).isSymbol(".")
                    && (Identifiers.isIdentifier(q.tokens.get(end - 2)) || q.tokens.get(end - 2).isSymbol(")"))) {
                alias = normalize(Identifiers.unquote(q.tokens.get(end - 1).text()));
                end -= 1;
            }
            return new ItemForm(normalize(q.text(new Clause(item.start(), end))), alias);
        }
    }
}
