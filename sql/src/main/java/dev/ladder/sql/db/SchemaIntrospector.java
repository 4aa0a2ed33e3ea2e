package dev.ladder.sql.db;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.SqlTypes;
import dev.ladder.sql.schema.Table;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Reads tables, columns, keys and row counts of a database through its own catalog. */
final class SchemaIntrospector {

    private SchemaIntrospector() {}

    static Schema introspect(Connection c, Dialect dialect, String database) throws SQLException {
        return dialect == Dialect.MYSQL ? mysql(c, database) : sqlite(c, database);
    }

    private static Schema mysql(Connection c, String db) throws SQLException {
        Map<String, List<Column>> columns = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE'")) {
            ps.setString(1, db);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) columns.put(rs.getString(1), new ArrayList<>());
            }
        }
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS"
                        + " WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION")) {
            ps.setString(1, db);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    List<Column> cols = columns.get(rs.getString(1));
                    if (cols != null) {
                        cols.add(new Column(rs.getString(2), SqlTypes.normalize(rs.getString(3)),
                                "YES".equals(rs.getString(4))));
                    }
                }
            }
        }
        Map<String, List<String>> primaryKeys = new TreeMap<>();
        Map<String, ForeignKeyBuilder> fks = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT CONSTRAINT_NAME, TABLE_NAME, COLUMN_NAME, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME"
                        + " FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = ?"
                        + " ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION")) {
            ps.setString(1, db);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String constraint = rs.getString(1);
                    String table = rs.getString(2);
                    if ("PRIMARY".equals(constraint)) {
                        primaryKeys.computeIfAbsent(table, k -> new ArrayList<>()).add(rs.getString(3));
                    } else if (rs.getString(4) != null) {
                        String target = rs.getString(4);
                        fks.computeIfAbsent(table + "\u0000" + constraint, k -> new ForeignKeyBuilder(table, target))
                                .add(rs.getString(3), rs.getString(5));
                    }
                }
            }
        }
        return assemble(c, Dialect.MYSQL, db, columns, primaryKeys, fks);
    }

    private static Schema sqlite(Connection c, String db) throws SQLException {
        Map<String, List<Column>> columns = new LinkedHashMap<>();
        Map<String, List<String>> primaryKeys = new TreeMap<>();
        Map<String, ForeignKeyBuilder> fks = new LinkedHashMap<>();
        List<String> tables = new ArrayList<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(
                     "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")) {
            while (rs.next()) tables.add(rs.getString(1));
        }
        for (String table : tables) {
            List<Column> cols = new ArrayList<>();
            TreeMap<Integer, String> pk = new TreeMap<>();
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("PRAGMA table_info(" + quote(Dialect.SQLITE, table) + ")")) {
                while (rs.next()) {
                    cols.add(new Column(rs.getString("name"), SqlTypes.normalize(rs.getString("type")),
                            rs.getInt("notnull") == 0));
                    int pkIndex = rs.getInt("pk");
                    if (pkIndex > 0) pk.put(pkIndex, rs.getString("name"));
                }
            }
            columns.put(table, cols);
            if (!pk.isEmpty()) primaryKeys.put(table, new ArrayList<>(pk.values()));
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("PRAGMA foreign_key_list(" + quote(Dialect.SQLITE, table) + ")")) {
                while (rs.next()) {
                    String target = rs.getString("table");
                    fks.computeIfAbsent(table + "\u0000" + rs.getInt("id"), k -> new ForeignKeyBuilder(table, target))
                            .add(rs.getString("from"), rs.getString("to"));
                }
            }
        }
        return assemble(c, Dialect.SQLITE, db, columns, primaryKeys, fks);
    }

    private static Schema assemble(Connection c, Dialect dialect, String db, Map<String, List<Column>> columns,
                                   Map<String, List<String>> primaryKeys, Map<String, ForeignKeyBuilder> fks)
            throws SQLException {
        List<Table> tables = new ArrayList<>();
        for (Map.Entry<String, List<Column>> e : columns.entrySet()) {
            tables.add(new Table(e.getKey(), e.getValue(), primaryKeys.getOrDefault(e.getKey(), List.of()),
                    countRows(c, dialect, e.getKey())));
        }
        List<ForeignKey> foreignKeys = fks.values().stream().map(ForeignKeyBuilder::build).toList();
        return new Schema(db, tables, foreignKeys);
    }

    static long countRows(Connection c, Dialect dialect, String table) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + quote(dialect, table))) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static String quote(Dialect dialect, String identifier) {
        return dialect == Dialect.MYSQL
                ? "`" + identifier.replace("`", "``") + "`"
                : "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    private static final class ForeignKeyBuilder {
        final String table;
        final String target;
        final List<String> from = new ArrayList<>();
        final List<String> to = new ArrayList<>();

        ForeignKeyBuilder(String table, String target) {
            this.table = table;
            this.target = target;
        }

        ForeignKeyBuilder add(String fromColumn, String toColumn) {
            from.add(fromColumn);
            to.add(toColumn);
            return this;
        }

        ForeignKey build() {
            return new ForeignKey(table, from, target, to);
        }
    }
}
