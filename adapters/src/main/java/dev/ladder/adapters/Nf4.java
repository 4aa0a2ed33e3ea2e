package dev.ladder.adapters;

import java.util.Arrays;

/**
 * bitsandbytes NF4 ("4-bit NormalFloat", Dettmers et al. 2023, QLoRA): blockwise quantisation of a flattened tensor
 * in blocks of {@link #BLOCK_SIZE} consecutive elements; each block stores one float32 absmax (its largest |x|) and a
 * 4-bit index per element into the 16 {@link #CODES}, chosen as the code nearest to {@code x / absmax}.
 * Dequantisation is {@code CODES[index] * absmax}. The last block of a tensor whose size is not a multiple of the
 * block size is shorter. Double quantisation (bitsandbytes' {@code bnb_4bit_use_double_quant}, which stores the
 * absmax values themselves in 8 bits) is not modelled: absmax stays float32, so dequantised values can differ from a
 * double-quantised checkpoint by the absmax rounding (well under 1% of a block's largest value).
 */
public final class Nf4 {

    /** Elements per quantisation block (bitsandbytes' default {@code blocksize} for 4-bit weights). */
    public static final int BLOCK_SIZE = 64;

    /**
     * The 16 NF4 code values, in index order. Source: the {@code nf4} table returned by
     * {@code bitsandbytes.functional.get_4bit_type("nf4")} (bitsandbytes/functional.py; the same constants appear in
     * its CUDA kernel {@code dDequantizeNF4}) and Appendix E of the QLoRA paper (arXiv:2305.14314): quantiles of
     * N(0, 1) normalised to [-1, 1], with an exact 0.
     */
    public static final float[] CODES = {
        -1.0f, -0.6961928009986877f, -0.5250730514526367f, -0.39491748809814453f,
        -0.28444138169288635f, -0.18477343022823334f, -0.09105003625154495f, 0.0f,
        0.07958029955625534f, 0.16093020141124725f, 0.24611230194568634f, 0.33791524171829224f,
        0.44070982933044434f, 0.5626170039176941f, 0.7229568362236023f, 1.0f,
    };

    /** Midpoints between consecutive codes: index i is the number of midpoints below x. */
    private static final float[] MIDPOINTS = new float[15];

    static {
        for (int i = 0; i < 15; i++) MIDPOINTS[i] = (CODES[i] + CODES[i + 1]) / 2;
    }

    /** Quantised values: one 4-bit index per element (kept one per byte here) and one absmax per block. */
    public record Quantized(byte[] indices, float[] absmax) {
        public int length() {
            return indices.length;
        }
    }

    private Nf4() {}

    /** The index of the code nearest to {@code x} (in [-1, 1]). */
    public static int nearest(float x) {
        int lo = 0;
        int hi = 15;
        while (lo < hi) {         // first midpoint >= x: x below it maps to that index
            int mid = (lo + hi) >>> 1;
            if (MIDPOINTS[mid] < x) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    /** Quantises {@code values} (a whole flattened tensor, or a run that starts on a block boundary). */
    public static Quantized quantize(float[] values) {
        int n = values.length;
        int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
        byte[] idx = new byte[n];
        float[] absmax = new float[blocks];
        for (int b = 0; b < blocks; b++) {
            int from = b * BLOCK_SIZE;
            int to = Math.min(n, from + BLOCK_SIZE);
            float m = 0;
            for (int i = from; i < to; i++) m = Math.max(m, Math.abs(values[i]));
            absmax[b] = m;
            for (int i = from; i < to; i++) idx[i] = (byte) (m == 0 ? 7 : nearest(values[i] / m));
        }
        return new Quantized(idx, absmax);
    }

    /** {@code CODES[index] * absmax} for every element. */
    public static float[] dequantize(Quantized q) {
        float[] out = new float[q.length()];
        for (int i = 0; i < out.length; i++) out[i] = CODES[q.indices()[i]] * q.absmax()[i / BLOCK_SIZE];
        return out;
    }

    /**
     * Replaces {@code values[from, to)} by their NF4 round trip, in place; {@code from} must be a block boundary of
     * the tensor ({@code to} is one too, or the tensor's end).
     */
    public static void roundTrip(float[] values, int from, int to) {
        for (int start = from; start < to; start += BLOCK_SIZE) {
            int end = Math.min(to, start + BLOCK_SIZE);
            float m = 0;
            for (int i = start; i < end; i++) m = Math.max(m, Math.abs(values[i]));
            if (m == 0) {
                Arrays.fill(values, start, end, 0f);
                continue;
            }
            for (int i = start; i < end; i++) values[i] = CODES[nearest(values[i] / m)] * m;
        }
    }

    /** The largest gap between consecutive codes; the round-trip error is at most half of it times the absmax. */
    public static float largestGap() {
        float g = 0;
        for (int i = 0; i < 15; i++) g = Math.max(g, CODES[i + 1] - CODES[i]);
        return g;
    }
}
