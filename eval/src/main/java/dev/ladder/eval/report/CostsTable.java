package dev.ladder.eval.report;

import dev.ladder.eval.report.ReportModel.CellInfo;
import dev.ladder.eval.run.ItemResult;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** The costs: per cell, calls, tokens, the cache's share and wall time over the items the cache did not touch. */
final class CostsTable {

    private CostsTable() {}

    static ReportTable build(ReportModel model) {
        StringColumn rung = StringColumn.create("rung");
        IntColumn n = IntColumn.create("n");
        DoubleColumn ex = DoubleColumn.create("EX");
        DoubleColumn calls = DoubleColumn.create("requests/item");
        DoubleColumn completions = DoubleColumn.create("completions/item");
        DoubleColumn prompt = DoubleColumn.create("prompt tokens/item");
        DoubleColumn generated = DoubleColumn.create("generated tokens/item");
        DoubleColumn cacheShare = DoubleColumn.create("share of calls cached");
        IntColumn cacheHits = IntColumn.create("items with a cached call");
        IntColumn timed = IntColumn.create("timed items");
        DoubleColumn p50 = DoubleColumn.create("p50 ms");
        DoubleColumn p95 = DoubleColumn.create("p95 ms");
        DoubleColumn p50All = DoubleColumn.create("p50 ms, all items");
        DoubleColumn p95All = DoubleColumn.create("p95 ms, all items");
        StringColumn timing = StringColumn.create("timing");
        StringColumn note = StringColumn.create("note");
        for (CellInfo c : model.cellInfo) {
            Collection<ItemResult> rows = model.byRung.get(c.name()).values();
            rung.append(c.name());
            n.append(rows.size());
            ex.append(Statistics.proportion(ReportModel.outcomes(rows, ItemResult::ex)));
            long totalCalls = rows.stream().mapToLong(ItemResult::calls).sum();
            long cachedCalls = rows.stream().mapToLong(ItemResult::cachedCalls).sum();
            // rows written before calls were counted say 0: unknown, not free
            calls.append(totalCalls == 0 ? Double.NaN : (double) totalCalls / rows.size());
            // a request for n samples asks for n completions; rows stored before completions were counted say 0
            long totalCompletions = rows.stream().mapToLong(ItemResult::completions).sum();
            completions.append(totalCompletions == 0 ? Double.NaN : (double) totalCompletions / rows.size());
            cacheShare.append(totalCalls == 0 ? Double.NaN : (double) cachedCalls / totalCalls);
            prompt.append(rows.isEmpty() ? Double.NaN : rows.stream().mapToDouble(ItemResult::promptTokens).average().orElseThrow());
            generated.append(rows.isEmpty() ? Double.NaN
                    : rows.stream().mapToDouble(ItemResult::generatedTokens).average().orElseThrow());
            List<ItemResult> uncached = rows.stream().filter(r -> r.cachedCalls() == 0).toList();
            cacheHits.append(rows.size() - uncached.size());
            timed.append(uncached.size());
            double[] ms = uncached.stream().mapToDouble(ItemResult::millis).sorted().toArray();
            p50.append(Statistics.percentile(ms, 0.5));
            p95.append(Statistics.percentile(ms, 0.95));
            // a cached item at what its cached calls originally took: the rung's cost had it run alone
            double[] all = rows.stream().mapToDouble(r -> r.millis() + r.cachedMillis()).sorted().toArray();
            p50All.append(Statistics.percentile(all, 0.5));
            p95All.append(Statistics.percentile(all, 0.95));
            int hits = rows.size() - uncached.size();
            // a reply kept from another rung, or a row stored before schema 6, has cached calls and no recorded cost
            long unrecorded = rows.stream().filter(r -> r.cachedCalls() > 0 && r.cachedMillis() == 0).count();
            timing.append(rows.isEmpty() ? "" : hits == 0 ? "measured" : (hits == rows.size()
                    ? "every item cached: its calls at their original cost"
                    : hits + " of " + rows.size() + " items cached: their calls at their original cost")
                    + (unrecorded == 0 ? "" : " (" + unrecorded + " with no original cost recorded: counted at their own time)"));
            note.append(c.skipped() == null ? "" : "skipped: " + c.skipped());
        }
        Table t = Table.create("costs", rung, n, ex, calls, completions, prompt, generated, cacheShare, cacheHits, timed,
                p50, p95, p50All, p95All, timing);
        if (model.cellInfo.stream().anyMatch(c -> c.skipped() != null)) t.addColumns(note);
        Map<String, Style> styles = new HashMap<>();
        for (String col : List.of("requests/item", "completions/item", "prompt tokens/item", "generated tokens/item", "p50 ms", "p95 ms",
                "p50 ms, all items", "p95 ms, all items")) {
            styles.put(col, Style.DECIMAL);
        }
        return new ReportTable("costs", "Costs by rung",
                model.caption("One row per rung: items answered, EX, model calls (requests) per item and the completions "
                        + "they asked for (a request for n samples, as agent-2's, is one request and n completions), "
                        + "prompt and generated tokens "
                        + "per item over all the item's calls, the share of calls cached (answered by the generation cache, or by a reply the run kept from another rung; "
                        + "missing when the run did not count calls), the count of items with a cached call, and "
                        + "the wall time per item, median (p50) and 95th percentile (p95), over the timed items: "
                        + "those with no cached call, so a cached answer's milliseconds are not read as model speed. "
                        + "The all-items columns count every item, a cached call at what its original call took (the "
                        + "prefill and decode time the cache stored with it; for calls decoded together, the batch's), "
                        + "so that a rung whose answers all came from the cache (agent-0 reusing prompt-k3's) still "
                        + "has a cost; the timing column says which rows hold such estimates. "
                        + "Kept apart from the other tables because timings differ between runs of identical results."),
                t, styles, Set.of());
    }
}
