package dev.ladder.cli;

import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.eval.run.ExperimentRunner;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.eval.run.RunTimeEstimate;
import dev.ladder.common.FileTrees;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
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
    @Option(names = "--keep", paramLabel = "DIR", description = "Keep the sample's run directory here (default: removed).")
    Path keep;

    @Override
    public Integer call() throws IOException {
        if (keep != null && Files.exists(keep)) throw new UserError("--keep " + keep + " exists; name a new directory");
        Experiment e = RunCommand.withOverrides(ExperimentLoader.load(experimentFile), model, adapter, device, dtype, engine, limit, null);
        Benchmark benchmark = Benchmarks.load(e.benchmark(), e.database());
        int full = e.subset().select(benchmark.split(e.split()), e.limit()).items().size();
        int n = Math.min(sample, full);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path work = Files.createTempDirectory("ladder-bench-ladder");
        Path runDir = keep != null ? keep : work.resolve("sample");
        try {
            err.println("running " + n + " of " + full + " items through " + e.cells().size() + " cells of " + e.name()
                    + " (" + e.subset().method().name().toLowerCase(Locale.ROOT) + " sample) ...");
            err.flush();
            // what the run says goes nowhere: the table is the answer
            ExperimentRunner.Options options = new ExperimentRunner.Options(work.resolve("generation-cache.sqlite"), null,
                    new PrintWriter(new StringWriter()), Optional.empty(),
                    Path.of(System.getProperty("ladder.home", "")).toAbsolutePath());
            long t0 = System.nanoTime();
            new ExperimentRunner(e.withLimit(n), options, null, runDir).run();
            long wallMillis = (System.nanoTime() - t0) / 1_000_000;
            List<RunTimeEstimate.Answer> answers;
            try (ResultsStore store = ResultsStore.openReadOnly(runDir.resolve(RunDirectory.RESULTS))) {
                answers = store.results().stream().map(r -> new RunTimeEstimate.Answer(r.cell(), r.millis(), r.calls(),
                        r.promptTokens(), r.generatedTokens())).toList();
            }
            // what the rows' own times leave out happens once per run: model loads, the database, a test suite built
            long rowMillis = answers.stream().mapToLong(RunTimeEstimate.Answer::millis).sum();
            RunTimeEstimate.Estimate est = RunTimeEstimate.of(answers, e.cells().stream().map(Cell::name).toList(), full,
                    Math.max(0, wallMillis - rowMillis));
            print(out, e, est, n, wallMillis);
            if (keep != null) out.println("sample run: " + keep);
            return 0;
        } finally {
            FileTrees.deleteQuietly(work);
        }
    }

    private static void print(PrintWriter out, Experiment e, RunTimeEstimate.Estimate est, int n, long wallMillis) {
        out.printf(Locale.ROOT, "%s on this machine: %d of %d items per cell measured in %s%n%n", e.name(), n,
                est.fullItems(), duration(wallMillis / 1e3));
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
