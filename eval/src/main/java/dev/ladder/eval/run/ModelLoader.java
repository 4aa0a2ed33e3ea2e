package dev.ladder.eval.run;

import dev.ladder.inference.device.Placement;
import dev.ladder.adapters.AdaptedModels;
import dev.ladder.adapters.AdapterException;
import dev.ladder.adapters.MergeBase;
import dev.ladder.adapters.PeftAdapter;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ModelSpec;
import dev.ladder.eval.experiment.RungSpec;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.device.DeviceChoice;
import dev.ladder.inference.device.DeviceKind;
import dev.ladder.inference.device.EngineLimits;
import dev.ladder.inference.device.MemoryPlan;
import dev.ladder.inference.device.MemoryRequest;
import dev.ladder.inference.device.MemorySize;
import dev.ladder.inference.device.TorchRuntime;
import dev.ladder.inference.device.TorchSetupException;
import dev.ladder.inference.device.WeightFormat;
import dev.ladder.inference.llm.DjlLanguageModel;
import dev.ladder.inference.llm.LlamaModel;
import dev.ladder.inference.llm.LoadReport;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.ModelException;
import dev.ladder.inference.model.Weights;
import dev.ladder.inference.onnx.OnnxExportFiles;
import dev.ladder.inference.onnx.OnnxLanguageModel;
import dev.ladder.inference.store.HubFailure;
import dev.ladder.inference.store.ModelStore;
import dev.ladder.inference.store.ProgressListener;
import dev.ladder.inference.store.StoreException;
import dev.ladder.pipeline.strategy.Strategies;
import dev.ladder.pipeline.strategy.Strategy;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * Turns a model reference of an experiment (directory or hub id, engine, dtype, optional adapter) into a loaded
 * {@link LanguageModel}. A hub id that is not pulled yet is pulled first (the main job on a machine with internet).
 */
public final class ModelLoader {

    private ModelLoader() {}

    /** The model directory for a path or hub id, pulling a hub id that is not in the store yet. */
    public static Path resolve(String pathOrId, PrintWriter log) {
        ModelStore store = ModelStore.fromEnvironment();
        try {
            return store.resolve(pathOrId);
        } catch (StoreException notThere) {
            if (Files.exists(Path.of(pathOrId)) || !pathOrId.matches("[A-Za-z0-9][\\w.-]*/[\\w.-]+(@[\\w./-]+)?")) {
                throw new UserError(notThere.getMessage());
            }
            int at = pathOrId.indexOf('@');
            String repo = at < 0 ? pathOrId : pathOrId.substring(0, at);
            String rev = at < 0 ? ModelStore.DEFAULT_REVISION : pathOrId.substring(at + 1);
            log.println("pulling " + repo + "@" + rev + " from " + store.endpoint() + " ...");
            log.flush();
            try {
                // the shards of an array sharing the store pull in turn: the first downloads, the others find it there
                return store.pull(repo, rev, new ProgressListener() {
                    @Override
                    public void waiting(String repoId, String revision) {
                        log.println("another process is pulling " + repoId + "@" + revision + " into " + store.modelsDir()
                                + "; waiting for it");
                        log.flush();
                    }
                });
            } catch (IOException | StoreException e) {
                String cause = e instanceof IOException io ? HubFailure.of(io, store.endpoint()).cause() : e.getMessage();
                throw new UserError("model '" + pathOrId + "' is not in the store (" + store.modelsDir()
                        + ") and could not be pulled: " + cause + "; offline, pass --model DIR with a local model"
                        + " directory (a Hugging Face cache snapshot folder works too; to check the whole path without"
                        + " one: ladder model make-tiny DIR makes a random-weight model; README, offline)");
            }
        }
    }

    /**
     * How to load a model: engine, dtype ({@code auto}, {@code f32}, {@code f16}, {@code int8}), device and, for a
     * model with an adapter, the merge base.
     */
    public record LoadSpec(String engine, String dtype, DeviceChoice device, MergeBase mergeBase, Workload workload) {
        public static LoadSpec of(ModelSpec spec, Workload workload) {
            return new LoadSpec(spec.engine(), spec.dtype(), DeviceChoice.parse(spec.device(), "device"),
                    MergeBase.valueOf(spec.mergeBase().toUpperCase(Locale.ROOT)), workload);
        }
    }

    /**
     * Prompt tokens a memory plan allows for. The ladder's prompts on ClassicModels are at most 640 Llama-3 tokens
     * (k = 3, train split; k = 0: 510); the tabular and repair prompts add a few hundred.
     */
    public static final int PROMPT_BUDGET = 1024;

    /**
     * What a model will be asked to hold at once, for its memory plan: candidate rows decoded together and tokens per
     * row (prompt and new tokens).
     */
    public record Workload(int rows, int context) {
        public Workload {
            if (rows < 1 || context < 2) throw new IllegalArgumentException("rows >= 1 and context >= 2: " + rows + ", " + context);
        }

        /**
         * The largest call the strategies make: one greedy row for the prompt rungs and agent-0/1; from agent-2 on
         * the standard prompt, the tabular one (when on) and {@code candidates} samples together.
         *
         * @param maxNewTokens the largest token budget any of their calls asks for ({@link Strategy#tokenBudget})
         */
        public static Workload of(Collection<String> strategies, int candidates, boolean tabular, int maxNewTokens) {
            boolean sampled = strategies.stream().anyMatch(s -> s.matches("agent-[2-9]"));
            int rows = sampled ? 1 + (tabular ? 1 : 0) + candidates : 1;
            return new Workload(Math.min(rows, DjlLanguageModel.Options.DEFAULT.maxBatchRows()), PROMPT_BUDGET + maxNewTokens);
        }

        /** This workload, with room for a call that asks for {@code tokens} new tokens. */
        public Workload withBudget(int tokens) {
            return new Workload(rows, Math.max(context, PROMPT_BUDGET + tokens));
        }

        /**
         * The largest call the given rungs of an experiment make (every rung on one model: the runner's plan): the
         * token budget is the largest any call of any of them asks for, a pipeline's own budgets included.
         */
        public static Workload of(Experiment experiment,
                                  List<RungSpec> rungs) {
            List<String> strategies = rungs.stream().map(RungSpec::strategy).toList();
            int candidates = rungs.stream().mapToInt(r -> experiment.settingsOf(r).candidates()).max().orElse(0);
            boolean tabular = rungs.stream().anyMatch(r -> experiment.settingsOf(r).tabularPrompt());
            int maxNewTokens = rungs.stream()
                    .mapToInt(r -> Strategies.byName(r.strategy()).tokenBudget(experiment.settingsOf(r)))
                    .max().orElse(1);
            return of(strategies, candidates, tabular, maxNewTokens);
        }
    }

    /**
     * A loaded model, where it runs, the dtype {@code auto} resolved to, its memory plan, and what loading took (time,
     * peak host memory, warnings such as weights clamped to the f16 range).
     */
    public record Loaded(LanguageModel model, Placement device, String dtype, MemoryPlan plan, LoadReport report) {
        /** The engine that loaded it: the onnx engine has no load report (its runtime reads the export itself). */
        public String engine() {
            return report == null ? ONNX : "djl";
        }
    }

    /**
     * Resolves the device and dtype, says on {@code log} what it loads where (before loading, so a slow or failing
     * load is attributable), loads, and says how long it took.
     *
     * @param adapter a PEFT LoRA directory merged at load time, or null
     * @param log     where the two lines go, or null for none
     * @throws UserError for an unknown engine or dtype, a device the loaded libtorch cannot serve, or a bad model
     */
    public static Loaded load(Path modelDir, Path adapter, LoadSpec spec, PrintWriter log) {
        return load(modelDir, adapter, spec, log, DjlLanguageModel.Options.DEFAULT.maxBatchRows());
    }

    /**
     * As {@link #load(Path, Path, LoadSpec, PrintWriter)}, with the engine decoding up to {@code maxBatchRows}
     * candidate rows together (ladder serve's {@code --max-batch-rows}; the default elsewhere).
     */
    public static Loaded load(Path modelDir, Path adapter, LoadSpec given, PrintWriter log, int maxBatchRows) {
        LoadSpec spec = concrete(modelDir, adapter, given);
        if (ONNX.equals(spec.engine())) return loadOnnx(modelDir, adapter, spec, log, maxBatchRows);
        Checked checked = check(modelDir, adapter, spec);
        Placement device = checked.device();
        MemoryPlan plan = checked.plan();
        String dtype = plan.request().format().cliName();
        LlamaModel.Options model = engineOptions(dtype);
        DjlLanguageModel.Options base = DjlLanguageModel.Options.DEFAULT;
        DjlLanguageModel.Options options = new DjlLanguageModel.Options(model, maxBatchRows, base.prefillTokens(), base.threads());
        if (log != null) {
            log.println("loading " + modelDir + (adapter == null ? "" : " + adapter " + adapter
                    + (spec.mergeBase() == MergeBase.NF4 ? " (merged into the NF4 base)" : "")) + " on " + device.label()
                    + " as " + dtype + (spec.dtype().equals(dtype) ? "" : " (dtype " + spec.dtype() + ")")
                    + (plan.budgetBytes() != UNKNOWN_BUDGET ? ", planned " + MemorySize.format(plan.totalBytes()) + " of "
                    + MemorySize.format(plan.budgetBytes()) : "") + " ...");
            log.flush();
        }
        DjlLanguageModel lm;
        try {
            lm = adapter == null ? DjlLanguageModel.load(modelDir, device, options)
                    : AdaptedModels.load(modelDir, adapter, spec.mergeBase(), device, options);
        } catch (ModelException | AdapterException e) {
            throw new UserError(e.getMessage(), e);
        } catch (TorchSetupException e) {
            throw new UserError(e.getMessage(), e);
        }
        LoadReport report = lm.model().loadReport();
        if (log != null) {
            log.printf(Locale.ROOT, "loaded in %.1f s (host memory +%s while loading)%n", report.millis() / 1e3,
                    MemorySize.format(Math.max(0, report.peakAnonRssAddedBytes())));
            report.warnings().forEach(w -> log.println("warning: " + w));
            log.flush();
        }
        return new Loaded(lm, device, dtype, plan, report);
    }

    /**
     * The djl engine's weight options for a dtype as users write it: {@code auto} (f32 on a CPU, f16 on a GPU),
     * {@code f32}, {@code f16}, or {@code int8} (int8 linear layers, computing as {@code auto}).
     *
     * @throws UserError for another value
     */
    public static LlamaModel.Options engineOptions(String dtype) {
        return switch (dtype.strip().toLowerCase(Locale.ROOT)) {
            case "auto" -> LlamaModel.Options.DEFAULT;
            case "f32" -> new LlamaModel.Options(LlamaModel.Precision.FLOAT32, false, 0);
            case "f16" -> new LlamaModel.Options(LlamaModel.Precision.FLOAT16, false, 0);
            case "int8" -> new LlamaModel.Options(LlamaModel.Precision.AUTO, true, 0);
            default -> throw new UserError("--dtype must be auto, f32, f16 or int8, got '" + dtype + "'");
        };
    }

    /**
     * Everything that can refuse a load, without loading: the device (cuda on a libtorch without CUDA), the dtype, the
     * memory plan, the weight files (every safetensors header, and every tensor within its file: a truncated download
     * is found here) and the adapter against its base. Callers that make files (a run directory) check every model
     * first, so that a model that cannot load never leaves a half-made run behind.
     *
     * @param adapter a PEFT adapter to merge, or null
     * @throws UserError naming what does not fit and what would, or the file that is wrong
     */
    public static Checked check(Path modelDir, Path adapter, LoadSpec given) {
        LoadSpec spec = concrete(modelDir, adapter, given);
        if (ONNX.equals(spec.engine())) return checkOnnx(modelDir, adapter, spec);
        if (!"djl".equals(spec.engine())) {
            throw new UserError("engine '" + spec.engine() + "' is not available for experiments (use auto, djl or onnx)");
        }
        Placement device;
        try {
            device = spec.device().place();
        } catch (TorchSetupException e) {
            throw new UserError(e.getMessage(), e);
        }
        MemoryPlan plan = plan(modelDir, spec, device);
        if (plan.budgetBytes() != UNKNOWN_BUDGET && !plan.fits()) {
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
        return new Checked(device, plan);
    }

    /**
     * {@code engine: auto} made concrete: the onnx engine where the folder holds an ONNX decoder export and the model
     * runs on the CPU as its export is (no adapter to merge, dtype auto), because there it decodes 1.7 to 2.9 times as
     * fast as the djl engine (docs/inference.md), and for a folder holding an export and no safetensors; djl everywhere
     * else (on CUDA, with an adapter, with a djl dtype, or without an export). Any other engine is returned as given.
     */
    public static LoadSpec concrete(Path modelDir, Path adapter, LoadSpec spec) {
        if (!ModelSpec.AUTO.equals(spec.engine())) return spec;
        return new LoadSpec(engineFor(modelDir, adapter, spec.dtype(), spec.device()), spec.dtype(), spec.device(),
                spec.mergeBase(), spec.workload());
    }

    /** The engine {@code auto} means for a model folder, adapter (or null), dtype and device: see {@link #concrete}. */
    public static String engineFor(Path modelDir, Path adapter, String dtype, DeviceChoice device) {
        if (!OnnxExportFiles.present(modelDir)) return "djl";
        // an export alone is the onnx engine's whatever else is asked (its own checks then refuse an adapter or dtype)
        if (!hasSafetensors(modelDir)) return ONNX;
        return adapter == null && "auto".equalsIgnoreCase(dtype.strip()) && !onGpu(device) ? ONNX : "djl";
    }

    private static boolean hasSafetensors(Path modelDir) {
        try (var files = Files.list(modelDir)) {
            return files.anyMatch(f -> f.getFileName().toString().endsWith(".safetensors"));
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether a device choice lands on a GPU ({@code auto}: when the loaded libtorch has CUDA and sees one). */
    private static boolean onGpu(DeviceChoice device) {
        if (device.kind() == DeviceChoice.Kind.CUDA) return true;
        if (device.kind() == DeviceChoice.Kind.CPU) return false;
        try {
            return device.place().isGpu();
        } catch (TorchSetupException e) {
            return false; // no usable libtorch: the CPU, where the djl engine's own check then says what is wrong
        }
    }

    /** The device a load resolved to and its memory plan (whose request holds the weight format). */
    /** @param plan the memory plan (null for the onnx engine, whose export fixes its precision) */
    public record Checked(Placement device, MemoryPlan plan) {}

    public static final String ONNX = "onnx";

    /** The onnx engine's checks: no adapter, a CPU or CUDA device, a folder with a decoder export. */
    private static Checked checkOnnx(Path modelDir, Path adapter, LoadSpec spec) {
        if (adapter != null) {
            throw new UserError("engine onnx takes no adapter: merge it first and export the merged model (docs/onnx.md)");
        }
        // auto is the CPU: the CUDA provider needs the onnxruntime_gpu jar (docs/onnx.md), so a GPU is asked for by name
        Placement device = spec.device().kind() == DeviceChoice.Kind.CUDA ? Placement.gpu(spec.device().index()) : Placement.cpu();
        try {
            OnnxLanguageModel.check(modelDir);
        } catch (ModelException e) {
            throw new UserError(e.getMessage(), e);
        }
        return new Checked(device, null);
    }

    private static Loaded loadOnnx(Path modelDir, Path adapter, LoadSpec spec, PrintWriter log, int maxBatchRows) {
        Checked checked = checkOnnx(modelDir, adapter, spec);
        boolean cuda = checked.device().isGpu();
        if (log != null) {
            log.println("loading " + modelDir + " with ONNX Runtime on " + (cuda ? "cuda" : "cpu") + " ...");
            log.flush();
        }
        long t0 = System.nanoTime();
        OnnxLanguageModel lm;
        try {
            lm = OnnxLanguageModel.load(modelDir,
                    new OnnxLanguageModel.Options(maxBatchRows, 0, cuda));
        } catch (ModelException e) {
            throw new UserError(e.getMessage(), e);
        }
        if (log != null) {
            log.printf(Locale.ROOT, "loaded (%s layout) in %.1f s%n", lm.layout(), (System.nanoTime() - t0) / 1e9);
            log.flush();
        }
        return new Loaded(lm, checked.device(), "export", null, null);
    }

    /**
     * The memory plan of the load: the budget is the GPU's memory (as CUDA reports it) or the host's; {@code auto}
     * resolves through {@link MemoryPlan#autoFormat} (f32 on a CPU; f16 on a GPU, int8 on one under 20 GB where f16
     * does not fit). A budget that cannot be read is {@link #UNKNOWN_BUDGET}: the plan is then never enforced.
     *
     * @throws UserError for an unknown dtype or an unreadable config.json
     */
    static MemoryPlan plan(Path modelDir, LoadSpec spec, Placement device) {
        ModelConfig config;
        try {
            config = ModelConfig.read(modelDir);
        } catch (ModelException e) {
            throw new UserError(e.getMessage(), e);
        }
        DeviceKind kind = device.isGpu() ? DeviceKind.CUDA : DeviceKind.CPU;
        long budget = device.isGpu() ? gpuMemory(device) : Math.max(0, MemorySize.physicalMemory());
        int context = Math.min(spec.workload().context(), EngineLimits.defaultContext(config));
        int rows = spec.workload().rows();
        int prefill = DjlLanguageModel.Options.DEFAULT.prefillTokens();
        String d = spec.dtype().toLowerCase(Locale.ROOT);
        WeightFormat format = switch (d) {
            case "f32", "f16", "int8" -> WeightFormat.parse(d);
            case "auto" -> budget > 0 ? MemoryPlan.autoFormat(config, kind, budget, rows, context, prefill)
                    : kind == DeviceKind.CUDA ? WeightFormat.F16 : WeightFormat.F32;
            default -> throw new UserError("unknown dtype '" + spec.dtype() + "' (use auto, f32, f16 or int8)");
        };
        String name = String.valueOf(modelDir.toAbsolutePath().normalize().getFileName());
        return MemoryPlan.of(name, config, new MemoryRequest(format, kind, rows, context, prefill),
                budget > 0 ? budget : UNKNOWN_BUDGET);
    }

    /** The budget of a plan whose device memory could not be read: it always fits, and is never enforced. */
    static final long UNKNOWN_BUDGET = Long.MAX_VALUE;

    private static long gpuMemory(Placement device) {
        for (TorchRuntime.Gpu g : TorchRuntime.info().gpus()) {
            if (g.index() == device.index()) return Math.max(0, g.totalBytes());
        }
        return 0;
    }
}
