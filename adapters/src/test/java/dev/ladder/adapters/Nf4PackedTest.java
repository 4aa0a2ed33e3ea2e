package dev.ladder.adapters;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.inference.llm.Int4Weights;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The NF4 merge base fits the packed 4-bit format the native int4 product reads ({@link Int4Weights}): a matrix
 * whose rows are a whole number of NF4 blocks quantises block by block into one group per block, the block indices
 * as the 4-bit values, the 16 NormalFloat values as the codebook and the absmax as the group's scale; the packed
 * matrix dequantises to exactly {@link Nf4#dequantize}'s values.
 */
class Nf4PackedTest {

    @Test
    void nf4BlocksAreGroupsOfThePackedFormat() {
        int out = 5;
        int in = 3 * Nf4.BLOCK_SIZE;
        Random rnd = new Random(7);
        float[] w = new float[out * in];
        for (int i = 0; i < w.length; i++) w[i] = (float) rnd.nextGaussian() * 0.02f;
        Nf4.Quantized q = Nf4.quantize(w);
        Int4Weights packed = new Int4Weights(Int4Weights.pack(q.indices(), out, in), q.absmax(), null, Nf4.CODES.clone(),
                out, in, Nf4.BLOCK_SIZE);
        assertThat(packed.dequantize()).containsExactly(Nf4.dequantize(q));
        assertThat(packed.packed()).hasSize(out * in / 2);
    }
}
