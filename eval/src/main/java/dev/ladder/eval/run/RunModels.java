package dev.ladder.eval.run;

import dev.ladder.eval.experiment.ModelSpec;
import dev.ladder.eval.experiment.RungSpec;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.engine.BatchWidth;
import dev.ladder.inference.engine.Engine;
import dev.ladder.inference.engine.EngineContext;
import dev.ladder.inference.engine.EngineLoad;
import dev.ladder.inference.engine.Engines;
import dev.ladder.inference.engine.ModelFields;
import dev.ladder.inference.engine.ModelIdentity;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.pipeline.oracle.engine.OracleEngine;
import dev.ladder.pipeline.oracle.OracleScope;
import dev.ladder.sql.db.UserError;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The run's models: resolved and fingerprinted by their engines before any work, their fingerprints held against the
 * run's, loaded one at a time when their cells run, wrapped in the generation cache whose hits and misses the run
 * reports. Which engine does what is the engine's: nothing here names one.
 */
final class RunModels {

    /**
     * A model of the experiment, resolved to what runs it and fingerprinted; a model with no files here (a served one,
     * the oracle) has no {@code dir}, and its print says what it is.
     */
    record Resolved(ModelSpec spec, Path dir, Path adapter, String modelPrint, String adapterPrint, int batchWidth) {
        ModelIdentity identity() {
            return new ModelIdentity(dir, adapter, modelPrint, adapterPrint);
        }
    }

    /** What an oracle's fingerprint starts with (its noise follows). */
    static final String ORACLE_PRINT = OracleEngine.PRINT;

    private final RunPlan plan;
    private final PrintWriter log;
    private final ExperimentRunner.ModelSource source;
    private final Map<String, Resolved> resolved;
    /** Every cached model this run loaded (closed ones too), for the hit and miss counts. */
    private final List<CachedLanguageModel> cachedModels = new ArrayList<>();

    private RunModels(RunPlan plan, PrintWriter log, ExperimentRunner.ModelSource source, Map<String, Resolved> resolved) {
        this.plan = plan;
        this.log = log;
        this.source = source;
        this.resolved = resolved;
    }

    /**
     * Resolves (pulling a hub id if need be) and fingerprints every model a runnable cell uses, before any work: the
     * files that produced a run's rows are part of its identity, and resuming on changed weights would mix models.
     * Then checks that each model can run here (device, memory plan, the engine's refusals): a model that cannot is
     * one line.
     */
    static RunModels resolve(RunPlan plan, PrintWriter log, ExperimentRunner.ModelSource source) {
        Map<String, ModelIdentity> identified = new LinkedHashMap<>();
        for (String id : plan.modelIds()) {
            ModelSpec spec = plan.experiment().models().get(id);
            if (spec.adapterMissing() || identified.containsKey(id)) continue;
            identified.put(id, engine(spec).identify(spec.fields(id), context(plan, id, log, source, null, 1)));
        }
        Map<String, Resolved> out = new LinkedHashMap<>();
        identified.forEach((id, identity) -> {
            ModelSpec spec = plan.experiment().models().get(id);
            Engine engine = engine(spec);
            ModelFields fields = spec.fields(id);
            // an override (ladder run --engine onnx) can give a model an engine that refuses what the file says
            engine.check(fields);
            // a served model's requests in flight are its max_concurrent, batched by its server
            int width = spec.served() ? 1 : engine.batchWidth(fields, identity, context(plan, id, log, source, null, 1));
            engine.preflight(fields, identity, context(plan, id, log, source, null, width));
            out.put(id, new Resolved(spec, identity.dir(), identity.adapter(), identity.modelPrint(), identity.adapterPrint(),
                    width));
        });
        return new RunModels(plan, log, source, out);
    }

    /** The engine of a model. */
    static Engine engine(ModelSpec spec) {
        return Engines.registry().find(spec.engine())
                .orElseThrow(() -> new UserError("engine '" + spec.engine() + "' is not registered; known: "
                        + String.join(", ", Engines.registry().names())));
    }

    /**
     * What a run's engines may ask for: the workload of the model's rungs ({@code width} items' calls merged), the test
     * hook, the scope's oracle key.
     */
    private static EngineContext context(RunPlan plan, String id, PrintWriter log, ExperimentRunner.ModelSource source,
                                         OracleScope scope, int width) {
        return EngineContext.of(id, log, plan.loadSpec(id).workload().forItems(width), source, scope,
                plan.experiment().models().get(id).server());
    }

    /**
     * How many items of a cell answer together on the model, their calls merged round by round ({@link ItemRounds}):
     * its {@code batch_width}, or what its engine chose for {@code auto}; 1 for a served model.
     */
    int batchWidth(String id) {
        return resolved.get(id).batchWidth();
    }

    Map<String, Resolved> resolved() {
        return resolved;
    }

    boolean has(String id) {
        return resolved.containsKey(id);
    }

    /**
     * Whether a model answers for one database scope only (the oracle): loaded again for each scope, where any other
     * model is loaded once and shared by every scope.
     */
    boolean perScope(String id) {
        return engine(resolved.get(id).spec()).perScope();
    }

    /** Why a rung does not run, or null when it does (its model resolved). */
    String skipReason(RungSpec rung) {
        if (resolved.containsKey(rung.model())) return null;
        ModelSpec m = plan.experiment().modelOf(rung);
        return m.adapterMissing() ? "no PEFT adapter at " + m.adapter() + " (models." + rung.model() + ".adapter)"
                : "model " + rung.model() + " was not loaded";
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

    /**
     * Loads a resolved model with its engine, records where and how in environment.json, and wraps it in the cache if
     * there is one and the engine's answers may be cached.
     *
     * @param oracle what the oracle engine answers from in the database scope this load serves (other engines ignore
     *               it); a real model is loaded once and shared, the oracle once per scope ({@link #perScope})
     */
    LanguageModel load(String id, GenerationCache cache, RunDirectory dir, OracleScope oracle) {
        Resolved m = resolved.get(id);
        EngineLoad loaded = engine(m.spec()).load(m.spec().fields(id), m.identity(),
                context(plan, id, log, source, oracle, m.batchWidth()));
        Map<String, String> env = new TreeMap<>();
        loaded.environment().forEach((k, v) -> env.put("models." + id + "." + k, v));
        // what auto resolved to on this machine (the file's value, if any, is in config.yaml)
        if (!m.spec().served()) {
            String key = "models." + id + "." + BatchWidth.FIELD;
            String first = RunEnvironment.read(dir).get(key);
            if (first != null && !first.equals(Integer.toString(m.batchWidth()))) {
                log.println("warning: model " + id + " answers " + m.batchWidth() + " items together here, " + first
                        + " at the run's first start: items resumed now meet other neighbours in the engine's batches"
                        + " (set models." + id + "." + BatchWidth.FIELD + " or --batch-width to keep one width)");
            }
            env.put(key, Integer.toString(m.batchWidth()));
        }
        RunEnvironment.addAbsent(dir, env);
        if (m.dir() != null && TinyModels.randomWeights(m.dir())) {
            log.println("model " + id + ": RANDOM WEIGHTS (made by 'ladder model make-tiny'): its numbers test the "
                    + "path, they are not results");
            RunEnvironment.addAbsent(dir, Map.of("models." + id + ".weights", RANDOM_WEIGHTS));
        }
        LanguageModel model = loaded.model();
        // never cached where the engine says so (the oracle: its answers depend on the item, which the cache does not see)
        if (cache == null || loaded.cacheIdentity() == null) return model;
        return cached(new CachedLanguageModel(model, loaded.cacheIdentity(), m.adapterPrint(), cache));
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
}
