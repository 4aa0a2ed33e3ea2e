package dev.ladder.eval.report;

/**
 * Structural size of a gold SQL query, stored with every result row so that accuracy can be broken down by it.
 *
 * @param tables     distinct base tables used anywhere (CTE names excluded)
 * @param joins      JOIN clauses plus comma-joined FROM items beyond the first, at every query level
 * @param aggregates aggregate calls anywhere (COUNT, SUM, AVG, MIN, MAX, GROUP_CONCAT, ...; window aggregates too)
 * @param nesting    deepest subquery level: 0 without subqueries; a subquery, derived table or CTE body adds one
 */
public record GoldFeatures(int tables, int joins, int aggregates, int nesting) {

    /** The features of {@code sql}; never throws. SQL the parser rejects gets a lexical table count and zeros. */
    public static GoldFeatures of(String sql) {
        try {
            ErrorTaxonomy.SqlTree tree = ErrorTaxonomy.SqlTree.parse(sql);
            if (tree != null) return new GoldFeatures(tree.tables.size(), tree.joins, tree.aggregateCalls, tree.depth);
            return new GoldFeatures(ErrorTaxonomy.lexicalTables(sql).size(), 0, 0, 0);
        } catch (RuntimeException e) {
            return new GoldFeatures(0, 0, 0, 0);
        }
    }
}
