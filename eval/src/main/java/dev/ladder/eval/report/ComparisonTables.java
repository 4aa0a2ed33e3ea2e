package dev.ladder.eval.report;

import dev.ladder.eval.report.ReportModel.Declared;
import dev.ladder.eval.report.ReportModel.Outcome;
import dev.ladder.eval.report.ReportModel.RungInfo;
import dev.ladder.eval.run.ItemResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * The declared comparisons (per seed and pooled, McNemar and the paired bootstrap, Holm within each metric's family)
 * and the single-factor attribution read from them.
 */
final class ComparisonTables {

    private ComparisonTables() {}

    /** The comparisons table and the attribution table (null when no comparison changes one factor). */
    record Tables(ReportTable comparisons, ReportTable attribution) {}

    /** Tests every declared comparison once; both tables read the same tests and Holm adjustment. */
    static Tables build(ReportModel model) {
        List<Tested> tested = test(model);
        double[] holm = holm(tested);
        return new Tables(comparisons(model, tested, holm), attribution(model, tested, holm));
    }

    /** One comparison row before the Holm adjustment. */
    private record Tested(String metric, Declared comparison, String seed, int n, int b, int c,
                          Statistics.Estimate diff, double p, double fromRate, double toRate) {
    }

    private static List<Outcome> comparedMetrics(ReportModel model) {
        List<Outcome> m = new ArrayList<>();
        m.add(new Outcome("EX", ItemResult::ex));
        if (model.hasExAlt) m.add(new Outcome(model.exAltLabel, ItemResult::exAlt));
        if (model.hasTs) m.add(new Outcome("TS", ItemResult::ts));
        return m;
    }

    private static List<Tested> test(ReportModel model) {
        List<Tested> out = new ArrayList<>();
        for (Outcome metric : comparedMetrics(model)) {
            for (Declared d : model.declared) {
                RungInfo from = model.rungInfo.get(d.from());
                RungInfo to = model.rungInfo.get(d.to());
                List<Long> common = new ArrayList<>(from.cellsBySeed().keySet());
                common.retainAll(to.cellsBySeed().keySet());
                for (long seed : common) {
                    out.add(testOneSeed(model, metric, d, seed, from.cellsBySeed().get(seed), to.cellsBySeed().get(seed)));
                }
                if (model.multiSeed) out.add(testPooled(model, metric, d, common, from, to));
            }
        }
        return out;
    }

    private static Tested testOneSeed(ReportModel model, Outcome metric, Declared d, long seed, String fromCell, String toCell) {
        TreeMap<String, ItemResult> first = model.byRung.get(fromCell);
        TreeMap<String, ItemResult> second = model.byRung.get(toCell);
        List<Boolean> xs = new ArrayList<>();
        List<Boolean> ys = new ArrayList<>();
        for (Map.Entry<String, ItemResult> e : first.entrySet()) { // sorted by item id
            ItemResult z = second.get(e.getKey());
            if (z == null) continue;
            Boolean x = metric.outcome().apply(e.getValue());
            Boolean y = metric.outcome().apply(z);
            if (x != null && y != null) {
                xs.add(x);
                ys.add(y);
            }
        }
        boolean[] x = ReportModel.toArray(xs);
        boolean[] y = ReportModel.toArray(ys);
        Statistics.McNemar test = Statistics.mcnemar(x, y);
        Statistics.Estimate diff = Statistics.pairedBootstrapDifference(x, y, model.options.resamples(), model.options.seed());
        return new Tested(metric.name(), d, Long.toString(seed), test.n(), test.b(), test.c(), diff,
                test.n() == 0 ? Double.NaN : test.p(), Statistics.proportion(x), Statistics.proportion(y));
    }

    /**
     * Pooled over the seeds both rungs have: per item, d = the mean over those seeds of (to - from); b counts items
     * with d < 0, c items with d > 0, p is the exact sign test on them (McNemar's with one seed), and the interval
     * is the bootstrap of mean d over items.
     */
    private static Tested testPooled(ReportModel model, Outcome metric, Declared d, List<Long> common, RungInfo from, RungInfo to) {
        Map<String, double[]> sums = new TreeMap<>(); // item -> {sum of to - from, sum of from, sum of to, seeds}
        for (long seed : common) {
            TreeMap<String, ItemResult> first = model.byRung.get(from.cellsBySeed().get(seed));
            TreeMap<String, ItemResult> second = model.byRung.get(to.cellsBySeed().get(seed));
            for (Map.Entry<String, ItemResult> e : first.entrySet()) {
                ItemResult z = second.get(e.getKey());
                if (z == null) continue;
                Boolean x = metric.outcome().apply(e.getValue());
                Boolean y = metric.outcome().apply(z);
                if (x == null || y == null) continue;
                double[] s = sums.computeIfAbsent(e.getKey(), k -> new double[4]);
                s[0] += (y ? 1 : 0) - (x ? 1 : 0);
                s[1] += x ? 1 : 0;
                s[2] += y ? 1 : 0;
                s[3] += 1;
            }
        }
        double[] diffs = new double[sums.size()];
        double[] fromMeans = new double[sums.size()];
        double[] toMeans = new double[sums.size()];
        int i = 0;
        int b = 0;
        int c = 0;
        for (double[] s : sums.values()) {
            diffs[i] = s[0] / s[3];
            fromMeans[i] = s[1] / s[3];
            toMeans[i] = s[2] / s[3];
            if (diffs[i] < 0) b++;
            if (diffs[i] > 0) c++;
            i++;
        }
        Statistics.Estimate diff = Statistics.bootstrapMean(diffs, model.options.resamples(), model.options.seed());
        return new Tested(metric.name(), d, Report.POOLED, diffs.length, b, c, diff,
                diffs.length == 0 ? Double.NaN : Statistics.mcnemarExactP(b, c), Statistics.mean(fromMeans),
                Statistics.mean(toMeans));
    }

    /** Holm within each family: the rows of one metric, one seed (or pooled) and one declared family. */
    private static double[] holm(List<Tested> tested) {
        double[] adjusted = new double[tested.size()];
        Map<String, List<Integer>> families = new LinkedHashMap<>();
        for (int i = 0; i < tested.size(); i++) {
            Tested t = tested.get(i);
            families.computeIfAbsent(t.metric() + "\u0000" + t.seed() + "\u0000" + t.comparison().family(),
                    k -> new ArrayList<>()).add(i);
        }
        for (List<Integer> family : families.values()) {
            double[] p = family.stream().mapToDouble(i -> tested.get(i).p()).toArray();
            double[] h = Statistics.holm(p);
            for (int j = 0; j < family.size(); j++) adjusted[family.get(j)] = h[j];
        }
        return adjusted;
    }

    private static ReportTable comparisons(ReportModel model, List<Tested> tested, double[] holm) {
        StringColumn metric = StringColumn.create("metric");
        StringColumn label = StringColumn.create("label");
        StringColumn from = StringColumn.create("from");
        StringColumn to = StringColumn.create("to");
        StringColumn familyColumn = StringColumn.create("family");
        StringColumn seed = StringColumn.create("seed");
        IntColumn n = IntColumn.create("n");
        IntColumn b = IntColumn.create("b");
        IntColumn c = IntColumn.create("c");
        DoubleColumn[] diff = ReportModel.triple("diff");
        DoubleColumn p = DoubleColumn.create("p");
        DoubleColumn pHolm = DoubleColumn.create("p_holm");
        StringColumn differs = StringColumn.create("differs in");
        IntColumn factors = IntColumn.create("factors");
        StringColumn confounded = StringColumn.create("confounded");
        for (int i = 0; i < tested.size(); i++) {
            Tested t = tested.get(i);
            metric.append(t.metric());
            label.append(t.comparison().label());
            from.append(t.comparison().from());
            to.append(t.comparison().to());
            familyColumn.append(t.comparison().family());
            seed.append(t.seed());
            n.append(t.n());
            b.append(t.b());
            c.append(t.c());
            ReportModel.append(diff, t.diff());
            p.append(t.p());
            pHolm.append(holm[i]);
            List<String> d = t.comparison().differs();
            differs.append(d.isEmpty() ? "nothing recorded" : String.join(", ", d));
            factors.append(d.size());
            confounded.append(d.size() > 1 ? "yes" : "no");
        }
        Table t = Table.create("comparisons", metric, label, from, to, familyColumn);
        if (model.multiSeed) t.addColumns(seed);
        t.addColumns(n, b, c);
        t.addColumns(diff);
        t.addColumns(p, pHolm, differs, factors, confounded);
        String family = model.multiSeed ? "the comparisons of one metric, one seed (pooled rows: pooled) and one "
                + "family" : "the comparisons of one metric and one family";
        return new ReportTable("comparisons", "Declared comparisons",
                model.caption("One row per metric and declared comparison (label: H1 exemplars, H2 adapter, H3 agent "
                        + "stages, or declared)" + (model.multiSeed ? ", per seed both rungs ran with, then pooled over "
                        + "those seeds" : "") + ", over the items both rungs answered (for TS: both have a suite). "
                        + "b: items right in from and wrong in to; c: wrong in from and right in to (the discordant "
                        + "pairs, the effect size); diff: to minus from with its 95% paired bootstrap interval; p: "
                        + "exact two-sided McNemar p-value; p_holm: Holm-Bonferroni adjusted over "
                        + family + " (family: as declared, else the pipeline of the rung compared to, 'ladder' for "
                        + "the ladder's rungs)." + (model.multiSeed ? " Pooled: per item d = mean over the seeds of (to - from); b "
                        + "and c count items with d < 0 and d > 0, p is the exact sign test on them, diff is mean d "
                        + "with its bootstrap interval over items." : "") + " differs in: the factors in which the "
                        + "two rungs differ; confounded = yes when more than one, so the difference cannot be "
                        + "attributed to one of them."),
                t, Map.of("p", Style.P_VALUE, "p_holm", Style.P_VALUE, "diff", Style.DIFFERENCE,
                        "diff" + ReportTable.LOWER, Style.DIFFERENCE, "diff" + ReportTable.UPPER, Style.DIFFERENCE),
                Set.of("diff"));
    }

    private static ReportTable attribution(ReportModel model, List<Tested> tested, double[] holm) {
        StringColumn label = StringColumn.create("label");
        StringColumn from = StringColumn.create("from");
        StringColumn to = StringColumn.create("to");
        StringColumn factor = StringColumn.create("factor");
        StringColumn change = StringColumn.create("change");
        IntColumn n = IntColumn.create("n");
        DoubleColumn exFrom = DoubleColumn.create("EX from");
        DoubleColumn exTo = DoubleColumn.create("EX to");
        DoubleColumn[] diff = ReportModel.triple("diff");
        DoubleColumn p = DoubleColumn.create("p");
        DoubleColumn pHolm = DoubleColumn.create("p_holm");
        for (int i = 0; i < tested.size(); i++) {
            Tested t = tested.get(i);
            boolean oneRow = model.multiSeed ? t.seed().equals(Report.POOLED) : true;
            if (!t.metric().equals("EX") || !oneRow || t.comparison().differs().size() != 1) continue;
            label.append(t.comparison().label());
            from.append(t.comparison().from());
            to.append(t.comparison().to());
            factor.append(t.comparison().differs().get(0));
            change.append(t.comparison().change());
            n.append(t.n());
            exFrom.append(t.fromRate());
            exTo.append(t.toRate());
            ReportModel.append(diff, t.diff());
            p.append(t.p());
            pHolm.append(holm[i]);
        }
        if (label.isEmpty()) return null;
        Table t = Table.create("attribution", label, from, to, factor, change, n, exFrom, exTo);
        t.addColumns(diff);
        t.addColumns(p, pHolm);
        return new ReportTable("attribution", "Attribution: comparisons that change one factor",
                model.caption("One row per declared comparison whose two rungs differ in exactly one factor, so its EX "
                        + "difference is that factor's" + (model.multiSeed ? " (pooled over seeds)" : "") + ". change: the "
                        + "factor's value in from -> to; EX from, EX to: over the paired items; diff, p and p_holm "
                        + "as in the comparisons table (Holm over each family of EX comparisons, not only these)."),
                t, Map.of("p", Style.P_VALUE, "p_holm", Style.P_VALUE, "diff", Style.DIFFERENCE,
                        "diff" + ReportTable.LOWER, Style.DIFFERENCE, "diff" + ReportTable.UPPER, Style.DIFFERENCE),
                Set.of("diff"));
    }
}
