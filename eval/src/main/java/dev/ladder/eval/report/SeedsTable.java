package dev.ladder.eval.report;

import dev.ladder.eval.report.ReportModel.Outcome;
import dev.ladder.eval.report.ReportModel.RungInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** The spread across seeds: per rung, the mean and sample sd of each metric over its seeds. */
final class SeedsTable {

    private SeedsTable() {}

    static ReportTable build(ReportModel model) {
        StringColumn rung = StringColumn.create("rung");
        IntColumn seedCount = IntColumn.create("seeds");
        Table t = Table.create("seeds", rung, seedCount);
        List<Outcome> metrics = model.summaryMetrics();
        Map<String, DoubleColumn[]> columns = new LinkedHashMap<>();
        for (Outcome m : metrics) {
            DoubleColumn[] pair = {DoubleColumn.create(m.name() + " mean"), DoubleColumn.create(m.name() + " sd")};
            t.addColumns(pair);
            columns.put(m.name(), pair);
        }
        for (RungInfo r : model.rungInfo.values()) {
            rung.append(r.name());
            int ran = 0;
            for (String cell : r.cellsBySeed().values()) if (!model.byRung.get(cell).isEmpty()) ran++;
            seedCount.append(ran);
            for (Outcome m : metrics) {
                List<Double> perSeed = new ArrayList<>();
                for (String cell : r.cellsBySeed().values()) {
                    boolean[] values = ReportModel.outcomes(model.byRung.get(cell).values(), m.outcome());
                    if (values.length > 0) perSeed.add(Statistics.proportion(values));
                }
                double[] v = perSeed.stream().mapToDouble(Double::doubleValue).toArray();
                columns.get(m.name())[0].append(Statistics.mean(v));
                columns.get(m.name())[1].append(Statistics.sampleSd(v));
            }
        }
        return new ReportTable("seeds", "Spread across seeds",
                model.caption("One row per rung: seeds it ran with (cells with results), and for each metric the mean and "
                        + "the sample standard deviation (divisor seeds - 1; missing with one seed) of the per-seed "
                        + "proportions in the summary."),
                t, Map.of(), Set.of());
    }
}
