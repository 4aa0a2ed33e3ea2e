package dev.ladder.eval.run;

import dev.ladder.eval.experiment.ModelSpec;
import dev.ladder.eval.experiment.RungSpec;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.llm.DjlLanguageModel;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.inference.openai.OpenAiLanguageModel;
import dev.ladder.pipeline.oracle.OracleKey;
import dev.ladder.pipeline.oracle.OracleModel;
import dev.ladder.pipeline.oracle.OracleNoise;
import dev.ladder.pipeline.strategy.Pipelines;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.UserError;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The run's models: resolved to files (pulled if need be) and fingerprinted before any work, their fingerprints held
 * against the run's, loaded one at a time when their cells run (local weights, a served model or the oracle engine),
 * wrapped in the generation cache whose hits and misses the run reports.
 */
final class RunModels {

    /**
     * A model of the experiment, resolved to files and fingerprinted; a served model has no files here ({@code dir}
     * null) and its print is what the server serves ({@link OpenAiLanguageModel#identity()}).
     */
    record Resolved(ModelSpec spec, Path dir, Path adapter, String modelPrint, String adapterPrint) {}

    /** What an oracle's fingerprint starts with (its noise follows). */
    static final String ORACLE_PRINT = "oracle-engine:";

    private final RunPlan plan;
    private final PrintWriter log;
    private final ExperimentRunner.ModelSource source;
    private final Map<String, Resolved> resolved;
    /** Every cached model this run loaded (closed ones too), for the hit and miss counts. */
    private final List<CachedLanguageModel> cachedModels = new ArrayList<>();
    /** What the oracle engine knows of the run: set once the database and scorer are open. */
    private OracleKey oracleKey;
    private Database oracleDb;

    private RunModels(RunPlan plan, PrintWriter log, ExperimentRunner.ModelSource source, Map<String, Resolved> resolved) {
        this.plan = plan;
        this.log = log;
        this.source = source;
        this.resolved = resolved;
    }

    /**
     * Resolves (pulling a hub id if need be) and fingerprints every model a runnable cell uses, before any work: the
     * files that produced a run's rows are part of its identity, and resuming on changed weights would mix models.
     * Then checks that each local model can run here (device, memory plan): a model that cannot is one line.
     */
    static RunModels resolve(RunPlan plan, PrintWriter log, ExperimentRunner.ModelSource source) {
        Map<String, Resolved> out = new LinkedHashMap<>();
        for (String id : plan.modelIds()) {
            ModelSpec spec = plan.experiment().models().get(id);
            if (spec.adapterMissing() || out.containsKey(id)) continue;
            if (spec.oracle()) {
                // no files: the noise is the instrument's identity
                out.put(id, new Resolved(spec, null, null, ORACLE_PRINT + spec.oracleNoise(), ""));
                continue;
            }
            if (spec.served()) {
                // reachable, serving the model, the key accepted: checked here, before the run directory is made
                try (OpenAiLanguageModel served = ServedModels.connect(id, spec.server())) {
                    out.put(id, new Resolved(spec, null, null, served.identity(), ""));
                }
                continue;
            }
            Path dir = ModelLoader.resolve(spec.path(), log);
            Path adapter = spec.hasAdapter() ? Path.of(spec.adapter()) : null;
            out.put(id, new Resolved(spec, dir, adapter, Fingerprints.ofDirectory(dir),
                    adapter == null ? "" : Fingerprints.ofDirectory(adapter)));
        }
        out.forEach((id, m) -> {
            if (!m.spec().served() && !m.spec().oracle()) ModelLoader.check(m.dir(), m.adapter(), plan.loadSpec(id));
        });
        return new RunModels(plan, log, source, out);
    }

    Map<String, Resolved> resolved() {
        return resolved;
    }

    boolean has(String id) {
        return resolved.containsKey(id);
    }

    /** Why a rung does not run, or null when it does (its model resolved). */
    String skipReason(RungSpec rung) {
        if (resolved.containsKey(rung.model())) return null;
        ModelSpec m = plan.experiment().modelOf(rung);
        return m.adapterMissing() ? "no PEFT adapter at " + m.adapter() + " (models." + rung.model() + ".adapter)"
                : "model " + rung.model() + " was not loaded";
    }

    /**
     * Whether the model answers from one database scope's golds and database (the oracle), and so loads once per
     * scope; every other model loads once and serves every scope.
     */
    boolean perScope(String id) {
        return resolved.get(id).spec().oracle();
    }

    /** What the oracle engine answers from: a scope's golds and EX, on its database. */
    void knowOracle(OracleKey key, Database db) {
        this.oracleKey = key;
        this.oracleDb = db;
    }

    static String fingerprintKey(String modelId, String field) {
        return "fingerprint.models." + modelId + "." + field;
    }

    /** Records the models' fingerprints in a run without rows; in a run with rows, refuses changed files. */
    void checkFingerprints(ResultsStore store) {
        // a run directory without rows has nothing to protect: the fixed files of a rerun take its place
        boolean empty = !store.hasResults();
        resolved.forEach((id, m) -> {
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

    /** Loads a resolved model, records where and how in environment.json, and wraps it in the cache if there is one. */
    LanguageModel load(String id, GenerationCache cache, RunDirectory dir) {
        Resolved m = resolved.get(id);
        ModelSpec spec = m.spec();
        if (spec.oracle()) {
            OracleModel oracle = new OracleModel(OracleNoise.parse(spec.oracleNoise()), oracleKey, oracleDb.schema(),
                    oracleDb.dialect(), Pipelines.registry().oracleTeachers());
            log.println("model " + id + ": " + OracleModel.DISCLAIMER + " (noise " + spec.oracleNoise() + ")");
            Map<String, String> env = new LinkedHashMap<>();
            env.put("models." + id + ".engine", ModelSpec.ORACLE);
            env.put("models." + id + ".oracle_noise", spec.oracleNoise());
            env.put("models." + id + ".oracle", OracleModel.DISCLAIMER);
            RunEnvironment.addAbsent(dir, env);
            // never cached: its answers cost nothing and depend on the item, which a prompt-keyed cache does not see
            return oracle;
        }
        if (spec.served()) {
            OpenAiLanguageModel served = ServedModels.connect(id, spec.server());
            log.println("model " + id + ": " + served.name() + " served at " + served.endpoint().baseUrl()
                    + " (" + served.endpoint().api().label() + ", prompt format " + served.promptFormat().name()
                    + ", up to " + served.endpoint().maxConcurrent() + " requests in flight)");
            RunEnvironment.addAbsent(dir, ServedModels.environment(id, served));
            if (cache == null) return served;
            return cached(new CachedLanguageModel(served, served.identity(), "", cache));
        }
        ModelLoader.Loaded loaded = source.load(m.dir(), m.adapter(), plan.loadSpec(id), log);
        recordLoad(dir, id, loaded);
        if (TinyModels.randomWeights(m.dir())) {
            log.println("model " + id + ": RANDOM WEIGHTS (made by 'ladder model make-tiny'): its numbers test the "
                    + "path, they are not results");
            RunEnvironment.addAbsent(dir, Map.of("models." + id + ".weights", RANDOM_WEIGHTS));
        }
        LanguageModel model = loaded.model();
        if (cache == null) return model;
        // dtype and device change the numbers (f16 on a GPU, f32 on a CPU): part of the model's identity
        // the engine that loaded it, not the file's word for it: engine auto picks per machine, and the two engines'
        // numbers differ
        String cacheIdentity = m.modelPrint() + "/" + loaded.engine() + "/" + loaded.dtype() + "/"
                + loaded.device().type()
                + (m.adapter() != null && !spec.mergeBase().equals(ModelSpec.DEFAULT_MERGE_BASE) ? "/" + spec.mergeBase() : "");
        return cached(new CachedLanguageModel(model, cacheIdentity, m.adapterPrint(), cache));
    }

    private LanguageModel cached(CachedLanguageModel model) {
        cachedModels.add(model);
        return model;
    }

    /** Generation cache hits over every model this run loaded. */
    long cacheHits() {
        return cachedModels.stream().mapToLong(CachedLanguageModel::hits).sum();
    }

    long cacheMisses() {
        return cachedModels.stream().mapToLong(CachedLanguageModel::misses).sum();
    }

    /** environment.json's {@code models.ID.weights} for a model make-tiny made. */
    static final String RANDOM_WEIGHTS = "random (ladder model make-tiny): a test of the path, not a model result";

    /** Adds where and how a model was loaded to environment.json (the first start's values stay). */
    private static void recordLoad(RunDirectory dir, String id, ModelLoader.Loaded loaded) {
        Map<String, String> env = new TreeMap<>();
        String p = "models." + id + ".";
        env.put(p + "engine", loaded.engine());
        env.put(p + "device", loaded.device().label());
        env.put(p + "dtype", loaded.dtype());
        // on a CPU the thread count is part of how the numbers were made (another count sums in another order)
        if ("djl".equals(loaded.engine()) && !loaded.device().isGpu()) {
            env.put(p + "cpu_threads", Integer.toString(DjlLanguageModel.cpuThreads()));
            // the small-batch forms sum in another order than F.linear: which ones the load kept is part of it too
            if (loaded.model() instanceof DjlLanguageModel djl) {
                List<String> forms = djl.model().smallBatchPlan();
                env.put(p + "small_batch_forms", forms.isEmpty() ? "off" : String.join("; ", forms));
            }
        }
        if (loaded.report() != null && loaded.plan() != null) {
            env.put(p + "load_millis", Long.toString(loaded.report().millis()));
            env.put(p + "load_peak_anon_rss_bytes", Long.toString(loaded.report().peakAnonRssBytes()));
            env.put(p + "weight_bytes", Long.toString(loaded.report().weightBytes()));
            env.put(p + "load_warnings", Integer.toString(loaded.report().warnings().size()));
            env.put(p + "memory_plan_bytes", Long.toString(loaded.plan().totalBytes()));
            long budget = loaded.plan().budgetBytes();
            env.put(p + "memory_budget_bytes", budget == ModelLoader.UNKNOWN_BUDGET ? "unknown" : Long.toString(budget));
        }
        RunEnvironment.addAbsent(dir, env);
    }
}
