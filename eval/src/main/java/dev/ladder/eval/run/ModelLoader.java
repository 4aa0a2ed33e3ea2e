package dev.ladder.eval.run;

import dev.ladder.inference.device.Placement;
import dev.ladder.adapters.MergeBase;
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
import dev.ladder.inference.device.WeightFormat;
import dev.ladder.inference.engine.Engines;
import dev.ladder.inference.engine.ModelFields;
import dev.ladder.inference.llm.DjlLanguageModel;
import dev.ladder.inference.llm.LlamaModel;
import dev.ladder.inference.llm.LoadReport;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.ModelException;
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

        public LoadSpec withDtype(String d) {
            return new LoadSpec(engine, d, device, mergeBase, workload);
        }

        public LoadSpec withWorkload(Workload w) {
            return new LoadSpec(engine, dtype, device, mergeBase, w);
        }

        /** How to load a model as an experiment or a command's flags give it (their values checked already). */
        public static LoadSpec of(ModelFields model, Workload workload) {
            return new LoadSpec(model.engine(), model.get("dtype", ModelSpec.DEFAULT_DTYPE),
                    DeviceChoice.parse(model.get("device", ModelSpec.DEFAULT_DEVICE), "device"),
                    MergeBase.valueOf(model.get("merge_base", ModelSpec.DEFAULT_MERGE_BASE).strip()
                            .toUpperCase(Locale.ROOT)), workload);
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

        /**
         * This workload for {@code width} items answered together ({@code batch_width}): their calls merged into one,
         * which the engine decodes in batches of at most its batch rows.
         */
        public Workload forItems(int width) {
            long merged = (long) rows * width;
            return new Workload((int) Math.min(merged, DjlLanguageModel.Options.DEFAULT.maxBatchRows()), context);
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
     * A loaded model, where it runs, the dtype {@code auto} resolved to, its memory plan and what loading took (time,
     * peak host memory, warnings such as weights clamped to the f16 range: null for an engine that reports none), and
     * the engine that loaded it.
     */
    public record Loaded(LanguageModel model, Placement device, String dtype, MemoryPlan plan, LoadReport report,
                         String engine) {}

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
    public static Loaded load(Path modelDir, Path adapter, LoadSpec spec, PrintWriter log, int maxBatchRows) {
        return folderEngine(spec.engine()).loadFolder(modelDir, adapter, spec, log, maxBatchRows);
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
     * is found here) and the adapter against its base; each engine's own refusals. Callers that make files (a run
     * directory) check every model first, so that a model that cannot load never leaves a half-made run behind.
     *
     * @param adapter a PEFT adapter to merge, or null
     * @throws UserError naming what does not fit and what would, or the file that is wrong
     */
    public static Checked check(Path modelDir, Path adapter, LoadSpec spec) {
        return folderEngine(spec.engine()).checkFolder(modelDir, adapter, spec);
    }

    /**
     * The engine of a name that loads model folders in this process.
     *
     * @throws UserError for an engine that does not (a served model, the oracle) or that no one registered
     */
    static FolderEngine folderEngine(String name) {
        Engines engines = Engines.registry();
        List<String> folderEngines = engines.names().stream().filter(n -> engines.byName(n) instanceof FolderEngine).toList();
        return engines.find(name).filter(FolderEngine.class::isInstance).map(FolderEngine.class::cast)
                .orElseThrow(() -> new UserError("engine '" + name + "' is not available for experiments (use "
                        + String.join(", ", folderEngines) + ")"));
    }

    /** The device a load resolved to and its memory plan (whose request holds the weight format). */
    /** @param plan the memory plan (null for the onnx engine, whose export fixes its precision) */
    public record Checked(Placement device, MemoryPlan plan) {}

    /**
     * The memory plan of the load: the budget is the GPU's memory (as CUDA reports it) or the host's; {@code auto}
     * resolves through {@link MemoryPlan#autoFormat} (f32 on a CPU; f16 on a GPU, int8 on one under 20 GB where f16
     * does not fit). A budget that cannot be read is {@link #UNKNOWN_BUDGET}: the plan is then never enforced.
     *
     * @throws UserError for an unknown dtype or an unreadable config.json
     */
    public static MemoryPlan plan(Path modelDir, LoadSpec spec, Placement device) {
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
    public static final long UNKNOWN_BUDGET = Long.MAX_VALUE;

    private static long gpuMemory(Placement device) {
        for (TorchRuntime.Gpu g : TorchRuntime.info().gpus()) {
            if (g.index() == device.index()) return Math.max(0, g.totalBytes());
        }
        return 0;
    }
}
