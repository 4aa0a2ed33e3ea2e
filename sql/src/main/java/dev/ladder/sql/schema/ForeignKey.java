package dev.ladder.sql.schema;

import java.util.List;

/** A foreign key: {@code table(columns)} references {@code referencedTable(referencedColumns)}. */
public record ForeignKey(String table, List<String> columns, String referencedTable, List<String> referencedColumns) {

    public ForeignKey {
        columns = List.copyOf(columns);
        referencedColumns = List.copyOf(referencedColumns);
        if (columns.size() != referencedColumns.size() || columns.isEmpty()) {
            throw new IllegalArgumentException("foreign key column lists must be non-empty and of equal length");
        }
    }

    public String describe() {
        return table + "(" + String.join(", ", columns) + ") -> " + referencedTable + "("
                + String.join(", ", referencedColumns) + ")";
    }
}
