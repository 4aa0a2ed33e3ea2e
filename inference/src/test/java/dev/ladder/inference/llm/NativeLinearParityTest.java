package dev.ladder.inference.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import ai.djl.Device;
import ai.djl.engine.EngineException;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import dev.ladder.inference.device.TorchRuntime;
import dev.ladder.inference.nativeext.NativeExtension;
import dev.ladder.inference.nativeext.NativeOps;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The native extension's weight-only products against the Java path of the same {@link Linear} on random matrices:
 * odd sizes (the vector loops' tails), 1 to 17 rows (every row tile and its remainder), with and without bias. Both
 * compute in float32 from the same int8 or 4-bit weights and differ only in the order of the sums, so the bound is
 * float32's parity bound, 1e-4 of the largest output (the int8 model parity tests allow 5e-2 against float64). Every
 * CPU kernel variant the machine has is held to it (the portable loops, AVX2, AVX-512). Runs
 * where the extension is loaded (a bridge and {@code scripts/build-native}, as CI runs it: {@code -Ptorch-bridge}).
 */
class NativeLinearParityTest {

    static final double BOUND = 1e-4;
    static NDManager manager;

    @BeforeAll
    static void loaded() {
        manager = TorchRuntime.engine().newBaseManager(Device.cpu());
        requireOrSkip();
    }

    /**
     * Skips where the extension is not loaded, and fails instead where {@code LADDER_NATIVE_REQUIRED=1} (CI, which
     * builds it: a build that stopped loading must not pass as skipped tests).
     */
    static void requireOrSkip() {
        boolean loaded = NativeOps.int8(Device.cpu(), DataType.FLOAT32);
        String why = "native extension: " + NativeExtension.status().line();
        if ("1".equals(System.getenv("LADDER_NATIVE_REQUIRED"))) assertThat(loaded).as(why).isTrue();
        else assumeThat(loaded).as(why).isTrue();
    }

    @AfterAll
    static void close() {
        if (manager != null) manager.close();
    }

    @ParameterizedTest(name = "int8 {0} x {1}, bias {2}")
    @CsvSource({"1, 1, false", "3, 5, true", "7, 33, false", "17, 129, true", "64, 250, false", "130, 1031, true",
            "258, 2048, false"})
    void int8MatchesTheJavaPath(int out, int in, boolean withBias) {
        try (NDManager m = manager.newSubManager()) {
            Random rnd = new Random(out * 31L + in);
            NDArray q = m.create(randomInt8(rnd, out * in), new Shape(out, in));
            NDArray scale = m.create(uniform(rnd, out, 0.001f, 0.02f), new Shape(out));
            NDArray bias = withBias ? m.create(uniform(rnd, out, -1, 1), new Shape(out)) : null;
            Linear.Int8 nat = new Linear.Int8(q, scale, bias, DataType.FLOAT32, true);
            forEachKernel(kernels -> {
                for (int rows = 1; rows <= 17; rows++) {
                    NDArray x = m.create(uniform(rnd, rows * in, -1, 1), new Shape(rows, in));
                    assertClose(nat.apply(x, null), nat.javaPath(x), "int8 " + kernels + ", " + rows + " rows");
                }
                // a [batch, tokens, in] activation keeps its leading dimensions
                NDArray x3 = m.create(uniform(rnd, 3 * 2 * in, -1, 1), new Shape(3, 2, in));
                NDArray y3 = nat.apply(x3, null);
                assertThat(y3.getShape()).isEqualTo(new Shape(3, 2, out));
                assertClose(y3, nat.javaPath(x3), "int8 " + kernels + ", [3, 2, in]");
            });
        }
    }

    /** Runs {@code check} with each CPU kernel variant this CPU has (portable, AVX2, AVX-512), then the best again. */
    static void forEachKernel(Consumer<String> check) {
        List<String> kernels = NativeOps.cpuKernels();
        try {
            for (String k : kernels) {
                NativeOps.useCpuKernels(k);
                check.accept(k);
            }
        } finally {
            NativeOps.useCpuKernels(kernels.get(kernels.size() - 1));
        }
    }

    @ParameterizedTest(name = "int4 {0} x {1}, group {2}, {3}, bias {4}")
    @CsvSource({"5, 64, 32, symmetric, false", "9, 130, 64, asymmetric, true", "33, 257, 64, symmetric, true",
            "16, 100, 24, asymmetric, false", "3, 21, 7, symmetric, false", "40, 512, 64, codebook, true",
            "7, 99, 99, codebook, false"})
    void int4MatchesTheJavaPath(int out, int in, int group, String scheme, boolean withBias) {
        try (NDManager m = manager.newSubManager()) {
            Random rnd = new Random(out * 17L + in + group);
            Int4Weights w = Int4WeightsTest.weights(scheme, uniform(rnd, out * in, -0.1f, 0.1f), out, in, group, rnd);
            NDArray bias = withBias ? m.create(uniform(rnd, out, -1, 1), new Shape(out)) : null;
            Linear.Int4 nat = w.toLinear(m, bias, true);
            forEachKernel(kernels -> {
                for (int rows = 1; rows <= 17; rows++) {
                    NDArray x = m.create(uniform(rnd, rows * in, -1, 1), new Shape(rows, in));
                    assertClose(nat.apply(x, null), nat.javaPath(x), "int4 " + scheme + ", " + kernels + ", " + rows + " rows");
                }
            });
        }
    }

    @Test
    void moreRowsThanTheKernelsTakeRunTheJavaPath() {
        try (NDManager m = manager.newSubManager()) {
            Random rnd = new Random(5);
            int out = 24;
            int in = 40;
            Linear.Int8 nat = new Linear.Int8(m.create(randomInt8(rnd, out * in), new Shape(out, in)),
                    m.create(uniform(rnd, out, 0.01f, 0.02f), new Shape(out)), null, DataType.FLOAT32, true);
            int rows = NativeOps.maxRows() + 1;
            NDArray x = m.create(uniform(rnd, rows * in, -1, 1), new Shape(rows, in));
            assertThat(nat.apply(x, null).toFloatArray()).containsExactly(nat.javaPath(x).toFloatArray());
        }
    }

    @Test
    void aShapeTheKernelsCannotTakeIsAJavaExceptionNotACrash() {
        try (NDManager m = manager.newSubManager()) {
            NDArray q = m.zeros(new Shape(4, 8), DataType.INT8);
            NDArray scale = m.ones(new Shape(4));
            assertThatThrownBy(() -> NativeOps.int8Linear(m.ones(new Shape(2, 9)), q, scale, null))
                    .isInstanceOf(EngineException.class).hasMessageContaining("x's last dimension is 9, the weight's input dimension is 8");
            assertThatThrownBy(() -> NativeOps.int8Linear(m.ones(new Shape(2, 8)), q, m.ones(new Shape(3)), null))
                    .hasMessageContaining("scale must have shape [4]");
            assertThatThrownBy(() -> NativeOps.int8Linear(m.ones(new Shape(2, 8)), q.toType(DataType.FLOAT32, false), scale, null))
                    .hasMessageContaining("q must be a 2-D int8 tensor");
        }
    }

    static void assertClose(NDArray got, NDArray want, String what) {
        assertThat(got.getShape()).as(what).isEqualTo(want.getShape());
        float[] a = got.toFloatArray();
        float[] b = want.toFloatArray();
        double scale = 0;
        double diff = 0;
        for (int i = 0; i < a.length; i++) {
            scale = Math.max(scale, Math.abs(b[i]));
            diff = Math.max(diff, Math.abs(a[i] - b[i]));
        }
        assertThat(diff).as("max |native - java| of %s (largest %s)", what, scale).isLessThanOrEqualTo(BOUND * scale);
    }

    static byte[] randomInt8(Random rnd, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (rnd.nextInt(255) - 127);
        return b;
    }

    static float[] uniform(Random rnd, int n, float lo, float hi) {
        float[] f = new float[n];
        for (int i = 0; i < n; i++) f[i] = lo + (hi - lo) * rnd.nextFloat();
        return f;
    }
}
