package dev.ladder.eval.report;

import dev.ladder.eval.run.ItemResult;
import dev.ladder.scorer.score.ItemOutcome;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * What happened to each rung's answers, the failures apart: one row per outcome (right; the model's mismatch, empty
 * result, no SQL, timeout, each error kind; the golds' timeouts and errors), one column per cell.
 */
final class OutcomesTable {

    private OutcomesTable() {}

    static ReportTable build(ReportModel model) {
        Map<String, Map<String, Integer>> count = new HashMap<>();
        for (String cell : model.rungs()) {
            Stream.concat(model.byRung.get(cell).values().stream(), model.goldFailed.get(cell).values().stream())
                    .map(ItemResult::outcome)
                    .forEach(o -> count.computeIfAbsent(o, k -> new HashMap<>()).merge(cell, 1, Integer::sum));
        }
        List<String> outcomes = ReportModel.ordered(count.keySet(), ItemOutcome.ORDER);
        Table t = Table.create("outcomes", StringColumn.create("outcome", outcomes));
        for (String rung : model.rungs()) {
            IntColumn column = IntColumn.create(rung);
            for (String o : outcomes) column.append(count.get(o).getOrDefault(rung, 0));
            t.addColumns(column);
        }
        long goldFailures = model.goldFailed.values().stream().flatMap(m -> m.keySet().stream()).distinct().count();
        return new ReportTable("outcomes", "Outcomes by rung: the model's failures and the golds' apart",
                model.caption("One row per outcome, one column per rung holding how many of its items had it. correct: EX"
                        + " holds; mismatch: the query ran and returned other rows; empty-result: it returned none where"
                        + " the gold returns some; no-sql: the rung gave no query; pred-timeout: the query ran out of time;"
                        + " pred-error:KIND: the database refused it (syntax, unknown table or column, work limit, the"
                        + " read-only guard, other); gold-timeout and gold-error: the gold itself timed out or failed, so"
                        + " the item cannot be scored: such rows are left out of every other table"
                        + (goldFailures == 0 ? " (none here)." : " (" + goldFailures + " items here).")),
                t, Map.of(), Set.of());
    }
}
