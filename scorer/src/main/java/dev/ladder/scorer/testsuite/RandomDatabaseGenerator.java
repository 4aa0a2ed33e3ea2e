package dev.ladder.scorer.testsuite;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.SqlLexer;
import dev.ladder.sql.SqlToken;
import dev.ladder.sql.db.EmbeddedMariaDb;
import dev.ladder.sql.db.UserError;
import dev.ladder.sql.read.Identifiers;
import dev.ladder.sql.read.LiteralAnchors;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Random databases with the schema of a source database on the embedded MariaDB: the DDL is the
 * source's own ({@code SHOW CREATE TABLE}), so types, keys, foreign keys and CHECKs are the same.
 *
 * <p>Values come from the source's data (sampled per column), from the literals of the queries the
 * suite is for (each literal goes to the column it is compared with, e.g. {@code 'Paris'} in
 * {@code city = 'Paris'} feeds {@code city}), boundary perturbations of both (&plusmn;1,
 * &plusmn;0.01, a date &plusmn;1 day, prefixes, suffixes, contaminated strings, strings matching a
 * LIKE pattern), random values of the column type and NULLs where a column is nullable. Each column
 * draws from a small per-database pool, so non-key values repeat. Tables are filled parents first
 * with foreign keys drawn from the parent rows already inserted (a self-reference picks rows of the
 * same table), 0 to 40 rows each. Everything follows from the seed.
 */
public final class RandomDatabaseGenerator {

    private static final int SAMPLE_LIMIT = 300;
    static final Pattern YEAR = Pattern.compile("\\d{4}");

    enum Kind { INT, DECIMAL, FLOAT, STRING, DATE, DATETIME, TIME, YEAR, ENUM, BLOB, OTHER }

    record ColumnInfo(String name, Kind kind, String dataType, long maxLength, int precision, int scale,
                      boolean nullable, boolean unsigned, List<String> enumValues) {}

    record ForeignKeyInfo(List<String> columns, String referencedTable, List<String> referencedColumns) {}

    record TableInfo(String name, String ddl, List<ColumnInfo> columns, List<List<String>> uniqueKeys,
                     List<String> primaryKey, List<ForeignKeyInfo> foreignKeys) {}

    /** A literal of a seed query; {@code pattern} for LIKE patterns. */
    record Literal(Object value, boolean pattern) {}

    private final EmbeddedMariaDb server;
    private final String source;
    private final String charset;
    private final String collation;
    private final List<TableInfo> tables; // parents first
    private final Map<String, List<Object>> samples = new HashMap<>(); // "table.column" (upper) -> values
    private final Map<String, List<Literal>> anchored = new HashMap<>(); // column name (upper) -> literals
    private final List<Literal> globalLiterals = new ArrayList<>();
    private final Set<String> seenAnchored = new HashSet<>();
    private Connection admin;

    private RandomDatabaseGenerator(EmbeddedMariaDb server, String source, String charset, String collation,
                                    List<TableInfo> tables) {
        this.server = server;
        this.source = source;
        this.charset = charset;
        this.collation = collation;
        this.tables = tables;
    }

    /**
     * Reads the schema and a sample of the data of {@code sourceDb}, and the literals of
     * {@code seedQueries} (gold queries and, better still, their neighbours).
     */
    public static RandomDatabaseGenerator of(EmbeddedMariaDb server, String sourceDb, List<String> seedQueries) {
        try (Connection c = server.adminConnection()) {
            String charset;
            String collation;
            try (PreparedStatement ps = c.prepareStatement("SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME"
                    + " FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?")) {
                ps.setString(1, sourceDb);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) throw new UserError("database '" + sourceDb + "' does not exist on the embedded server");
                    charset = rs.getString(1);
                    collation = rs.getString(2);
                }
            }
            List<TableInfo> tables = readTables(c, sourceDb);
            RandomDatabaseGenerator g = new RandomDatabaseGenerator(server, sourceDb, charset, collation, order(tables));
            g.readSamples(c);
            g.addSeedQueries(seedQueries);
            return g;
        } catch (SQLException e) {
            throw new UserError("cannot read the schema of '" + sourceDb + "' for random databases: " + e.getMessage(), e);
        }
    }

    /** Table names in fill order (parents before children). */
    public List<String> tableOrder() {
        return tables.stream().map(TableInfo::name).toList();
    }

    // ---- public operations ----

    /** Creates {@code name} (dropping it first if it exists) with the source's tables and no rows. */
    public void createEmpty(String name) {
        try {
            Connection c = admin();
            try (Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + q(name));
                st.execute("CREATE DATABASE " + q(name) + " CHARACTER SET " + charset + " COLLATE " + collation);
                st.execute("USE " + q(name));
                st.execute("SET SESSION foreign_key_checks = 0");
                try {
                    for (TableInfo t : tables) st.execute(t.ddl());
                } finally {
                    st.execute("SET SESSION foreign_key_checks = 1");
                }
            }
        } catch (SQLException e) {
            throw new UserError("cannot create database '" + name + "': " + e.getMessage(), e);
        }
    }

    /** Creates {@code name} and fills it with random rows; returns the row count of each table. */
    public Map<String, Integer> create(String name, long seed) {
        createEmpty(name);
        return fill(name, seed);
    }

    /** Empties the existing database {@code name} and fills it anew (faster than drop and create). */
    public Map<String, Integer> refill(String name, long seed) {
        try {
            Connection c = admin();
            try (Statement st = c.createStatement()) {
                st.execute("USE " + q(name));
                st.execute("SET SESSION foreign_key_checks = 0");
                try {
                    // TRUNCATE, not DELETE: a truncated table is new, as a created one is, while deleted rows wait
                    // for the background purge, whose progress depends on timing and load
                    for (TableInfo t : tables) st.execute("TRUNCATE TABLE " + q(t.name()));
                } finally {
                    st.execute("SET SESSION foreign_key_checks = 1");
                }
            }
        } catch (SQLException e) {
            throw new UserError("cannot empty database '" + name + "': " + e.getMessage(), e);
        }
        return fill(name, seed);
    }

    /** Drops {@code name} if it exists. */
    public static void drop(EmbeddedMariaDb server, String name) {
        try (Connection c = server.adminConnection(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + q(name));
        } catch (SQLException e) {
            throw new UserError("cannot drop database '" + name + "': " + e.getMessage(), e);
        }
    }

    /** Names of the databases on the server that start with {@code prefix}, sorted. */
    public static List<String> databasesStartingWith(EmbeddedMariaDb server, String prefix) {
        List<String> names = new ArrayList<>();
        try (Connection c = server.adminConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA ORDER BY SCHEMA_NAME")) {
            while (rs.next()) if (rs.getString(1).startsWith(prefix)) names.add(rs.getString(1));
        } catch (SQLException e) {
            throw new UserError("cannot list databases: " + e.getMessage(), e);
        }
        return names;
    }

    /** Closes the admin connection this generator keeps. */
    public void close() {
        try {
            if (admin != null) admin.close();
        } catch (SQLException ignored) {
            // nothing to do
        }
        admin = null;
    }

    private Connection admin() throws SQLException {
        if (admin == null || admin.isClosed()) admin = server.adminConnection();
        return admin;
    }

    // ---- filling ----

    private Map<String, Integer> fill(String name, long seed) {
        try {
            return new RandomRows(tables, samples, anchored, globalLiterals, seed).run(admin(), name);
        } catch (SQLException e) {
            throw new UserError("cannot fill random database '" + name + "': " + e.getMessage(), e);
        }
    }

    // ---- reading the source ----

    private static List<TableInfo> readTables(Connection c, String db) throws SQLException {
        Map<String, List<ColumnInfo>> columns = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, COLUMN_TYPE,"
                + " CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE, IS_NULLABLE, EXTRA"
                + " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION")) {
            ps.setString(1, db);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String extra = String.valueOf(rs.getString(9)).toUpperCase(Locale.ROOT);
                    if (extra.contains("GENERATED")) continue; // computed by the server
                    String dataType = rs.getString(3).toLowerCase(Locale.ROOT);
                    String columnType = rs.getString(4).toLowerCase(Locale.ROOT);
                    columns.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(new ColumnInfo(
                            rs.getString(2), kind(dataType), dataType, rs.getLong(5), rs.getInt(6), rs.getInt(7),
                            "YES".equals(rs.getString(8)), columnType.contains("unsigned"), enumValues(columnType)));
                }
            }
        }
        Map<String, Map<String, List<String>>> unique = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT TABLE_NAME, INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS"
                + " WHERE TABLE_SCHEMA = ? AND NON_UNIQUE = 0 ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX")) {
            ps.setString(1, db);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    unique.computeIfAbsent(rs.getString(1), k -> new TreeMap<>())
                            .computeIfAbsent(rs.getString(2), k -> new ArrayList<>()).add(rs.getString(3));
                }
            }
        }
        Map<String, Map<String, ForeignKeyInfo>> fks = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_NAME,"
                + " REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = ?"
                + " AND REFERENCED_TABLE_NAME IS NOT NULL ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION")) {
            ps.setString(1, db);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Map<String, ForeignKeyInfo> byName = fks.computeIfAbsent(rs.getString(1), k -> new TreeMap<>());
                    ForeignKeyInfo fk = byName.get(rs.getString(2));
                    List<String> cols = fk == null ? new ArrayList<>() : new ArrayList<>(fk.columns());
                    List<String> refs = fk == null ? new ArrayList<>() : new ArrayList<>(fk.referencedColumns());
                    cols.add(rs.getString(3));
                    refs.add(rs.getString(5));
                    byName.put(rs.getString(2), new ForeignKeyInfo(cols, rs.getString(4), refs));
                }
            }
        }
        List<TableInfo> tables = new ArrayList<>();
        for (Map.Entry<String, List<ColumnInfo>> e : columns.entrySet()) {
            String table = e.getKey();
            String ddl;
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SHOW CREATE TABLE " + q(db) + "." + q(table))) {
                if (!rs.next()) continue;
                ddl = rs.getString(2);
            }
            if (!ddl.toUpperCase(Locale.ROOT).startsWith("CREATE TABLE")) continue; // a view
            Map<String, List<String>> keys = unique.getOrDefault(table, Map.of());
            List<String> pk = keys.getOrDefault("PRIMARY", List.of());
            tables.add(new TableInfo(table, ddl, e.getValue(), List.copyOf(keys.values()), pk,
                    List.copyOf(fks.getOrDefault(table, Map.of()).values())));
        }
        return tables;
    }

    /** Parents before children (self-references ignored); ties and cycles broken by name. */
    static List<TableInfo> order(List<TableInfo> tables) {
        List<TableInfo> remaining = new ArrayList<>(tables);
        remaining.sort((a, b) -> a.name().compareToIgnoreCase(b.name()));
        List<TableInfo> out = new ArrayList<>();
        Set<String> done = new HashSet<>();
        while (!remaining.isEmpty()) {
            TableInfo next = null;
            for (TableInfo t : remaining) {
                boolean ready = t.foreignKeys().stream().allMatch(fk -> fk.referencedTable().equalsIgnoreCase(t.name())
                        || done.contains(fk.referencedTable().toLowerCase(Locale.ROOT))
                        || tables.stream().noneMatch(x -> x.name().equalsIgnoreCase(fk.referencedTable())));
                if (ready) {
                    next = t;
                    break;
                }
            }
            if (next == null) next = remaining.get(0); // a cycle: its foreign keys to later tables get parents only if nullable
            remaining.remove(next);
            out.add(next);
            done.add(next.name().toLowerCase(Locale.ROOT));
        }
        return out;
    }

    private void readSamples(Connection c) throws SQLException {
        for (TableInfo t : tables) {
            for (ColumnInfo col : t.columns()) {
                if (col.kind() == Kind.BLOB || col.kind() == Kind.OTHER) continue;
                String sql = "SELECT DISTINCT " + q(col.name()) + " FROM " + q(source) + "." + q(t.name())
                        + " WHERE " + q(col.name()) + " IS NOT NULL ORDER BY 1 LIMIT " + SAMPLE_LIMIT;
                List<Object> values = new ArrayList<>();
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
                    while (rs.next()) {
                        Object v = switch (col.kind()) {
                            case DATE -> rs.getObject(1, LocalDate.class);
                            case DATETIME -> rs.getObject(1, LocalDateTime.class);
                            case TIME -> rs.getObject(1, LocalTime.class);
                            case INT, YEAR -> rs.getLong(1);
                            case DECIMAL -> rs.getBigDecimal(1);
                            case FLOAT -> rs.getDouble(1);
                            default -> rs.getString(1);
                        };
                        values.add(v);
                    }
                }
                samples.put(sampleKey(t.name(), col.name()), values);
            }
        }
    }

    /**
     * Adds the literals of {@code queries} to the value sources: each literal goes to the column it
     * is compared with, else to a pool any column of its kind may draw from.
     */
    public void addSeedQueries(List<String> queries) {
        Set<String> columnNames = new HashSet<>();
        for (TableInfo t : tables) for (ColumnInfo c : t.columns()) columnNames.add(c.name().toUpperCase(Locale.ROOT));
        for (String sql : queries) {
            List<SqlToken> toks;
            try {
                toks = SqlLexer.significant(sql, Dialect.MYSQL);
            } catch (SqlLexer.LexException e) {
                continue;
            }
            for (int i = 0; i < toks.size(); i++) {
                SqlToken tok = toks.get(i);
                if (tok.type() != SqlToken.Type.NUMBER && tok.type() != SqlToken.Type.STRING) continue;
                if (i > 0 && toks.get(i - 1).isWord("LIMIT")) continue;
                Literal lit;
                if (tok.type() == SqlToken.Type.NUMBER) {
                    try {
                        lit = new Literal(new BigDecimal(tok.text()), false);
                    } catch (NumberFormatException e) {
                        continue;
                    }
                } else {
                    boolean like = i > 0 && toks.get(i - 1).isWord("LIKE");
                    lit = new Literal(Identifiers.stringValue(tok.text()), like);
                }
                String anchor = LiteralAnchors.comparedColumn(toks, i, columnNames);
                String key = (anchor == null ? "" : anchor) + "\u0001" + lit;
                if (!seenAnchored.add(key)) continue;
                if (anchor == null) globalLiterals.add(lit);
                else anchored.computeIfAbsent(anchor, k -> new ArrayList<>()).add(lit);
            }
        }
    }

    // ---- helpers ----

    private static Kind kind(String dataType) {
        return switch (dataType) {
            case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "bit" -> Kind.INT;
            case "decimal", "numeric" -> Kind.DECIMAL;
            case "float", "double", "real" -> Kind.FLOAT;
            case "char", "varchar", "text", "tinytext", "mediumtext", "longtext" -> Kind.STRING;
            case "date" -> Kind.DATE;
            case "datetime", "timestamp" -> Kind.DATETIME;
            case "time" -> Kind.TIME;
            case "year" -> Kind.YEAR;
            case "enum" -> Kind.ENUM;
            case "blob", "tinyblob", "mediumblob", "longblob", "binary", "varbinary" -> Kind.BLOB;
            default -> Kind.OTHER;
        };
    }

    static List<String> enumValues(String columnType) {
        if (!columnType.startsWith("enum(")) return List.of();
        List<String> values = new ArrayList<>();
        Matcher m = Pattern.compile("'((?:[^']|'')*)'").matcher(columnType);
        while (m.find()) values.add(m.group(1).replace("''", "'"));
        return values;
    }


    static BigDecimal number(Object v) {
        if (v instanceof BigDecimal b) return b;
        if (v instanceof Long l) return BigDecimal.valueOf(l);
        if (v instanceof Integer i) return BigDecimal.valueOf(i);
        if (v instanceof Double d) return Double.isFinite(d) ? BigDecimal.valueOf(d) : null;
        if (v instanceof String s) {
            try {
                return new BigDecimal(s.strip());
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return null;
    }



    static Object get(Map<String, Object> row, String column) {
        if (row.containsKey(column)) return row.get(column);
        for (Map.Entry<String, Object> e : row.entrySet()) if (e.getKey().equalsIgnoreCase(column)) return e.getValue();
        return null;
    }

    static ColumnInfo column(TableInfo t, String name) {
        return t.columns().stream().filter(c -> c.name().equalsIgnoreCase(name)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no column " + name + " in " + t.name()));
    }


    static String sampleKey(String table, String column) {
        return (table + "." + column).toUpperCase(Locale.ROOT);
    }

    static String q(String identifier) {
        return "`" + identifier.replace("`", "``") + "`";
    }
}
