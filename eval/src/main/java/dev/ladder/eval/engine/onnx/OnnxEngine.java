package dev.ladder.eval.engine.onnx;

import dev.ladder.eval.experiment.ModelSpec;
import dev.ladder.eval.run.FolderEngine;
import dev.ladder.eval.run.ModelLoader;
import dev.ladder.inference.device.DeviceChoice;
import dev.ladder.inference.device.Placement;
import dev.ladder.inference.engine.ModelFields;
import dev.ladder.inference.model.ModelException;
import dev.ladder.inference.onnx.OnnxLanguageModel;
import dev.ladder.sql.db.UserError;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The onnx engine: ONNX Runtime on an Optimum or GenAI decoder export in the model folder (docs/onnx.md), on the CPU
 * (or CUDA with the GPU runtime). The export fixes the weights: no adapter is merged, no dtype chosen.
 */
public final class OnnxEngine extends FolderEngine {

    public static final String NAME = "onnx";

    /** Why an adapter is refused: the export is the model as it runs. */
    private static final String NO_ADAPTER = "engine onnx takes no adapter: merge it first (ladder adapters merge) and"
            + " export the merged model to ONNX (docs/onnx.md)";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int order() {
        return 20;
    }

    /** The export is the model as it runs: an adapter must be merged before exporting, and the precision is the export's. */
    @Override
    public void check(ModelFields model) {
        if (model.get("adapter") != null) {
            throw model.refuse("adapter", NO_ADAPTER);
        }
        if (model.sets("dtype", ModelSpec.DEFAULT_DTYPE)) {
            throw model.refuse("dtype", "engine onnx takes the precision of its export (float32, or int4 MatMulNBits"
                    + " weights); leave dtype out, or export another");
        }
        if (model.sets("merge_base", ModelSpec.DEFAULT_MERGE_BASE)) {
            throw model.refuse("merge_base", "engine onnx takes no adapter to merge");
        }
    }

    /** A CPU or CUDA device and a folder with a decoder export; no adapter. */
    @Override
    public ModelLoader.Checked checkFolder(Path modelDir, Path adapter, ModelLoader.LoadSpec spec) {
        if (adapter != null) {
            throw new UserError(NO_ADAPTER);
        }
        // auto is the CPU: the CUDA provider needs the onnxruntime_gpu jar (docs/onnx.md), so a GPU is asked for by name
        Placement device = spec.device().kind() == DeviceChoice.Kind.CUDA ? Placement.gpu(spec.device().index()) : Placement.cpu();
        try {
            OnnxLanguageModel.check(modelDir);
        } catch (ModelException e) {
            throw new UserError(e.getMessage(), e);
        }
        return new ModelLoader.Checked(device, null);
    }

    @Override
    public ModelLoader.Loaded loadFolder(Path modelDir, Path adapter, ModelLoader.LoadSpec spec, PrintWriter log,
                                         int maxBatchRows) {
        ModelLoader.Checked checked = checkFolder(modelDir, adapter, spec);
        boolean cuda = checked.device().isGpu();
        if (log != null) {
            log.println("loading " + modelDir + " with ONNX Runtime on " + (cuda ? "cuda" : "cpu") + " ...");
            log.flush();
        }
        long t0 = System.nanoTime();
        OnnxLanguageModel lm;
        try {
            lm = OnnxLanguageModel.load(modelDir, new OnnxLanguageModel.Options(maxBatchRows, 0, cuda));
        } catch (ModelException e) {
            throw new UserError(e.getMessage(), e);
        }
        if (log != null) {
            log.printf(Locale.ROOT, "loaded (%s layout) in %.1f s%n", lm.layout(), (System.nanoTime() - t0) / 1e9);
            log.flush();
        }
        return new ModelLoader.Loaded(lm, checked.device(), "export", null, null, NAME);
    }
}
