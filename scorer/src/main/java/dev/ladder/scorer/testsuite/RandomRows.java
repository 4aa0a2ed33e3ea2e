package dev.ladder.scorer.testsuite;

import static dev.ladder.scorer.testsuite.RandomDatabaseGenerator.YEAR;
import static dev.ladder.scorer.testsuite.RandomDatabaseGenerator.column;
import static dev.ladder.scorer.testsuite.RandomDatabaseGenerator.get;
import static dev.ladder.scorer.testsuite.RandomDatabaseGenerator.number;
import static dev.ladder.scorer.testsuite.RandomDatabaseGenerator.q;
import static dev.ladder.scorer.testsuite.RandomDatabaseGenerator.sampleKey;

import dev.ladder.scorer.testsuite.RandomDatabaseGenerator.ColumnInfo;
import dev.ladder.scorer.testsuite.RandomDatabaseGenerator.ForeignKeyInfo;
import dev.ladder.scorer.testsuite.RandomDatabaseGenerator.Kind;
import dev.ladder.scorer.testsuite.RandomDatabaseGenerator.Literal;
import dev.ladder.scorer.testsuite.RandomDatabaseGenerator.TableInfo;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * The rows of one random database ({@link RandomDatabaseGenerator}): per table, parents first, how many rows, each
 * column's small per-database value pool, unique and foreign keys kept, inserted row by row where a batch fails.
 * Everything follows from the seed.
 */
final class RandomRows {

    private static final int UNIQUE_TRIES = 25;

    private final List<TableInfo> tables; // parents first
    private final Map<String, List<Object>> samples; // "table.column" (upper) -> values
    private final Map<String, List<Literal>> anchored; // column name (upper) -> literals
    private final List<Literal> globalLiterals;
    private final Random random;
    private final Map<String, List<Map<String, Object>>> inserted = new HashMap<>();

    RandomRows(List<TableInfo> tables, Map<String, List<Object>> samples, Map<String, List<Literal>> anchored,
               List<Literal> globalLiterals, long seed) {
        this.tables = tables;
        this.samples = samples;
        this.anchored = anchored;
        this.globalLiterals = globalLiterals;
        this.random = new Random(seed);
    }

    /** Fills the (empty) database {@code name} through root's connection {@code c}; returns the rows per table. */
    Map<String, Integer> run(Connection c, String name) throws SQLException {
        Map<String, Integer> sizes = chooseSizes();
        try (Statement st = c.createStatement()) {
            st.execute("USE " + q(name));
            st.execute("SET SESSION foreign_key_checks = 0");
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        try {
            for (TableInfo t : tables) {
                List<Map<String, Object>> rows = rows(t, sizes.get(t.name()));
                List<Map<String, Object>> ok = insert(c, t, rows);
                ok = fixSelfReferences(c, t, ok);
                inserted.put(t.name(), ok);
                counts.put(t.name(), ok.size());
            }
        } finally {
            try (Statement st = c.createStatement()) {
                st.execute("SET SESSION foreign_key_checks = 1");
            }
        }
        // fresh optimizer statistics now, not whenever the background recalculation gets to it:
        // plans, and so the order of rows that ORDER BY leaves open, must not depend on timing
        try (Statement st = c.createStatement()) {
            st.execute("ANALYZE TABLE " + String.join(", ", tables.stream().map(t -> q(t.name())).toList()));
        }
        Map<String, Integer> byName = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        byName.putAll(counts);
        return new LinkedHashMap<>(byName);
    }

    Map<String, Integer> chooseSizes() {
        Map<String, Integer> sizes = new HashMap<>();
        for (TableInfo t : tables) {
            double x = random.nextDouble();
            int n;
            if (x < 0.05) n = 0;
            else if (x < 0.25) n = 1 + random.nextInt(3);
            else if (x < 0.65) n = 4 + random.nextInt(9);
            else if (x < 0.92) n = 13 + random.nextInt(18);
            else n = 31 + random.nextInt(10);
            sizes.put(t.name(), n);
        }
        // a child with a NOT NULL foreign key needs a parent row (children come later in the list)
        for (int i = tables.size() - 1; i >= 0; i--) {
            TableInfo t = tables.get(i);
            if (sizes.get(t.name()) == 0) continue;
            for (ForeignKeyInfo fk : t.foreignKeys()) {
                if (fk.referencedTable().equalsIgnoreCase(t.name())) continue;
                boolean required = fk.columns().stream().anyMatch(col -> !column(t, col).nullable());
                String parent = canonicalTable(fk.referencedTable());
                if (required && parent != null && sizes.get(parent) == 0) sizes.put(parent, 1 + random.nextInt(3));
            }
        }
        return sizes;
    }

    List<Map<String, Object>> rows(TableInfo t, int n) {
        List<Map<String, Object>> rows = new ArrayList<>();
        if (n == 0) return rows;
        // per-database choices: a small value pool per column (duplicates), a NULL rate, a parent subset
        Map<String, List<Object>> pools = new HashMap<>();
        Map<String, Double> nullRate = new HashMap<>();
        Set<String> uniqueColumns = new HashSet<>();
        for (List<String> key : t.uniqueKeys()) if (key.size() == 1) uniqueColumns.add(key.get(0).toUpperCase(Locale.ROOT));
        for (ColumnInfo col : t.columns()) {
            double nr = !col.nullable() ? 0 : new double[] {0, 0.1, 0.1, 0.3, 0.6}[random.nextInt(5)];
            nullRate.put(col.name(), nr);
            if (uniqueColumns.contains(col.name().toUpperCase(Locale.ROOT))) continue;
            int[] poolSizes = {1, 2, 3, 4, 6, 10, Integer.MAX_VALUE};
            int size = poolSizes[random.nextInt(poolSizes.length)];
            if (size < Integer.MAX_VALUE) {
                List<Object> pool = new ArrayList<>();
                for (int k = 0; k < size; k++) pool.add(fresh(t, col));
                pools.put(col.name(), pool);
            }
        }
        Map<ForeignKeyInfo, List<Map<String, Object>>> parents = new HashMap<>();
        Map<ForeignKeyInfo, Double> fkNull = new HashMap<>();
        Set<String> fkColumns = new HashSet<>();
        for (ForeignKeyInfo fk : t.foreignKeys()) {
            fk.columns().forEach(c -> fkColumns.add(c.toUpperCase(Locale.ROOT)));
            boolean nullable = fk.columns().stream().allMatch(c -> column(t, c).nullable());
            fkNull.put(fk, nullable ? new double[] {0, 0.1, 0.3}[random.nextInt(3)] : 0);
            if (fk.referencedTable().equalsIgnoreCase(t.name())) continue;
            List<Map<String, Object>> all = inserted.getOrDefault(canonicalTable(fk.referencedTable()), List.of());
            parents.put(fk, subset(all));
        }
        Map<String, Set<String>> seen = new HashMap<>();
        for (int r = 0; r < n; r++) {
            for (int attempt = 0; attempt < UNIQUE_TRIES; attempt++) {
                Map<String, Object> row = new LinkedHashMap<>();
                boolean possible = true;
                for (ForeignKeyInfo fk : t.foreignKeys()) {
                    if (fk.referencedTable().equalsIgnoreCase(t.name())) continue;
                    List<Map<String, Object>> ps = parents.get(fk);
                    if (random.nextDouble() < fkNull.get(fk) || ps.isEmpty()) {
                        boolean nullable = fk.columns().stream().allMatch(c -> column(t, c).nullable());
                        if (!nullable) {
                            possible = false;
                            break;
                        }
                        for (String c : fk.columns()) row.put(column(t, c).name(), null);
                    } else {
                        Map<String, Object> p = ps.get(random.nextInt(ps.size()));
                        for (int k = 0; k < fk.columns().size(); k++) {
                            row.put(column(t, fk.columns().get(k)).name(), get(p, fk.referencedColumns().get(k)));
                        }
                    }
                }
                if (!possible) return rows;
                for (ColumnInfo col : t.columns()) {
                    if (row.containsKey(col.name()) || fkColumns.contains(col.name().toUpperCase(Locale.ROOT))) {
                        row.putIfAbsent(col.name(), null);
                        continue;
                    }
                    Object v;
                    if (random.nextDouble() < nullRate.get(col.name())) v = null;
                    else if (pools.containsKey(col.name())) {
                        List<Object> pool = pools.get(col.name());
                        v = pool.get(random.nextInt(pool.size()));
                    } else v = fresh(t, col);
                    if (v == null && !col.nullable()) v = fresh(t, col);
                    if (v == null && !col.nullable()) v = randomValue(t, col);
                    row.put(col.name(), v);
                }
                if (unique(t, row, seen)) {
                    rows.add(row);
                    break;
                }
            }
        }
        // self-references: any row of the same table (itself included), or NULL
        for (ForeignKeyInfo fk : t.foreignKeys()) {
            if (!fk.referencedTable().equalsIgnoreCase(t.name()) || rows.isEmpty()) continue;
            List<Map<String, Object>> targets = subset(rows);
            for (Map<String, Object> row : rows) {
                boolean nullable = fk.columns().stream().allMatch(c -> column(t, c).nullable());
                if (nullable && random.nextDouble() < Math.max(0.1, fkNull.get(fk))) {
                    for (String c : fk.columns()) row.put(column(t, c).name(), null);
                } else {
                    Map<String, Object> p = targets.get(random.nextInt(targets.size()));
                    for (int k = 0; k < fk.columns().size(); k++) {
                        row.put(column(t, fk.columns().get(k)).name(), get(p, fk.referencedColumns().get(k)));
                    }
                }
            }
        }
        return rows;
    }

    /** Some parents get all the children: a random subset of 1, 2, 3 or all rows. */
    List<Map<String, Object>> subset(List<Map<String, Object>> all) {
        if (all.size() <= 1) return all;
        int[] sizes = {1, 2, 3, Integer.MAX_VALUE, Integer.MAX_VALUE};
        int k = Math.min(all.size(), sizes[random.nextInt(sizes.length)]);
        if (k == all.size()) return all;
        List<Map<String, Object>> copy = new ArrayList<>(all);
        Collections.shuffle(copy, random);
        return copy.subList(0, k);
    }

    boolean unique(TableInfo t, Map<String, Object> row, Map<String, Set<String>> seen) {
        List<String> keys = new ArrayList<>();
        for (List<String> key : t.uniqueKeys()) {
            StringBuilder sb = new StringBuilder();
            boolean hasNull = false;
            for (String c : key) {
                Object v = get(row, c);
                if (v == null) hasNull = true;
                sb.append(keyText(v)).append('\u0001');
            }
            if (hasNull) {
                keys.add(null);
                continue;
            }
            String k = sb.toString();
            if (seen.getOrDefault(String.join(",", key), Set.of()).contains(k)) return false;
            keys.add(k);
        }
        for (int i = 0; i < t.uniqueKeys().size(); i++) {
            if (keys.get(i) != null) seen.computeIfAbsent(String.join(",", t.uniqueKeys().get(i)), x -> new HashSet<>()).add(keys.get(i));
        }
        return true;
    }

    // ---- values ----

    Object fresh(TableInfo t, ColumnInfo col) {
        List<Literal> lits = anchored.getOrDefault(col.name().toUpperCase(Locale.ROOT), List.of());
        List<Object> sample = samples.getOrDefault(sampleKey(t.name(), col.name()), List.of());
        double x = random.nextDouble();
        Object v = null;
        if (!lits.isEmpty() && x < 0.45) {
            Literal l = lits.get(random.nextInt(lits.size()));
            v = coerce(col, perturb(fromLiteral(col, l)), t);
        } else if (!sample.isEmpty() && x < 0.85) {
            Object s = sample.get(random.nextInt(sample.size()));
            v = coerce(col, random.nextDouble() < 0.25 ? perturb(s) : s, t);
        } else if (!globalLiterals.isEmpty() && x < 0.9) {
            Literal l = globalLiterals.get(random.nextInt(globalLiterals.size()));
            v = coerce(col, perturb(fromLiteral(col, l)), t);
        }
        return v != null ? v : randomValue(t, col);
    }

    Object fromLiteral(ColumnInfo col, Literal l) {
        Object v = l.value();
        if (l.pattern() && v instanceof String p) return instantiate(p);
        if ((col.kind() == Kind.DATE || col.kind() == Kind.DATETIME) && v instanceof BigDecimal b
                && YEAR.matcher(b.toPlainString()).matches()) {
            int year = b.intValue();
            return switch (random.nextInt(4)) {
                case 0 -> LocalDate.of(year, 1, 1);
                case 1 -> LocalDate.of(year, 12, 31);
                default -> LocalDate.of(year, 1, 1).plusDays(random.nextInt(365));
            };
        }
        return v;
    }

    /** A string the LIKE pattern matches: each % becomes nothing or a few characters, each _ one letter. */
    String instantiate(String pattern) {
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < pattern.length(); k++) {
            char c = pattern.charAt(k);
            if (c == '\\' && k + 1 < pattern.length()) {
                sb.append(pattern.charAt(++k));
            } else if (c == '%') {
                int choice = random.nextInt(3);
                if (choice == 1) sb.append(word()).append(' ');
                else if (choice == 2) sb.append(' ').append(word());
            } else if (c == '_') {
                sb.append((char) ('a' + random.nextInt(26)));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    Object perturb(Object v) {
        int c = random.nextInt(10);
        if (c < 4 || v == null) return v;
        if (v instanceof BigDecimal b) {
            BigDecimal d = switch (c) {
                case 4 -> BigDecimal.ONE;
                case 5 -> BigDecimal.ONE.negate();
                case 6 -> new BigDecimal("0.01");
                case 7 -> new BigDecimal("-0.01");
                case 8 -> BigDecimal.valueOf(random.nextBoolean() ? 2 : -2);
                default -> BigDecimal.valueOf((random.nextBoolean() ? 1 : -1)
                        * (1 + random.nextInt((int) Math.min(1000, Math.max(5, b.abs().longValue() / 10)))));
            };
            return b.add(d);
        }
        if (v instanceof Long l) return perturb(BigDecimal.valueOf(l));
        if (v instanceof Integer i) return perturb(BigDecimal.valueOf(i));
        if (v instanceof Double d) return d + (random.nextBoolean() ? 1 : -1) * (c < 7 ? 1e-3 : 1);
        if (v instanceof LocalDate d) {
            return switch (c) {
                case 4, 5 -> d.plusDays(1);
                case 6, 7 -> d.minusDays(1);
                default -> d.plusDays(random.nextInt(61) - 30);
            };
        }
        if (v instanceof LocalDateTime d) return d.plusSeconds(random.nextInt(172801) - 86400);
        if (v instanceof String s) {
            String st = s;
            return switch (c) {
                case 4 -> st.isEmpty() ? st : st.substring(0, 1 + random.nextInt(st.length()));
                case 5 -> st.isEmpty() ? st : st.substring(random.nextInt(st.length()));
                case 6 -> st + " " + word();
                case 7 -> word() + " " + st;
                case 8 -> random.nextInt(4) == 0 ? "" : word() + st;
                default -> st + word();
            };
        }
        return v;
    }

    String word() {
        int n = 1 + random.nextInt(7);
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < n; k++) sb.append((char) ((k == 0 ? 'A' : 'a') + random.nextInt(26)));
        return sb.toString();
    }

    Object randomValue(TableInfo t, ColumnInfo col) {
        List<Object> sample = samples.getOrDefault(sampleKey(t.name(), col.name()), List.of());
        switch (col.kind()) {
            case INT, DECIMAL, FLOAT, YEAR -> {
                BigDecimal lo = BigDecimal.ZERO;
                BigDecimal hi = BigDecimal.valueOf(1000);
                List<BigDecimal> nums = sample.stream().map(RandomDatabaseGenerator::number).filter(Objects::nonNull).toList();
                if (!nums.isEmpty()) {
                    lo = nums.stream().min(BigDecimal::compareTo).get();
                    hi = nums.stream().max(BigDecimal::compareTo).get();
                }
                if (col.kind() == Kind.YEAR) {
                    lo = BigDecimal.valueOf(1990);
                    hi = BigDecimal.valueOf(2020);
                }
                BigDecimal span = hi.subtract(lo);
                BigDecimal v = lo.add(span.multiply(BigDecimal.valueOf(random.nextDouble())));
                return coerce(col, v, t);
            }
            case STRING -> {
                return coerce(col, random.nextInt(3) == 0 ? word() + " " + word() : word(), t);
            }
            case DATE -> {
                return LocalDate.of(2002, 1, 1).plusDays(random.nextInt(365 * 4));
            }
            case DATETIME -> {
                return LocalDateTime.of(2002, 1, 1, 0, 0).plusSeconds(random.nextInt(365 * 4 * 86400));
            }
            case TIME -> {
                return LocalTime.ofSecondOfDay(random.nextInt(86400));
            }
            case ENUM -> {
                return col.enumValues().isEmpty() ? null : col.enumValues().get(random.nextInt(col.enumValues().size()));
            }
            case BLOB -> {
                return col.nullable() ? null : new byte[0];
            }
            default -> {
                return col.nullable() ? null : "";
            }
        }
    }

    /** {@code v} as a value of the column's type (clamped, rounded, cut to length), or null if it cannot be. */
    Object coerce(ColumnInfo col, Object v, TableInfo t) {
        if (v == null) return null;
        switch (col.kind()) {
            case INT, YEAR -> {
                BigDecimal b = number(v);
                if (b == null) return null;
                long l = b.setScale(0, RoundingMode.HALF_UP).longValue();
                long[] range = intRange(col);
                return Math.max(range[0], Math.min(range[1], l));
            }
            case DECIMAL -> {
                BigDecimal b = number(v);
                if (b == null) return null;
                b = b.setScale(col.scale(), RoundingMode.HALF_UP);
                BigDecimal max = BigDecimal.TEN.pow(Math.max(0, col.precision() - col.scale()))
                        .subtract(BigDecimal.ONE.movePointLeft(col.scale()));
                if (b.compareTo(max) > 0) b = max;
                if (b.compareTo(max.negate()) < 0) b = max.negate();
                if (col.unsigned() && b.signum() < 0) b = BigDecimal.ZERO.setScale(col.scale());
                return b;
            }
            case FLOAT -> {
                BigDecimal b = number(v);
                return b == null ? null : b.doubleValue();
            }
            case STRING -> {
                String s = v instanceof BigDecimal b ? b.toPlainString() : v.toString();
                if (col.maxLength() > 0 && s.length() > col.maxLength()) s = s.substring(0, (int) col.maxLength());
                return s;
            }
            case DATE -> {
                if (v instanceof LocalDate d) return d;
                if (v instanceof LocalDateTime d) return d.toLocalDate();
                try {
                    return LocalDate.parse(v.toString().strip());
                } catch (DateTimeParseException e) {
                    return null;
                }
            }
            case DATETIME -> {
                if (v instanceof LocalDateTime d) return d;
                if (v instanceof LocalDate d) return d.atStartOfDay();
                try {
                    return LocalDate.parse(v.toString().strip()).atStartOfDay();
                } catch (DateTimeParseException e) {
                    return null;
                }
            }
            case ENUM -> {
                String s = v.toString();
                return col.enumValues().stream().filter(e -> e.equalsIgnoreCase(s)).findFirst().orElse(null);
            }
            default -> {
                return v instanceof String || v instanceof byte[] ? v : null;
            }
        }
    }

    // ---- writing ----

    List<Map<String, Object>> insert(Connection c, TableInfo t, List<Map<String, Object>> rows) throws SQLException {
        if (rows.isEmpty()) return rows;
        try {
            insertRows(c, t, rows);
            return rows;
        } catch (SQLException e) {
            // one bad row (a CHECK, a collation clash) must not cost the whole table: row by row
            List<Map<String, Object>> ok = new ArrayList<>();
            for (Map<String, Object> row : rows) {
                try {
                    insertRows(c, t, List.of(row));
                    ok.add(row);
                } catch (SQLException ignored) {
                    // row skipped
                }
            }
            return ok;
        }
    }

    void insertRows(Connection c, TableInfo t, List<Map<String, Object>> rows) throws SQLException {
        StringBuilder sql = new StringBuilder("INSERT INTO ").append(q(t.name())).append(" (");
        for (int k = 0; k < t.columns().size(); k++) sql.append(k > 0 ? ", " : "").append(q(t.columns().get(k).name()));
        sql.append(") VALUES ");
        String tuple = "(" + "?, ".repeat(t.columns().size() - 1) + "?)";
        for (int r = 0; r < rows.size(); r++) sql.append(r > 0 ? ", " : "").append(tuple);
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            int p = 1;
            for (Map<String, Object> row : rows) {
                for (ColumnInfo col : t.columns()) ps.setObject(p++, row.get(col.name()));
            }
            ps.executeUpdate();
        }
    }

    /** After a row-by-row insert some rows may be missing: self-references to them become NULL or go. */
    List<Map<String, Object>> fixSelfReferences(Connection c, TableInfo t, List<Map<String, Object>> ok) throws SQLException {
        List<ForeignKeyInfo> self = t.foreignKeys().stream().filter(fk -> fk.referencedTable().equalsIgnoreCase(t.name())).toList();
        if (self.isEmpty()) return ok;
        boolean changed = true;
        List<Map<String, Object>> rows = new ArrayList<>(ok);
        while (changed) {
            changed = false;
            for (ForeignKeyInfo fk : self) {
                Set<String> keys = new HashSet<>();
                for (Map<String, Object> r : rows) keys.add(tupleKey(r, fk.referencedColumns()));
                for (Map<String, Object> r : new ArrayList<>(rows)) {
                    if (fk.columns().stream().anyMatch(col -> get(r, col) == null)) continue;
                    if (keys.contains(tupleKey(r, fk.columns()))) continue;
                    if (t.primaryKey().isEmpty()) throw new SQLException("cannot repair a self-reference of " + t.name() + " without a primary key");
                    boolean nullable = fk.columns().stream().allMatch(col -> column(t, col).nullable());
                    String where = String.join(" AND ", t.primaryKey().stream().map(k -> q(k) + " = ?").toList());
                    String sql = nullable
                            ? "UPDATE " + q(t.name()) + " SET " + String.join(", ", fk.columns().stream().map(k -> q(k) + " = NULL").toList()) + " WHERE " + where
                            : "DELETE FROM " + q(t.name()) + " WHERE " + where;
                    try (PreparedStatement ps = c.prepareStatement(sql)) {
                        for (int k = 0; k < t.primaryKey().size(); k++) ps.setObject(k + 1, get(r, t.primaryKey().get(k)));
                        ps.executeUpdate();
                    }
                    if (nullable) for (String col : fk.columns()) r.put(column(t, col).name(), null);
                    else rows.remove(r);
                    changed = true;
                }
            }
        }
        return rows;
    }

    private static long[] intRange(ColumnInfo col) {
        int bits = switch (col.dataType()) {
            case "tinyint" -> 8;
            case "smallint" -> 16;
            case "mediumint" -> 24;
            case "int", "integer" -> 32;
            case "year" -> 0;
            case "bit" -> 1;
            default -> 64;
        };
        if (bits == 0) return new long[] {1901, 2155};
        if (bits == 1) return new long[] {0, 1};
        if (bits == 64) return col.unsigned() ? new long[] {0, Long.MAX_VALUE} : new long[] {Long.MIN_VALUE, Long.MAX_VALUE};
        return col.unsigned() ? new long[] {0, (1L << bits) - 1} : new long[] {-(1L << (bits - 1)), (1L << (bits - 1)) - 1};
    }

    private static String keyText(Object v) {
        if (v instanceof BigDecimal b) return b.stripTrailingZeros().toPlainString();
        if (v instanceof Long || v instanceof Integer) return number(v).stripTrailingZeros().toPlainString();
        if (v instanceof String s) return s.stripTrailing().toLowerCase(Locale.ROOT); // case-insensitive, PAD SPACE collations
        return String.valueOf(v);
    }

    private static String tupleKey(Map<String, Object> row, List<String> columns) {
        StringBuilder sb = new StringBuilder();
        for (String c : columns) sb.append(keyText(get(row, c))).append('\u0001');
        return sb.toString();
    }

    private String canonicalTable(String name) {
        return tables.stream().map(TableInfo::name).filter(n -> n.equalsIgnoreCase(name)).findFirst().orElse(null);
    }
}
