package dev.ladder.eval.engine.djl;

import dev.ladder.adapters.AdaptedModels;
import dev.ladder.adapters.AdapterException;
import dev.ladder.adapters.MergeBase;
import dev.ladder.adapters.PeftAdapter;
import dev.ladder.eval.experiment.ModelSpec;
import dev.ladder.eval.run.FolderEngine;
import dev.ladder.eval.run.ModelLoader;
import dev.ladder.inference.device.MemoryPlan;
import dev.ladder.inference.device.MemorySize;
import dev.ladder.inference.device.Placement;
import dev.ladder.inference.device.TorchSetupException;
import dev.ladder.inference.llm.DjlLanguageModel;
import dev.ladder.inference.llm.LlamaModel;
import dev.ladder.inference.llm.LoadReport;
import dev.ladder.inference.model.ModelException;
import dev.ladder.inference.model.Weights;
import dev.ladder.sql.db.UserError;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The djl engine: Ladder's own Llama forward on DJL's libtorch, on a CPU or CUDA, in f32, f16 or int8, with a PEFT
 * LoRA adapter merged at load time (into the base's own weights, or its NF4 round trip). The default engine.
 */
public final class DjlEngine extends FolderEngine {

    public static final String NAME = ModelSpec.DEFAULT_ENGINE;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int order() {
        return 10;
    }

    @Override
    public ModelLoader.Checked checkFolder(Path modelDir, Path adapter, ModelLoader.LoadSpec spec) {
        Placement device;
        try {
            device = spec.device().place();
        } catch (TorchSetupException e) {
            throw new UserError(e.getMessage(), e);
        }
        MemoryPlan plan = ModelLoader.plan(modelDir, spec, device);
        if (plan.budgetBytes() != ModelLoader.UNKNOWN_BUDGET && !plan.fits()) {
            throw new UserError(plan.refusal() + " (ladder model plan shows the numbers; --dtype, settings.candidates and"
                    + " settings.max_new_tokens change them)");
        }
        try (Weights weights = Weights.open(modelDir)) {
            if (weights.names().isEmpty()) throw new UserError("no tensors in the weights of " + modelDir);
        } catch (ModelException e) {
            throw new UserError(e.getMessage(), e);
        }
        if (adapter != null) {
            try (PeftAdapter peft = PeftAdapter.read(adapter)) {
                peft.validate(modelDir);
            } catch (AdapterException | ModelException e) {
                throw new UserError(e.getMessage(), e);
            }
        }
        return new ModelLoader.Checked(device, plan);
    }

    @Override
    public ModelLoader.Loaded loadFolder(Path modelDir, Path adapter, ModelLoader.LoadSpec spec, PrintWriter log,
                                         int maxBatchRows) {
        ModelLoader.Checked checked = checkFolder(modelDir, adapter, spec);
        Placement device = checked.device();
        MemoryPlan plan = checked.plan();
        String dtype = plan.request().format().cliName();
        LlamaModel.Options model = ModelLoader.engineOptions(dtype);
        DjlLanguageModel.Options base = DjlLanguageModel.Options.DEFAULT;
        DjlLanguageModel.Options options = new DjlLanguageModel.Options(model, maxBatchRows, base.prefillTokens(), base.threads());
        if (log != null) {
            log.println("loading " + modelDir + (adapter == null ? "" : " + adapter " + adapter
                    + (spec.mergeBase() == MergeBase.NF4 ? " (merged into the NF4 base)" : "")) + " on " + device.label()
                    + " as " + dtype + (spec.dtype().equals(dtype) ? "" : " (dtype " + spec.dtype() + ")")
                    + (plan.budgetBytes() != ModelLoader.UNKNOWN_BUDGET ? ", planned " + MemorySize.format(plan.totalBytes())
                    + " of " + MemorySize.format(plan.budgetBytes()) : "") + " ...");
            log.flush();
        }
        DjlLanguageModel lm;
        try {
            lm = adapter == null ? DjlLanguageModel.load(modelDir, device, options)
                    : AdaptedModels.load(modelDir, adapter, spec.mergeBase(), device, options);
        } catch (ModelException | AdapterException | TorchSetupException e) {
            throw new UserError(e.getMessage(), e);
        }
        LoadReport report = lm.model().loadReport();
        if (log != null) {
            log.printf(Locale.ROOT, "loaded in %.1f s (host memory +%s while loading)%n", report.millis() / 1e3,
                    MemorySize.format(Math.max(0, report.peakAnonRssAddedBytes())));
            report.warnings().forEach(w -> log.println("warning: " + w));
            log.flush();
        }
        return new ModelLoader.Loaded(lm, device, dtype, plan, report, NAME);
    }

    /**
     * Beside what every folder engine records: on a CPU the thread count, and which small-batch forms the load kept
     * (both change the order the numbers are summed in).
     */
    @Override
    protected Map<String, String> environment(ModelLoader.Loaded loaded) {
        Map<String, String> env = super.environment(loaded);
        if (!loaded.device().isGpu()) {
            env.put("cpu_threads", Integer.toString(DjlLanguageModel.cpuThreads()));
            if (loaded.model() instanceof DjlLanguageModel djl) {
                List<String> forms = djl.model().smallBatchPlan();
                env.put("small_batch_forms", forms.isEmpty() ? "off" : String.join("; ", forms));
            }
        }
        return env;
    }
}
