package dev.ladder.inference.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.ladder.inference.device.TorchRuntime;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The packed 4-bit format: packing, the quantisers' error bounds, and {@link Linear.Int4}'s Java path (the reference
 * the native kernel is held to) against a plain-Java product of {@link Int4Weights#dequantize()}.
 */
class Int4WeightsTest {

    /** 16 ascending values in [-1, 1], not evenly spaced: the shape of a codebook such as NF4's. */
    static final float[] CODEBOOK = {-1f, -0.7f, -0.52f, -0.39f, -0.28f, -0.18f, -0.09f, 0f, 0.08f, 0.16f, 0.25f,
        0.34f, 0.44f, 0.56f, 0.72f, 1f};

    /** Weights of a scheme: {@code symmetric}, {@code asymmetric} (quantised from {@code w}) or {@code codebook} (random codes). */
    static Int4Weights weights(String scheme, float[] w, int out, int in, int group, Random rnd) {
        return switch (scheme) {
            case "symmetric" -> Int4Weights.symmetric(w, out, in, group);
            case "asymmetric" -> Int4Weights.asymmetric(w, out, in, group);
            case "codebook" -> {
                byte[] values = new byte[out * in];
                for (int i = 0; i < values.length; i++) values[i] = (byte) rnd.nextInt(16);
                float[] scales = new float[out * Int4Weights.groups(in, group)];
                for (int i = 0; i < scales.length; i++) scales[i] = 0.01f + 0.1f * rnd.nextFloat();
                yield new Int4Weights(Int4Weights.pack(values, out, in), scales, null, CODEBOOK.clone(), out, in, group);
            }
            default -> throw new IllegalArgumentException(scheme);
        };
    }

    @Test
    void packsTwoWeightsPerByteLowNibbleFirst() {
        assertThatThrownBy(() -> Int4Weights.pack(new byte[7], 2, 3)).hasMessage("expected 6 values");
        byte[] packed = Int4Weights.pack(new byte[] {1, 2, 3, 15, 0, 7}, 2, 3);
        // a row of odd length ends in half a byte: rows are 2 bytes each
        assertThat(packed).containsExactly((byte) 0x21, (byte) 0x03, (byte) 0x0f, (byte) 0x07);
        Int4Weights w = new Int4Weights(packed, new float[] {1, 2}, null, null, 2, 3, 3);
        assertThat(w.dequantize()).containsExactly(1, 2, 3, 30, 0, 14);
        assertThatThrownBy(() -> Int4Weights.pack(new byte[] {16}, 1, 1)).hasMessageContaining("4-bit value 16");
    }

    @ParameterizedTest(name = "{0}, group {1}")
    @CsvSource({"symmetric, 32", "asymmetric, 32", "symmetric, 7", "asymmetric, 64"})
    void quantisersStayWithinHalfAStep(String scheme, int group) {
        int out = 6;
        int in = 100;
        Random rnd = new Random(3);
        float[] w = new float[out * in];
        for (int i = 0; i < w.length; i++) w[i] = (float) rnd.nextGaussian() * 0.05f;
        Int4Weights q = weights(scheme, w, out, in, group, rnd);
        float[] back = q.dequantize();
        int groups = Int4Weights.groups(in, group);
        for (int o = 0; o < out; o++) {
            for (int i = 0; i < in; i++) {
                float step = q.scales()[o * groups + i / group];
                // symmetric clips -8 to -7 of the scale's range: the largest |w| is 7 steps, so never clipped
                assertThat((double) Math.abs(back[o * in + i] - w[o * in + i])).isLessThanOrEqualTo(step * 0.5 + 1e-6);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1} x {2}, group {3}")
    @CsvSource({"symmetric, 5, 64, 32", "asymmetric, 9, 130, 64", "codebook, 7, 99, 24"})
    void theJavaPathIsTheProductOfTheDequantisedMatrix(String scheme, int out, int in, int group) {
        Random rnd = new Random(11);
        float[] w = NativeLinearParityTest.uniform(rnd, out * in, -0.1f, 0.1f);
        Int4Weights q = weights(scheme, w, out, in, group, rnd);
        float[] deq = q.dequantize();
        int rows = 3;
        float[] x = NativeLinearParityTest.uniform(rnd, rows * in, -1, 1);
        float[] bias = NativeLinearParityTest.uniform(rnd, out, -1, 1);
        try (NDManager m = TorchRuntime.engine().newBaseManager(Device.cpu())) {
            Linear.Int4 linear = q.toLinear(m, m.create(bias, new Shape(out)), false);
            NDArray y = linear.apply(m.create(x, new Shape(rows, in)), null);
            float[] got = y.toFloatArray();
            for (int r = 0; r < rows; r++) {
                for (int o = 0; o < out; o++) {
                    double want = bias[o];
                    for (int i = 0; i < in; i++) want += (double) x[r * in + i] * deq[o * in + i];
                    assertThat((double) got[r * out + o]).isCloseTo(want, offset(1e-4));
                }
            }
            assertThat(linear.bytes()).isLessThan((long) out * in);   // half a byte per weight plus the scales
        }
    }
}
