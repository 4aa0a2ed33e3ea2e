package dev.ladder.cli;

import dev.ladder.scorer.bench.ItemSubset;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.inference.engine.BatchWidth;
import dev.ladder.eval.run.ExperimentRunner;
import dev.ladder.eval.run.GenerationCache;
import dev.ladder.eval.run.Shard;
import dev.ladder.sql.db.UserError;
import java.io.PrintWriter;
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

@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Run an experiment (docs/experiments.md): every rung on every item, scored, into a run "
                + "directory with predictions, traces, a results store and the report. Killed and started again, it "
                + "resumes where it stopped.",
                "  ladder run experiments/classicmodels-ladder.yaml",
                "  ladder run experiments/classicmodels-ladder.yaml --model /tmp/tiny --limit 10 --out runs/tiny",
                "  ladder run experiments/classicmodels-ladder.yaml --shard 2/4   (then: ladder merge RUN_DIR... --out DIR)"})
final class RunCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Parameters(paramLabel = "EXPERIMENT", description = "The experiment YAML file.")
    Path experimentFile;
    @Option(names = "--model", paramLabel = "DIR|ID|oracle[:NOISE]", description = "Use this model (directory or hub id) for every in-process model of the file; adapters and served models (engine openai) stay. oracle[:NOISE]: the oracle engine instead, adapters dropped (docs/oracle.md).")
    String model;
    @Option(names = "--adapter", paramLabel = "DIR", description = "Use this PEFT adapter for every model of the file that has one.")
    String adapter;
    @Option(names = "--device", paramLabel = "auto|cpu|cuda[:N]",
            description = "Run every in-process model of the file on this device (default: each model's device:, auto).")
    String device;
    @Option(names = "--dtype", paramLabel = "auto|f32|f16|int8",
            description = "Load every in-process model of the file with this dtype (default: each model's dtype:, auto).")
    String dtype;
    @Option(names = "--engine", paramLabel = "djl|onnx|auto",
            description = "Run every in-process model of the file on this engine (default: each model's engine:; docs/onnx.md).")
    String engine;
    @Option(names = "--limit", paramLabel = "N",
            description = "Only N items of the split, chosen as the file's 'subset:' says (default: stratified by category and difficulty, seeded).")
    Integer limit;
    @Option(names = "--batch-width", paramLabel = "N",
            description = "Answer N items of a cell together, their model calls merged round by round into one engine"
                    + " call, on every in-process model of the file (default: each model's batch_width:, auto: 16 on a"
                    + " GPU where the memory plan allows, " + BatchWidth.CPU + " on a CPU, 1 for the oracle; docs/inference.md).")
    Integer batchWidth;
    @Option(names = "--subset", paramLabel = "stratified|first",
            description = "How --limit picks its items: a stratified seeded sample (default) or the first N in file order.")
    String subset;
    @Option(names = "--out", paramLabel = "DIR",
            description = "Run directory (default: the file's output; with --shard i/N, the file's output + -shard-i-of-N).")
    Path out;
    @Option(names = "--shard", paramLabel = "i/N",
            description = "Answer only shard i of N of the items (item at position p goes to shard p mod N + 1), into its "
                    + "own run directory; 'ladder merge' joins the N shards into the whole run (docs/scale.md).")
    String shardText;
    @Option(names = "--generation-cache", paramLabel = "FILE",
            description = "Generation cache file (default: generation-cache.sqlite in the Ladder cache directory).")
    Path cacheFile;
    @Option(names = "--no-generation-cache", description = "Generate everything afresh (nothing read from or written to the cache).")
    boolean noCache;
    @Option(names = "--format", split = ",", paramLabel = "FMT",
            description = "Report formats (default: md,csv,tex,json,png,svg).")
    List<String> formats = ReportCommand.ALL_FORMATS;
    @Option(names = "--no-progress", description = "One line per rung instead of progress bars (the default when the output is not a terminal).")
    boolean noProgress;
    @Option(names = "--prepare", description = "Do the run's shared work and stop, answering nothing and writing no run directory: pull its models, load its database, build its test suite when it needs one (a cluster's setup job before the shards; docs/scale.md).")
    boolean prepare;
    @Option(names = "--url", paramLabel = "JDBC_URL", description = "External MySQL/MariaDB server instead of the embedded one.")
    String url;

    @Override
    public Integer call() {
        PrintWriter log = spec.commandLine().getErr();
        var reportFormats = ReportCommand.parseFormats(formats);
        Shard shard = shardText == null ? null : Shard.parse(shardText, "--shard");
        Experiment e = withOverrides(ExperimentLoader.load(experimentFile), model, adapter, device, dtype, engine, limit, subset);
        if (batchWidth != null) e = e.withBatchWidthOverride(batchWidth);
        // a shard's directory stays out of config.yaml, which is the experiment's for every shard (merge compares them)
        if (out != null && shard == null) e = e.withOutput(out);
        Path runDir = shard == null ? e.output() : out != null ? out : shard.directoryBeside(e.output());
        if (noCache && cacheFile != null) throw new UserError("--generation-cache and --no-generation-cache cannot be used together");
        Path cache = noCache ? null : cacheFile != null ? cacheFile : GenerationCache.defaultFile();
        // progress bars redraw with carriage returns: only for a terminal, plain lines in a redirected log
        boolean bars = !noProgress && System.console() != null;
        ExperimentRunner.Options options = new ExperimentRunner.Options(cache, bars ? System.err : null, log,
                Optional.ofNullable(url), Path.of(System.getProperty("ladder.home", "")).toAbsolutePath());
        if (prepare) {
            List<String> ready = new ExperimentRunner(e, options, shard, runDir).prepare();
            PrintWriter stdout = spec.commandLine().getOut();
            stdout.println("prepared " + e.name() + " (nothing answered, no run directory written):");
            ready.forEach(line -> stdout.println("  " + line));
            return 0;
        }
        ExperimentRunner.Outcome outcome = new ExperimentRunner(e, options, shard, runDir).run();
        // a shard's tables would read as the experiment's (a CSV or TeX table carries no provenance): the report comes
        // from the merged run; 'ladder report' on a shard labels it as one
        if (shard == null) ReportCommand.writeReport(List.of(outcome.directory().dir()), outcome.directory().report(), reportFormats);
        PrintWriter stdout = spec.commandLine().getOut();
        stdout.printf(Locale.ROOT, "%d cells: %d items answered, %d already done%s; generation cache %d hits, %d misses%n",
                outcome.cells(), outcome.answered(), outcome.resumed(),
                outcome.skipped().isEmpty() ? "" : "; skipped (no adapter): " + String.join(", ", outcome.skipped()),
                outcome.cacheHits(), outcome.cacheMisses());
        if (shard == null) {
            stdout.println("report: " + outcome.directory().report().resolve("report.md"));
        } else {
            stdout.println("report: none for shard " + shard.label() + " (its items are not the experiment's): 'ladder merge'"
                    + " the " + shard.count() + " shard directories into the whole run and its report");
        }
        stdout.println(outcome.directory().dir());
        return 0;
    }

    /**
     * The experiment with the command line's overrides ({@code --model}, {@code --adapter}, {@code --device},
     * {@code --dtype}, {@code --limit}, {@code --subset}; null for each one not given), as {@code ladder run} and
     * {@code ladder bench ladder} read them.
     */
    static Experiment withOverrides(Experiment experiment, String model, String adapter, String device, String dtype,
                                    String engine, Integer limit, String subset) {
        Experiment e = experiment;
        if (model != null) e = e.withModelOverride(model);
        if (adapter != null) {
            // an adapter named on the command line must be there (one the file names may still be in training)
            if (!Files.isRegularFile(Path.of(adapter).resolve("adapter_config.json"))) {
                throw new UserError("--adapter " + adapter + ": no PEFT adapter there (no adapter_config.json)");
            }
            e = e.withAdapterOverride(adapter);
        }
        if (device != null) e = e.withDeviceOverride(device);
        if (dtype != null) e = e.withDtypeOverride(dtype);
        if (engine != null) e = e.withEngineOverride(engine);
        if (limit != null) e = e.withLimit(limit);
        if (subset != null) {
            ItemSubset.Method method = ItemSubset.Method.parse(subset);
            if (method == null) throw new UserError("--subset " + subset + ": use stratified or first");
            e = e.withSubset(new ItemSubset(method, e.subset().seed()));
        }
        return e;
    }
}
