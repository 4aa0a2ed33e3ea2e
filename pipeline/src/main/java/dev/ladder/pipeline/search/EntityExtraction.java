package dev.ladder.pipeline.search;

import dev.ladder.sql.read.SchemaBinding;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Stage 2: the entities of a candidate from two channels, the model's declaration ({@link Sketch#declared()}) and
 * the shared SQL reader's binding of its SQL to the schema, and where they disagree. A disagreement is a warning (the
 * model's account of its query is not its query), and each warning costs {@link SearchSettings#warningPenalty} in
 * the candidate's score. A kind the model did not declare is not compared.
 */
final class EntityExtraction {

    /**
     * @param fromSql  channel two: what the SQL uses (schema spellings)
     * @param warnings the disagreements, in words
     */
    record Extracted(Entities declared, Entities fromSql, List<String> warnings) {}

    private EntityExtraction() {}

    /** The SQL's entities as the binding resolves them: tables, columns, and the column equalities as joins. */
    static Entities fromSql(SchemaBinding b) {
        List<Entities.ColumnRef> columns = b.columns().stream()
                .map(c -> new Entities.ColumnRef(c.table(), c.column())).toList();
        List<Entities.JoinRef> joins = b.equalities().stream()
                .map(p -> new Entities.JoinRef(p.left().table(), p.right().table(),
                        p.left().table() + "." + p.left().column() + " = " + p.right().table() + "." + p.right().column()))
                .toList();
        List<String> tables = new ArrayList<>(b.tables());
        tables.addAll(b.unknownTables());
        return new Entities(tables, columns, joins);
    }

    static Extracted extract(Entities declared, SchemaBinding binding, boolean compare) {
        Entities sql = fromSql(binding);
        List<String> warnings = new ArrayList<>();
        if (!compare || !binding.parsed()) return new Extracted(declared, sql, warnings);
        if (declared.tables() != null) {
            Set<String> used = lower(sql.tables());
            Set<String> said = lower(declared.tables());
            for (String t : declared.tables()) {
                if (!used.contains(key(t))) warnings.add("declares table " + t + ", which the SQL does not read");
            }
            for (String t : sql.tables()) {
                if (!said.contains(key(t))) warnings.add("the SQL reads table " + t + ", which is not declared");
            }
        }
        if (declared.columns() != null) {
            Set<String> used = new LinkedHashSet<>();
            Set<String> usedNames = new LinkedHashSet<>();
            for (Entities.ColumnRef c : sql.columns()) {
                used.add(key(c.table()) + "." + key(c.column()));
                usedNames.add(key(c.column()));
            }
            for (Entities.ColumnRef c : declared.columns()) {
                boolean found = c.table() == null ? usedNames.contains(key(c.column()))
                        : used.contains(key(c.table()) + "." + key(c.column()));
                if (!found) warnings.add("declares column " + c + ", which the SQL does not use");
            }
        }
        if (declared.joins() != null) {
            Set<String> sqlPairs = new LinkedHashSet<>();
            for (Entities.JoinRef j : sql.joins()) sqlPairs.add(pair(j.left(), j.right()));
            Set<String> saidPairs = new LinkedHashSet<>();
            for (Entities.JoinRef j : declared.joins()) saidPairs.add(pair(j.left(), j.right()));
            for (Entities.JoinRef j : declared.joins()) {
                if (!sqlPairs.contains(pair(j.left(), j.right()))) {
                    warnings.add("declares a join of " + j.left() + " and " + j.right() + ", which the SQL does not make");
                }
            }
            for (Entities.JoinRef j : sql.joins()) {
                if (!saidPairs.contains(pair(j.left(), j.right()))) {
                    warnings.add("the SQL joins " + j.left() + " and " + j.right() + " (" + j.on() + "), which is not declared");
                }
            }
        }
        return new Extracted(declared, sql, List.copyOf(new LinkedHashSet<>(warnings)));
    }

    private static String pair(String a, String b) {
        String x = key(a);
        String y = key(b);
        return x.compareTo(y) <= 0 ? x + "|" + y : y + "|" + x;
    }

    private static Set<String> lower(List<String> names) {
        Set<String> out = new LinkedHashSet<>();
        names.forEach(n -> out.add(key(n)));
        return out;
    }

    private static String key(String name) {
        return name == null ? "" : name.strip().replaceAll("^[`\"\\[]|[`\"\\]]$", "").toLowerCase(Locale.ROOT);
    }
}
