package dev.ladder.eval.run;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.ladder.eval.bench.Benchmark;
import dev.ladder.eval.bench.BenchmarkItem;
import dev.ladder.eval.bench.Benchmarks;
import dev.ladder.eval.bench.ItemSubset;
import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ScorerSpec;
import dev.ladder.eval.score.ErrorTaxonomy;
import dev.ladder.eval.score.ExOptions;
import dev.ladder.eval.score.Scoring;
import dev.ladder.eval.testsuite.ScoringSetup;
import dev.ladder.pipeline.oracle.OracleKey;
import dev.ladder.pipeline.oracle.OracleScope;
import dev.ladder.pipeline.strategy.RunCaches;
import dev.ladder.pipeline.strategy.Strategies;
import dev.ladder.pipeline.strategy.Strategy;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.LadderPaths;
import dev.ladder.sql.db.UserError;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
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

    /** What a run did: cells run, items answered now, items found done, cells skipped (their adapter is missing). */
    public record Outcome(RunDirectory directory, int cells, int answered, int resumed, List<String> skipped,
                          long cacheHits, long cacheMisses) {}

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
     * pulled), its database loaded, its test suite built when the run would build one. A cluster's setup job runs this
     * once before an array, so that N shards starting together find it done (docs/scale.md); shards that start anyway
     * wait for each other's pulls and builds rather than race them.
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
        List<Database> opened = new ArrayList<>();
        try {
            Database db = Databases.open(experiment.database(), LadderPaths.dataDir(), options.serverUrl(),
                    experiment.sqlMode());
            opened.add(db);
            ready.add("database " + db.name() + " (" + items.size() + " items of " + benchmark.name() + " "
                    + experiment.split() + ")");
            String built = suite.buildIfNeeded(db, benchmark, log);
            Scoring scoring = ScoringSetup.create(db, experiment.scorers().exOptions(), experiment.scorers().suiteMode(),
                    experiment.scorers().suite(), opened, experiment.sqlMode());
            String missing = suite.missing(db, scoring);
            ready.add(built != null ? built : missing != null ? missing
                    : "test suite of " + db.name() + " stored (fingerprint " + abbreviated(suite.fingerprint(db)) + ")");
        } finally {
            for (int i = opened.size() - 1; i >= 0; i--) opened.get(i).close();
        }
        return ready;
    }

    private static String abbreviated(String print) {
        return print == null ? "unrecorded" : print.substring(0, Math.min(12, print.length()));
    }

    public Outcome run() {
        PrintWriter log = options.log();
        String config = experiment.toResolvedYaml();
        // the shard first: a shard directory resumed as a whole run (--out) also differs in config.yaml's output
        RunIdentity.checkSameShard(directory.toAbsolutePath().normalize(), shard);
        RunIdentity.checkSameExperiment(directory.toAbsolutePath().normalize(), config);
        // everything that can fail on the user's input fails before the run directory is made
        Benchmark benchmark = Benchmarks.load(experiment.benchmark(), experiment.database());
        ItemSubset.Selection selection = experiment.subset().select(benchmark.split(experiment.split()), experiment.limit());
        List<BenchmarkItem> items = selection.items();
        // a shard answers its positions of the selection; rows keep their position, as in a whole run
        List<Integer> mine = shard == null ? IntStream.range(0, items.size()).boxed().toList()
                : shard.positions(items.size());
        // models resolved, fingerprinted and checked against device and memory before anything is made
        RunModels models = RunModels.resolve(plan, log, options.models());
        RunPlan.Exemplars exemplars = plan.exemplars(benchmark);
        if (models.resolved().isEmpty()) {
            throw new UserError("no rung can run: " + String.join("; ", experiment.warnings()));
        }

        // a rung whose model was not resolved is one whose adapter is missing (the warnings say which)
        List<String> skipped = experiment.cells().stream()
                .filter(c -> !models.has(plan.rungOf(c).model())).map(Cell::name).toList();
        RunSuite suite = new RunSuite(experiment);
        int answered = 0;
        int resumed = 0;
        List<Database> opened = new ArrayList<>();
        GenerationCache cache = null;
        try {
            // the database, its test suite and the generation cache open before the run directory is made: a bad
            // --url, database name, suite or cache file is one line and leaves nothing behind
            Database db = Databases.open(experiment.database(), LadderPaths.dataDir(), options.serverUrl(),
                    experiment.sqlMode());
            opened.add(db);
            String suiteBuilt = suite.buildIfNeeded(db, benchmark, log);
            Scoring scoring = ScoringSetup.create(db, experiment.scorers().exOptions(), experiment.scorers().suiteMode(),
                    experiment.scorers().suite(), opened, experiment.sqlMode());
            ExOptions alsoEx = experiment.scorers().alsoExOptions();
            Scoring alsoScoring = alsoEx == null ? null : ScoringSetup.create(db, alsoEx, ScoringSetup.Suite.NONE, null,
                    opened, experiment.sqlMode());
            // a gold EM cannot read is the benchmark's fault: one line now, not a crash or a silent 0 hours later
            for (BenchmarkItem item : items) {
                Optional<String> why = scoring.unreadableGold(item.allGold());
                if (why.isPresent()) {
                    throw new UserError(benchmark.name() + " " + experiment.split() + " item " + item.id()
                            + ": gold cannot be read: " + why.get() + " (fix or remove the item)");
                }
            }
            ErrorTaxonomy taxonomy = new ErrorTaxonomy(db.schema());
            OracleScope oracle = new OracleScope(oracleKey(items, scoring), db);
            cache = options.generationCache() == null ? null : GenerationCache.open(options.generationCache());
            RunDirectory dir = RunDirectory.create(directory);
            try (ResultsStore store = dir.openResults()) {
                // the config goes in first: a run directory with results always says what produced them
                dir.writeConfig(config);
                models.checkFingerprints(store);
                RunEnvironment.recordStart(dir, experiment, shard, options.repoRoot(), models.resolved());
                // what the report needs to say how the numbers were made (docs/report.md)
                store.putMeta("items.selection", selection.description());
                // the whole selection, so that 'ladder merge' can check its shards are complete and disjoint
                store.putMeta(ITEM_IDS, itemIds(items));
                if (shard != null) store.putMeta(Shard.META_KEY, shard.label());
                store.putMeta("scorers.ex_modes", experiment.scorers().exModesLabel());
                String tsMissing = suite.missing(db, scoring);
                if (tsMissing == null) store.removeMeta("ts.missing");
                else store.putMeta("ts.missing", tsMissing);
                // TS means "on this suite": its contents' fingerprint goes with every TS number (the report compares
                // TS only between runs scored on one suite)
                String suitePrint = tsMissing == null ? suite.fingerprint(db) : null;
                String storedPrint = store.meta(TS_FINGERPRINT);
                if (storedPrint != null && suitePrint != null && !storedPrint.equals(suitePrint) && store.hasResults()) {
                    throw new UserError("the test suite of " + db.name() + " changed since this run started (fingerprint "
                            + suitePrint.substring(0, Math.min(12, suitePrint.length())) + ", the run has " + storedPrint.substring(0, Math.min(12, storedPrint.length()))
                            + "): its TS numbers would mix two suites; use --out NEW_DIR");
                }
                if (suitePrint != null) store.putMeta(TS_FINGERPRINT, suitePrint);
                for (Cell cell : experiment.cells()) {
                    String reason = models.skipReason(plan.rungOf(cell));
                    if (reason == null) {
                        store.removeMeta("skipped." + cell.name());
                    } else {
                        // a skipped rung stays in the tables with its reason instead of vanishing from them
                        store.putCell(cell);
                        store.putMeta("skipped." + cell.name(), reason);
                    }
                }
                // the first words on the console come after every check: an error stays the only line
                log.println("run " + experiment.name() + ": " + experiment.cells().size() + " cells, "
                        + (shard == null ? "" : "shard " + shard.label() + " (" + mine.size() + " of " + items.size()
                        + " items), ") + "output " + dir.dir());
                experiment.warnings().forEach(w -> log.println("warning: " + w));
                exemplars.note().ifPresent(log::println);
                if (suiteBuilt != null) log.println(suiteBuilt);
                if (tsMissing != null && experiment.scorers().ts() != ScorerSpec.Ts.NONE) {
                    log.println("warning: " + tsMissing);
                }
                // one model resident at a time: all cells of a model run together, and it is freed before the next loads
                // (rows are keyed by cell and item, and every output is read back in cell order, so the order of work
                // does not change any result)
                for (List<Cell> group : plan.cellsByModel()) {
                    String modelKey = plan.rungOf(group.get(0)).model();
                    if (!models.has(modelKey)) continue;
                    Map<Cell, List<Integer>> todo = new LinkedHashMap<>();
                    for (Cell cell : group) {
                        store.putCell(cell);
                        Set<String> done = store.finishedItems(cell.name());
                        List<Integer> left = new ArrayList<>();
                        for (int i : mine) if (!done.contains(items.get(i).id())) left.add(i);
                        resumed += mine.size() - left.size();
                        if (left.isEmpty()) {
                            log.printf(Locale.ROOT, "%s: %d/%d items already done%n", cell.name(), mine.size(), mine.size());
                        } else {
                            todo.put(cell, left);
                        }
                    }
                    if (todo.isEmpty()) continue;
                    // a rung whose answers do not depend on the seed answers once; its other seeds' cells reuse those
                    // rows instead of running again (their calls count as answered from the cache)
                    Map<Cell, List<Integer>> reuse = new LinkedHashMap<>();
                    todo.entrySet().removeIf(e -> {
                        Cell first = plan.firstSeedCell(e.getKey());
                        if (first == null || !plan.seedFree(e.getKey())) return false;
                        reuse.put(e.getKey(), e.getValue());
                        return true;
                    });
                    if (!todo.isEmpty()) {
                        try (CallCounter model = new CallCounter(models.load(modelKey, cache, dir, oracle))) {
                            for (Map.Entry<Cell, List<Integer>> e : todo.entrySet()) {
                                Cell cell = e.getKey();
                                Strategy strategy = Strategies.byName(cell.strategy());
                                StrategyContext context = StrategyContext.of(model, db, exemplars.selector(), plan.settingsOf(cell)).withCaches(caches);
                                answered += cells.run(cell, strategy, context, items, mine.size(), e.getValue(),
                                        plan.parallelItems(cell), new RowScorer(scoring, alsoScoring, taxonomy), store, model);
                                log.flush();
                            }
                        }
                    }
                    for (Map.Entry<Cell, List<Integer>> e : reuse.entrySet()) {
                        answered += cells.reuse(e.getKey(), plan.firstSeedCell(e.getKey()), items, e.getValue(), store);
                    }
                }
                String judgeId = experiment.scorers().judge();
                if (judgeId != null) {
                    GenerationCache judgeCache = cache;
                    new JudgePass(options.log(), experiment.settings().limits()).judge(store, db, judgeId,
                            models.has(judgeId) ? () -> models.load(judgeId, judgeCache, dir, oracle) : null);
                }
                dir.writePredictions(store, RunDirectory.dbIds(benchmark, items));
                dir.writeTraces(store);
                return new Outcome(dir, store.cells().size(), answered, resumed, skipped, models.cacheHits(),
                        models.cacheMisses());
            }
        } finally {
            if (cache != null) cache.close();
            for (int i = opened.size() - 1; i >= 0; i--) opened.get(i).close();
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
