package dev.ladder.inference.llm;

import ai.djl.Device;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.HalfFloats;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.SafetensorsWriter;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.inference.model.Weights;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

class LoadReportTest {

    @TempDir
    Path dir;

    private static final String DOWN = "model.layers.1.mlp.down_proj.weight";

    @Test
    void bf16ValuesBeyondTheHalfRangeAreClampedAndReported() {
        TinyModels.write(dir, TinyModels.Shape.TINY, 1, DType.BF16);
        // rewrite the weights with three values of one tensor beyond 65504
        SafetensorsWriter out = new SafetensorsWriter();
        try (Weights w = Weights.open(dir)) {
            for (String name : w.names()) {
                float[] v = w.floats(name);
                if (name.equals(DOWN)) {
                    v[0] = 1e5f;
                    v[17] = -2.5e5f;
                    v[v.length - 1] = 70000f;
                }
                out.add(name, DType.BF16, w.info(name).shape(), v);
            }
        }
        out.write(dir.resolve(Weights.SINGLE_FILE));
        float maxAbs = HalfFloats.bf16ToFloat(HalfFloats.floatToBf16(2.5e5f));
        ModelConfig config = ModelConfig.read(dir);
        int[] ids = {3, 17, 256, 40, 99, 7};

        try (Weights w = Weights.open(dir);
             LlamaModel f16 = LlamaModel.load(config, WeightSource.of(w), Device.cpu(),
                     new LlamaModel.Options(LlamaModel.Precision.FLOAT16, false, 0));
             LlamaModel f32 = LlamaModel.load(config, WeightSource.of(w), Device.cpu(), LlamaModel.Options.DEFAULT)) {
            assertThat(f16.loadReport().warnings()).containsExactly(String.format(Locale.ROOT,
                    "tensor '%s': 3 values beyond the f16 range (max |x| %.3g) clamped to ±65504", DOWN, maxAbs));
            // float32 keeps every value: nothing narrowed, nothing to say
            assertThat(f32.loadReport().warnings()).isEmpty();
            // an infinite weight would make the MLP output inf and the logits NaN; clamped ones stay finite
            for (float[] row : LlamaModelTest.prefillLogits(f16, ids)) {
                for (float x : row) assertThat(Float.isFinite(x)).isTrue();
            }
        }
    }

    @Test
    void reportsWeightBytesOnTheDeviceAndTheLoadPeak() {
        TinyModels.write(dir, TinyModels.Shape.TINY, 1, DType.F32);
        ModelConfig config = ModelConfig.read(dir);
        try (Weights w = Weights.open(dir);
             LlamaModel f32 = LlamaModel.load(config, WeightSource.of(w), Device.cpu(), LlamaModel.Options.DEFAULT);
             LlamaModel q8 = LlamaModel.load(config, WeightSource.of(w), Device.cpu(),
                     new LlamaModel.Options(LlamaModel.Precision.AUTO, true, 0))) {
            LoadReport r = f32.loadReport();
            long ropeTables = 2L * f32.contextLength() * config.headDim() * 4;
            assertThat(r.weightBytes()).isEqualTo(TinyModels.Shape.TINY.parameters() * 4 + ropeTables);
            assertThat(r.device()).isEqualTo("cpu");
            assertThat(r.millis()).isNotNegative();
            if (r.anonRssBeforeBytes() > 0) {
                assertThat(r.peakAnonRssBytes()).isGreaterThanOrEqualTo(r.anonRssBeforeBytes());
                assertThat(r.peakAnonRssAddedBytes()).isEqualTo(r.peakAnonRssBytes() - r.anonRssBeforeBytes());
            }
            // int8: one byte per projection weight plus a float32 scale per row instead of four bytes per weight
            assertThat(q8.loadReport().weightBytes()).isLessThan(r.weightBytes());
        }
    }
}
