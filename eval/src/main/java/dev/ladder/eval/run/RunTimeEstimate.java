package dev.ladder.eval.run;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How long a whole experiment will take on this machine, from a measured sample of its items ({@code ladder bench
 * ladder}): per cell, the sample's seconds, model calls and tokens per item, scaled to the full selection. The range is
 * the sample mean's 95% normal interval scaled the same way (items differ: an agent takes more rounds on some), so a
 * small sample says how little it knows.
 */
public final class RunTimeEstimate {

    private RunTimeEstimate() {}

    /** One answered item of the sample: its cell, wall time, model calls and tokens. */
    public record Answer(String cell, long millis, int calls, int promptTokens, int generatedTokens) {}

    /**
     * One cell's measurement and estimate.
     *
     * @param sampled         items measured
     * @param secondsPerItem  mean wall seconds per item
     * @param callsPerItem    mean model calls per item (requests, cached ones included)
     * @param promptPerItem   mean prompt tokens per item
     * @param generatedPerItem mean generated tokens per item
     * @param seconds         estimated seconds for the full selection
     * @param halfWidth       half the 95% interval of {@code seconds} (0 from one item: nothing to say how items vary)
     */
    public record Cell(String cell, int sampled, double secondsPerItem, double callsPerItem, double promptPerItem,
                       double generatedPerItem, double seconds, double halfWidth) {}

    /**
     * The whole estimate.
     *
     * @param cells      per cell, in the order given
     * @param fullItems  items of the full selection
     * @param fixedSeconds what does not grow with the items (model loads), measured once
     * @param seconds    the estimated total: every cell, plus the fixed part
     * @param halfWidth  half the total's 95% interval (cells taken as independent)
     */
    public record Estimate(List<Cell> cells, int fullItems, double fixedSeconds, double seconds, double halfWidth) {}

    /**
     * The answers with each cell's times scaled so that they add up to the wall time the cell took ({@code cellMillis},
     * {@link ExperimentRunner.Outcome#cellMillis}): items answered together overlap, so their own times add up to more
     * than the cell took, and one at a time they leave out scoring and storing. Each item keeps its share of its cell,
     * so the interval still says how items differ. Cells without a wall time keep their rows' times.
     */
    public static List<Answer> scaledToCells(List<Answer> answers, Map<String, Long> cellMillis) {
        Map<String, Long> sums = new LinkedHashMap<>();
        for (Answer a : answers) sums.merge(a.cell(), a.millis(), Long::sum);
        List<Answer> out = new ArrayList<>(answers.size());
        for (Answer a : answers) {
            Long wall = cellMillis.get(a.cell());
            long sum = sums.get(a.cell());
            long millis = wall == null ? a.millis()
                    : sum > 0 ? Math.round((double) a.millis() * wall / sum) : wall / answersOf(answers, a.cell());
            out.add(new Answer(a.cell(), millis, a.calls(), a.promptTokens(), a.generatedTokens()));
        }
        return out;
    }

    private static long answersOf(List<Answer> answers, String cell) {
        return Math.max(1, answers.stream().filter(a -> a.cell().equals(cell)).count());
    }

    /**
     * @param answers   the sample's rows
     * @param cellOrder the experiment's cells, in order (cells without a sampled row are left out)
     * @param fullItems items the full run answers per cell
     * @param fixedMillis model loads and other once-per-run work measured during the sample
     */
    public static Estimate of(List<Answer> answers, List<String> cellOrder, int fullItems, long fixedMillis) {
        Map<String, List<Answer>> byCell = new LinkedHashMap<>();
        for (String c : cellOrder) byCell.put(c, new ArrayList<>());
        for (Answer a : answers) byCell.computeIfAbsent(a.cell(), k -> new ArrayList<>()).add(a);
        List<Cell> cells = new ArrayList<>();
        double total = fixedMillis / 1e3;
        double variance = 0;
        for (Map.Entry<String, List<Answer>> e : byCell.entrySet()) {
            List<Answer> rows = e.getValue();
            int n = rows.size();
            if (n == 0) continue;
            double mean = rows.stream().mapToLong(Answer::millis).average().orElse(0) / 1e3;
            double sd = 0;
            if (n > 1) {
                double ss = rows.stream().mapToDouble(a -> Math.pow(a.millis() / 1e3 - mean, 2)).sum();
                sd = Math.sqrt(ss / (n - 1));
            }
            // the total over N items estimated as N x mean: its standard error is N x sd / sqrt(n)
            double se = fullItems * sd / Math.sqrt(n);
            double seconds = fullItems * mean;
            cells.add(new Cell(e.getKey(), n, mean, rows.stream().mapToInt(Answer::calls).average().orElse(0),
                    rows.stream().mapToInt(Answer::promptTokens).average().orElse(0),
                    rows.stream().mapToInt(Answer::generatedTokens).average().orElse(0), seconds, 1.96 * se));
            total += seconds;
            variance += se * se;
        }
        return new Estimate(cells, fullItems, fixedMillis / 1e3, total, 1.96 * Math.sqrt(variance));
    }
}
