package dev.ladder.eval.report;

import dev.ladder.eval.report.ReportModel.CellInfo;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.pipeline.strategy.Pipelines;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** The pipelines' own error categories (registered diagnosis vocabularies): items per category and cell. */
final class DiagnosesTable {

    private DiagnosesTable() {}

    static ReportTable build(ReportModel model) {
        List<String> categories = new ArrayList<>(Pipelines.registry().diagnosisCategories());
        model.allRows().map(ItemResult::diagnosis).filter(Objects::nonNull).distinct()
                .filter(x -> !categories.contains(x)).sorted().forEach(categories::add);
        StringColumn category = StringColumn.create("category");
        categories.forEach(category::append);
        Table t = Table.create("diagnoses", category);
        for (CellInfo c : model.cellInfo) {
            IntColumn column = IntColumn.create(c.name());
            Collection<ItemResult> rows = model.byRung.get(c.name()).values();
            for (String k : categories) column.append((int) rows.stream().filter(r -> k.equals(r.diagnosis())).count());
            t.addColumns(column);
        }
        return new ReportTable("diagnoses", "Pipeline error analysis by rung",
                model.caption("One row per error category of a pipeline's own analysis of the answers it did not accept "
                        + "(the progressive pipeline: from the database's error, then the judge's reasoning); one "
                        + "column per rung holding how many of its items fell in the category. Rungs without such an "
                        + "analysis count 0."),
                t, Map.of(), Set.of());
    }
}
