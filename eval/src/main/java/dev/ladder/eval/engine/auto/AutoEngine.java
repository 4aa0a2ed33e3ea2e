package dev.ladder.eval.engine.auto;

import dev.ladder.eval.engine.djl.DjlEngine;
import dev.ladder.eval.engine.onnx.OnnxEngine;
import dev.ladder.eval.engine.openai.OpenAiEngine;
import dev.ladder.eval.experiment.ModelSpec;
import dev.ladder.eval.run.FolderEngine;
import dev.ladder.eval.run.ModelLoader;
import dev.ladder.inference.device.DeviceChoice;
import dev.ladder.inference.device.TorchSetupException;
import dev.ladder.inference.engine.Engine;
import dev.ladder.inference.engine.EngineContext;
import dev.ladder.inference.engine.Engines;
import dev.ladder.inference.engine.ModelFields;
import dev.ladder.inference.onnx.OnnxExportFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code engine: auto}: the onnx engine where the folder holds an ONNX decoder export and the model runs on the CPU as
 * its export is (no adapter to merge, dtype auto), because there it decodes 1.7 to 2.9 times as fast as the djl engine
 * (docs/inference.md), and for a folder holding an export and no safetensors; djl everywhere else (on CUDA, with an
 * adapter, with a djl dtype, or without an export). On a command, {@code --server} makes it the openai engine.
 */
public final class AutoEngine extends FolderEngine {

    public static final String NAME = "auto";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int order() {
        return 5;   // first in lists: the default of the commands' --engine
    }

    @Override
    public Engine concrete(ModelFields model, EngineContext context) {
        if (model.get("base_url") != null) return Engines.registry().byName(OpenAiEngine.NAME);
        Locator locator = context.fact(Locator.class).orElse(ModelLoader::resolve);
        Path dir = locator.folder(model.get("path"), context.log());
        String adapter = model.get("adapter");
        return pick(dir, adapter == null ? null : Path.of(adapter), model.get("dtype", ModelSpec.DEFAULT_DTYPE),
                DeviceChoice.parse(model.get("device", ModelSpec.DEFAULT_DEVICE), "device"));
    }

    @Override
    public ModelLoader.Checked checkFolder(Path dir, Path adapter, ModelLoader.LoadSpec spec) {
        FolderEngine picked = pick(dir, adapter, spec.dtype(), spec.device());
        return picked.checkFolder(dir, adapter, as(picked, spec));
    }

    @Override
    public ModelLoader.Loaded loadFolder(Path dir, Path adapter, ModelLoader.LoadSpec spec, PrintWriter log,
                                         int maxBatchRows) {
        FolderEngine picked = pick(dir, adapter, spec.dtype(), spec.device());
        return picked.loadFolder(dir, adapter, as(picked, spec), log, maxBatchRows);
    }

    private static ModelLoader.LoadSpec as(FolderEngine picked, ModelLoader.LoadSpec spec) {
        return new ModelLoader.LoadSpec(picked.name(), spec.dtype(), spec.device(), spec.mergeBase(), spec.workload());
    }

    /** The engine auto means for a model folder, adapter (or null), dtype and device. */
    public static FolderEngine pick(Path modelDir, Path adapter, String dtype, DeviceChoice device) {
        Engines engines = Engines.registry();
        FolderEngine djl = (FolderEngine) engines.byName(DjlEngine.NAME);
        if (!OnnxExportFiles.present(modelDir)) return djl;
        FolderEngine onnx = (FolderEngine) engines.byName(OnnxEngine.NAME);
        // an export alone is the onnx engine's whatever else is asked (its own checks then refuse an adapter or dtype)
        if (!hasSafetensors(modelDir)) return onnx;
        return adapter == null && ModelSpec.DEFAULT_DTYPE.equalsIgnoreCase(dtype.strip()) && !onGpu(device) ? onnx : djl;
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
}
