package dev.ladder.sql.schema;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The introspected structure of one database. Tables and foreign keys are kept in a fixed order
 * (case-insensitive by name, then by columns) so that everything rendered from a schema is
 * byte-stable across runs and database kinds.
 */
public record Schema(String database, List<Table> tables, List<ForeignKey> foreignKeys) {

    static final Comparator<String> NAME_ORDER =
            String.CASE_INSENSITIVE_ORDER.thenComparing(Comparator.naturalOrder());

    public Schema {
        tables = tables.stream().sorted(Comparator.comparing(Table::name, NAME_ORDER)).toList();
        foreignKeys = foreignKeys.stream()
                .sorted(Comparator.comparing(ForeignKey::table, NAME_ORDER)
                        .thenComparing(fk -> String.join(",", fk.columns()), NAME_ORDER)
                        .thenComparing(ForeignKey::referencedTable, NAME_ORDER))
                .toList();
    }

    public Optional<Table> table(String name) {
        return tables.stream().filter(t -> t.name().equalsIgnoreCase(name)).findFirst();
    }

    public List<ForeignKey> foreignKeysOf(String tableName) {
        return foreignKeys.stream().filter(fk -> fk.table().equalsIgnoreCase(tableName)).toList();
    }
}
