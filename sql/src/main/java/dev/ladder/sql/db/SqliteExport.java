package dev.ladder.sql.db;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Copies any {@link Database} (schema, keys and rows) into a new SQLite file: the form Spider-style
 * tools and test-suite databases use. Declared types are kept as text, so the copy's schema
 * summary equals the source's. Dates become ISO text, decimals numbers.
 */
public final class SqliteExport {

    private SqliteExport() {}

    public static void copy(Database source, Path target) {
        Schema schema = source.schema();
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try {
            Files.createDirectories(target.toAbsolutePath().getParent());
            Files.deleteIfExists(tmp);
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + tmp.toAbsolutePath())) {
                c.setAutoCommit(false);
                try (Statement st = c.createStatement()) {
                    for (Table t : schema.tables()) st.execute(createTable(schema, t));
                }
                for (Table t : schema.tables()) copyRows(source, c, t);
                c.commit();
            }
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (SQLException | IOException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // nothing more to do
            }
            throw new UserError("cannot write SQLite copy " + target + ": " + e.getMessage(), e);
        }
    }

    static String createTable(Schema schema, Table t) {
        List<String> parts = new ArrayList<>();
        for (Column col : t.columns()) {
            parts.add(q(col.name()) + " " + col.type() + (col.nullable() ? "" : " NOT NULL"));
        }
        if (!t.primaryKey().isEmpty()) parts.add("PRIMARY KEY (" + join(t.primaryKey()) + ")");
        for (ForeignKey fk : schema.foreignKeysOf(t.name())) {
            parts.add("FOREIGN KEY (" + join(fk.columns()) + ") REFERENCES " + q(fk.referencedTable())
                    + " (" + join(fk.referencedColumns()) + ")");
        }
        return "CREATE TABLE " + q(t.name()) + " (" + String.join(", ", parts) + ")";
    }

    private static void copyRows(Database source, Connection c, Table t) throws SQLException {
        String select = "SELECT " + String.join(", ", t.columns().stream()
                .map(col -> SchemaIntrospector.quote(source.dialect(), col.name())).toList())
                + " FROM " + SchemaIntrospector.quote(source.dialect(), t.name());
        Execution ex = source.execute(select, new ExecutionLimits(Duration.ofMinutes(5), (int) Math.max(1, t.rowCount() + 1)));
        if (!(ex instanceof Execution.Success ok)) {
            throw new SQLException("reading " + t.name() + ": " + ((Execution.Failure) ex).error());
        }
        String insert = "INSERT INTO " + q(t.name()) + " VALUES (" + String.join(", ",
                Collections.nCopies(t.columns().size(), "?")) + ")";
        try (PreparedStatement ps = c.prepareStatement(insert)) {
            for (List<Object> row : ok.result().rows()) {
                for (int i = 0; i < row.size(); i++) bind(ps, i + 1, row.get(i));
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private static void bind(PreparedStatement ps, int i, Object v) throws SQLException {
        if (v == null) ps.setObject(i, null);
        else if (v instanceof Long l) ps.setLong(i, l);
        else if (v instanceof Double d) ps.setDouble(i, d);
        else if (v instanceof BigDecimal bd) {
            if (bd.scale() == 0 && bd.abs().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0) ps.setLong(i, bd.longValueExact());
            else ps.setDouble(i, bd.doubleValue());
        } else if (v instanceof LocalDate || v instanceof LocalDateTime) ps.setString(i, Values.render(v));
        else ps.setString(i, v.toString());
    }

    private static String q(String identifier) {
        return SchemaIntrospector.quote(Dialect.SQLITE, identifier);
    }

    private static String join(List<String> names) {
        return String.join(", ", names.stream().map(SqliteExport::q).toList());
    }
}
