package dev.ladder.inference.model;

/**
 * Bit-exact conversions between float32 and the two 16-bit float formats, for Java 17 (which lacks
 * {@code Float.float16ToFloat}). Narrowing rounds to nearest, ties to even; overflow gives infinity; NaN stays NaN.
 */
public final class HalfFloats {

    private HalfFloats() {}

    /** IEEE binary16 bits to float (exact: every half is a float). */
    public static float f16ToFloat(short half) {
        int bits = half & 0xffff;
        int sign = (bits & 0x8000) << 16;
        int exp = (bits >>> 10) & 0x1f;
        int mant = bits & 0x3ff;
        if (exp == 0x1f) {                                  // infinity or NaN (payload kept)
            return Float.intBitsToFloat(sign | 0x7f800000 | (mant << 13));
        }
        if (exp == 0) {
            if (mant == 0) {
                return Float.intBitsToFloat(sign);          // signed zero
            }
            float v = mant * 0x1p-24f;                      // subnormal: mant * 2^-24, exact in float
            return sign != 0 ? -v : v;
        }
        return Float.intBitsToFloat(sign | ((exp + 112) << 23) | (mant << 13));
    }

    /** Float to IEEE binary16 bits, round to nearest even; subnormal halves are produced where they belong. */
    public static short floatToF16(float value) {
        int bits = Float.floatToRawIntBits(value);
        int sign = (bits >>> 16) & 0x8000;
        int exp = (bits >>> 23) & 0xff;
        int mant = bits & 0x7fffff;
        if (exp == 0xff) {
            if (mant == 0) {
                return (short) (sign | 0x7c00);             // infinity
            }
            return (short) (sign | 0x7e00 | (mant >>> 13)); // quiet NaN
        }
        int e = exp - 112;                                  // rebias 127 -> 15
        if (e >= 0x1f) {
            return (short) (sign | 0x7c00);                 // too large: infinity
        }
        if (e <= 0) {                                       // half subnormal (or zero)
            if (e < -10) {
                return (short) sign;                        // below half the smallest subnormal
            }
            int m = mant | 0x800000;                        // implicit leading one
            int shift = 14 - e;                             // 14..24
            int h = m >>> shift;
            int rem = m & ((1 << shift) - 1);
            int halfway = 1 << (shift - 1);
            if (rem > halfway || (rem == halfway && (h & 1) != 0)) {
                h++;                                        // may carry into the smallest normal: still right
            }
            return (short) (sign | h);
        }
        int out = (e << 10) | (mant >>> 13);
        int rem = mant & 0x1fff;
        if (rem > 0x1000 || (rem == 0x1000 && (out & 1) != 0)) {
            out++;                                          // carry may reach the exponent, even infinity: right
        }
        return (short) (sign | out);
    }

    /** Largest finite half, {@code 65504}, as bits. */
    public static final short F16_MAX_BITS = 0x7bff;

    /**
     * As {@link #floatToF16}, but a finite value beyond the half range ({@code |x| > 65504}) gives {@code ±65504}
     * instead of infinity (see {@link F16Clamp} for why); infinities and NaN convert as there.
     */
    public static short floatToF16Clamped(float value) {
        if (Math.abs(value) > 65504f && Float.isFinite(value)) {
            return (short) (value < 0 ? 0x8000 | F16_MAX_BITS : F16_MAX_BITS);
        }
        return floatToF16(value);
    }

    /** bfloat16 bits to float (exact). */
    public static float bf16ToFloat(short bf16) {
        return Float.intBitsToFloat((bf16 & 0xffff) << 16);
    }

    /** Float to bfloat16 bits, round to nearest even; NaN stays NaN. */
    public static short floatToBf16(float value) {
        int bits = Float.floatToRawIntBits(value);
        if ((bits & 0x7fffffff) > 0x7f800000) {
            return (short) ((bits >>> 16) | 0x0040);        // quiet NaN
        }
        int rounded = bits + 0x7fff + ((bits >>> 16) & 1);
        return (short) (rounded >>> 16);
    }
}
