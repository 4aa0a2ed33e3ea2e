package dev.ladder.pipeline.gsr;

import dev.ladder.pipeline.kit.JoinGraph;
import dev.ladder.sql.db.ColumnValues;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SchemaBinding;
import dev.ladder.sql.schema.Schema;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;

/**
 * The errors of a draft found by SQL, not by the model: names the schema lacks, tables used but not joined, and value
 * conditions whose literal never occurs in its column.
 */
final class LinkingErrors {

    private LinkingErrors() {}

    static List<String> find(Database db, Schema schema, Query q, SchemaBinding b) {
        List<String> errors = new ArrayList<>();
        if (!b.parsed()) {
            errors.add("the SQL does not parse: " + b.failure());
            return errors;
        }
        for (String t : b.unknownTables()) errors.add("table " + t + " does not exist");
        for (SchemaBinding.UnknownColumn c : b.unknownColumns()) {
            errors.add("column " + (c.qualifier() == null ? "" : c.qualifier() + ".") + c.column() + ": " + c.reason());
        }
        errors.addAll(unjoined(schema, q, b));
        for (SchemaBinding.ValueCondition c : new LinkedHashSet<>(b.conditions())) {
            String op = c.operator().toUpperCase(Locale.ROOT);
            boolean text = schema.table(c.column().table()).flatMap(t -> t.column(c.column().column()))
                    .map(ColumnValues::isText).orElse(false);
            if (!text || !(op.equals("=") || op.equals("IN") || op.equals("LIKE"))) continue;
            Boolean occurs = ColumnValues.occurs(db, c.column().table(), c.column().column(),
                    op.equals("LIKE") ? "LIKE" : "=", c.value());
            if (Boolean.FALSE.equals(occurs)) {
                errors.add("no row of " + c.column().table() + "." + c.column().column()
                        + (op.equals("LIKE") ? " is LIKE '" : " equals '") + c.value() + "'");
            }
        }
        return errors;
    }

    /**
     * Tables of a query without subqueries that its column equalities leave apart: one error per table outside the
     * first table's group, with the foreign-key path that would join it when there is one.
     */
    static List<String> unjoined(Schema schema, Query q, SchemaBinding b) {
        if (q.subqueries() > 0 || q.setOperations() > 0) return List.of();
        JoinGraph graph = new JoinGraph(schema);
        List<String> errors = new ArrayList<>();
        for (String t : JoinGraph.apart(b.tables(), b.equalities())) {
            var path = graph.shortestPath(b.tables().get(0), t);
            errors.add("table " + t + " is not joined to " + b.tables().get(0) + (path.isPresent()
                    ? "; the foreign keys join them by " + String.join(" AND ",
                            path.get().stream().map(JoinGraph.Edge::condition).toList())
                    : "; no foreign key connects them"));
        }
        return errors;
    }

    private static String key(String t) {
        return t.toLowerCase(Locale.ROOT);
    }
}
