package dev.ladder.scorer.score.em;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * One query normalised into Spider's components. Every text is canonical: aliases resolved to table
 * names, identifiers lower-cased, literals masked as {@code ?} unless values are compared, nested queries
 * rendered by their own {@link #canonical()} (in the error taxonomy's reading, {@link ExactMatch#forTaxonomy},
 * as {@code (select)}: the taxonomy reads them from {@link #structure()}). Lists that are compared as sets are
 * kept sorted, so two units are an exact match exactly when their {@link #canonical()} texts are equal.
 *
 * @param tables          FROM table units, sorted (base table names, or a nested query in parentheses)
 * @param select          SELECT items, sorted
 * @param where           leaf conditions of WHERE, sorted
 * @param whereConnectors connectors used in WHERE ({@code and}, {@code or})
 * @param whereShape      canonical text of the whole WHERE condition tree ("" when there is none)
 * @param groupBy         GROUP BY expressions, sorted
 * @param having          canonical text of the HAVING condition tree ("" when there is none)
 * @param orderBy         ORDER BY items in order
 * @param limit           null without LIMIT; {@code ?} when values are masked, else its value text
 * @param setOp           {@code union}, {@code union all}, {@code intersect}, {@code except} or null
 * @param setRight        the right-hand query of {@code setOp}, or null
 * @param keywords        clause keywords used by this query (not by nested queries), sorted
 * @param structure       what the error taxonomy reads besides these components (EM compares none of it)
 */
public record SqlUnit(List<String> tables, List<SelectUnit> select, List<CondUnit> where, Set<String> whereConnectors,
                      String whereShape, List<String> groupBy, String having, List<OrderUnit> orderBy, String limit,
                      String setOp, SqlUnit setRight, Set<String> keywords, Structure structure) {

    /**
     * The parts of one SELECT that EM does not compare, in the unit's texts, for the error taxonomy.
     *
     * @param items      SELECT items in written order
     * @param joins      one kind per join: {@code inner} (also comma, CROSS, NATURAL), {@code outer} (LEFT, RIGHT)
     *                   or {@code full}
     * @param joinPairs  the column pairs the joins compare, each {@code a = b} with its sides in text order: ON
     *                   comparisons of two columns, USING columns, and WHERE equalities between columns of two
     *                   different FROM sources of this SELECT (implicit joins)
     * @param filter     the WHERE and ON conjuncts that are no join pair, sorted, without repeats
     * @param aggregates aggregate calls in this SELECT's own clauses (window aggregates included)
     * @param columns    column references in this SELECT's own clauses and joins: {@code table.column}, or the bare
     *                   name where no base table is known (a derived table's or CTE's column, an unresolved name);
     *                   {@code *} and {@code t.*} count, {@code COUNT(*)} does not
     * @param subqueries the queries nested in this one (derived tables, CTE bodies, subqueries in any clause)
     */
    public record Structure(List<String> items, List<String> joins, Set<String> joinPairs, List<String> filter,
                            Set<String> aggregates, Set<String> columns, List<SqlUnit> subqueries) {

        public static final Structure NONE = new Structure(List.of(), List.of(), Set.of(), List.of(), Set.of(), Set.of(),
                List.of());

        public Structure {
            items = List.copyOf(items);
            joins = List.copyOf(joins);
            joinPairs = Set.copyOf(joinPairs);
            filter = List.copyOf(filter);
            aggregates = Set.copyOf(aggregates);
            columns = Set.copyOf(columns);
            subqueries = List.copyOf(subqueries);
        }
    }

    public SqlUnit {
        tables = List.copyOf(tables);
        select = List.copyOf(select);
        where = List.copyOf(where);
        whereConnectors = Set.copyOf(whereConnectors);
        groupBy = List.copyOf(groupBy);
        orderBy = List.copyOf(orderBy);
        keywords = Set.copyOf(keywords);
    }

    public boolean hasGroup() {
        return !groupBy.isEmpty() || !having.isEmpty();
    }

    public boolean hasOrder() {
        return !orderBy.isEmpty() || limit != null;
    }

    SqlUnit withSetOperation(String op, SqlUnit right, Set<String> extraKeywords) {
        Set<String> kw = new TreeSet<>(keywords);
        kw.addAll(extraKeywords);
        return new SqlUnit(tables, select, where, whereConnectors, whereShape, groupBy, having, orderBy, limit, op,
                right, kw, structure);
    }

    SqlUnit withOrder(List<OrderUnit> order, String newLimit, Set<String> extraKeywords) {
        Set<String> kw = new TreeSet<>(keywords);
        kw.addAll(extraKeywords);
        return new SqlUnit(tables, select, where, whereConnectors, whereShape, groupBy, having, order, newLimit,
                setOp, setRight, kw, structure);
    }

    /** A deterministic text that is equal for two units exactly when they match under exact set match. */
    public String canonical() {
        StringBuilder sb = new StringBuilder("select ");
        sb.append(select.stream().map(SelectUnit::text).collect(Collectors.joining(", ")));
        sb.append(" from ").append(String.join(", ", tables));
        if (!whereShape.isEmpty()) sb.append(" where ").append(whereShape);
        if (!groupBy.isEmpty()) sb.append(" group by ").append(String.join(", ", groupBy));
        if (!having.isEmpty()) sb.append(" having ").append(having);
        if (!orderBy.isEmpty()) {
            sb.append(" order by ").append(orderBy.stream().map(OrderUnit::toString).collect(Collectors.joining(", ")));
        }
        if (limit != null) sb.append(" limit ").append(limit);
        sb.append(" [").append(keywords.stream().sorted().collect(Collectors.joining(","))).append(']');
        if (setOp != null) sb.append(' ').append(setOp).append(" {").append(setRight.canonical()).append('}');
        return sb.toString();
    }

    @Override
    public String toString() {
        return canonical();
    }
}
