package dev.ladder.scorer.score.em;

import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BinaryOperator;

/**
 * Lower-cased lookup of a {@link Schema}: the columns of each table, and (like Spider's {@code kmap}) a
 * map that folds columns linked by a foreign key between two different tables onto one representative,
 * the referenced key of the linked group (e.g. {@code orders.customernumber -> customers.customernumber}).
 */
final class SchemaIndex {

    private final Schema source;
    private final Map<String, Set<String>> columns = new HashMap<>();
    private final Map<String, String> representative = new HashMap<>();

    SchemaIndex(Schema schema, boolean foldForeignKeys) {
        this.source = schema;
        if (schema == null) return;
        for (Table t : schema.tables()) {
            Set<String> cols = new LinkedHashSet<>();
            for (Column c : t.columns()) cols.add(lower(c.name()));
            columns.put(lower(t.name()), cols);
        }
        if (!foldForeignKeys) return;
        Map<String, String> parent = new HashMap<>();
        Set<String> referencing = new HashSet<>();
        for (ForeignKey fk : schema.foreignKeys()) {
            if (fk.table().equalsIgnoreCase(fk.referencedTable())) continue; // self references: see docs
            for (int i = 0; i < fk.columns().size(); i++) {
                String from = lower(fk.table()) + "." + lower(fk.columns().get(i));
                referencing.add(from);
                union(parent, from, lower(fk.referencedTable()) + "." + lower(fk.referencedColumns().get(i)));
            }
        }
        // the representative of a linked group is its referenced key (a column that references nothing),
        // alphabetically first among several
        Map<String, String> best = new HashMap<>();
        Comparator<String> preference = Comparator.<String, Boolean>comparing(referencing::contains)
                .thenComparing(Comparator.naturalOrder());
        for (String key : parent.keySet()) best.merge(find(parent, key), key, BinaryOperator.minBy(preference));
        for (String key : parent.keySet()) representative.put(key, best.get(find(parent, key)));
    }

    private static void union(Map<String, String> parent, String a, String b) {
        String ra = find(parent, a);
        String rb = find(parent, b);
        if (ra.equals(rb)) return;
        if (ra.compareTo(rb) < 0) parent.put(rb, ra);
        else parent.put(ra, rb);
    }

    private static String find(Map<String, String> parent, String x) {
        parent.putIfAbsent(x, x);
        String p = parent.get(x);
        while (!p.equals(parent.get(p))) p = parent.get(p);
        return p;
    }

    /** Whether there is a schema to check names against. */
    boolean known() {
        return !columns.isEmpty();
    }

    /** Every column name of the schema, lower-cased. */
    Set<String> allColumnNames() {
        Set<String> all = new HashSet<>();
        columns.values().forEach(all::addAll);
        return all;
    }

    boolean hasTable(String table) {
        return columns.containsKey(table);
    }

    /** The schema's table of that name (ignoring case), or null. */
    Table table(String name) {
        return source == null ? null : source.table(name).orElse(null);
    }

    /** {@code table.column}, folded through foreign keys. */
    String column(String table, String column) {
        String key = table + "." + column;
        return representative.getOrDefault(key, key);
    }

    static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }
}
