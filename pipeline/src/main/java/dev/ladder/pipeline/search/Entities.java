package dev.ladder.pipeline.search;

import java.util.List;

/**
 * The schema entities a candidate uses, from one channel: the model's own declaration in its JSON, or what the shared
 * SQL reader finds in its SQL. A list is null when the channel says nothing about that kind (the model left the key
 * out), which is not the same as an empty list (it declared none).
 *
 * @param tables  table names
 * @param columns {@code (table, column)} pairs
 * @param joins   join edges
 */
public record Entities(List<String> tables, List<ColumnRef> columns, List<JoinRef> joins) {

    public Entities {
        tables = tables == null ? null : List.copyOf(tables);
        columns = columns == null ? null : List.copyOf(columns);
        joins = joins == null ? null : List.copyOf(joins);
    }

    /** Nothing declared. */
    public static final Entities NONE = new Entities(null, null, null);

    /** A column of a table; {@code table} is null when the channel did not say which. */
    public record ColumnRef(String table, String column) {
        @Override
        public String toString() {
            return table == null ? column : table + "." + column;
        }
    }

    /**
     * A join between two tables.
     *
     * @param on the condition as written (may be null)
     */
    public record JoinRef(String left, String right, String on) {}
}
