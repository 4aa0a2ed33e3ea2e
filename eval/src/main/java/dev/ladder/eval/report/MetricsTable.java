package dev.ladder.eval.report;

import dev.ladder.eval.report.ReportModel.CellInfo;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.scorer.score.MetricValue;
import dev.ladder.scorer.score.Metrics;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** The metrics beyond the standard ones (registered plugins' metrics): their mean per cell. */
final class MetricsTable {

    private MetricsTable() {}

    /** The metrics the rows hold beyond the standard ones, in the order they first appear. */
    static List<String> otherMetrics(ReportModel model) {
        LinkedHashSet<String> names = new LinkedHashSet<>();
        model.allRows().forEach(r -> names.addAll(r.scores().keySet()));
        names.removeAll(Metrics.standardNames());
        return List.copyOf(names);
    }

    static ReportTable build(ReportModel model, List<String> names) {
        StringColumn rung = StringColumn.create("rung");
        IntColumn n = IntColumn.create("n");
        List<DoubleColumn> means = new ArrayList<>();
        for (String name : names) means.add(DoubleColumn.create(name));
        for (CellInfo c : model.cellInfo) {
            Collection<ItemResult> rows = model.byRung.get(c.name()).values();
            rung.append(c.name());
            n.append(rows.size());
            for (int i = 0; i < names.size(); i++) {
                String name = names.get(i);
                means.get(i).append(rows.stream().map(r -> r.score(name)).filter(MetricValue::present)
                        .mapToDouble(MetricValue::value).average().orElse(Double.NaN));
            }
        }
        Table t = Table.create("metrics", rung, n);
        means.forEach(t::addColumns);
        List<String> described = new ArrayList<>();
        for (String name : names) {
            Metrics.registered().stream().filter(m -> m.name().equals(name)).findFirst()
                    .ifPresent(m -> described.add(name + ": " + m.description()));
        }
        return new ReportTable("metrics", "Other metrics by rung",
                model.caption("One row per rung; n: items it answered; one column per metric the run scored besides VA, EX, "
                        + "EM and TS, holding its mean over the items it applies to (missing where it applies to none)"
                        + (described.isEmpty() ? "." : ". " + String.join("; ", described) + ".")),
                t, Map.of(), Set.of());
    }
}
