package dev.ladder.sql.db;

import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.List;

/**
 * Text forms of a {@link Schema}. Both are deterministic: same schema, same bytes, whatever the
 * database kind, the run or the JVM. Prompts embed {@link #summary}; {@link #createTables} is the
 * DDL-style alternative some prompt formats prefer.
 */
public final class SchemaRenderer {

    private SchemaRenderer() {}

    /**
     * One line per table, columns in declaration order with type, {@code PK} for primary-key columns
     * and {@code -> table.column} for single-column foreign keys; composite foreign keys follow in a
     * separate block. Example: {@code orders(orderNumber int PK, customerNumber int -> customers.customerNumber)}.
     */
    public static String summary(Schema schema) {
        StringBuilder sb = new StringBuilder();
        List<ForeignKey> composite = new ArrayList<>();
        for (Table t : schema.tables()) {
            List<String> parts = new ArrayList<>();
            for (Column c : t.columns()) {
                StringBuilder col = new StringBuilder(c.name()).append(' ').append(c.type());
                if (t.primaryKey().contains(c.name())) col.append(" PK");
                for (ForeignKey fk : schema.foreignKeysOf(t.name())) {
                    if (fk.columns().size() == 1 && fk.columns().get(0).equals(c.name())) {
                        col.append(" -> ").append(fk.referencedTable()).append('.').append(fk.referencedColumns().get(0));
                    }
                }
                parts.add(col.toString());
            }
            sb.append(t.name()).append('(').append(String.join(", ", parts)).append(")\n");
            schema.foreignKeysOf(t.name()).stream().filter(fk -> fk.columns().size() > 1).forEach(composite::add);
        }
        if (!composite.isEmpty()) {
            sb.append("Composite foreign keys:\n");
            for (ForeignKey fk : composite) sb.append(fk.describe()).append('\n');
        }
        return sb.toString();
    }

    /** {@code CREATE TABLE} statements (MySQL flavour, unquoted names) in table order. */
    public static String createTables(Schema schema) {
        StringBuilder sb = new StringBuilder();
        for (Table t : schema.tables()) {
            List<String> lines = new ArrayList<>();
            for (Column c : t.columns()) {
                lines.add("  " + c.name() + " " + c.type() + (c.nullable() ? "" : " NOT NULL"));
            }
            if (!t.primaryKey().isEmpty()) lines.add("  PRIMARY KEY (" + String.join(", ", t.primaryKey()) + ")");
            for (ForeignKey fk : schema.foreignKeysOf(t.name())) {
                lines.add("  FOREIGN KEY (" + String.join(", ", fk.columns()) + ") REFERENCES "
                        + fk.referencedTable() + " (" + String.join(", ", fk.referencedColumns()) + ")");
            }
            sb.append("CREATE TABLE ").append(t.name()).append(" (\n")
                    .append(String.join(",\n", lines)).append("\n);\n");
        }
        return sb.toString();
    }
}
