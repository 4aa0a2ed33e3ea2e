package dev.ladder.sql.read;

import dev.ladder.sql.schema.Schema;
import java.util.List;
import java.util.Optional;
import net.sf.jsqlparser.statement.select.Select;

/**
 * Every table and column name of a parsed query resolved against a schema, scope by scope, as MySQL 8 resolves them:
 * what a repair prompt, a schema-linking score or a guard needs to say "no column x in customers" before the server
 * does. Only a query JSqlParser reads is bound. Lists have no duplicates and are in binding order: per SELECT, its FROM
 * items with their ON conditions, then the SELECT list, WHERE, GROUP BY, HAVING, ORDER BY (CTE bodies before the query,
 * a subquery where it stands).
 *
 * <p>Scopes: each SELECT sees its FROM items (schema tables, CTEs, derived tables with the names their SELECT lists
 * give) and, for a subquery, the enclosing SELECTs' ones after its own. A qualifier is an alias, or the table's name
 * when it has none. An unqualified name is the one in-scope source's that has it (innermost scope first); SELECT-list
 * aliases count in GROUP BY, HAVING and ORDER BY. A source whose columns are not known (a table the schema lacks, a
 * recursive CTE inside its own body) absorbs the names nothing else has: its table is reported, not each column.
 *
 * @param parsed         the query parsed and was bound; false: {@code failure} says why and the lists are empty
 * @param tables         schema tables in FROM / JOIN (schema spelling)
 * @param columns        column references resolved to a schema table's column (schema spellings)
 * @param unknownTables  FROM / JOIN names that are neither schema tables nor CTEs (as written)
 * @param unknownColumns column references that resolve to nothing in scope, or to several sources of one scope
 * @param equalities     {@code x = y} in ON, WHERE or USING (any level) between columns of two different sources
 * @param ungrouped      SELECT-list columns (as written) that break ONLY_FULL_GROUP_BY, any level
 * @param selectStar     some SELECT list has {@code *} or {@code t.*}
 * @param conditions     value conditions: a schema column compared with a string or number literal in WHERE, ON or
 *                       HAVING ({@code =}, {@code <>}, {@code <}, {@code >}, {@code <=}, {@code >=}, {@code LIKE},
 *                       {@code IN}: one per listed value), any level
 */
public record SchemaBinding(boolean parsed, String failure, List<String> tables, List<BoundColumn> columns,
                            List<String> unknownTables, List<UnknownColumn> unknownColumns,
                            List<ColumnPair> equalities, List<String> ungrouped, boolean selectStar,
                            List<ValueCondition> conditions) {

    /** A schema table's column (schema spellings). */
    public record BoundColumn(String table, String column) {}

    /** A column reference that names nothing: qualifier as written (null when none), column unquoted, and why. */
    public record UnknownColumn(String qualifier, String column, String reason) {}

    /** Two columns compared with {@code =}, in the order written. */
    public record ColumnPair(BoundColumn left, BoundColumn right) {}

    /**
     * A column compared with a literal, the column on the left ({@code 5 < x} reads as {@code x > 5}).
     *
     * @param value the literal's value: a string unquoted, a number as written
     */
    public record ValueCondition(BoundColumn column, String operator, String value) {}

    public SchemaBinding {
        tables = List.copyOf(tables);
        columns = List.copyOf(columns);
        unknownTables = List.copyOf(unknownTables);
        unknownColumns = List.copyOf(unknownColumns);
        equalities = List.copyOf(equalities);
        ungrouped = List.copyOf(ungrouped);
        conditions = List.copyOf(conditions);
    }

    static SchemaBinding of(Query query, Schema schema) {
        Optional<Select> select = query.select();
        if (select.isEmpty()) {
            return failed(query.parseFailure() != null ? query.parseFailure() : "not a query");
        }
        try {
            SchemaBinder b = new SchemaBinder(schema);
            b.bind(select.get(), null);
            return new SchemaBinding(true, null, List.copyOf(b.tables), List.copyOf(b.columns),
                    List.copyOf(b.unknownTables), List.copyOf(b.unknownColumns), List.copyOf(b.equalities),
                    List.copyOf(b.ungrouped), b.star, List.copyOf(b.conditions));
        } catch (RuntimeException | StackOverflowError e) {
            // the parse succeeded, so a tree this deep is not expected (Query.tooComplex guards it): a verdict, no throw
            return failed("could not bind: " + e);
        }
    }

    private static SchemaBinding failed(String why) {
        return new SchemaBinding(false, why, List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), false, List.of());
    }
}
