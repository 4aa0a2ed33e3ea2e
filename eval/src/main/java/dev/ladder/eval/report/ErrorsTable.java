package dev.ladder.eval.report;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** The error taxonomy: one row per error class, one column per cell. */
final class ErrorsTable {

    private ErrorsTable() {}

    static ReportTable build(ReportModel model) {
        Map<String, Map<String, Integer>> count = new HashMap<>();
        model.byRung.forEach((cell, rows) -> rows.values().forEach(r ->
                count.computeIfAbsent(ReportModel.label(r.errorClass()), k -> new HashMap<>()).merge(cell, 1, Integer::sum)));
        List<String> classes = ReportModel.ordered(count.keySet(), Report.ERROR_CLASSES);
        StringColumn classColumn = StringColumn.create("error class", classes);
        Table t = Table.create("errors", classColumn);
        for (String rung : model.rungs()) {
            IntColumn column = IntColumn.create(rung);
            for (String k : classes) column.append(count.get(k).getOrDefault(rung, 0));
            t.addColumns(column);
        }
        return new ReportTable("errors", "Error taxonomy by rung",
                model.caption("One row per error class found in the results (canonical classes first: "
                        + String.join(", ", Report.ERROR_CLASSES) + "); one column per rung holding how many of its "
                        + "items fell in the class."),
                t, Map.of(), Set.of());
    }
}
