package dev.ladder.cli;

import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.scorer.score.ExOptions;
import dev.ladder.scorer.score.ItemScore;
import dev.ladder.scorer.score.Predictions;
import dev.ladder.scorer.score.ScoreSummary;
import dev.ladder.scorer.score.Scoring;
import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.scorer.testsuite.TestSuite;
import dev.ladder.scorer.testsuite.TestSuiteBuilder;
import dev.ladder.sql.db.ClassicModels;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.EmbeddedMariaDb;
import dev.ladder.sql.db.LadderPaths;
import dev.ladder.sql.db.UserError;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "testsuite", description = "Distilled test suites for TS accuracy (Zhong, Yu and Klein 2020).",
        subcommands = {TestSuiteCommand.Build.class, TestSuiteCommand.Info.class, TestSuiteCommand.Bench.class})
final class TestSuiteCommand extends GroupCommand {

    @Command(name = "build", mixinStandardHelpOptions = true,
            description = "Distil a test suite of random databases that tells the golds of a benchmark split from their neighbours.")
    static final class Build implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Parameters(paramLabel = "DB", description = "Database on the embedded server: classicmodels.") String database;
        @Option(names = "--size", defaultValue = "10", paramLabel = "N", description = "Most databases in the suite (default 10).")
        int size;
        @Option(names = "--seed", defaultValue = "1", paramLabel = "S", description = "Seed; the same seed builds the same suite (default 1).")
        long seed;
        @Option(names = "--split", defaultValue = "test", paramLabel = "SPLIT", description = "Benchmark split whose golds are used (default test).")
        String split;
        @Option(names = "--benchmark", paramLabel = "NAME|PATH", description = "Benchmark (default: the one named like the database).")
        String benchmark;
        @Option(names = "--max-candidates", defaultValue = "300", paramLabel = "M", description = "Most random databases tried (default 300).")
        int maxCandidates;
        @Option(names = "--per-database", defaultValue = "0", paramLabel = "W",
                description = "Candidates tried per kept database, the best is kept (default: max-candidates / size; 1 = first fit).")
        int perDatabase;
        @Option(names = "--time-limit", paramLabel = "SECONDS", description = "Give up after this long, storing nothing (default: no"
                + " limit; the limit never changes a suite, only whether one is stored: --max-candidates bounds the work).")
        Long timeLimit;

        @Override
        public Integer call() {
            String db = database.strip().toLowerCase(Locale.ROOT);
            if (!Databases.KNOWN.contains(db)) {
                throw new UserError("cannot build a test suite for '" + database + "': suites live on the embedded server,"
                        + " which holds " + Databases.KNOWN);
            }
            if (timeLimit != null && timeLimit < 1) throw new UserError("--time-limit must be at least 1 second, got " + timeLimit);
            TestSuiteBuilder.Options options = TestSuiteBuilder.Options.defaults(db)
                    .withBenchmark(benchmark == null ? db : benchmark)
                    .withSplit(split).withSize(size).withSeed(seed).withMaxCandidates(maxCandidates)
                    .withPerDatabase(perDatabase).withTimeLimit(timeLimit == null ? null : Duration.ofSeconds(timeLimit));
            PrintWriter out = spec.commandLine().getOut();
            EmbeddedMariaDb server = EmbeddedMariaDb.shared();
            if (db.equals(ClassicModels.NAME)) ClassicModels.ensureLoaded(server, LadderPaths.dataDir());
            Path dir = TestSuite.defaultDir(db);
            out.println("building a test suite of " + db + " for " + options.benchmark() + "/" + split + " (seed " + seed
                    + ", at most " + size + " databases, " + maxCandidates + " candidates)");
            out.flush();
            // built beside the stored suite and switched in one move: a killed build leaves the stored one whole
            TestSuite suite = new TestSuiteBuilder(server, options, m -> {
                out.println("  " + m);
                out.flush();
            }).buildAndStore(Benchmarks.load(options.benchmark(), db).split(split), dir);
            out.println();
            print(out, suite);
            out.println("manifest: " + dir.resolve(TestSuite.MANIFEST));
            return 0;
        }
    }

    @Command(name = "info", mixinStandardHelpOptions = true, description = "Show the manifest of a built test suite.")
    static final class Info implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Parameters(paramLabel = "DB", description = "Database the suite was built for: classicmodels.") String database;

        @Override
        public Integer call() {
            String db = database.strip().toLowerCase(Locale.ROOT);
            Path dir = TestSuite.defaultDir(db);
            TestSuite suite = stored(db, dir);
            PrintWriter out = spec.commandLine().getOut();
            print(out, suite);
            return 0;
        }
    }

    @Command(name = "bench", mixinStandardHelpOptions = true,
            description = {"Time scoring a split on the original database alone and on the stored test suite, side by side.",
                    "Without --pred the golds are the predictions: the worst case, every item runs on every database."})
    static final class Bench implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Parameters(paramLabel = "DB", description = "Database the suite was built for: classicmodels.") String database;
        @Option(names = "--split", defaultValue = "test", paramLabel = "SPLIT", description = "Benchmark split (default test).")
        String split;
        @Option(names = "--pred", paramLabel = "FILE.jsonl", description = "Predictions to score (default: the golds).")
        Path pred;
        @Option(names = "--repeat", defaultValue = "3", paramLabel = "R", description = "Timed rounds per setting; the median is shown (default 3).")
        int repeat;

        @Override
        public Integer call() {
            String db = database.strip().toLowerCase(Locale.ROOT);
            if (repeat < 1) throw new UserError("--repeat must be at least 1, got " + repeat);
            Path dir = TestSuite.defaultDir(db);
            TestSuite suite = stored(db, dir);
            Benchmark bench = Benchmarks.load(suite.benchmark());
            List<BenchmarkItem> items = bench.split(split);
            Map<String, String> predictions = new LinkedHashMap<>();
            if (pred == null) items.forEach(i -> predictions.put(i.id(), i.sql()));
            else predictions.putAll(Predictions.readJsonl(pred));
            EmbeddedMariaDb server = EmbeddedMariaDb.shared();
            if (db.equals(ClassicModels.NAME)) ClassicModels.ensureLoaded(server, LadderPaths.dataDir());
            List<Database> all = suite.open(server);
            try {
                Database original = all.get(0);
                ExactMatch em = new ExactMatch(original.schema(), false);
                List<Database> suiteDbs = all.subList(1, all.size());
                PrintWriter out = spec.commandLine().getOut();
                out.println("scoring " + items.size() + " " + (pred == null ? "golds as predictions" : "predictions from " + pred)
                        + " of " + bench.name() + "/" + split + "; median of " + repeat + " rounds");
                out.println("cold: a new scorer (gold results computed); warm: the same scorer again (gold results cached)");
                out.println();
                Timing base = time(() -> new Scoring(original, Optional.empty(), ExOptions.DEFAULT, em), items, predictions);
                Timing full = time(() -> new Scoring(original, Optional.of(suiteDbs), ExOptions.DEFAULT, em), items, predictions);
                TextTable t = new TextTable(List.of("setting", "databases", "cold ms", "warm ms", "ms/item cold", "x original cold",
                        "EX", "TS")).alignRight(1).alignRight(2).alignRight(3).alignRight(4).alignRight(5).alignRight(6).alignRight(7);
                for (var e : List.of(Map.entry("original", base), Map.entry("original + suite", full))) {
                    Timing m = e.getValue();
                    t.add(List.of(e.getKey(), Integer.toString(e.getValue() == base ? 1 : all.size()),
                            ms(m.coldNanos()), ms(m.warmNanos()),
                            String.format(Locale.ROOT, "%.2f", m.coldNanos() / 1e6 / items.size()),
                            String.format(Locale.ROOT, "%.2f", (double) m.coldNanos() / base.coldNanos()),
                            String.format(Locale.ROOT, "%.3f", m.summary().ex()),
                            m.summary().ts() == null ? "missing" : String.format(Locale.ROOT, "%.3f", m.summary().ts())));
                }
                t.print(out);
                out.flush();
                return 0;
            } finally {
                all.forEach(Database::close);
            }
        }

        private record Timing(long coldNanos, long warmNanos, ScoreSummary summary) {}

        private Timing time(Supplier<Scoring> scorer, List<BenchmarkItem> items, Map<String, String> predictions) {
            scoreAll(scorer.get(), items, predictions); // warm-up: JIT, connections, server caches
            long[] cold = new long[repeat];
            long[] warm = new long[repeat];
            List<ItemScore> last = List.of();
            for (int r = 0; r < repeat; r++) {
                Scoring s = scorer.get();
                long t0 = System.nanoTime();
                scoreAll(s, items, predictions);
                long t1 = System.nanoTime();
                last = scoreAll(s, items, predictions);
                long t2 = System.nanoTime();
                cold[r] = t1 - t0;
                warm[r] = t2 - t1;
            }
            return new Timing(median(cold), median(warm), ScoreSummary.of(last));
        }

        private static List<ItemScore> scoreAll(Scoring s, List<BenchmarkItem> items, Map<String, String> predictions) {
            List<ItemScore> out = new ArrayList<>(items.size());
            for (BenchmarkItem i : items) out.add(s.score(i.id(), i.category(), i.allGold(), predictions.get(i.id())));
            return out;
        }

        private static long median(long[] v) {
            long[] c = v.clone();
            Arrays.sort(c);
            return c[c.length / 2];
        }

        private static String ms(long nanos) {
            return String.format(Locale.ROOT, "%.0f", nanos / 1e6);
        }
    }

    /** The suite stored in {@code dir}; none, or one without a database beyond the original (TS would be EX), is refused. */
    static TestSuite stored(String db, Path dir) {
        TestSuite suite = TestSuite.load(dir).orElseThrow(() -> new UserError("no test suite of " + db + " in " + dir
                + "; build one with 'ladder testsuite build " + db + "'"));
        suite.unusable(dir).ifPresent(why -> {
            throw new UserError(why);
        });
        return suite;
    }

    static void print(PrintWriter out, TestSuite suite) {
        TextTable dbs = new TextTable(List.of("database", "rows", "kills")).alignRight(1).alignRight(2);
        for (TestSuite.SuiteDatabase d : suite.databases()) {
            int rows = d.tableSizes().values().stream().mapToInt(Integer::intValue).sum();
            dbs.add(List.of(d.name(), Integer.toString(rows), Integer.toString(d.kills())));
        }
        dbs.print(out);
        out.println();
        TextTable t = new TextTable(List.of("measure", "value")).alignRight(1);
        t.add(List.of("golds", suite.golds() + (suite.goldsSkipped() > 0 ? " (+" + suite.goldsSkipped() + " skipped)" : "")));
        t.add(List.of("databases kept", suite.databases().size() + " (of " + suite.candidates() + " candidates)"));
        t.add(List.of("neighbours", Integer.toString(suite.neighbours())));
        t.add(List.of("fingerprint", suite.fingerprint() == null ? "(not recorded: rebuild to record it)" : suite.fingerprint()));
        t.add(List.of("killed by original", Integer.toString(suite.killedByOriginal())));
        t.add(List.of("killed by suite", Integer.toString(suite.killedBySuite())));
        t.add(List.of("never killed", Integer.toString(suite.neverKilledCount())));
        t.add(List.of("distinguished", String.format(Locale.ROOT, "%.1f%%", suite.distinguishedPercent())));
        t.add(List.of("decided by", suite.workBound() == 0 ? "a time limit (built before the work bound: rebuild)"
                : String.format(Locale.ROOT, "at most %,d rows examined", suite.workBound())
                + (suite.timeLimited() > 0 ? "; " + suite.timeLimited() + " runs by the time backstop" : "")));
        t.add(List.of("elapsed", String.format(Locale.ROOT, "%.1f s", suite.elapsedMillis() / 1000.0)));
        t.print(out);
        out.flush();
    }
}
