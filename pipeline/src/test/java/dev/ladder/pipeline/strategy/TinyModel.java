package dev.ladder.pipeline.strategy;

import ai.djl.Device;
import dev.ladder.inference.llm.DjlLanguageModel;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import java.nio.file.Path;

/** The tiny random-weight model (TINY, seed 1, f32) the end-to-end tests of every rung and pipeline run on. */
public final class TinyModel {

    private TinyModel() {}

    /** Writes it into {@code dir} and loads it on the CPU with the real engine, offline. */
    public static DjlLanguageModel load(Path dir) {
        System.setProperty("ai.djl.offline", "true");
        TinyModels.write(dir, TinyModels.Shape.TINY, 1, DType.F32);
        return DjlLanguageModel.load(dir, Device.cpu(), DjlLanguageModel.Options.DEFAULT);
    }
}
