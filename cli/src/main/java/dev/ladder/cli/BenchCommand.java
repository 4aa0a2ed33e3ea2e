package dev.ladder.cli;

import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.scorer.bench.JsonlBenchmarks;
import dev.ladder.scorer.bench.SpiderFormat;
import dev.ladder.eval.check.BenchmarkCheck;
import dev.ladder.eval.check.Coverage;
import dev.ladder.eval.check.GateCheck;
import dev.ladder.eval.check.GoldCheck;
import dev.ladder.eval.check.LeakCheck;
import dev.ladder.eval.check.ReaderVerdicts;
import dev.ladder.eval.engine.djl.DjlEngine;
import dev.ladder.eval.engine.onnx.OnnxEngine;
import dev.ladder.eval.run.ModelLoader;
import dev.ladder.inference.EngineBenchmark;
import dev.ladder.inference.device.Placement;
import dev.ladder.inference.llm.DjlLanguageModel;
import dev.ladder.inference.llm.GenerationBenchmark;
import dev.ladder.inference.llm.LlamaModel;
import dev.ladder.inference.model.ModelException;
import dev.ladder.inference.onnx.OnnxLanguageModel;
import dev.ladder.inference.serve.ServeBenchmark;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.UserError;
import dev.ladder.sql.schema.Schema;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "bench", description = "Benchmarks: fetch, check, info, export; generation throughput, in-process and served; an experiment's wall time; the agent's leak and gate checks; the SQL readers' frozen verdicts.",
        subcommands = {BenchFetchCommand.class, BenchCommand.Info.class, BenchCommand.Export.class, BenchCommand.Check.class, BenchCommand.Generate.class,
                BenchCommand.Serve.class, BenchLadderCommand.class, BenchLinearCommand.class,
                BenchCommand.Leaks.class, BenchCommand.Gate.class, BenchCommand.Readers.class})
final class BenchCommand extends GroupCommand {

    @Command(name = "info", mixinStandardHelpOptions = true,
            description = "Counts by split, category and difficulty.")
    static final class Info implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Parameters(paramLabel = "NAME|PATH", description = "classicmodels, spider-dev or bird-dev (after 'bench fetch'), a JSONL folder, a Spider folder or a BIRD/plain JSON file.")
        String benchmark;
        @Option(names = "--db", paramLabel = "DB", description = "Database of a plain JSON array (default classicmodels).")
        String database;

        @Override
        public Integer call() {
            Benchmark b = Benchmarks.load(benchmark, database);
            PrintWriter out = spec.commandLine().getOut();
            out.println(b.name() + " (database " + (b.databases().isEmpty() ? b.defaultDatabase() : b.databases().size() + " SQLite files") + ")");
            for (Map.Entry<String, List<BenchmarkItem>> split : b.splits().entrySet()) {
                out.println();
                out.println(split.getKey() + ": " + split.getValue().size() + " items");
                printBreakdown(out, "category", split.getValue(), BenchmarkItem::category);
                printBreakdown(out, "difficulty", split.getValue(), BenchmarkItem::difficulty);
            }
            return 0;
        }

        private static void printBreakdown(PrintWriter out, String label, List<BenchmarkItem> items,
                                           Function<BenchmarkItem, String> key) {
            Map<String, Long> counts = new LinkedHashMap<>();
            List<String> order = label.equals("category") ? BenchmarkItem.CATEGORIES : BenchmarkItem.DIFFICULTIES;
            for (String k : order) counts.put(k, 0L);
            for (BenchmarkItem item : items) counts.merge(key.apply(item), 1L, Long::sum);
            counts.values().removeIf(v -> v == 0);
            TextTable t = new TextTable(List.of(label, "items", "share")).alignRight(1).alignRight(2);
            counts.forEach((k, v) -> t.add(List.of(k, Long.toString(v),
                    String.format(Locale.ROOT, "%.1f%%", 100.0 * v / items.size()))));
            t.print(out);
        }
    }

    @Command(name = "export", mixinStandardHelpOptions = true,
            description = "Write a benchmark in another format (spider: question files, tables.json, SQLite databases, gold SQL).")
    static final class Export implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Parameters(paramLabel = "NAME|PATH") String benchmark;
        @Option(names = "--format", required = true, paramLabel = "spider|jsonl") String format;
        @Option(names = "--out", required = true, paramLabel = "DIR") Path out;
        @Option(names = "--db", paramLabel = "DB", description = "Database of a plain JSON array (default classicmodels).")
        String database;

        @Override
        public Integer call() {
            Benchmark b = Benchmarks.load(benchmark, database);
            switch (format) {
                case "spider" -> SpiderFormat.export(b, out);
                case "jsonl" -> JsonlBenchmarks.writeDirectory(b, out);
                default -> throw new UserError("--format must be spider or jsonl, got '" + format + "'");
            }
            spec.commandLine().getOut().println("wrote " + b.name() + " (" + b.splits().keySet() + ") as " + format + " to " + out);
            return 0;
        }
    }

    @Command(name = "check", mixinStandardHelpOptions = true,
            description = "Check a benchmark (any format 'bench info' reads): every gold and alternative executes, difficulty follows the rule; prints coverage and a gold audit (golds likely wrong: empty, all NULL, one row for a list, unresolved ties, against a run's majority with --run).")
    static final class Check implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Parameters(paramLabel = "NAME|PATH", description = "classicmodels, a JSONL file or folder, a Spider folder or a BIRD/plain JSON file.")
        String benchmark;
        @Option(names = "--db", paramLabel = "DB",
                description = "Database of items without their own (default: the benchmark's, classicmodels for a JSONL file).")
        String database;
        @Mixin DatabaseOptions options = new DatabaseOptions();
        @Option(names = "--disjoint-from", paramLabel = "NAME|PATH",
                description = "Another split or benchmark: report items whose SQL skeleton or normalised question also occurs there.")
        String other;
        @Option(names = "--run", paramLabel = "RUN_DIR",
                description = "A finished run of this benchmark: the gold audit also flags golds that a majority of its"
                        + " distinct predictions, agreeing with each other, disagree with.")
        Path run;

        @Override
        public Integer call() {
            Map<String, List<BenchmarkCheck.Entry>> byDatabase = BenchmarkCheck.entries(benchmark, database);
            BenchmarkCheck.Other disjoint = BenchmarkCheck.Other.of(other, database);
            Map<String, List<String>> predictions = run == null ? Map.of() : BenchmarkCheck.predictions(run);
            if (run != null && byDatabase.values().stream().flatMap(List::stream)
                    .noneMatch(e -> predictions.containsKey(e.item().id()))) {
                throw new UserError("--run " + run + ": the run answered none of this benchmark's items (ids differ)");
            }
            PrintWriter out = spec.commandLine().getOut();
            long problems = 0;
            long suspects = 0;
            for (Map.Entry<String, List<BenchmarkCheck.Entry>> group : byDatabase.entrySet()) {
                if (byDatabase.size() > 1) out.println("database " + group.getKey());
                BenchmarkCheck.DatabaseResult r = BenchmarkCheck.check(group.getKey(), group.getValue(), disjoint,
                        options::open, options.sqlMode(), predictions);
                for (GoldCheck.Verdict v : r.verdicts()) out.println((v.bad() ? "! " : "  ") + v.line());
                if (!r.suspects().isEmpty()) {
                    out.println();
                    out.println("gold audit: golds that are likely wrong (a suspicion to look at; no gold is changed)");
                    for (BenchmarkCheck.Suspect s : r.suspects()) out.println("? " + s.line());
                }
                suspects += r.suspects().size();
                Coverage c = r.coverage();
                out.println();
                out.println("items " + c.items() + "; by category " + c.byCategory());
                out.println("by difficulty " + c.byDifficulty());
                out.println("tables " + c.byTable());
                out.println("foreign keys " + c.byForeignKey());
                out.println("multi-table " + c.multiTable() + ", having/nested " + c.havingOrNested() + ", date arithmetic "
                        + c.dateArithmetic() + ", null handling " + c.nullHandling() + ", ordered projection "
                        + c.orderedProjection() + ", template siblings " + c.templateSiblings());
                problems += r.problems();
            }
            out.println(problems == 0 ? "all items ok" : problems + " item(s) with problems (marked !)");
            // a suspicion is for a person to look at: it does not fail the check
            out.println(suspects == 0 ? "gold audit: no gold suspected" + (run == null ? " (give --run RUN_DIR to compare"
                    + " with a run's predictions too)" : "") : "gold audit: " + suspects + " gold(s) likely wrong (marked ?)");
            return problems == 0 ? 0 : 1;
        }
    }

    @Command(name = "generate", mixinStandardHelpOptions = true,
            description = "Generation throughput of the djl engine: prefill tok/s, decode tok/s per batch size, load time and "
                    + "peak host memory while loading, peak RSS, GPU memory on a GPU, batch-1 decode as a share of the "
                    + "memory-bandwidth roofline (weights plus KV cache read per step).")
    static final class Generate implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Option(names = "--model", required = true, paramLabel = "MODEL",
                description = "A model directory or a pulled repo id owner/name[@revision].")
        String model;
        @Option(names = "--batches", split = ",", paramLabel = "B[,B...]", description = "Decode batch sizes (default 1,4,16).")
        List<Integer> batches = GenerationBenchmark.BATCHES;
        @Option(names = "--prompt-tokens", paramLabel = "N", defaultValue = "128", description = "Prompt length (default ${DEFAULT-VALUE}).")
        int promptTokens;
        @Option(names = "--new-tokens", paramLabel = "N", defaultValue = "32", description = "Tokens decoded per row (default ${DEFAULT-VALUE}).")
        int newTokens;
        @Option(names = "--threads", paramLabel = "N", description = "PyTorch intra-op threads (default: all cores).")
        Integer threads;
        @Option(names = "--device", defaultValue = "auto", paramLabel = "auto|cpu|cuda[:N]",
                description = "Where the model runs (default ${DEFAULT-VALUE}: the first GPU if the loaded libtorch has CUDA).")
        String device;
        @Option(names = "--engine", defaultValue = "djl", paramLabel = "djl|onnx|both",
                description = "djl (default): the djl engine's detailed table; onnx: --model is an ONNX export (docs/onnx.md); "
                        + "both: --model on djl and --onnx-model on onnx, side by side with the ratio.")
        String engine;
        @Option(names = "--onnx-model", paramLabel = "DIR", description = "With --engine both: the ONNX export of --model.")
        Path onnxModel;
        @Option(names = "--dtype", defaultValue = "auto", paramLabel = "auto|f32|f16|int8",
                description = "djl engine: weights in memory (default ${DEFAULT-VALUE}: f32 on a CPU, f16 on a GPU).")
        String dtype;
        @Option(names = "--json", description = "djl engine: print the measurements as one JSON object instead of the table.")
        boolean json;

        @Override
        public Integer call() {
            // the numbers' ranges: FlagBounds
            int t = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
            if (!List.of(DjlEngine.NAME, OnnxEngine.NAME, "both").contains(engine)) {
                throw new UserError("--engine must be djl, onnx or both, got '" + engine + "'");
            }
            if (!engine.equals(DjlEngine.NAME)) return engines(t);
            var where = DeviceOptions.parse(device);
            Path dir = ModelCommand.resolve(model);
            LlamaModel.Options precision = ModelLoader.engineOptions(dtype);
            GenerationBenchmark.Result r;
            Placement on = DeviceOptions.resolve(where);
            // GPU memory before the load and after the model is closed: the runner's one-model-resident rule
            var before = GenerationBenchmark.gpuMemory(on);
            try {
                r = GenerationBenchmark.run(dir, on, t, batches, promptTokens, newTokens, precision);
            } catch (ModelException e) {
                throw new UserError(e.getMessage(), e);
            }
            var after = GenerationBenchmark.gpuMemory(on);
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                out.println(r.json(before, after));
                out.flush();
                return 0;
            }
            if (r.load() != null) {
                PrintWriter err = spec.commandLine().getErr();
                for (String w : r.load().warnings()) err.println("warning: " + w);
                err.flush();
            }
            out.print(r.table());
            out.flush();
            return 0;
        }

        /** The engines through generate alone (EngineBenchmark), one table. */
        private int engines(int t) {
            if (engine.equals("both") && onnxModel == null) throw new UserError("--engine both needs --onnx-model DIR (the ONNX export of --model)");
            List<EngineBenchmark.Row> rows = new ArrayList<>();
            try {
                if (engine.equals("both")) {
                    Path dir = ModelCommand.resolve(model);
                    try (var djl = DjlLanguageModel.load(dir, DeviceOptions.resolve(DeviceOptions.parse(device)),
                            DjlLanguageModel.Options.DEFAULT.withThreads(t))) {
                        rows.addAll(EngineBenchmark.run(DjlEngine.NAME, djl, djl.model().config().vocabSize(), batches,
                                promptTokens, newTokens));
                    }
                }
                Path export = engine.equals("both") ? onnxModel : Path.of(model);
                try (var onnx = OnnxLanguageModel.load(export,
                        new OnnxLanguageModel.Options(16, t, false))) {
                    rows.addAll(EngineBenchmark.run(OnnxEngine.NAME, onnx, onnx.vocabSize(), batches, promptTokens,
                            newTokens));
                }
            } catch (ModelException e) {
                throw new UserError(e.getMessage(), e);
            }
            PrintWriter out = spec.commandLine().getOut();
            out.printf(Locale.ROOT, "prompt %d tokens, %d new tokens per row, %d threads%n", promptTokens, newTokens, t);
            out.print(EngineBenchmark.table(rows));
            out.flush();
            return 0;
        }

    }

    @Command(name = "serve", mixinStandardHelpOptions = true,
            description = {"Throughput of ladder serve next to the in-process engine: the same greedy requests through "
                    + "a server on a free loopback port (--concurrency HTTP clients) and in-process in batches of "
                    + "--max-batch-rows; also how many engine batches the server's scheduler formed (docs/serve.md)."})
    static final class Serve implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin ModelFlags load;
        @Option(names = "--requests", defaultValue = "32", paramLabel = "K", description = "Requests per path (default ${DEFAULT-VALUE}).")
        int requests;
        @Option(names = "--concurrency", defaultValue = "8", paramLabel = "C",
                description = "HTTP clients sending at once (default ${DEFAULT-VALUE}).")
        int concurrency;
        @Option(names = "--max-tokens", defaultValue = "32", paramLabel = "T", description = "New tokens per request (default ${DEFAULT-VALUE}).")
        int maxTokens;
        @Option(names = "--max-batch-rows", defaultValue = "16", paramLabel = "R",
                description = "The server's batch limit and the in-process batch size (default ${DEFAULT-VALUE}).")
        int maxBatchRows;
        @Option(names = "--batch-wait-ms", defaultValue = "0", paramLabel = "MS",
                description = "The server's batch wait (ladder serve --batch-wait-ms; default ${DEFAULT-VALUE}).")
        int batchWaitMs;

        @Override
        public Integer call() throws IOException, InterruptedException {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            ServeBenchmark.Result r;
            try (ServeCommand.Session session = load.open(maxBatchRows, null, err)) {
                r = ServeBenchmark.run(session.served(),
                        new ServeBenchmark.Settings(requests, concurrency, maxTokens, maxBatchRows, batchWaitMs), Ladder.version());
            }
            TextTable t = new TextTable(List.of("path", "requests", "clients", "generated tokens", "wall s", "tok/s",
                    "engine batches", "requests/batch"));
            for (int i = 1; i < 8; i++) t.alignRight(i);
            t.add(row("in-process", r.inProcess(), "-"));
            t.add(row("serve", r.served(), Integer.toString(concurrency)));
            t.print(out);
            out.printf(Locale.ROOT, "serve / in-process throughput: %.2f; identical completions: %d/%d; "
                    + "largest server batch: %d %s%n", r.ratio(), r.identical(), requests, r.largestBatch(),
                    r.largestBatch() == 1 ? "request" : "requests");
            out.flush();
            return 0;
        }

        private static List<String> row(String path, ServeBenchmark.Side s, String clients) {
            return List.of(path, Integer.toString(s.requests()), clients, Long.toString(s.generatedTokens()),
                    String.format(Locale.ROOT, "%.2f", s.wallSeconds()),
                    String.format(Locale.ROOT, "%.1f", s.tokensPerSecond()), Long.toString(s.engineCalls()),
                    String.format(Locale.ROOT, "%.1f", s.meanRequests()));
        }
    }

    @Command(name = "leak-check", mixinStandardHelpOptions = true,
            description = "Research hygiene (docs/agent.md, \"Generality and leak check\"): fails (exit 1) when an entry of the "
                    + "agent's word lists, or a phrase quoted in its code, tests or docs, occurs in a ClassicModels test "
                    + "question but in no development question (ClassicModels train plus --dev) and the provenance list "
                    + "does not justify it.")
    static final class Leaks implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Option(names = "--dev", paramLabel = "NAME|PATH",
                description = "More development questions (repeatable): a Spider folder such as Spider train's, any format "
                        + "'bench info' reads. Provenance ids of its items are then checked, not trusted.")
        List<String> dev = new ArrayList<>();
        @Option(names = "--lexicon", paramLabel = "FILE",
                description = "An extra word-list file in intent-lexicon.txt's format to check (repeatable).")
        List<Path> lexicons = new ArrayList<>();
        @Option(names = "--source", paramLabel = "DIR",
                description = "The checkout whose code and docs are read (default: the one around the working directory).")
        Path source;
        @Option(names = "--all", description = "List every entry that occurs in a test question, not only the test-only ones.")
        boolean all;

        @Override
        public Integer call() {
            Path checkout = source == null ? LeakCheck.findCheckout(Path.of("")) : LeakCheck.findCheckout(source);
            List<LeakCheck.Entry> entries = new ArrayList<>(LeakCheck.lexiconEntries());
            for (Path f : lexicons) {
                if (!Files.isRegularFile(f)) throw new UserError("no such lexicon file: " + f);
                entries.addAll(LeakCheck.lexiconEntries(f));
            }
            int words = entries.size();
            entries.addAll(LeakCheck.sourcePhrases(checkout));
            Benchmark cm = Benchmarks.load("classicmodels");
            LeakCheck.DevelopmentSet devSet = LeakCheck.developmentSet(cm, dev);
            List<BenchmarkItem> test = cm.split("test");
            LeakCheck.Report report = LeakCheck.check(entries, test, devSet.items(), LeakCheck.provenance());

            PrintWriter out = spec.commandLine().getOut();
            out.println("checked " + words + " word-list entries and " + (entries.size() - words) + " quoted phrases ("
                    + report.rows().size() + " distinct) against classicmodels test (" + test.size()
                    + " questions); development set: " + devSet.description());
            List<LeakCheck.Row> shown = report.rows().stream().filter(r -> all ? r.test() > 0 : r.testOnly()).toList();
            if (!shown.isEmpty()) {
                out.println();
                // "where" last: paths are long and the last column is never cut
                TextTable t = new TextTable(List.of("entry", "test", "dev", "verdict", "where")).alignRight(1).alignRight(2);
                for (LeakCheck.Row r : shown) {
                    String where = r.entry().where() + (r.places() > 1 ? " (+" + (r.places() - 1) + " more)" : "");
                    String verdict = r.leaks() ? "LEAK" : r.testOnly() ? "ok: " + r.justification() : "ok";
                    t.add(List.of(r.entry().text(), Integer.toString(r.test()), Integer.toString(r.dev()), verdict, where));
                }
                t.print(out);
            }
            out.println();
            for (String p : report.problems()) out.println("! " + p);
            long testOnly = report.rows().stream().filter(LeakCheck.Row::testOnly).count();
            int leaks = report.leaks().size();
            if (report.clean()) {
                out.println("clean: " + (testOnly == 0 ? "nothing occurs in the test split only"
                        : testOnly + " test-only entries, each justified by the provenance list (" + LeakCheck.PROVENANCE + ")"));
                return 0;
            }
            out.println("LEAK: " + leaks + " entries or phrases occur in test questions and in no development question"
                    + (report.problems().isEmpty() ? "" : "; " + report.problems().size() + " provenance line(s) do not hold")
                    + ". Remove them, rewrite them on training or invented questions, or justify them in "
                    + LeakCheck.PROVENANCE + ".");
            return 1;
        }
    }

    @Command(name = "gate-check", mixinStandardHelpOptions = true,
            description = "How general the agent's intent rules are: the share of golds that pass the intent gate of their "
                    + "own question (the gate reads SQL structure only; nothing is executed).")
    static final class Gate implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin Golds golds = new Golds();
        @Option(names = "--failures", description = "List the golds that fail, with the gate's reason.")
        boolean failures;
        @Mixin DatabaseOptions options = new DatabaseOptions();

        @Override
        public Integer call() {
            Benchmark b = golds.load();
            Map<String, List<BenchmarkItem>> splits = golds.splits(b);
            Map<String, Schema> schemas = new HashMap<>();
            Function<BenchmarkItem, Schema> schemaOf = item -> {
                String spec = golds.databaseOf(b, item);
                return schemas.computeIfAbsent(spec, s -> {
                    try (Database db = options.open(s)) {
                        return db.schema();
                    }
                });
            };
            PrintWriter out = spec.commandLine().getOut();
            for (Map.Entry<String, List<BenchmarkItem>> e : splits.entrySet()) {
                List<GateCheck.Verdict> verdicts = GateCheck.run(e.getValue(), schemaOf);
                List<GateCheck.Tally> tallies = GateCheck.tally(verdicts);
                GateCheck.Tally all = tallies.get(tallies.size() - 1);
                out.println(b.name() + " " + e.getKey() + ": " + all.pass() + " of " + all.golds()
                        + " golds pass their own question's intent gate (" + percent(all.share()) + ")");
                TextTable t = new TextTable(List.of("intent", "golds", "pass", "share")).alignRight(1).alignRight(2).alignRight(3);
                for (GateCheck.Tally g : tallies) {
                    t.add(List.of(g.intent() == null ? "all" : g.intent().name(), Integer.toString(g.golds()),
                            Integer.toString(g.pass()), percent(g.share())));
                }
                t.print(out);
                if (failures) {
                    for (GateCheck.Verdict v : verdicts) {
                        if (!v.passes()) out.println("! " + v.item().id() + "\t" + v.profile().intent() + "\t" + v.failure());
                    }
                }
                out.println();
            }
            return 0;
        }

        private static String percent(double share) {
            return String.format(Locale.ROOT, "%.1f%%", 100 * share);
        }
    }

    @Command(name = "readers", mixinStandardHelpOptions = true,
            description = "Freeze what every reader of SQL (guard, post-processing, clamps, projection contract, intent gate, "
                    + "candidate score, EM, error taxonomy, SQL features, order checks, test-suite neighbours) says about "
                    + "a benchmark's golds and a run's predictions, or compare with a frozen file: exit 1 when any verdict "
                    + "differs. For refactoring the readers without changing a verdict by accident.")
    static final class Readers implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin Golds golds = new Golds();
        @Option(names = "--run", paramLabel = "DIR", description = "A run directory whose predictions are read too, each "
                + "against its item's gold (repeatable; items are matched by id).")
        List<Path> runs = new ArrayList<>();
        @Option(names = "--no-execute", description = "Leave out the readers that execute SQL (order checks, tied order, "
                + "the executes part of the candidate score).")
        boolean noExecute;
        @Option(names = "--freeze", paramLabel = "FILE", description = "Write the verdicts to FILE.")
        Path freeze;
        @Option(names = "--compare", paramLabel = "FILE", description = "Compare the verdicts with FILE (written by --freeze).")
        Path compare;
        @Option(names = "--show", paramLabel = "N", description = "Differences shown per reader with --compare (default 3).")
        int show = 3;
        @Mixin DatabaseOptions options = new DatabaseOptions();

        @Override
        public Integer call() throws IOException {
            if ((freeze == null) == (compare == null)) throw new UserError("bench readers: give exactly one of --freeze FILE or --compare FILE");
            if (compare != null && !Files.isRegularFile(compare)) throw new UserError("no such frozen verdicts file: " + compare);
            Benchmark b = golds.load();
            Map<String, List<BenchmarkItem>> splits = golds.splits(b);
            ReaderVerdicts.Inputs collected = ReaderVerdicts.collect(splits, item -> golds.databaseOf(b, item), runs);
            List<ReaderVerdicts.Input> inputs = collected.inputs();
            Map<String, String> specOf = collected.databaseOfKey();
            Map<String, Database> open = new HashMap<>();
            try {
                Function<ReaderVerdicts.Input, Database> dbOf =
                        in -> open.computeIfAbsent(specOf.get(in.key()), options::open);
                Map<String, Schema> schemas = new HashMap<>();
                Function<ReaderVerdicts.Input, Schema> schemaOf =
                        in -> schemas.computeIfAbsent(specOf.get(in.key()), s -> dbOf.apply(in).schema());
                Path target = freeze != null ? freeze : Files.createTempFile("ladder-readers", ".tsv");
                int lines = ReaderVerdicts.freeze(inputs, schemaOf, noExecute ? null : dbOf, target);
                PrintWriter out = spec.commandLine().getOut();
                if (freeze != null) {
                    out.println("froze " + lines + " verdicts of " + inputs.size() + " queries to " + freeze);
                    return 0;
                }
                var diffs = ReaderVerdicts.compare(
                        ReaderVerdicts.load(compare), ReaderVerdicts.load(target));
                Files.deleteIfExists(target);
                Map<String, List<ReaderVerdicts.Difference>> byReader = new TreeMap<>();
                for (var d : diffs) byReader.computeIfAbsent(d.reader(), k -> new ArrayList<>()).add(d);
                out.println(lines + " verdicts of " + inputs.size() + " queries; " + diffs.size() + " differ from " + compare);
                for (var e : byReader.entrySet()) {
                    out.println(e.getKey() + ": " + e.getValue().size());
                    for (var d : e.getValue().subList(0, Math.min(show, e.getValue().size()))) {
                        out.println("  " + d.source() + " " + d.key());
                        out.println("    before: " + d.before());
                        out.println("    after:  " + d.after());
                    }
                }
                return diffs.isEmpty() ? 0 : 1;
            } finally {
                open.values().forEach(Database::close);
            }
        }
    }

    /** The golds a check reads: a benchmark, optionally one split, and the database of items without their own. */
    static final class Golds {
        @Parameters(paramLabel = "NAME|PATH", description = "classicmodels, a JSONL file or folder, a Spider folder or a BIRD/plain JSON file.")
        String benchmark;
        @Option(names = "--split", paramLabel = "SPLIT", description = "Only this split (default: each split).")
        String split;
        @Option(names = "--db", paramLabel = "DB",
                description = "Database of items without their own (default: the benchmark's, classicmodels for a JSONL file).")
        String database;

        Benchmark load() {
            return Benchmarks.load(benchmark, database);
        }

        /** The --split option's split, or every split. */
        Map<String, List<BenchmarkItem>> splits(Benchmark b) {
            return split == null ? b.splits() : Map.of(split, b.split(split));
        }

        /** The database spec of an item: its own, else the --db option, else the benchmark's. */
        String databaseOf(Benchmark b, BenchmarkItem item) {
            return item.db().isEmpty() && database != null ? database : b.databaseOf(item);
        }
    }
}
