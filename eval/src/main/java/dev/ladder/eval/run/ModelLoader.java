package dev.ladder.eval.run;

import ai.djl.engine.Engine;
import dev.ladder.adapters.AdaptedModels;
import dev.ladder.adapters.AdapterException;
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
     * @param dtype   {@code auto} (f32 on CPU, f16 on GPU), {@code f32}, {@code f16}, or {@code int8} (int8 weights,
     *                compute as auto)
     * @param adapter a PEFT LoRA directory merged at load time, or null
     */
    public static LanguageModel load(Path modelDir, Path adapter, String engine, String dtype) {
        if (!"djl".equals(engine)) {
            throw new UserError("engine '" + engine + "' is not available for experiments (use djl)");
        }
        LlamaModel.Options model = switch (dtype.toLowerCase(Locale.ROOT)) {
            case "auto" -> new LlamaModel.Options(LlamaModel.Precision.AUTO, false, 0);
            case "f32" -> new LlamaModel.Options(LlamaModel.Precision.FLOAT32, false, 0);
            case "f16" -> new LlamaModel.Options(LlamaModel.Precision.FLOAT16, false, 0);
            case "int8" -> new LlamaModel.Options(LlamaModel.Precision.AUTO, true, 0);
            default -> throw new UserError("unknown dtype '" + dtype + "' (use auto, f32, f16 or int8)");
        };
        DjlLanguageModel.Options base = DjlLanguageModel.Options.DEFAULT;
        DjlLanguageModel.Options options = new DjlLanguageModel.Options(model, base.maxBatchRows(), base.prefillTokens(), base.threads());
        var device = Engine.getEngine("PyTorch").defaultDevice();
        try {
            if (adapter == null) return DjlLanguageModel.load(modelDir, device, options);
            return AdaptedModels.load(modelDir, adapter, device, options);
        } catch (ModelException | AdapterException e) {
            throw new UserError(e.getMessage(), e);
        }
    }
}
