package dev.ladder.eval.report;

import dev.ladder.eval.report.Report.OracleTrace;
import dev.ladder.eval.report.ReportModel.CellInfo;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.pipeline.strategy.Pipeline;
import dev.ladder.pipeline.strategy.Pipelines;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** The oracle analysis: what each rung the oracle engine answered does to a perfect answer, and the items it lost. */
final class OracleTables {

    private OracleTables() {}

    static ReportTable analysis(ReportModel model) {
        StringColumn rung = StringColumn.create("rung");
        StringColumn noise = StringColumn.create("noise");
        IntColumn n = IntColumn.create("n");
        DoubleColumn ex = DoubleColumn.create("EX");
        IntColumn losses = IntColumn.create("losses");
        IntColumn semantic = IntColumn.create("corrupted");
        IntColumn repaired = IntColumn.create("corrupted, EX");
        IntColumn format = IntColumn.create("format only");
        IntColumn cleaned = IntColumn.create("format only, EX");
        IntColumn later = IntColumn.create("later stage chose");
        IntColumn laterEx = IntColumn.create("later stage, EX");
        for (CellInfo c : model.cellInfo) {
            String level = model.oracleNoise(c);
            if (level == null) continue;
            Collection<ItemResult> rows = model.byRung.get(c.name()).values();
            rung.append(c.name());
            noise.append(level);
            n.append(rows.size());
            ex.append(rows.isEmpty() ? Double.NaN : rows.stream().filter(ItemResult::ex).count() / (double) rows.size());
            losses.append((int) rows.stream().filter(r -> !r.ex()).count());
            int sem = 0, semEx = 0, fmt = 0, fmtEx = 0;
            for (ItemResult r : rows) {
                OracleTrace o = model.oracle.get(Report.oracleKey(c.name(), r.itemId()));
                if (o == null) continue;
                if (o.semantic()) {
                    sem++;
                    if (r.ex()) semEx++;
                } else if (o.format()) {
                    fmt++;
                    if (r.ex()) fmtEx++;
                }
            }
            Pipeline pipeline = Pipelines.registry().pipelineOf(c.cell().strategy());
            List<ItemResult> acted = pipeline == null ? List.of()
                    : rows.stream().filter(r -> pipeline.laterStageChose(r.chosen())).toList();
            later.append(acted.size());
            laterEx.append((int) acted.stream().filter(ItemResult::ex).count());
            semantic.append(sem);
            repaired.append(semEx);
            format.append(fmt);
            cleaned.append(fmtEx);
        }
        Table t = Table.create("oracle-analysis", rung, noise, n, ex, losses, semantic, repaired, format, cleaned, later,
                laterEx);
        return new ReportTable("oracle-analysis", "Oracle analysis: what each rung does to a perfect answer, and what it recovers",
                model.caption("One row per rung answered by the oracle engine (answers written from the gold SQL; a measuring "
                        + "instrument, not a model result). noise: the oracle's noise (none: every answer is the gold). At "
                        + "noise none, EX below 1 is what the rung's own mechanisms do to a perfect answer (each loss is "
                        + "listed in the oracle-losses table). corrupted: items where some model call of the answer wrote a "
                        + "corrupted gold (semantic noise), and of them the items the rung still answered right (repaired "
                        + "or avoided); format only: items whose calls carried format noise and no corruption, and of them "
                        + "the items answered right (the noise removed). later stage chose: items whose answer a "
                        + "pipeline's later mechanism gave (a repair, an alternative branch, a refinement cycle, GSR's "
                        + "Second- or Final-SQL), and of them the items answered right: how often the mechanism acted and "
                        + "won."),
                t, Map.of("EX", Style.PROPORTION), Set.of());
    }

    static ReportTable losses(ReportModel model) {
        StringColumn rung = StringColumn.create("rung");
        StringColumn item = StringColumn.create("item");
        StringColumn errorClass = StringColumn.create("error class");
        StringColumn chosen = StringColumn.create("chosen");
        StringColumn cause = StringColumn.create("cause");
        for (CellInfo c : model.cellInfo) {
            if (!"none".equals(model.oracleNoise(c))) continue;
            for (ItemResult r : model.byRung.get(c.name()).values()) {
                if (r.ex()) continue;
                rung.append(c.name());
                item.append(r.itemId());
                errorClass.append(ReportModel.label(r.errorClass()));
                chosen.append(ReportModel.label(r.chosen()));
                OracleTrace o = model.oracle.get(Report.oracleKey(c.name(), r.itemId()));
                String why = o == null || o.decision() == null ? "" : o.decision();
                cause.append(((r.error() != null ? "does not execute: " + r.error() + "; " : "") + why).replaceAll("\\s+", " "));
            }
        }
        Table t = Table.create("oracle-losses", rung, item, errorClass, chosen, cause);
        return new ReportTable("oracle-losses", "Oracle analysis: items lost on a perfect answer",
                model.caption("One row per item a rung answered wrong (EX 0) although the oracle engine gave it the gold "
                        + "without noise: what the rung's mechanisms did to a perfect answer. cause: the execution error "
                        + "of the final SQL if any, then the strategy's own decision as its trace records it."),
                t, Map.of(), Set.of());
    }
}
