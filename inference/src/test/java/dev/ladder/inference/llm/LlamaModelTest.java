package dev.ladder.inference.llm;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.ladder.inference.model.ModelConfig;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LlamaModelTest {

    static final int VOCAB = 101;

    /** All-position logits of one sequence, no cache. */
    static float[][] prefillLogits(LlamaModel model, int[] tokens) {
        float[] flat = model.prefillLogits(tokens);
        int t = tokens.length;
        int v = model.config().vocabSize();
        float[][] out = new float[t][v];
        for (int i = 0; i < t; i++) System.arraycopy(flat, i * v, out[i], 0, v);
        return out;
    }

    /** Logits of each position computed one token at a time through the KV cache. */
    static float[][] decodeLogits(LlamaModel model, int[] tokens) {
        int t = tokens.length;
        int v = model.config().vocabSize();
        float[][] out = new float[t][];
        try (KvCache cache = new KvCache(model, 1, t, new int[] {0})) {
            for (int i = 0; i < t; i++) {
                try (NDManager step = model.manager().newSubManager()) {
                    NDArray logits = model.forward(step.create(new long[] {tokens[i]}, new Shape(1, 1)),
                            step.create(new long[] {i}, new Shape(1, 1)), null, false, cache.decodeSink(1, i), false);
                    out[i] = logits.toFloatArray();
                    assertThat(out[i]).hasSize(v);
                }
            }
        }
        return out;
    }

    static double maxDiff(float[][] a, float[][] b) {
        double m = 0;
        for (int i = 0; i < a.length; i++) for (int j = 0; j < a[i].length; j++) m = Math.max(m, Math.abs(a[i][j] - b[i][j]));
        return m;
    }

    static double maxDiff(float[][] a, double[][] b) {
        double m = 0;
        for (int i = 0; i < a.length; i++) for (int j = 0; j < a[i].length; j++) m = Math.max(m, Math.abs(a[i][j] - b[i][j]));
        return m;
    }

    static int[] tokens(int n, long seed) {
        java.util.Random r = new java.util.Random(seed);
        int[] t = new int[n];
        for (int i = 0; i < n; i++) t[i] = 4 + r.nextInt(VOCAB - 4);
        return t;
    }

    private void checkAgainstReference(ModelConfig c) {
        TestModels.Tensors w = TestModels.random(c, 7);
        int[] toks = tokens(24, 3);
        double[][] ref = TestModels.referenceLogits(c, w, toks);
        try (LlamaModel model = LlamaModel.load(c, w.source(), Device.cpu(), LlamaModel.Options.DEFAULT)) {
            float[][] pre = prefillLogits(model, toks);
            float[][] dec = decodeLogits(model, toks);
            assertThat(maxDiff(pre, ref)).as("prefill vs reference").isLessThan(1e-4);
            assertThat(maxDiff(dec, pre)).as("decode vs prefill").isLessThan(1e-4);
        }
    }

    @Test
    void llamaMatchesReferenceAndDecodeMatchesPrefill() {
        checkAgainstReference(TestModels.llama(VOCAB, 64));
    }

    @Test
    void qwen2WithBiasMatchesReference() {
        checkAgainstReference(TestModels.qwen2(VOCAB, 64));
    }

    @Test
    void llama3RopeScalingMatchesReference() {
        checkAgainstReference(TestModels.ropeScaled(VOCAB, 64));
    }

    @Test
    void ropeScalingChangesLowFrequenciesOnly() {
        ModelConfig plain = TestModels.llama(VOCAB, 64);
        ModelConfig scaled = new ModelConfig(plain.architecture(), plain.hiddenSize(), plain.intermediateSize(),
                plain.numLayers(), plain.numHeads(), plain.numKvHeads(), plain.headDim(), plain.vocabSize(),
                plain.maxPositions(), plain.rmsNormEps(), plain.ropeTheta(),
                new ModelConfig.RopeScaling(8.0, 1.0, 4.0, 32), true, false, 1, plain.eosTokenIds(), "float32");
        float[] a = Rope.inverseFrequencies(plain);
        float[] b = Rope.inverseFrequencies(scaled);
        assertThat(b[0]).isEqualTo(a[0]);                            // wavelength 2pi < 32/4: unchanged
        assertThat(b[1]).isBetween(a[1] / 8f, a[1]);                // 19.9, between 8 and 32: interpolated
        assertThat(b[a.length - 1]).isEqualTo(a[a.length - 1] / 8f); // longest wavelength: divided by the factor
    }

    /** Logits of each step of {@code rows.length} sequences decoded together, one token per row per step. */
    static float[][][] decodeBatchLogits(LlamaModel model, int[][] rows) {
        int b = rows.length;
        int t = rows[0].length;
        int v = model.config().vocabSize();
        float[][][] out = new float[t][b][];
        try (KvCache cache = new KvCache(model, b, t, new int[b])) {
            for (int i = 0; i < t; i++) {
                try (NDManager step = model.manager().newSubManager()) {
                    long[] ids = new long[b];
                    long[] pos = new long[b];
                    for (int r = 0; r < b; r++) {
                        ids[r] = rows[r][i];
                        pos[r] = i;
                    }
                    float[] flat = model.forward(step.create(ids, new Shape(b, 1)), step.create(pos, new Shape(b, 1)),
                            cache.maskView(step, b, i + 1), false, cache.decodeSink(b, i), false).toFloatArray();
                    for (int r = 0; r < b; r++) out[i][r] = Arrays.copyOfRange(flat, r * v, (r + 1) * v);
                }
            }
        }
        return out;
    }

    /**
     * The small-batch forms are measured at load on a CPU in float32 (a plan per weight shape), can be switched off,
     * and change decode logits only in the last bits, at batch 1 (weight blocks) and batch 4 (either form).
     */
    @Test
    void smallBatchFormsChangeNothingButTheLastBits() {
        ModelConfig c = TestModels.qwen2(VOCAB, 64);   // q/k/v biases go through the forms too
        TestModels.Tensors w = TestModels.random(c, 13);
        int[][] rows = {tokens(12, 21), tokens(12, 22), tokens(12, 23), tokens(12, 24)};
        try (LlamaModel on = LlamaModel.load(c, w.source(), Device.cpu(), LlamaModel.Options.DEFAULT);
             LlamaModel off = LlamaModel.load(c, w.source(), Device.cpu(), LlamaModel.Options.DEFAULT.withSmallBatchForms(false))) {
            assertThat(on.smallBatchFormsActive()).isTrue();
            assertThat(on.smallBatchPlan()).isNotEmpty()
                    .allMatch(line -> line.matches("\\d+ x \\d+: 1 .+, 2 .+, 4 .+, 8 .+, 16 .+"));
            assertThat(off.smallBatchFormsActive()).isFalse();
            assertThat(off.smallBatchPlan()).isEmpty();
            // a model this small measures at every load and stores nothing
            assertThat(on.smallBatchOrigins()).hasSameSizeAs(on.smallBatchPlan())
                    .allMatch(line -> line.endsWith("this load only: models under 64 MB are not stored"));
            assertThat(off.smallBatchOrigins()).isEmpty();

            assertThat(maxDiff(decodeLogits(on, rows[0]), decodeLogits(off, rows[0]))).isLessThan(1e-4);
            float[][][] a = decodeBatchLogits(on, rows);
            float[][][] b = decodeBatchLogits(off, rows);
            for (int i = 0; i < a.length; i++) assertThat(maxDiff(a[i], b[i])).as("step %d", i).isLessThan(1e-4);
            // switching them off on the loaded model is the same as loading without them
            on.smallBatchForms(false);
            assertThat(on.smallBatchFormsActive()).isFalse();
            assertThat(maxDiff(decodeLogits(on, rows[1]), decodeLogits(off, rows[1]))).isEqualTo(0.0);
            on.smallBatchForms(true);
            assertThat(on.smallBatchFormsActive()).isTrue();
        }
        // not on float16 (the forms are measured for float32 only)
        try (LlamaModel f16 = LlamaModel.load(c, w.source(), Device.cpu(),
                new LlamaModel.Options(LlamaModel.Precision.FLOAT16, false, 0))) {
            assertThat(f16.smallBatchFormsActive()).isFalse();
        }
    }

    @Test
    void int8IsCloseToFloat32() {
        ModelConfig c = TestModels.llama(VOCAB, 64);
        TestModels.Tensors w = TestModels.random(c, 11);
        int[] toks = tokens(16, 5);
        try (LlamaModel f32 = LlamaModel.load(c, w.source(), Device.cpu(), LlamaModel.Options.DEFAULT);
             LlamaModel q8 = LlamaModel.load(c, w.source(), Device.cpu(),
                     new LlamaModel.Options(LlamaModel.Precision.AUTO, true, 0))) {
            float[][] a = prefillLogits(f32, toks);
            float[][] b = prefillLogits(q8, toks);
            double scale = 0;
            for (float[] row : a) for (float x : row) scale = Math.max(scale, Math.abs(x));
            // per-row int8 rounding error is <= scale/254 per weight, ~0.4% relative on each projection; through
            // 2 layers it stays well under 3% of the largest logit
            assertThat(maxDiff(a, b)).isLessThan(0.03 * scale).isGreaterThan(0);
            assertThat(q8.weightBytesPerToken()).isLessThan(f32.weightBytesPerToken());
            for (int i = 0; i < toks.length; i++) assertThat(argMax(b[i])).isEqualTo(argMax(a[i]));
        }
    }

    @Test
    void float16ComputeIsCloseToFloat32() {
        // the GPU precision (f16 weights and activations, f32 norms/softmax/logits), run here on the CPU
        ModelConfig c = TestModels.qwen2(VOCAB, 64);
        TestModels.Tensors w = TestModels.random(c, 12);
        int[] toks = tokens(16, 6);
        try (LlamaModel f32 = LlamaModel.load(c, w.source(), Device.cpu(), LlamaModel.Options.DEFAULT);
             LlamaModel f16 = LlamaModel.load(c, w.source(), Device.cpu(),
                     new LlamaModel.Options(LlamaModel.Precision.FLOAT16, false, 0))) {
            assertThat(f16.dtype()).isEqualTo(ai.djl.ndarray.types.DataType.FLOAT16);
            float[][] a = prefillLogits(f32, toks);
            float[][] b = prefillLogits(f16, toks);
            float[][] d = decodeLogits(f16, toks);
            double scale = 0;
            for (float[] row : a) for (float x : row) scale = Math.max(scale, Math.abs(x));
            // f16 keeps 11 significant bits (~5e-4 relative) per op; a 2-layer model stays within 1% of the range
            assertThat(maxDiff(a, b)).isLessThan(0.01 * scale);
            assertThat(maxDiff(d, b)).isLessThan(0.01 * scale);
        }
    }

    static int argMax(float[] x) {
        int best = 0;
        for (int i = 1; i < x.length; i++) if (x[i] > x[best]) best = i;
        return best;
    }

    @Test
    void stepsDoNotLeakArraysIntoTheModelManager() {
        ModelConfig c = TestModels.llama(VOCAB, 64);
        TestModels.Tensors w = TestModels.random(c, 1);
        try (LlamaModel model = LlamaModel.load(c, w.source(), Device.cpu(), LlamaModel.Options.DEFAULT)) {
            int before = model.manager().getManagedArrays().size();
            decodeLogits(model, tokens(20, 2));
            prefillLogits(model, tokens(20, 2));
            assertThat(model.manager().getManagedArrays()).hasSize(before);
        }
    }
}
