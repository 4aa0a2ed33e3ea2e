package dev.ladder.inference.llm;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.ladder.inference.device.TorchRuntime;
import java.util.Random;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class SmallBatchLinearTest {

    @Test
    void formsFollowTheRowCount() {
        assertThat(SmallBatchLinear.formFor(1)).isEqualTo(SmallBatchLinear.Form.WEIGHT_BLOCKS);
        assertThat(SmallBatchLinear.formFor(2)).isEqualTo(SmallBatchLinear.Form.WEIGHT_BLOCKS);
        assertThat(SmallBatchLinear.formFor(3)).isEqualTo(SmallBatchLinear.Form.ROW_BLOCKS);
        assertThat(SmallBatchLinear.formFor(SmallBatchLinear.MAX_ROWS)).isEqualTo(SmallBatchLinear.Form.ROW_BLOCKS);
        assertThat(SmallBatchLinear.formFor(SmallBatchLinear.MAX_ROWS + 1)).isEqualTo(SmallBatchLinear.Form.LINEAR);
    }

    /** A measured form replaces the rule's only when 10% faster; past the small-batch limit sgemm always stays. */
    @Test
    void theRuleKeepsNearTies() {
        // ms by ordinal: LINEAR, WEIGHT_BLOCKS, ROW_BLOCKS
        assertThat(SmallBatchRule.choose(4, new double[] {10.0, 9.5, 10.0})).isEqualTo(SmallBatchLinear.Form.ROW_BLOCKS);
        assertThat(SmallBatchRule.choose(4, new double[] {10.0, 8.9, 10.0})).isEqualTo(SmallBatchLinear.Form.WEIGHT_BLOCKS);
        assertThat(SmallBatchRule.choose(1, new double[] {5.0, 9.0, 6.0})).isEqualTo(SmallBatchLinear.Form.LINEAR);
        assertThat(SmallBatchRule.choose(1, new double[] {8.5, 9.0, 6.0})).isEqualTo(SmallBatchLinear.Form.ROW_BLOCKS);
        assertThat(SmallBatchRule.choose(32, new double[] {9.0, 1.0, 1.0})).isEqualTo(SmallBatchLinear.Form.LINEAR);
        // a confirmation gives way to F.linear by the same margin
        assertThat(SmallBatchRule.loses(10.0, 8.9)).isTrue();
        assertThat(SmallBatchRule.loses(10.0, 9.5)).isFalse();
        assertThat(SmallBatchRule.spread(new double[] {12.0, 10.0, 11.0})).isCloseTo(0.1, within(1e-12));
        // rounds by ordinal: a blocked form that won one round of three but lost the others to F.linear gives way
        assertThat(SmallBatchRule.pick(1, new double[][] {{10, 10, 10}, {5, 30, 30}, {20, 20, 20}}))
                .isEqualTo(SmallBatchLinear.Form.LINEAR);
        assertThat(SmallBatchRule.pick(1, new double[][] {{10, 10, 10}, {5, 6, 30}, {20, 20, 20}}))
                .isEqualTo(SmallBatchLinear.Form.WEIGHT_BLOCKS);
        assertThat(SmallBatchRule.pick(4, new double[][] {{10, 10, 10}, {12, 12, 12}, {9.5, 9.6, 9.7}}))
                .isEqualTo(SmallBatchLinear.Form.ROW_BLOCKS);
    }

    @Test
    void blocksDivideTheOutputRows() {
        assertThat(SmallBatchLinear.blockCount(16384)).isEqualTo(64);
        assertThat(SmallBatchLinear.blockCount(600)).isEqualTo(2);
        assertThat(SmallBatchLinear.blockCount(257)).isEqualTo(1);     // a prime: one block, still one bmm
        assertThat(SmallBatchLinear.blockCount(100)).isEqualTo(1);     // fewer rows than a block
        assertThat(SmallBatchLinear.blockCount(128256)).isEqualTo(501); // Llama-3's vocabulary: 256 rows a block
    }

    /** Every form gives linear's product, for 2D and 3D inputs, divisible and prime output sizes. */
    @Test
    void everyFormEqualsLinear() {
        try (NDManager base = TorchRuntime.engine().newBaseManager()) {
            for (int out : new int[] {768, 600, 257}) {
                int in = 96;
                NDArray w = base.create(random(out * in, out), new Shape(out, in));
                SmallBatchLinear.Blocked blocked = SmallBatchLinear.Blocked.of(w);
                int held = base.getManagedArrays().size();
                for (long[] xShape : new long[][] {{1, 1, in}, {2, 1, in}, {4, 1, in}, {16, 1, in}, {1, 3, in}, {5, in}}) {
                    try (NDManager step = base.newSubManager()) {
                        long n = new Shape(xShape).size();
                        NDArray x = step.create(random((int) n, out + n), new Shape(xShape));
                        float[] expected = LlamaModel.Ops.linear(x, w, null).toFloatArray();
                        for (SmallBatchLinear.Form form : SmallBatchLinear.Form.values()) {
                            NDArray y = blocked.apply(x, form);
                            long[] want = xShape.clone();
                            want[want.length - 1] = out;
                            assertThat(y.getShape().getShape()).as("%s %s", form, new Shape(xShape)).isEqualTo(want);
                            assertThat(maxDiff(y.toFloatArray(), expected)).as("%s out %d x %s", form, out, new Shape(xShape))
                                    .isLessThan(1e-4);
                            assertThat(y.getManager()).isSameAs(step);
                        }
                    }
                    // a step leaves nothing behind on the weight's manager
                    assertThat(base.getManagedArrays()).hasSize(held);
                }
            }
        }
    }

    private static float[] random(int n, long seed) {
        Random r = new Random(seed);
        float[] a = new float[n];
        for (int i = 0; i < n; i++) a[i] = (float) r.nextGaussian();
        return a;
    }

    private static double maxDiff(float[] a, float[] b) {
        double m = 0;
        for (int i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
        return m;
    }
}
