package dev.ladder.eval.run;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.ladder.eval.bench.Benchmark;
import dev.ladder.eval.bench.BenchmarkItem;
import dev.ladder.eval.bench.Benchmarks;
import dev.ladder.eval.bench.ClassicModelsExemplars;
import dev.ladder.eval.bench.ItemSubset;
import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.eval.experiment.ModelSpec;
import dev.ladder.eval.experiment.RungSpec;
import dev.ladder.eval.experiment.ScorerSpec;
import dev.ladder.eval.score.ErrorTaxonomy;
import dev.ladder.eval.score.ExOptions;
import dev.ladder.eval.score.Scoring;
import dev.ladder.eval.testsuite.ScoringSetup;
import dev.ladder.eval.testsuite.TestSuite;
import dev.ladder.eval.testsuite.TestSuiteBuilder;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.openai.OpenAiLanguageModel;
import dev.ladder.pipeline.oracle.OracleKey;
import dev.ladder.pipeline.oracle.OracleModel;
import dev.ladder.pipeline.oracle.OracleNoise;
import dev.ladder.pipeline.prompt.ExemplarSelector;
import dev.ladder.pipeline.strategy.Pipelines;
import dev.ladder.pipeline.strategy.RunCaches;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.Strategies;
import dev.ladder.pipeline.strategy.Strategy;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.DatabaseKind;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.EmbeddedMariaDb;
import dev.ladder.sql.db.LadderPaths;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
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
    /** Every cached model this run loaded (closed ones too), for the hit and miss counts. */
    private final List<CachedLanguageModel> cachedModels = new ArrayList<>();
    /** What the run decided on its own (e.g. the exemplar rule), printed once the checks are done. */
    private final List<String> notes = new ArrayList<>();
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
        this.cells = new CellRunner(options.progress(), options.log());
        this.shard = shard;
        this.directory = directory;
    }

    public Outcome run() {
        PrintWriter log = options.log();
        String config = experiment.toResolvedYaml();
        // the shard first: a shard directory resumed as a whole run (--out) also differs in config.yaml's output
        checkSameShard(directory.toAbsolutePath().normalize());
        checkSameExperiment(directory.toAbsolutePath().normalize(), config);
        // everything that can fail on the user's input fails before the run directory is made
        Benchmark benchmark = Benchmarks.load(experiment.benchmark(), experiment.database());
        ItemSubset.Selection selection = experiment.subset().select(benchmark.split(experiment.split()), experiment.limit());
        List<BenchmarkItem> items = selection.items();
        // a shard answers its positions of the selection; rows keep their position, as in a whole run
        List<Integer> mine = shard == null ? IntStream.range(0, items.size()).boxed().toList()
                : shard.positions(items.size());
        Map<String, ResolvedModel> resolved = resolveModels();
        // device and memory plan of every model before anything is made: a model that cannot run here is one line
        resolved.forEach((id, m) -> {
            if (!m.spec().served() && !m.spec().oracle()) ModelLoader.check(m.dir(), m.adapter(), loadSpec(id, m.spec()));
        });
        ExemplarSelector exemplars = exemplars(benchmark);
        if (resolved.isEmpty()) {
            throw new UserError("no rung can run: " + String.join("; ", experiment.warnings()));
        }

        // a rung whose model was not resolved is one whose adapter is missing (the warnings say which)
        List<String> skipped = experiment.cells().stream()
                .filter(c -> !resolved.containsKey(rungOf(c).model())).map(Cell::name).toList();
        int answered = 0;
        int resumed = 0;
        long hits = 0;
        long misses = 0;
        List<Database> opened = new ArrayList<>();
        GenerationCache cache = null;
        try {
            // the database, its test suite and the generation cache open before the run directory is made: a bad
            // --url, database name, suite or cache file is one line and leaves nothing behind
            Database db = Databases.open(experiment.database(), LadderPaths.dataDir(), options.serverUrl(),
                    experiment.sqlMode());
            opened.add(db);
            String suiteBuilt = buildSuiteIfNeeded(db, benchmark);
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
            oracleKey = oracleKey(items, scoring);
            oracleDb = db;
            cache = options.generationCache() == null ? null : GenerationCache.open(options.generationCache());
            RunDirectory dir = RunDirectory.create(directory);
            try (ResultsStore store = dir.openResults()) {
                // the config goes in first: a run directory with results always says what produced them
                dir.writeConfig(config);
                checkFingerprints(store, resolved);
                writeEnvironment(dir, resolved);
                // what the report needs to say how the numbers were made (docs/report.md)
                store.putMeta("items.selection", selection.description());
                // the whole selection, so that 'ladder merge' can check its shards are complete and disjoint
                store.putMeta(ITEM_IDS, itemIds(items));
                if (shard != null) store.putMeta(Shard.META_KEY, shard.label());
                store.putMeta("scorers.ex_modes", experiment.scorers().exModesLabel());
                String tsMissing = tsMissing(db, scoring);
                if (tsMissing == null) store.removeMeta("ts.missing");
                else store.putMeta("ts.missing", tsMissing);
                // TS means "on this suite": its contents' fingerprint goes with every TS number (the report compares
                // TS only between runs scored on one suite)
                String suitePrint = tsMissing == null ? suiteFingerprint(db) : null;
                String storedPrint = store.meta(TS_FINGERPRINT);
                if (storedPrint != null && suitePrint != null && !storedPrint.equals(suitePrint) && store.hasResults()) {
                    throw new UserError("the test suite of " + db.name() + " changed since this run started (fingerprint "
                            + suitePrint.substring(0, Math.min(12, suitePrint.length())) + ", the run has " + storedPrint.substring(0, Math.min(12, storedPrint.length()))
                            + "): its TS numbers would mix two suites; use --out NEW_DIR");
                }
                if (suitePrint != null) store.putMeta(TS_FINGERPRINT, suitePrint);
                for (Cell cell : experiment.cells()) {
                    String reason = skipReason(rungOf(cell), resolved);
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
                notes.forEach(log::println);
                if (suiteBuilt != null) log.println(suiteBuilt);
                if (tsMissing != null && experiment.scorers().ts() != ScorerSpec.Ts.NONE) {
                    log.println("warning: " + tsMissing);
                }
                // one model resident at a time: all cells of a model run together, and it is freed before the next loads
                // (rows are keyed by cell and item, and every output is read back in cell order, so the order of work
                // does not change any result)
                for (List<Cell> group : cellsByModel()) {
                    String modelKey = rungOf(group.get(0)).model();
                    if (!resolved.containsKey(modelKey)) continue;
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
                        Cell first = firstSeedCell(e.getKey());
                        if (first == null || !seedFree(e.getKey())) return false;
                        reuse.put(e.getKey(), e.getValue());
                        return true;
                    });
                    if (!todo.isEmpty()) {
                        try (CallCounter model = new CallCounter(load(modelKey, resolved.get(modelKey), cache, dir))) {
                            for (Map.Entry<Cell, List<Integer>> e : todo.entrySet()) {
                                Cell cell = e.getKey();
                                Strategy strategy = Strategies.byName(cell.strategy());
                                StrategyContext context = StrategyContext.of(model, db, exemplars, settingsOf(cell)).withCaches(caches);
                                answered += cells.run(cell, strategy, context, items, mine.size(), e.getValue(),
                                        parallelItems(cell), new RowScorer(scoring, alsoScoring, taxonomy), store, model);
                                log.flush();
                            }
                        }
                    }
                    for (Map.Entry<Cell, List<Integer>> e : reuse.entrySet()) {
                        answered += cells.reuse(e.getKey(), firstSeedCell(e.getKey()), items, e.getValue(), store);
                    }
                }
                String judgeId = experiment.scorers().judge();
                if (judgeId != null) {
                    ResolvedModel judgeModel = resolved.get(judgeId);
                    GenerationCache judgeCache = cache;
                    new JudgePass(options.log(), experiment.settings().limits()).judge(store, db, judgeId,
                            judgeModel == null ? null : () -> load(judgeId, judgeModel, judgeCache, dir));
                }
                for (CachedLanguageModel cached : cachedModels) {
                    hits += cached.hits();
                    misses += cached.misses();
                }
                dir.writePredictions(store, RunDirectory.dbIds(benchmark, items));
                dir.writeTraces(store);
                return new Outcome(dir, store.cells().size(), answered, resumed, skipped, hits, misses);
            }
        } finally {
            if (cache != null) cache.close();
            for (int i = opened.size() - 1; i >= 0; i--) opened.get(i).close();
        }
    }

    /** The rung a cell runs (cells are rung-major: one per rung and seed, in order). */
    private RungSpec rungOf(Cell cell) {
        return experiment.rungs().get(cell.index() / experiment.seeds().size());
    }

    /**
     * The scorer of EX's mode (VA, EX, EM, TS), the one of the second EX mode if the experiment asks for it, and the
     * error taxonomy of the database.
     */

    /** The pipeline settings of a cell: its rung's, with the cell's seed. */
    private Settings settingsOf(Cell cell) {
        return experiment.settingsOf(rungOf(cell)).withSeed(cell.seed());
    }

    /** Whether the cell's answers do not depend on its seed. */
    private boolean seedFree(Cell cell) {
        return !Strategies.byName(cell.strategy()).usesSeed(settingsOf(cell));
    }

    /** The cell of the same rung with the experiment's first seed, or null when {@code cell} is that cell. */
    private Cell firstSeedCell(Cell cell) {
        int first = cell.index() - cell.index() % experiment.seeds().size();
        return first == cell.index() ? null : experiment.cells().get(first);
    }

    /**
     * How many items of a cell are answered at once: a served model's {@code max_concurrent} (the server batches what
     * is in flight), else one. Rows are keyed by item and read back in item order, so the order items finish in
     * changes no output.
     */
    private int parallelItems(Cell cell) {
        ModelSpec m = experiment.modelOf(rungOf(cell));
        return m.served() ? m.server().maxConcurrent() : 1;
    }

    /**
     * A model of the experiment, resolved to files and fingerprinted; a served model has no files here ({@code dir}
     * null) and its print is what the server serves ({@link OpenAiLanguageModel#identity()}).
     */
    private record ResolvedModel(ModelSpec spec, Path dir, Path adapter, String modelPrint, String adapterPrint) {}

    /**
     * Resolves (pulling a hub id if need be) and fingerprints every model a runnable cell uses, before any work: the
     * files that produced a run's rows are part of its identity, and resuming on changed weights would mix models.
     */
    private Map<String, ResolvedModel> resolveModels() {
        Map<String, ResolvedModel> out = new LinkedHashMap<>();
        List<String> ids = new ArrayList<>(experiment.rungs().stream().map(RungSpec::model).toList());
        if (experiment.scorers().judge() != null) ids.add(experiment.scorers().judge());
        for (String id : ids) {
            ModelSpec spec = experiment.models().get(id);
            if (spec.adapterMissing() || out.containsKey(id)) continue;
            if (spec.oracle()) {
                // no files: the noise is the instrument's identity
                out.put(id, new ResolvedModel(spec, null, null, ORACLE_PRINT + spec.oracleNoise(), ""));
                continue;
            }
            if (spec.served()) {
                // reachable, serving the model, the key accepted: checked here, before the run directory is made
                try (OpenAiLanguageModel served = ServedModels.connect(id, spec.server())) {
                    out.put(id, new ResolvedModel(spec, null, null, served.identity(), ""));
                }
                continue;
            }
            Path dir = ModelLoader.resolve(spec.path(), options.log());
            Path adapter = spec.hasAdapter() ? Path.of(spec.adapter()) : null;
            out.put(id, new ResolvedModel(spec, dir, adapter, Fingerprints.ofDirectory(dir),
                    adapter == null ? "" : Fingerprints.ofDirectory(adapter)));
        }
        return out;
    }

    private static void checkFingerprints(ResultsStore store, Map<String, ResolvedModel> models) {
        // a run directory without rows has nothing to protect: the fixed files of a rerun take its place
        boolean empty = !store.hasResults();
        models.forEach((id, m) -> {
            if (empty) {
                store.putMeta(fingerprintKey(id, "path"), m.modelPrint());
                if (m.adapter() != null) store.putMeta(fingerprintKey(id, "adapter"), m.adapterPrint());
                return;
            }
            checkFingerprint(store, fingerprintKey(id, "path"), m.modelPrint(),
                    m.dir() != null ? m.dir().toString() : "the served model " + m.spec().path() + " (" + m.modelPrint() + ")");
            if (m.adapter() != null) checkFingerprint(store, fingerprintKey(id, "adapter"), m.adapterPrint(), m.adapter().toString());
        });
    }

    /** How a model loads, with the largest workload its rungs put on it (for the memory plan). */
    private ModelLoader.LoadSpec loadSpec(String id, ModelSpec spec) {
        List<RungSpec> rungs = experiment.rungs().stream().filter(r -> r.model().equals(id)).toList();
        return ModelLoader.LoadSpec.of(spec, ModelLoader.Workload.of(experiment, rungs));
    }

    /** Why a rung does not run, or null when it does (its model resolved). */
    private String skipReason(RungSpec rung, Map<String, ResolvedModel> resolved) {
        if (resolved.containsKey(rung.model())) return null;
        ModelSpec m = experiment.modelOf(rung);
        return m.adapterMissing() ? "no PEFT adapter at " + m.adapter() + " (models." + rung.model() + ".adapter)"
                : "model " + rung.model() + " was not loaded";
    }

    /** The results store's meta key of the suite fingerprint TS was scored on. */
    public static final String TS_FINGERPRINT = "ts.fingerprint";

    /** The fingerprint of the suite this run scores TS on ("unrecorded" for a manifest older than fingerprints). */
    private String suiteFingerprint(Database db) {
        Path dir = experiment.scorers().suite() != null ? experiment.scorers().suite() : TestSuite.defaultDir(db.name());
        return TestSuite.load(dir).map(TestSuite::fingerprint).map(f -> f == null ? "unrecorded" : f).orElse(null);
    }

    /** Why TS is missing from this run, or null when it has a suite. */
    private String tsMissing(Database db, Scoring scoring) {
        if (scoring.hasSuite()) return null;
        if (experiment.scorers().ts() == ScorerSpec.Ts.NONE) return "TS is off (scorers.ts: none)";
        if (db.kind() != DatabaseKind.EMBEDDED_MARIADB) {
            return "no test suite for " + db.name() + ": suites live on the embedded MariaDB, and this run's database is a "
                    + db.kind() + " database";
        }
        return "no test suite for " + db.name() + ": TS and its comparisons are missing (build one with 'ladder testsuite"
                + " build " + db.name() + "', about 2 minutes, or set scorers.ts: suite in an experiment with agent rungs)";
    }

    /**
     * With {@code ts: suite}, a ladder that has agent rungs and no stored suite builds one first: an agent executes
     * its candidates on the very database that judges EX, so TS is the metric that catches the coincidences it can
     * select for. Only the embedded databases Ladder knows hold suites. Returns what was done, or null.
     */
    private String buildSuiteIfNeeded(Database db, Benchmark benchmark) {
        ScorerSpec sc = experiment.scorers();
        if (sc.ts() != ScorerSpec.Ts.SUITE || sc.suite() != null) return null;
        if (experiment.rungs().stream().noneMatch(r -> r.strategy().startsWith("agent-"))) return null;
        if (db.kind() != DatabaseKind.EMBEDDED_MARIADB || !Databases.KNOWN.contains(db.name())) {
            return null;
        }
        Path dir = TestSuite.defaultDir(db.name());
        if (Files.isRegularFile(dir.resolve(TestSuite.MANIFEST))) return null;
        options.log().println("building the test suite of " + db.name() + " first (the ladder has agent rungs; 2 to 5"
                + " minutes, once per machine; scorers.ts: stored skips this)");
        options.log().flush();
        long t0 = System.nanoTime();
        TestSuiteBuilder.Options o = TestSuiteBuilder.Options.defaults(db.name())
                .withBenchmark(experiment.benchmark()).withSplit(experiment.split());
        TestSuite suite = new TestSuiteBuilder(EmbeddedMariaDb.shared(), o, m -> {})
                .buildAndStore(benchmark.split(experiment.split()), dir);
        return String.format(Locale.ROOT, "test suite of %s built in %.0f s: %d databases, in %s", db.name(),
                (System.nanoTime() - t0) / 1e9, suite.databaseNames().size(), dir);
    }

    /** The cells of each model, models in the order of their first cell, cells in experiment order. */
    private List<List<Cell>> cellsByModel() {
        Map<String, List<Cell>> groups = new LinkedHashMap<>();
        for (Cell c : experiment.cells()) groups.computeIfAbsent(rungOf(c).model(), k -> new ArrayList<>()).add(c);
        return List.copyOf(groups.values());
    }

    /** What an oracle's fingerprint starts with (its noise follows). */
    static final String ORACLE_PRINT = "oracle-engine:";

    /** The oracle's knowledge of this run ({@link #oracleKey(List, Scoring)} over the selected items). */
    private OracleKey oracleKey;
    private Database oracleDb;

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

    private LanguageModel load(String id, ResolvedModel m, GenerationCache cache, RunDirectory dir) {
        ModelSpec spec = m.spec();
        if (spec.oracle()) {
            OracleModel oracle = new OracleModel(OracleNoise.parse(spec.oracleNoise()), oracleKey, oracleDb.schema(),
                    oracleDb.dialect(), Pipelines.registry().oracleTeachers());
            options.log().println("model " + id + ": " + OracleModel.DISCLAIMER + " (noise " + spec.oracleNoise() + ")");
            Map<String, String> env = new TreeMap<>(readEnvironment(dir));
            env.putIfAbsent("models." + id + ".engine", ModelSpec.ORACLE);
            env.putIfAbsent("models." + id + ".oracle_noise", spec.oracleNoise());
            env.putIfAbsent("models." + id + ".oracle", OracleModel.DISCLAIMER);
            dir.writeEnvironment(env);
            // never cached: its answers cost nothing and depend on the item, which a prompt-keyed cache does not see
            return oracle;
        }
        if (spec.served()) {
            OpenAiLanguageModel served = ServedModels.connect(id, spec.server());
            options.log().println("model " + id + ": " + served.name() + " served at " + served.endpoint().baseUrl()
                    + " (" + served.endpoint().api().label() + ", prompt format " + served.promptFormat().name()
                    + ", up to " + served.endpoint().maxConcurrent() + " requests in flight)");
            Map<String, String> env = new TreeMap<>(readEnvironment(dir));
            ServedModels.environment(id, served).forEach(env::putIfAbsent);
            dir.writeEnvironment(env);
            if (cache == null) return served;
            CachedLanguageModel cached = new CachedLanguageModel(served, served.identity(), "", cache);
            cachedModels.add(cached);
            return cached;
        }
        ModelLoader.Loaded loaded = options.models().load(m.dir(), m.adapter(), loadSpec(id, spec), options.log());
        recordLoad(dir, id, loaded);
        LanguageModel model = loaded.model();
        if (cache == null) return model;
        // dtype and device change the numbers (f16 on a GPU, f32 on a CPU): part of the model's identity
        String cacheIdentity = m.modelPrint() + "/" + spec.engine() + "/" + loaded.dtype() + "/"
                + loaded.device().type()
                + (m.adapter() != null && !spec.mergeBase().equals(ModelSpec.DEFAULT_MERGE_BASE) ? "/" + spec.mergeBase() : "");
        CachedLanguageModel cached = new CachedLanguageModel(model, cacheIdentity, m.adapterPrint(), cache);
        cachedModels.add(cached);
        return cached;
    }

    /** Adds where and how a model was loaded to environment.json (the first start's values stay). */
    private static void recordLoad(RunDirectory dir, String id, ModelLoader.Loaded loaded) {
        Map<String, String> env = new TreeMap<>(readEnvironment(dir));
        String p = "models." + id + ".";
        env.putIfAbsent(p + "engine", loaded.report() == null ? ModelSpec.ONNX : "djl");
        env.putIfAbsent(p + "device", loaded.device().label());
        env.putIfAbsent(p + "dtype", loaded.dtype());
        if (loaded.report() == null || loaded.plan() == null) {
            dir.writeEnvironment(env);
            return;
        }
        env.putIfAbsent(p + "load_millis", Long.toString(loaded.report().millis()));
        env.putIfAbsent(p + "load_peak_anon_rss_bytes", Long.toString(loaded.report().peakAnonRssBytes()));
        env.putIfAbsent(p + "weight_bytes", Long.toString(loaded.report().weightBytes()));
        env.putIfAbsent(p + "load_warnings", Integer.toString(loaded.report().warnings().size()));
        env.putIfAbsent(p + "memory_plan_bytes", Long.toString(loaded.plan().totalBytes()));
        long budget = loaded.plan().budgetBytes();
        env.putIfAbsent(p + "memory_budget_bytes", budget == ModelLoader.UNKNOWN_BUDGET ? "unknown" : Long.toString(budget));
        dir.writeEnvironment(env);
    }

    private static Map<String, String> readEnvironment(RunDirectory dir) {
        if (!Files.isRegularFile(dir.environment())) return Map.of();
        try {
            return new ObjectMapper().readValue(dir.environment().toFile(),
                    new TypeReference<Map<String, String>>() {});
        } catch (IOException e) {
            throw new UserError("cannot read " + dir.environment() + ": " + e.getMessage());
        }
    }

    /**
     * environment.json: written at the first start (git sha, JVM, engine, the model and adapter fingerprints); a
     * later start only adds the fingerprints of models it runs for the first time (an adapter trained meanwhile).
     */
    private void writeEnvironment(RunDirectory dir, Map<String, ResolvedModel> resolved) {
        Map<String, String> env = new TreeMap<>(readEnvironment(dir));
        if (env.isEmpty()) {
            env.putAll(Fingerprints.environment(options.repoRoot()));
            env.putAll(TorchEnvironment.entries());
            // the first start dates the run (its report's provenance); a resumed run keeps it
            env.put("run.started", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        }
        // the EM numbers of this run mean what this mode says (semantic and spider-strict differ)
        env.putIfAbsent("scorers.em_mode", experiment.scorers().emMode().label());
        // checked equal on every start (checkSameShard), so put is safe
        if (shard != null) env.put("run." + Shard.META_KEY, shard.label());
        resolved.forEach((id, m) -> {
            env.putIfAbsent(fingerprintKey(id, "path"), m.modelPrint());
            if (m.adapter() != null) env.putIfAbsent(fingerprintKey(id, "adapter"), m.adapterPrint());
        });
        dir.writeEnvironment(env);
    }

    private static String fingerprintKey(String modelId, String field) {
        return "fingerprint.models." + modelId + "." + field;
    }

    private static void checkFingerprint(ResultsStore store, String key, String print, String dir) {
        String stored = store.meta(key);
        if (stored == null) {
            store.putMeta(key, print);
        } else if (!stored.equals(print)) {
            throw new UserError(dir + " changed since this run started (fingerprint " + print.substring(0, 12)
                    + ", the run has " + stored.substring(0, Math.min(12, stored.length()))
                    + "): its rows would mix two models; use the same files, or --out NEW_DIR");
        }
    }

    /**
     * The k-shot rule: the fixed ClassicModels exemplars when the benchmark's train split has them, else the most
     * similar train questions (other benchmarks); a benchmark without a train split can run only k = 0 rungs.
     */
    private ExemplarSelector exemplars(Benchmark benchmark) {
        List<BenchmarkItem> train = benchmark.splits().getOrDefault("train", List.of());
        try {
            return ClassicModelsExemplars.selector(benchmark, "fixed", ClassicModelsExemplars.DEFAULT_SEED);
        } catch (IllegalArgumentException | UserError notThere) {
            // not ClassicModels: fall through to similarity
        }
        // prompt-k3 takes 3 exemplars; an agent rung takes its own agent_k
        boolean needsExemplars = experiment.rungs().stream().anyMatch(r -> r.strategy().startsWith("agent-")
                ? experiment.settingsOf(r).k() > 0 : !r.strategy().equals("prompt-k0"));
        if (train.isEmpty()) {
            if (needsExemplars) {
                throw new UserError("benchmark " + benchmark.name() + " has no train split to take k-shot exemplars from"
                        + " (it has " + benchmark.splits().keySet() + "); use only prompt-k0, or agent rungs with"
                        + " settings.agent_k: 0");
            }
            return (question, k) -> List.of();
        }
        if (needsExemplars) {
            notes.add("exemplars: the train questions of " + benchmark.name()
                    + " most similar to each question (the fixed exemplars are ClassicModels')");
        }
        return ClassicModelsExemplars.selector(benchmark, "similar", ClassicModelsExemplars.DEFAULT_SEED);
    }

    /** The results store's meta key holding the ids of the selected items, in order (a JSON array). */
    public static final String ITEM_IDS = "items.ids";

    static String itemIds(List<BenchmarkItem> items) {
        ArrayNode ids = new ObjectMapper().createArrayNode();
        items.forEach(item -> ids.add(item.id()));
        return ids.toString();
    }

    /**
     * A run directory answers one part of the items: resuming a shard as another shard, a whole run as a shard, or a
     * shard as a whole run would leave rows no merge can place.
     */
    private void checkSameShard(Path runDir) {
        Path results = runDir.resolve(RunDirectory.RESULTS);
        if (!Files.isRegularFile(results)) return;
        String recorded;
        boolean hasRows;
        try (ResultsStore store = ResultsStore.openReadOnly(results)) {
            recorded = store.meta(Shard.META_KEY);
            hasRows = store.hasResults();
        }
        String wanted = shard == null ? null : shard.label();
        if (Objects.equals(recorded, wanted) || (recorded == null && !hasRows)) return;
        String was = recorded == null ? "a whole run (no --shard)" : "shard " + recorded;
        String now = wanted == null ? "a whole run (no --shard)" : "shard " + wanted;
        throw new UserError(runDir + " holds " + was + ", not " + now + ": resume it with "
                + (recorded == null ? "no --shard" : "--shard " + recorded) + ", or pass --out NEW_DIR");
    }

    /** A run directory belongs to one experiment: resuming it with another configuration would mix results. */
    private static void checkSameExperiment(Path runDir, String config) {
        Path file = runDir.resolve(RunDirectory.CONFIG);
        if (!Files.isRegularFile(file)) return;
        String existing;
        try {
            existing = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UserError("cannot read " + file + ": " + e.getMessage());
        }
        String wanted = config.endsWith("\n") ? config : config + "\n";
        if (existing.equals(wanted)) return;
        if (sameMeaning(existing, file, wanted)) return;
        List<String> a = existing.lines().toList();
        List<String> b = wanted.lines().toList();
        int line = 0;
        while (line < Math.min(a.size(), b.size()) && a.get(line).equals(b.get(line))) line++;
        String was = line < a.size() ? a.get(line).strip() : "(end)";
        String now = line < b.size() ? b.get(line).strip() : "(end)";
        throw new UserError(file + " holds another experiment (line " + (line + 1) + ": '" + was
                + "' here, '" + now + "' now): resume with the same file and options, or pass --out NEW_DIR");
    }

    /**
     * A config.yaml an earlier version wrote in another layout still names the same experiment when it loads to one
     * that this version writes as {@code wanted}.
     */
    private static boolean sameMeaning(String existing, Path file, String wanted) {
        try {
            String again = ExperimentLoader.parse(existing, file.toString()).toResolvedYaml();
            return (again.endsWith("\n") ? again : again + "\n").equals(wanted);
        } catch (RuntimeException e) {
            return false; // unreadable or invalid now: not the same experiment
        }
    }
}
