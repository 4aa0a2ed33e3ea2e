package dev.ladder.eval.report;

import dev.ladder.eval.run.ItemResult;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** A metric by category, database or difficulty: one row per value with its items, one column per cell. */
final class BreakdownTable {

    private BreakdownTable() {}

    static ReportTable build(ReportModel model, String key, String metric, Function<ItemResult, Boolean> outcome) {
        Function<ItemResult, String> keyOf = switch (key) {
            case "category" -> r -> ReportModel.label(r.category());
            case "database" -> r -> ReportModel.label(r.database());
            default -> r -> ReportModel.label(r.difficulty());
        };
        Map<String, Set<String>> itemsOf = new HashMap<>();
        model.allRows().forEach(r -> itemsOf.computeIfAbsent(keyOf.apply(r), k -> new TreeSet<>()).add(r.itemId()));
        List<String> keys = ReportModel.ordered(itemsOf.keySet(), key.equals("difficulty") ? Report.DIFFICULTIES : List.of());
        StringColumn keyColumn = StringColumn.create(key);
        IntColumn itemColumn = IntColumn.create("items");
        Table t = Table.create(key + "-" + metric, keyColumn, itemColumn);
        for (String k : keys) {
            keyColumn.append(k);
            itemColumn.append(itemsOf.get(k).size());
        }
        for (String cell : model.rungs()) {
            DoubleColumn[] triple = ReportModel.triple(cell);
            for (String k : keys) {
                List<ItemResult> rows = model.byRung.get(cell).values().stream().filter(r -> keyOf.apply(r).equals(k)).toList();
                ReportModel.append(triple, Statistics.wilson(ReportModel.outcomes(rows, outcome)));
            }
            t.addColumns(triple);
        }
        String id = key + "-" + metric.toLowerCase(Locale.ROOT);
        return new ReportTable(id, metric + " by " + key,
                model.caption("One row per " + key + " with its number of distinct items; one column per rung, bottom "
                        + "first, holding the proportion of the " + key + "'s items with " + metric
                        + (metric.equals("TS") ? " among those that have a suite" : "")
                        + " and its 95% Wilson score interval (missing when the rung has no such item)."),
                t, Map.of(), new LinkedHashSet<>(model.rungs()));
    }
}
