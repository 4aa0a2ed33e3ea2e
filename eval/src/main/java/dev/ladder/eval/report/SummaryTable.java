package dev.ladder.eval.report;

import dev.ladder.eval.report.Report.Run;
import dev.ladder.eval.report.ReportModel.CellInfo;
import dev.ladder.eval.report.ReportModel.Outcome;
import dev.ladder.eval.run.ItemResult;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** The summary: one row per cell, each standard metric with its Wilson interval. */
final class SummaryTable {

    private SummaryTable() {}

    static ReportTable build(ReportModel model) {
        StringColumn rung = StringColumn.create("rung");
        IntColumn n = IntColumn.create("n");
        Table t = Table.create("summary", rung, n);
        List<Outcome> metrics = model.summaryMetrics();
        Map<String, DoubleColumn[]> columns = new LinkedHashMap<>();
        for (Outcome m : metrics) {
            DoubleColumn[] triple = ReportModel.triple(m.name());
            t.addColumns(triple);
            columns.put(m.name(), triple);
        }
        boolean anySkipped = model.cellInfo.stream().anyMatch(c -> c.skipped() != null);
        StringColumn note = StringColumn.create("note");
        for (CellInfo c : model.cellInfo) {
            Collection<ItemResult> rows = model.byRung.get(c.name()).values();
            rung.append(c.name());
            n.append(rows.size());
            for (Outcome m : metrics) ReportModel.append(columns.get(m.name()), Statistics.wilson(ReportModel.outcomes(rows, m.outcome())));
            note.append(c.skipped() == null ? "" : "skipped: " + c.skipped());
        }
        if (anySkipped) t.addColumns(note);
        Set<String> intervals = new LinkedHashSet<>();
        metrics.forEach(m -> intervals.add(m.name()));
        return new ReportTable("summary", "Accuracy by rung",
                model.caption("One row per rung" + (model.multiSeed ? " and seed (rung@seed)" : "") + ", bottom first. n: items the "
                        + "rung answered. VA: the prediction executes; EX: execution accuracy (" + model.exModes()[0]
                        + " mode)" + (model.hasExAlt ? "; " + model.exAltLabel + ": execution accuracy in the " + model.exModes()[1]
                        + " mode" : "") + "; EM: exact set match; TS: test-suite accuracy over the items that have a "
                        + "suite" + tsNote(model) + ". Each value is the proportion of items with its 95% Wilson score "
                        + "interval." + (anySkipped ? " A rung that did not run says why in note, with n = 0." : "")),
                t, Map.of(), intervals);
    }

    /** Why TS is missing, where it is. */
    private static String tsNote(ReportModel model) {
        List<String> reasons = new ArrayList<>();
        for (Run run : model.runs) {
            String r = run.info().meta("ts.missing");
            if (r != null) reasons.add((model.runs.size() > 1 ? run.name() + ": " : "") + r);
        }
        if (!model.hasTs) {
            return " (missing for every rung: " + (reasons.isEmpty() ? "no result has a test-suite outcome; the reason "
                    + "was not recorded" : String.join("; ", reasons)) + ")";
        }
        return reasons.isEmpty() ? " (missing where a rung has no item with a suite)"
                : " (missing where a rung has no item with a suite: " + String.join("; ", reasons) + ")";
    }
}
