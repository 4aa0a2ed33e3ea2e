package dev.ladder.eval.report;

import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.report.ReportModel.CellInfo;
import dev.ladder.eval.run.ItemResult;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** The LLM judge against EX, per cell: the confusion counts, agreement and Cohen's kappa. */
final class JudgeAgreementTable {

    private JudgeAgreementTable() {}

    static ReportTable build(ReportModel model) {
        StringColumn rung = StringColumn.create("rung");
        IntColumn n = IntColumn.create("judged");
        IntColumn unknown = IntColumn.create("unknown");
        DoubleColumn judge = DoubleColumn.create("Judge");
        DoubleColumn ex = DoubleColumn.create("EX");
        IntColumn both = IntColumn.create("both correct");
        IntColumn judgeOnly = IntColumn.create("judge only");
        IntColumn exOnly = IntColumn.create("EX only");
        IntColumn neither = IntColumn.create("neither");
        DoubleColumn agreement = DoubleColumn.create("agreement");
        DoubleColumn kappa = DoubleColumn.create("kappa");
        StringColumn self = StringColumn.create("self-judged");
        for (CellInfo c : model.cellInfo) {
            List<ItemResult> rows = model.byRung.get(c.name()).values().stream().filter(r -> r.judge() != null).toList();
            int a = 0, b = 0, cc = 0, d = 0;
            for (ItemResult r : rows) {
                if (r.judge() && r.ex()) a++;
                else if (r.judge()) b++;
                else if (r.ex()) cc++;
                else d++;
            }
            rung.append(c.name());
            n.append(rows.size());
            unknown.append((int) model.byRung.get(c.name()).values().stream().filter(ItemResult::judgeUnknown).count());
            judge.append(rows.isEmpty() ? Double.NaN : (double) (a + b) / rows.size());
            ex.append(rows.isEmpty() ? Double.NaN : (double) (a + cc) / rows.size());
            both.append(a);
            judgeOnly.append(b);
            exOnly.append(cc);
            neither.append(d);
            agreement.append(rows.isEmpty() ? Double.NaN : (double) (a + d) / rows.size());
            kappa.append(Statistics.cohenKappa(a, b, cc, d));
            self.append(selfJudged(model, c));
        }
        Table t = Table.create("judge-agreement", rung, n, unknown, judge, ex, both, judgeOnly, exOnly, neither, agreement, kappa,
                self);
        Map<String, Style> styles = new HashMap<>();
        for (String col : List.of("Judge", "EX", "agreement", "kappa")) styles.put(col, Style.PROPORTION);
        return new ReportTable("judge-agreement", "LLM judge against EX",
                model.caption("One row per rung, over its judged items: the share the LLM judge (scorers.judge) calls "
                        + "correct, EX over the same items, the four cells of judge × EX (both correct, only the judge, "
                        + "only EX, neither), their agreement, and Cohen's kappa (agreement beyond chance: 1 perfect, 0 "
                        + "chance; missing when either side is constant). A prediction that is empty or does not "
                        + "execute is judged NO without asking the judge. unknown: items whose judge reply held no YES/NO "
                        + "verdict it could read; they are left out of every other column (never counted as NO). "
                        + "self-judged: yes when the judge is the rung's own model (its verdicts grade its own answers, "
                        + "and a pipeline that selects answers with the same judge, as progressive does, is graded by "
                        + "its own criterion: name another model in scorers.judge); ? when the run's config is unknown."),
                t, styles, Set.of());
    }

    /** Whether the run's judge model is the one the cell's rung answers with: yes, no, or ? (no config). */
    private static String selfJudged(ReportModel model, CellInfo c) {
        Experiment e = model.runs.get(c.run()).info().experiment();
        if (e == null || e.scorers().judge() == null) return "?";
        return e.rung(c.runRung()).map(r -> r.model().equals(e.scorers().judge()) ? "yes" : "no").orElse("?");
    }
}
