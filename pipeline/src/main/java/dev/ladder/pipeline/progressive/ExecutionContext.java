package dev.ladder.pipeline.progressive;

import dev.ladder.pipeline.judge.SqlJudge;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.QueryResult;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SchemaBinding;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What the query built so far has shown: the tables it reads, its filters (value conditions, read by the shared SQL
 * reader), the row count and the last rows. It grows with every step that executes and reaches every later prompt.
 */
final class ExecutionContext {

    final Set<String> tables = new LinkedHashSet<>();
    final Set<String> filters = new LinkedHashSet<>();
    Integer rows;
    String lastRows = "(nothing has run yet)";
    final List<String> steps = new ArrayList<>();

    void record(String taskId, String sql, SchemaBinding b, QueryResult result) {
        tables.addAll(b.tables());
        for (SchemaBinding.ValueCondition c : b.conditions()) {
            filters.add(c.column().table() + "." + c.column().column() + " " + c.operator() + " " + c.value());
        }
        rows = result.rowCount();
        lastRows = SqlJudge.summary(new Execution.Success(sql, result));
        steps.add(taskId + ": " + rows + (rows == 1 ? " row" : " rows"));
    }

    String text() {
        if (steps.isEmpty()) return "(nothing has run yet)";
        return "tables: " + String.join(", ", tables) + "\nfilters: " + (filters.isEmpty() ? "(none)" : String.join("; ", filters))
                + "\nsteps: " + String.join("; ", steps) + "\nlast result: " + lastRows;
    }

    /** A record of it for the trace. */
    record Snapshot(List<String> tables, List<String> filters, Integer rows, List<String> steps) {}

    Snapshot snapshot() {
        return new Snapshot(List.copyOf(tables), List.copyOf(filters), rows, List.copyOf(steps));
    }

    static SchemaBinding bind(String sql, Database db) {
        return Query.read(sql, db.dialect()).binding(db.schema());
    }
}
