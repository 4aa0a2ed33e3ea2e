package dev.ladder.eval.run;

import ai.djl.Device;
import dev.ladder.adapters.AdaptedModels;
import dev.ladder.adapters.AdapterException;
import dev.ladder.adapters.MergeBase;
import dev.ladder.eval.experiment.ModelSpec;
import dev.ladder.inference.device.DeviceChoice;
import dev.ladder.inference.device.TorchSetupException;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.llm.DjlLanguageModel;
import dev.ladder.inference.llm.LlamaModel;
import dev.ladder.inference.model.ModelException;
import dev.ladder.inference.store.ModelStore;
import dev.ladder.inference.store.ProgressListener;
import dev.ladder.inference.store.StoreException;
import dev.ladder.pipeline.db.UserError;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
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
                return store.pull(repo, rev, ProgressListener.NONE);
            } catch (IOException | StoreException e) {
                throw new UserError("model '" + pathOrId + "' is not in the store and could not be pulled ("
                        + e.getMessage() + "); offline, pass --model DIR with a local model directory");
            }
        }
    }

    /**
     * How to load a model: engine, dtype ({@code auto}, {@code f32}, {@code f16}, {@code int8}), device and, for a
     * model with an adapter, the merge base.
     */
    public record LoadSpec(String engine, String dtype, DeviceChoice device, MergeBase mergeBase) {
        public static LoadSpec of(ModelSpec spec) {
            return new LoadSpec(spec.engine(), spec.dtype(), DeviceChoice.parse(spec.device(), "device"),
                    MergeBase.valueOf(spec.mergeBase().toUpperCase(Locale.ROOT)));
        }
    }

    /** A loaded model, where it runs, the dtype {@code auto} resolved to, and how long loading took. */
    public record Loaded(LanguageModel model, Device device, String dtype, long loadMillis) {}

    /**
     * Resolves the device and dtype, says on {@code log} what it loads where (before loading, so a slow or failing
     * load is attributable), loads, and says how long it took.
     *
     * @param adapter a PEFT LoRA directory merged at load time, or null
     * @param log     where the two lines go, or null for none
     * @throws UserError for an unknown engine or dtype, a device the loaded libtorch cannot serve, or a bad model
     */
    public static Loaded load(Path modelDir, Path adapter, LoadSpec spec, PrintWriter log) {
        if (!"djl".equals(spec.engine())) {
            throw new UserError("engine '" + spec.engine() + "' is not available for experiments (use djl)");
        }
        Device device;
        try {
            device = spec.device().resolve();
        } catch (TorchSetupException e) {
            throw new UserError(e.getMessage(), e);
        }
        String dtype = resolveDtype(spec.dtype(), device);
        LlamaModel.Options model = switch (dtype) {
            case "f32" -> new LlamaModel.Options(LlamaModel.Precision.FLOAT32, false, 0);
            case "f16" -> new LlamaModel.Options(LlamaModel.Precision.FLOAT16, false, 0);
            default -> new LlamaModel.Options(LlamaModel.Precision.AUTO, true, 0);   // int8: compute as auto
        };
        DjlLanguageModel.Options base = DjlLanguageModel.Options.DEFAULT;
        DjlLanguageModel.Options options = new DjlLanguageModel.Options(model, base.maxBatchRows(), base.prefillTokens(), base.threads());
        if (log != null) {
            log.println("loading " + modelDir + (adapter == null ? "" : " + adapter " + adapter
                    + (spec.mergeBase() == MergeBase.NF4 ? " (merged into the NF4 base)" : "")) + " on " + DeviceChoice.label(device)
                    + " as " + dtype + (spec.dtype().equals(dtype) ? "" : " (dtype " + spec.dtype() + ")") + " ...");
            log.flush();
        }
        long t0 = System.nanoTime();
        LanguageModel lm;
        try {
            lm = adapter == null ? DjlLanguageModel.load(modelDir, device, options)
                    : AdaptedModels.load(modelDir, adapter, spec.mergeBase(), device, options);
        } catch (ModelException | AdapterException e) {
            throw new UserError(e.getMessage(), e);
        } catch (TorchSetupException e) {
            throw new UserError(e.getMessage(), e);
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        if (log != null) {
            log.printf(Locale.ROOT, "loaded in %.1f s%n", ms / 1e3);
            log.flush();
        }
        return new Loaded(lm, device, dtype, ms);
    }

    /** As {@link #load(Path, Path, LoadSpec, PrintWriter)} on the default device, without messages. */
    public static LanguageModel load(Path modelDir, Path adapter, String engine, String dtype) {
        return load(modelDir, adapter, new LoadSpec(engine, dtype, DeviceChoice.AUTO, MergeBase.FULL), null).model();
    }

    /**
     * The dtype a model loads with: an explicit one as given; {@code auto} is f32 on a CPU and f16 on a GPU.
     *
     * @throws UserError for an unknown dtype
     */
    static String resolveDtype(String dtype, Device device) {
        String d = dtype.toLowerCase(Locale.ROOT);
        return switch (d) {
            case "f32", "f16", "int8" -> d;
            case "auto" -> device.isGpu() ? "f16" : "f32";
            default -> throw new UserError("unknown dtype '" + dtype + "' (use auto, f32, f16 or int8)");
        };
    }
}
