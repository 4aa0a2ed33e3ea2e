package dev.ladder.eval.run;

import dev.ladder.eval.experiment.ModelSpec;
import dev.ladder.inference.engine.BatchWidth;
import dev.ladder.inference.engine.Engine;
import dev.ladder.inference.engine.EngineContext;
import dev.ladder.inference.engine.EngineLoad;
import dev.ladder.inference.engine.Engines;
import dev.ladder.inference.engine.ModelFields;
import dev.ladder.inference.engine.ModelIdentity;
import dev.ladder.inference.llm.DjlLanguageModel;
import dev.ladder.sql.db.UserError;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * An engine that runs a model folder in this process (djl, onnx, and {@code auto} that picks between them): the
 * folder found (a hub id pulled by a run), fingerprinted, checked and loaded through {@link ModelLoader}'s
 * {@link ModelLoader.LoadSpec}. A subclass says how it checks and loads a folder; the rest is here once.
 */
public abstract class FolderEngine implements Engine {

    /** The fields of a model in a folder. */
    public static final List<String> FIELDS = List.of("path", "adapter", "dtype", "device", "merge_base", BatchWidth.FIELD);

    /** How a model's path becomes its folder: a run pulls a hub id not in the store yet; a command only looks there. */
    @FunctionalInterface
    public interface Locator {
        Path folder(String pathOrId, PrintWriter log);
    }

    /** How many candidate rows one batch decodes together ({@code ladder serve --max-batch-rows}). */
    public record BatchRows(int rows) {}

    @Override
    public List<String> fields() {
        return FIELDS;
    }

    /** A merge base other than the base's own weights is what an adapter is merged into: without one it means nothing. */
    @Override
    public void check(ModelFields model) {
        String mergeBase = model.get("merge_base", ModelSpec.DEFAULT_MERGE_BASE).strip().toLowerCase(Locale.ROOT);
        if (model.get("adapter") == null && !mergeBase.equals(ModelSpec.DEFAULT_MERGE_BASE)) {
            throw model.refuse("merge_base", "merge_base " + mergeBase + " applies to an adapter; this model has none");
        }
    }

    /**
     * Everything that can refuse loading this folder without loading it (device, memory plan, weight files, adapter).
     *
     * @throws dev.ladder.sql.db.UserError naming what does not fit or which file is wrong
     */
    public abstract ModelLoader.Checked checkFolder(Path dir, Path adapter, ModelLoader.LoadSpec spec);

    /** Loads the folder, saying on {@code log} (if not null) what it loads where and how long it took. */
    public abstract ModelLoader.Loaded loadFolder(Path dir, Path adapter, ModelLoader.LoadSpec spec, PrintWriter log,
                                                  int maxBatchRows);

    @Override
    public ModelIdentity identify(ModelFields model, EngineContext context) {
        Locator locator = context.fact(Locator.class).orElse(ModelLoader::resolve);
        Path dir = locator.folder(model.get("path"), context.log());
        String adapter = model.get("adapter");
        return new ModelIdentity(dir, adapter == null ? null : Path.of(adapter), Fingerprints.ofDirectory(dir),
                adapter == null ? "" : Fingerprints.ofDirectory(Path.of(adapter)));
    }

    /**
     * The model's {@code batch_width}, or for {@code auto}: on a GPU the widest of 16, 8, 4 and 2 whose merged batch
     * (the workload's rows times the width, at most the engine's batch rows) fits the memory plan in the precision
     * one item alone would get, else 1; on a CPU {@link BatchWidth#CPU} where it fits (halved until it does).
     */
    @Override
    public int batchWidth(ModelFields model, ModelIdentity identity, EngineContext context) {
        int asked = BatchWidth.asked(model);
        if (asked > 0) return asked;
        ModelLoader.LoadSpec spec = spec(model, context);
        ModelLoader.Checked alone = checkFolder(identity.dir(), identity.adapter(), spec);
        // the precision stays what one item would get: a wider batch never turns f16 into int8
        ModelLoader.LoadSpec pinned = alone.plan() == null ? spec : spec.withDtype(alone.plan().request().format().cliName());
        for (int w = alone.device().isGpu() ? BatchWidth.GPU : BatchWidth.CPU; w > 1; w /= 2) {
            if (fits(identity, pinned.withWorkload(spec.workload().forItems(w)))) return w;
        }
        return 1;
    }

    private boolean fits(ModelIdentity identity, ModelLoader.LoadSpec spec) {
        try {
            ModelLoader.Checked c = checkFolder(identity.dir(), identity.adapter(), spec);
            return c.plan() == null || c.plan().budgetBytes() == ModelLoader.UNKNOWN_BUDGET || c.plan().fits();
        } catch (UserError tooBig) {
            return false;
        }
    }

    @Override
    public void preflight(ModelFields model, ModelIdentity identity, EngineContext context) {
        checkFolder(identity.dir(), identity.adapter(), spec(model, context));
    }

    /**
     * Loads through the run's {@link ExperimentRunner.ModelSource} when the context has one (tests count loads there),
     * else directly; a caller that needs no fingerprint (a command) gives no identity, and the folder is found here.
     */
    @Override
    public EngineLoad load(ModelFields model, ModelIdentity given, EngineContext context) {
        ModelIdentity identity = given != null ? given : identify(model, context);
        ModelLoader.LoadSpec spec = spec(model, context);
        int rows = context.fact(BatchRows.class).map(BatchRows::rows).orElse(DjlLanguageModel.Options.DEFAULT.maxBatchRows());
        ModelLoader.Loaded loaded = context.fact(ExperimentRunner.ModelSource.class)
                .map(s -> s.load(identity.dir(), identity.adapter(), spec, context.log()))
                .orElseGet(() -> ModelLoader.load(identity.dir(), identity.adapter(), spec, context.log(), rows));
        String mergeBase = model.get("merge_base", ModelSpec.DEFAULT_MERGE_BASE);
        // dtype and device change the numbers (f16 on a GPU, f32 on a CPU), and so does the engine that loaded it (not
        // the file's word for it: auto picks per machine): all part of the model's identity in the cache
        String cacheIdentity = identity.modelPrint() + "/" + loaded.engine() + "/" + loaded.dtype() + "/"
                + loaded.device().type()
                + (identity.adapter() != null && !mergeBase.equals(ModelSpec.DEFAULT_MERGE_BASE) ? "/" + mergeBase : "");
        FolderEngine loader = Engines.registry().find(loaded.engine()).filter(FolderEngine.class::isInstance)
                .map(FolderEngine.class::cast).orElse(this);
        return new EngineLoad(loaded.model(), loaded.engine(), loaded.dtype(), loaded.device().label(),
                loader.environment(loaded), cacheIdentity);
    }

    /**
     * What environment.json records of a load, keys relative to {@code models.ID.}: engine, device and dtype, and what
     * loading took where the engine reports it. The engine of the load (for auto, the one picked) says the rest.
     */
    protected Map<String, String> environment(ModelLoader.Loaded loaded) {
        Map<String, String> env = new TreeMap<>();
        env.put("engine", loaded.engine());
        env.put("device", loaded.device().label());
        env.put("dtype", loaded.dtype());
        if (loaded.report() != null && loaded.plan() != null) {
            env.put("load_millis", Long.toString(loaded.report().millis()));
            env.put("load_peak_anon_rss_bytes", Long.toString(loaded.report().peakAnonRssBytes()));
            env.put("weight_bytes", Long.toString(loaded.report().weightBytes()));
            env.put("load_warnings", Integer.toString(loaded.report().warnings().size()));
            env.put("memory_plan_bytes", Long.toString(loaded.plan().totalBytes()));
            long budget = loaded.plan().budgetBytes();
            env.put("memory_budget_bytes", budget == ModelLoader.UNKNOWN_BUDGET ? "unknown" : Long.toString(budget));
        }
        return env;
    }

    /** How to load the model: its fields, with the workload the caller plans for (a small one where it says none). */
    static ModelLoader.LoadSpec spec(ModelFields model, EngineContext context) {
        ModelLoader.Workload workload = context.fact(ModelLoader.Workload.class)
                .orElse(new ModelLoader.Workload(1, ModelLoader.PROMPT_BUDGET));
        return ModelLoader.LoadSpec.of(model, workload);
    }
}
