package dev.ladder.cli;

import dev.ladder.common.FileTrees;
import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.eval.report.RunLoader;
import dev.ladder.eval.run.ExperimentRunner;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.eval.run.RunTimeEstimate;
import dev.ladder.inference.engine.BatchWidth;
import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ladder bench ladder}: how long an experiment file will take on this machine, from a short measured sample of
 * its items run for real (every cell, a fresh generation cache as a first run has), scaled to the full selection.
 */
@Command(name = "ladder", mixinStandardHelpOptions = true,
        description = {"Estimate an experiment's wall time on this machine: run a stratified sample of its items through "
                + "every cell (for real, into a temporary directory, with a fresh generation cache as a first run has), "
                + "then scale seconds, calls and tokens per item to the full selection.",
                "The range is the sample's 95% interval: items differ (an agent takes more rounds on some), so a small "
                        + "sample says how little it knows."})
final class BenchLadderCommand implements Callable<Integer> {

    @Spec CommandSpec spec;
    @Parameters(paramLabel = "EXPERIMENT", description = "An experiment file (docs/experiments.md).")
    Path experimentFile;
    @Option(names = "--sample", defaultValue = "6", paramLabel = "N", description = "Items to run per cell (default ${DEFAULT-VALUE}).")
    int sample;
    @Option(names = "--model", paramLabel = "DIR|ID|oracle[:NOISE]", description = "As ladder run --model.")
    String model;
    @Option(names = "--adapter", paramLabel = "DIR", description = "As ladder run --adapter.")
    String adapter;
    @Option(names = "--device", paramLabel = "auto|cpu|cuda[:N]", description = "As ladder run --device.")
    String device;
    @Option(names = "--dtype", paramLabel = "auto|f32|f16|int8", description = "As ladder run --dtype.")
    String dtype;
    @Option(names = "--engine", paramLabel = "djl|onnx|auto", description = "As ladder run --engine.")
    String engine;
    @Option(names = "--limit", paramLabel = "N", description = "As ladder run --limit: the full run to estimate.")
    Integer limit;
    @Option(names = "--keep", paramLabel = "DIR", description = "Keep the sample's run directory here (default: removed;"
            + " with --batch-width, the items-together run's).")
    Path keep;
    @Option(names = "--batch-width", paramLabel = "N",
            description = "Run the sample twice, one item at a time and N items together (their model calls merged into"
                    + " one engine call per round), each with a fresh generation cache, and print the whole job side by"
                    + " side: wall time, generated tokens per second, whether the predictions are identical, the machine's"
                    + " load. Without it: once, at each model's own batch_width.")
    Integer batchWidth;

    /** One measured run of the sample: its wall time, each cell's, its rows, and the machine's load around it. */
    private record Sample(String widths, long wallMillis, Map<String, Long> cellMillis, List<ItemResult> rows,
                          double loadBefore, double loadAfter) {
        long cellsMillis() {
            return cellMillis.values().stream().mapToLong(Long::longValue).sum();
        }

        long generated() {
            return rows.stream().mapToLong(ItemResult::generatedTokens).sum();
        }

        /** Generated tokens per second of answering (the cells' wall time: loads and suite builds left out). */
        double tokensPerSecond() {
            return cellsMillis() == 0 ? 0 : generated() * 1000.0 / cellsMillis();
        }

        RunTimeEstimate.Estimate estimate(Experiment e, int full) {
            List<RunTimeEstimate.Answer> answers = rows.stream().map(r -> new RunTimeEstimate.Answer(r.cell(), r.millis(),
                    r.calls(), r.promptTokens(), r.generatedTokens())).toList();
            // what the cells' own times leave out happens once per run: model loads, the database, a test suite built
            return RunTimeEstimate.of(RunTimeEstimate.scaledToCells(answers, cellMillis),
                    e.cells().stream().map(Cell::name).toList(), full, Math.max(0, wallMillis - cellsMillis()));
        }
    }

    @Override
    public Integer call() throws IOException {
        if (keep != null && Files.exists(keep)) throw new UserError("--keep " + keep + " exists; name a new directory");
        Experiment e = RunCommand.withOverrides(ExperimentLoader.load(experimentFile), model, adapter, device, dtype, engine, limit, null);
        Benchmark benchmark = Benchmarks.load(e.benchmark(), e.database());
        int full = e.subset().select(benchmark.split(e.split()), e.limit()).items().size();
        int n = Math.min(sample, full);
        Experiment sampled = e.withLimit(n);
        // both widths are checked before anything runs
        Experiment together = batchWidth == null ? sampled : sampled.withBatchWidthOverride(batchWidth);
        Experiment alone = batchWidth == null ? null : sampled.withBatchWidthOverride(1);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path work = Files.createTempDirectory("ladder-bench-ladder");
        Path runDir = keep != null ? keep : work.resolve("sample");
        try {
            err.println("running " + n + " of " + full + " items through " + e.cells().size() + " cells of " + e.name()
                    + " (" + e.subset().method().name().toLowerCase(Locale.ROOT) + " sample"
                    + (alone == null ? "" : "), one item at a time, then " + batchWidth + " items together") + ") ...");
            err.flush();
            Sample first = alone == null ? null : run(alone, work.resolve("one-at-a-time"), work.resolve("cache-1.sqlite"));
            Sample s = run(together, runDir, work.resolve("cache.sqlite"));
            RunTimeEstimate.Estimate est = s.estimate(e, full);
            print(out, e, est, n, s);
            if (first != null) compare(out, first, s, e, full, n);
            if (keep != null) out.println("sample run: " + keep);
            return 0;
        } finally {
            FileTrees.deleteQuietly(work);
        }
    }

    /** Runs the sample into {@code runDir} with a fresh generation cache, as a first run has. */
    private static Sample run(Experiment e, Path runDir, Path cache) {
        // what the run says goes nowhere: the table is the answer
        ExperimentRunner.Options options = new ExperimentRunner.Options(cache, null,
                new PrintWriter(new StringWriter()), Optional.empty(),
                Path.of(System.getProperty("ladder.home", "")).toAbsolutePath());
        double before = load();
        long t0 = System.nanoTime();
        ExperimentRunner.Outcome outcome = new ExperimentRunner(e, options, null, runDir).run();
        long wallMillis = (System.nanoTime() - t0) / 1_000_000;
        double after = load();
        List<ItemResult> rows;
        try (ResultsStore store = ResultsStore.openReadOnly(runDir.resolve(RunDirectory.RESULTS))) {
            rows = store.results();
        }
        return new Sample(widths(runDir), wallMillis, outcome.cellMillis(), rows, before, after);
    }

    /** The batch widths the run's models got (environment.json), e.g. {@code 4}, or {@code base 4, judge 1}. */
    private static String widths(Path runDir) {
        Map<String, String> widths = new TreeMap<>();
        RunLoader.environment(runDir).forEach((k, v) -> {
            if (k.startsWith("models.") && k.endsWith("." + BatchWidth.FIELD)) {
                widths.put(k.substring("models.".length(), k.length() - BatchWidth.FIELD.length() - 1), v);
            }
        });
        if (new HashSet<>(widths.values()).size() == 1) return widths.values().iterator().next();
        List<String> each = new ArrayList<>();
        widths.forEach((id, w) -> each.add(id + " " + w));
        return String.join(", ", each);
    }

    /** The machine's load average over the last minute, or -1 where the system does not say. */
    private static double load() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static void print(PrintWriter out, Experiment e, RunTimeEstimate.Estimate est, int n, Sample s) {
        out.printf(Locale.ROOT, "%s on this machine: %d of %d items per cell measured in %s (batch width %s)%n%n", e.name(),
                n, est.fullItems(), duration(s.wallMillis() / 1e3), s.widths());
        TextTable t = new TextTable(List.of("cell", "items", "s/item", "calls/item", "prompt tok/item", "gen tok/item",
                "est. for " + est.fullItems() + " items"));
        for (int c = 1; c <= 6; c++) t.alignRight(c);
        for (RunTimeEstimate.Cell c : est.cells()) {
            t.add(List.of(c.cell(), Integer.toString(c.sampled()), String.format(Locale.ROOT, "%.2f", c.secondsPerItem()),
                    String.format(Locale.ROOT, "%.1f", c.callsPerItem()), String.format(Locale.ROOT, "%.0f", c.promptPerItem()),
                    String.format(Locale.ROOT, "%.0f", c.generatedPerItem()), range(c.seconds(), c.halfWidth())));
        }
        t.add(List.of("once per run", "", "", "", "", "", duration(est.fixedSeconds())));
        t.print(out);
        out.println();
        out.println("estimated wall time: " + range(est.seconds(), est.halfWidth()) + " (95% interval from the sample;"
                + " a generation cache that already holds answers makes a rerun faster)");
    }

    /** The whole job one item at a time beside items together, on the same sample. */
    private static void compare(PrintWriter out, Sample one, Sample together, Experiment e, int full, int n) {
        RunTimeEstimate.Estimate estOne = one.estimate(e, full);
        RunTimeEstimate.Estimate estTogether = together.estimate(e, full);
        out.println();
        out.printf(Locale.ROOT, "the whole job, %d cells x %d items, on %d cores:%n%n", e.cells().size(), n,
                Runtime.getRuntime().availableProcessors());
        TextTable t = new TextTable(List.of("", "one at a time", together.widths() + " items together"));
        t.alignRight(1).alignRight(2);
        t.add(List.of("sample wall time", duration(one.wallMillis() / 1e3), duration(together.wallMillis() / 1e3)));
        t.add(List.of("answering (the cells)", duration(one.cellsMillis() / 1e3), duration(together.cellsMillis() / 1e3)));
        t.add(List.of("generated tokens", Long.toString(one.generated()), Long.toString(together.generated())));
        t.add(List.of("generated tok/s", String.format(Locale.ROOT, "%.1f", one.tokensPerSecond()),
                String.format(Locale.ROOT, "%.1f", together.tokensPerSecond())));
        t.add(List.of("est. for " + full + " items", duration(estOne.seconds()), duration(estTogether.seconds())));
        t.add(List.of("load (1 min) before, after", loads(one), loads(together)));
        t.print(out);
        out.println();
        double speedup = together.cellsMillis() == 0 ? 0 : (double) one.cellsMillis() / together.cellsMillis();
        out.printf(Locale.ROOT, "items together answer %.2fx as fast; predictions identical: %s%n", speedup,
                identical(one.rows(), together.rows()));
    }

    private static String loads(Sample s) {
        return s.loadBefore() < 0 ? "not reported" : String.format(Locale.ROOT, "%.2f, %.2f", s.loadBefore(), s.loadAfter());
    }

    /** Whether every row predicts the same SQL in both runs: {@code yes (48 of 48 rows)}, or which differ. */
    static String identical(List<ItemResult> a, List<ItemResult> b) {
        Map<String, String> first = new TreeMap<>();
        a.forEach(r -> first.put(r.cell() + " " + r.itemId(), r.predicted()));
        Map<String, String> second = new TreeMap<>();
        b.forEach(r -> second.put(r.cell() + " " + r.itemId(), r.predicted()));
        List<String> differ = new ArrayList<>();
        for (String k : first.keySet()) if (!Objects.equals(first.get(k), second.get(k))) differ.add(k);
        for (String k : second.keySet()) if (!first.containsKey(k)) differ.add(k);
        if (differ.isEmpty()) return "yes (" + first.size() + " of " + first.size() + " rows)";
        return "no (" + differ.size() + " of " + Math.max(first.size(), second.size()) + " rows differ: "
                + String.join(", ", differ.subList(0, Math.min(5, differ.size()))) + (differ.size() > 5 ? ", ..." : "") + ")";
    }

    private static String range(double seconds, double halfWidth) {
        return halfWidth < 0.5 ? duration(seconds)
                : duration(seconds) + " ± " + duration(halfWidth);
    }

    /** 42 s, 12 min 5 s, 3 h 20 min. */
    static String duration(double seconds) {
        long s = Math.round(seconds);
        if (s < 60) return s + " s";
        if (s < 3600) return (s / 60) + " min " + (s % 60) + " s";
        return (s / 3600) + " h " + ((s % 3600) / 60) + " min";
    }
}
