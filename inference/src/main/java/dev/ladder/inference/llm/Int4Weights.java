package dev.ladder.inference.llm;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.nio.ByteBuffer;

/**
 * A matrix {@code [out, in]} in packed 4-bit form on the host, as {@link Linear.Int4} holds it on a device:
 * {@code W[o, i] = (code(n) - zero[o, g]) * scale[o, g]}, {@code n} the 4-bit value of weight {@code (o, i)},
 * {@code g = i / group}. Two weights per byte, row by row (weight {@code 2k} of a row in the low nibble of byte
 * {@code k}; a row of odd length ends in half a byte). Made by the quantisers here, or from another scheme's codes
 * (NF4: the block indices, the 16 NormalFloat values as {@code codes} and the absmax per block as {@code scales}).
 *
 * @param packed {@code out * ceil(in / 2)} bytes
 * @param scales {@code out * ceil(in / group)} values, row by row
 * @param zeros  like {@code scales}, or null (0)
 * @param codes  16 values, or null ({@code code(n) = n})
 */
public record Int4Weights(byte[] packed, float[] scales, float[] zeros, float[] codes, int out, int in, int group) {

    /** The codes of symmetric int4: {@code n - 8}, -8..7. */
    public static final float[] SYMMETRIC = {-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7};

    public Int4Weights {
        if (out < 1 || in < 1 || group < 1) throw new IllegalArgumentException("out, in and group must be >= 1");
        int groups = groups(in, group);
        if (packed.length != (long) out * bytesPerRow(in)) throw new IllegalArgumentException("packed has " + packed.length + " bytes, expected " + (long) out * bytesPerRow(in));
        if (scales.length != (long) out * groups) throw new IllegalArgumentException("scales has " + scales.length + " values, expected " + (long) out * groups);
        if (zeros != null && zeros.length != scales.length) throw new IllegalArgumentException("zeros must have as many values as scales");
        if (codes != null && codes.length != 16) throw new IllegalArgumentException("codes must have 16 values");
    }

    static int groups(int in, int group) {
        return (in + group - 1) / group;
    }

    static int bytesPerRow(int in) {
        return (in + 1) / 2;
    }

    /** Packs 4-bit values ({@code 0..15}, one per weight, row-major {@code [out, in]}) two to a byte. */
    public static byte[] pack(byte[] values, int out, int in) {
        if (values.length != (long) out * in) throw new IllegalArgumentException("expected " + (long) out * in + " values");
        int rowBytes = bytesPerRow(in);
        byte[] packed = new byte[out * rowBytes];
        for (int o = 0; o < out; o++) {
            for (int i = 0; i < in; i++) {
                int n = values[o * in + i];
                if (n < 0 || n > 15) throw new IllegalArgumentException("4-bit value " + n + " at (" + o + ", " + i + ")");
                packed[o * rowBytes + i / 2] |= (byte) ((i & 1) == 0 ? n : n << 4);
            }
        }
        return packed;
    }

    /** The 4-bit value of weight {@code (o, i)}. */
    int value(int o, int i) {
        int b = packed[o * bytesPerRow(in) + i / 2] & 0xff;
        return (i & 1) == 0 ? b & 15 : b >>> 4;
    }

    /** The matrix as floats, row-major: the plain-Java reference of the format. */
    public float[] dequantize() {
        float[] w = new float[out * in];
        int groups = groups(in, group);
        for (int o = 0; o < out; o++) {
            for (int i = 0; i < in; i++) {
                int n = value(o, i);
                int g = o * groups + i / group;
                float code = codes == null ? n : codes[n];
                w[o * in + i] = (code - (zeros == null ? 0 : zeros[g])) * scales[g];
            }
        }
        return w;
    }

    /** Symmetric int4 per group: {@code scale = max|w| / 7}, {@code n - 8 = round(w / scale)} clipped to -8..7. */
    public static Int4Weights symmetric(float[] w, int out, int in, int group) {
        return quantise(w, out, in, group, false);
    }

    /**
     * Asymmetric int4 per group with a zero point (as AWQ and GPTQ store it): {@code scale = (max - min) / 15},
     * {@code zero = round(-min / scale)}, {@code n = round(w / scale) + zero} clipped to 0..15.
     */
    public static Int4Weights asymmetric(float[] w, int out, int in, int group) {
        return quantise(w, out, in, group, true);
    }

    private static Int4Weights quantise(float[] w, int out, int in, int group, boolean withZeros) {
        if (w.length != (long) out * in) throw new IllegalArgumentException("expected " + (long) out * in + " weights");
        int groups = groups(in, group);
        byte[] values = new byte[w.length];
        float[] scales = new float[out * groups];
        float[] zeros = withZeros ? new float[out * groups] : null;
        for (int o = 0; o < out; o++) {
            for (int g = 0; g < groups; g++) {
                int from = o * in + g * group;
                int to = o * in + Math.min(in, (g + 1) * group);
                float lo = 0;
                float hi = 0;
                for (int k = from; k < to; k++) {
                    lo = Math.min(lo, w[k]);
                    hi = Math.max(hi, w[k]);
                }
                int s = o * groups + g;
                float scale = withZeros ? (hi - lo) / 15 : Math.max(hi, -lo) / 7;
                if (scale == 0) scale = 1;   // an all-zero group: any scale gives zeros
                scales[s] = scale;
                float zero = withZeros ? Math.round(-lo / scale) : 8;
                if (withZeros) zeros[s] = zero;
                for (int k = from; k < to; k++) {
                    values[k] = (byte) Math.max(0, Math.min(15, Math.round(w[k] / scale) + (int) zero));
                }
            }
        }
        return new Int4Weights(pack(values, out, in), scales, zeros, withZeros ? null : SYMMETRIC.clone(), out, in, group);
    }

    /** Copies onto {@code m}'s device as a projection (with {@code bias} or null), native when {@code nativeKernel}. */
    Linear.Int4 toLinear(NDManager m, NDArray bias, boolean nativeKernel) {
        int groups = groups(in, group);
        NDArray p = m.create(ByteBuffer.wrap(packed), new Shape(out, bytesPerRow(in)), DataType.UINT8);
        NDArray s = m.create(scales, new Shape(out, groups));
        NDArray z = zeros == null ? null : m.create(zeros, new Shape(out, groups));
        NDArray c = codes == null ? null : m.create(codes, new Shape(16));
        return new Linear.Int4(p, s, z, c, bias, in, group, nativeKernel);
    }
}
