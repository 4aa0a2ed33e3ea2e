package dev.ladder.sql.schema;

import java.util.List;
import java.util.Optional;

/**
 * @param name       table name as declared (case preserved)
 * @param columns    in declaration order
 * @param primaryKey primary-key column names in key order (empty when there is none)
 * @param rowCount   exact row count at introspection time
 */
public record Table(String name, List<Column> columns, List<String> primaryKey, long rowCount) {

    public Table {
        columns = List.copyOf(columns);
        primaryKey = List.copyOf(primaryKey);
    }

    public Optional<Column> column(String columnName) {
        return columns.stream().filter(c -> c.name().equalsIgnoreCase(columnName)).findFirst();
    }
}
