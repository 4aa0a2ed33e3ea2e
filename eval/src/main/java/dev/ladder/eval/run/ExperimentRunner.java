package dev.ladder.eval.run;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.scorer.bench.ItemSubset;
import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ScorerSpec;
import dev.ladder.scorer.score.Scoring;
import dev.ladder.pipeline.oracle.OracleKey;
import dev.ladder.pipeline.strategy.RunCaches;
import dev.ladder.pipeline.strategy.Strategies;
import dev.ladder.pipeline.strategy.Strategy;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.UserError;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * Runs an experiment into its run directory, cell by cell and item by item. Every finished item is one durable row
 * of the results store, so a run killed at any point and started again skips what is done and, because decoding is
 * deterministic (greedy, or seeded sampling) and completions are cached, ends with the same rows as an uninterrupted
 * run. Predictions, traces and the report are regenerated from the store at the end.
 */
public final class ExperimentRunner {

    /**
     * @param generationCache the generation cache file, or null for none
     * @param progress        where progress bars go (a console), or null for one line per cell
     * @param log             messages (pulls, skipped cells, the summary)
     * @param serverUrl       an external MySQL/MariaDB server instead of the embedded one
     * @param repoRoot        the checkout, for the environment's git sha
     */
    public record Options(Path generationCache, PrintStream progress, PrintWriter log, Optional<String> serverUrl,
                          Path repoRoot, ModelSource models) {
        /** Options that load models with {@link ModelLoader}. */
        public Options(Path generationCache, PrintStream progress, PrintWriter log, Optional<String> serverUrl,
                       Path repoRoot) {
            this(generationCache, progress, log, serverUrl, repoRoot, ModelLoader::load);
        }
    }

    /** How the runner gets a loaded model (tests count loads through it). */
    @FunctionalInterface
    public interface ModelSource {
        ModelLoader.Loaded load(Path modelDir, Path adapter, ModelLoader.LoadSpec spec, PrintWriter log);
    }

    /**
     * What a run did: cells run, items answered now, items found done, cells skipped (their adapter is missing), the
     * generation cache's hits and misses, and the wall time each cell that answered items took to answer, score and
     * store them (every database scope's together; by cell name, in the order they ran).
     */
    public record Outcome(RunDirectory directory, int cells, int answered, int resumed, List<String> skipped,
                          long cacheHits, long cacheMisses, Map<String, Long> cellMillis) {
        public Outcome {
            cellMillis = Collections.unmodifiableMap(new LinkedHashMap<>(cellMillis));
        }
    }

    private final Experiment experiment;
    private final Options options;
    /** The part of the items this run answers, or null for all of them. */
    private final Shard shard;
    /** The run directory: the experiment's output, or a shard's own directory. */
    private final Path directory;
    private final RunPlan plan;
    private final CellRunner cells;
    /** What strategies build once for the run (schema and value indexes, shared greedy replies). */
    private final RunCaches caches = new RunCaches();

    public ExperimentRunner(Experiment experiment, Options options) {
        this(experiment, options, null, experiment.output());
    }

    /**
     * A run of one shard of the items into {@code directory}; its config.yaml stays the experiment's, the same for every
     * shard ({@code ladder merge} checks that), and the shard is recorded in the results store's meta.
     *
     * @param shard     the items to answer, or null for all
     * @param directory the run directory
     */
    public ExperimentRunner(Experiment experiment, Options options, Shard shard, Path directory) {
        this.experiment = experiment;
        this.options = options;
        this.plan = new RunPlan(experiment);
        this.cells = new CellRunner(options.progress(), options.log());
        this.shard = shard;
        this.directory = directory;
    }

    /**
     * The run's shared work, without answering anything or making the run directory: its models resolved (a hub id
     * pulled), its databases loaded, their test suites built when the run would build them. A cluster's setup job runs
     * this once before an array, so that N shards starting together find it done (docs/scale.md); shards that start
     * anyway wait for each other's pulls and builds rather than race them.
     *
     * @return what is ready, one line each
     */
    public List<String> prepare() {
        PrintWriter log = options.log();
        Benchmark benchmark = Benchmarks.load(experiment.benchmark(), experiment.database());
        List<BenchmarkItem> items = experiment.subset().select(benchmark.split(experiment.split()), experiment.limit()).items();
        RunModels models = RunModels.resolve(plan, log, options.models());
        List<String> ready = new ArrayList<>();
        models.resolved().forEach((id, m) -> ready.add("model " + id + ": " + (m.spec().oracle() ? "the oracle engine"
                : m.spec().served() ? "served at " + ServedModels.baseUrl("models." + id, m.spec().server()) + " (" + m.modelPrint() + ")"
                : m.dir() + (m.adapter() == null ? "" : " with adapter " + m.adapter()))));
        experiment.warnings().forEach(w -> ready.add("warning: " + w));
        RunSuite suite = new RunSuite(experiment);
        try (DatabaseScopes scopes = DatabaseScopes.open(experiment, benchmark, items, options.serverUrl())) {
            for (DatabaseScopes.Scope scope : scopes.all()) {
                Database db = scope.db();
                ready.add("database " + db.name() + " (" + scope.positions().size() + " items of " + benchmark.name()
                        + " " + experiment.split() + ")");
                String built = suite.buildIfNeeded(db, benchmark, log);
                try (DatabaseScopes.ScopeScoring scoring = scopes.scoring(scope, true)) {
                    String missing = suite.missing(db, scoring.main());
                    ready.add(built != null ? built : missing != null ? missing
                            : "test suite of " + db.name() + " stored (fingerprint " + abbreviated(suite.fingerprint(db)) + ")");
                }
            }
        }
        return ready;
    }

    private static String abbreviated(String print) {
        return print == null ? "unrecorded" : print.substring(0, Math.min(12, print.length()));
    }

    /**
     * What a run reads before it makes anything: the benchmark's selected items, this run's positions of them, the
     * models (resolved, fingerprinted, checked against device and memory), the k-shot rule and the rungs skipped.
     */
    private record Inputs(Benchmark benchmark, ItemSubset.Selection selection, List<Integer> mine, RunModels models,
                          RunPlan.Exemplars exemplars, List<String> skipped) {
        List<BenchmarkItem> items() {
            return selection.items();
        }
    }

    /** What a run has done so far: items answered now (or copied from another seed's cell) and items found done. */
    private static final class Counts {
        int answered;
        int resumed;
        final Map<String, Long> cellMillis = new LinkedHashMap<>();
    }

    public Outcome run() {
        String config = experiment.toResolvedYaml();
        // the shard first: a shard directory resumed as a whole run (--out) also differs in config.yaml's output
        RunIdentity.checkSameShard(directory.toAbsolutePath().normalize(), shard);
        RunIdentity.checkSameExperiment(directory.toAbsolutePath().normalize(), config);
        // everything that can fail on the user's input fails before the run directory is made: the items, the models,
        // every database with its golds and test suite, and the generation cache
        Inputs in = inputs();
        GenerationCache cache = null;
        try (DatabaseScopes scopes = DatabaseScopes.open(experiment, in.benchmark(), in.items(), options.serverUrl())) {
            RunSuite.Status suites = new RunSuite(experiment).check(scopes, in.benchmark(), in.items(), options.log());
            cache = options.generationCache() == null ? null : GenerationCache.open(options.generationCache());
            RunDirectory dir = RunDirectory.create(directory);
            ShardMerge.removeOrphanedStaging(dir.dir());
            try (ResultsStore store = dir.openResults()) {
                startStore(dir, store, config, in, scopes, suites);
                announce(dir, in, suites);
                Counts counts = new Counts();
                // one model resident at a time: all cells of a model run together, database by database, and it is
                // freed before the next loads (rows are keyed by cell and item, and every output is read back in cell
                // and item order, so the order of work does not change any result)
                for (List<Cell> group : plan.cellsByModel()) {
                    runModel(group, in, scopes, suites, store, dir, cache, counts);
                }
                judge(in.models(), scopes, store, dir, cache);
                dir.writePredictions(store, RunDirectory.dbIds(in.benchmark(), in.items()));
                dir.writeTraces(store);
                return new Outcome(dir, store.cells().size(), counts.answered, counts.resumed, in.skipped(),
                        in.models().cacheHits(), in.models().cacheMisses(), counts.cellMillis);
            }
        } finally {
            if (cache != null) cache.close();
        }
    }

    private Inputs inputs() {
        Benchmark benchmark = Benchmarks.load(experiment.benchmark(), experiment.database());
        ItemSubset.Selection selection = experiment.subset().select(benchmark.split(experiment.split()), experiment.limit());
        int n = selection.items().size();
        // a shard answers its positions of the selection; rows keep their position, as in a whole run
        List<Integer> mine = shard == null ? IntStream.range(0, n).boxed().toList() : shard.positions(n);
        RunModels models = RunModels.resolve(plan, options.log(), options.models());
        RunPlan.Exemplars exemplars = plan.exemplars(benchmark);
        if (models.resolved().isEmpty()) {
            throw new UserError("no rung can run: " + String.join("; ", experiment.warnings()));
        }
        // a rung whose model was not resolved is one whose adapter is missing (the warnings say which)
        List<String> skipped = experiment.cells().stream()
                .filter(c -> !models.has(plan.rungOf(c).model())).map(Cell::name).toList();
        return new Inputs(benchmark, selection, mine, models, exemplars, skipped);
    }

    /** Writes what the report needs to say how the numbers were made, and refuses a suite changed under the run. */
    private void startStore(RunDirectory dir, ResultsStore store, String config, Inputs in, DatabaseScopes scopes,
                            RunSuite.Status suites) {
        // the config goes in first: a run directory with results always says what produced them
        dir.writeConfig(config);
        in.models().checkFingerprints(store);
        RunEnvironment.recordStart(dir, experiment, shard, options.repoRoot(), in.models().resolved());
        store.putMeta("items.selection", in.selection().description());
        // the whole selection, so that 'ladder merge' can check its shards are complete and disjoint
        store.putMeta(ITEM_IDS, itemIds(in.items()));
        if (shard != null) store.putMeta(Shard.META_KEY, shard.label());
        store.putMeta("scorers.ex_modes", experiment.scorers().exModesLabel());
        if (suites.missing() == null) store.removeMeta("ts.missing");
        else store.putMeta("ts.missing", suites.missing());
        // TS means "on this suite": its contents' fingerprint goes with every TS number (the report compares TS only
        // between runs scored on one suite)
        String suitePrint = suites.fingerprint();
        String storedPrint = store.meta(TS_FINGERPRINT);
        if (storedPrint != null && suitePrint != null && !storedPrint.equals(suitePrint) && store.hasResults()) {
            String whose = scopes.several() ? "the test suites of the run's " + scopes.all().size() + " databases"
                    : "the test suite of " + scopes.all().get(0).db().name();
            throw new UserError(whose + " changed since this run started (fingerprint "
                    + abbreviated(suitePrint) + ", the run has " + abbreviated(storedPrint)
                    + "): its TS numbers would mix two suites; use --out NEW_DIR");
        }
        if (suitePrint != null) store.putMeta(TS_FINGERPRINT, suitePrint);
        suites.perDatabase().forEach((id, print) -> store.putMeta(RunSuite.TS_FINGERPRINT_OF + id,
                print == null ? "unrecorded" : print));
        for (Cell cell : experiment.cells()) {
            String reason = in.models().skipReason(plan.rungOf(cell));
            if (reason == null) {
                store.removeMeta("skipped." + cell.name());
            } else {
                // a skipped rung stays in the tables with its reason instead of vanishing from them
                store.putCell(cell);
                store.putMeta("skipped." + cell.name(), reason);
            }
        }
    }

    /** The first words on the console, after every check: an error stays the only line. */
    private void announce(RunDirectory dir, Inputs in, RunSuite.Status suites) {
        PrintWriter log = options.log();
        int n = in.items().size();
        log.println("run " + experiment.name() + ": " + experiment.cells().size() + " cells, "
                + (shard == null ? "" : "shard " + shard.label() + " (" + in.mine().size() + " of " + n + " items), ")
                + "output " + dir.dir());
        experiment.warnings().forEach(w -> log.println("warning: " + w));
        in.exemplars().note().ifPresent(log::println);
        suites.built().forEach(log::println);
        if (suites.missing() != null && experiment.scorers().ts() != ScorerSpec.Ts.NONE) {
            log.println("warning: " + suites.missing());
        }
    }

    /**
     * Runs one model's cells: what each has left (resumed items counted), then database by database the cells that
     * answer, then the seed-free cells that copy their first seed's rows.
     */
    private void runModel(List<Cell> group, Inputs in, DatabaseScopes scopes, RunSuite.Status suites,
                          ResultsStore store, RunDirectory dir, GenerationCache cache, Counts counts) {
        String modelKey = plan.rungOf(group.get(0)).model();
        if (!in.models().has(modelKey)) return;
        Map<Cell, List<Integer>> todo = todo(group, in, store, counts);
        if (todo.isEmpty()) return;
        // a rung whose answers do not depend on the seed answers once; its other seeds' cells reuse those rows
        // instead of running again (their calls count as answered from the cache)
        Map<Cell, List<Integer>> reuse = new LinkedHashMap<>();
        todo.entrySet().removeIf(e -> {
            Cell first = plan.firstSeedCell(e.getKey());
            if (first == null || !plan.seedFree(e.getKey())) return false;
            reuse.put(e.getKey(), e.getValue());
            return true;
        });
        if (!todo.isEmpty()) {
            try (ScopedModel model = new ScopedModel(in.models(), modelKey, cache, dir, scopes)) {
                for (DatabaseScopes.Scope scope : scopes.all()) {
                    runScope(scope, todo, in, scopes, suites, store, model, counts);
                }
            }
        }
        for (Map.Entry<Cell, List<Integer>> e : reuse.entrySet()) {
            counts.answered += cells.reuse(e.getKey(), plan.firstSeedCell(e.getKey()), in.items(), e.getValue(), store);
        }
    }

    /** Each cell's positions without a row yet, in order; cells with none are done (and say so). */
    private Map<Cell, List<Integer>> todo(List<Cell> group, Inputs in, ResultsStore store, Counts counts) {
        Map<Cell, List<Integer>> todo = new LinkedHashMap<>();
        int mine = in.mine().size();
        for (Cell cell : group) {
            store.putCell(cell);
            Set<String> done = store.finishedItems(cell.name());
            List<Integer> left = new ArrayList<>();
            for (int i : in.mine()) if (!done.contains(in.items().get(i).id())) left.add(i);
            counts.resumed += mine - left.size();
            if (left.isEmpty()) {
                options.log().printf(Locale.ROOT, "%s: %d/%d items already done%n", cell.name(), mine, mine);
            } else {
                todo.put(cell, left);
            }
        }
        return todo;
    }

    /**
     * Answers one database's items of every cell in {@code todo}, with the scope's database, scorers and strategy
     * context (and, for the oracle, its golds).
     */
    private void runScope(DatabaseScopes.Scope scope, Map<Cell, List<Integer>> todo, Inputs in, DatabaseScopes scopes,
                          RunSuite.Status suites, ResultsStore store, ScopedModel model, Counts counts) {
        Map<Cell, List<Integer>> here = new LinkedHashMap<>();
        todo.forEach((cell, left) -> {
            List<Integer> mine = DatabaseScopes.of(scope, left);
            if (!mine.isEmpty()) here.put(cell, mine);
        });
        if (here.isEmpty()) return;
        // a cell's progress counts this database's items of the run's positions (one database: all of them)
        List<Integer> all = scopes.several() ? DatabaseScopes.of(scope, in.mine()) : in.mine();
        try (DatabaseScopes.ScopeScoring scoring = scopes.scoring(scope, suites.withSuite())) {
            CallCounter calls = model.in(scoring);
            for (Map.Entry<Cell, List<Integer>> e : here.entrySet()) {
                Cell cell = e.getKey();
                Strategy strategy = Strategies.byName(cell.strategy());
                StrategyContext context = StrategyContext.of(calls, scope.db(), in.exemplars().selector(),
                        plan.settingsOf(cell)).withCaches(caches);
                String label = scopes.several() ? cell.name() + " on " + scope.id() : cell.name();
                CellRunner.Together together = new CellRunner.Together(plan.parallelItems(cell), model.batchWidth(),
                        model.rounds());
                long t0 = System.nanoTime();
                counts.answered += cells.run(cell, label, strategy, context, in.items(), all, e.getValue(),
                        together, scoring.rows(), store, calls);
                counts.cellMillis.merge(cell.name(), (System.nanoTime() - t0) / 1_000_000, Long::sum);
                options.log().flush();
            }
        }
    }

    /** The judge pass ({@code scorers.judge}), each prediction executed on its own database. */
    private void judge(RunModels models, DatabaseScopes scopes, ResultsStore store, RunDirectory dir,
                       GenerationCache cache) {
        String judgeId = experiment.scorers().judge();
        if (judgeId == null) return;
        try (ScopedModel judge = models.has(judgeId) ? new ScopedModel(models, judgeId, cache, dir, scopes) : null) {
            new JudgePass(options.log(), experiment.settings().limits()).judge(store, scopes, judgeId, judge);
        }
    }

    /** The results store's meta key of the suite fingerprint TS was scored on. */
    public static final String TS_FINGERPRINT = RunSuite.TS_FINGERPRINT;

    /** The oracle's key over these items: each one's gold, and {@code scoring}'s EX as "does this SQL answer it". */
    public static OracleKey oracleKey(List<BenchmarkItem> items, Scoring scoring) {
        Map<String, BenchmarkItem> byId = new HashMap<>();
        items.forEach(i -> byId.put(i.id(), i));
        return new OracleKey() {
            @Override
            public Optional<String> gold(String itemId) {
                return Optional.ofNullable(byId.get(itemId)).map(BenchmarkItem::sql);
            }

            @Override
            public boolean answers(String itemId, String sql) {
                BenchmarkItem item = byId.get(itemId);
                return item != null && scoring.ex(item.allGold(), sql);
            }
        };
    }

    /** The results store's meta key holding the ids of the selected items, in order (a JSON array). */
    public static final String ITEM_IDS = "items.ids";

    static String itemIds(List<BenchmarkItem> items) {
        ArrayNode ids = new ObjectMapper().createArrayNode();
        items.forEach(item -> ids.add(item.id()));
        return ids.toString();
    }
}
