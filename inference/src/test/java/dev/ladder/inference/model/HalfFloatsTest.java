package dev.ladder.inference.model;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static dev.ladder.inference.model.HalfFloats.bf16ToFloat;
import static dev.ladder.inference.model.HalfFloats.f16ToFloat;
import static dev.ladder.inference.model.HalfFloats.floatToBf16;
import static dev.ladder.inference.model.HalfFloats.floatToF16;
import static org.assertj.core.api.Assertions.assertThat;

class HalfFloatsTest {

    @Test
    void everyHalfWidensExactlyAndNarrowsBack() {
        for (int h = 0; h < 0x10000; h++) {
            float f = f16ToFloat((short) h);
            if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0) {
                assertThat(f).isNaN();
                assertThat(floatToF16(f) & 0x7c00).isEqualTo(0x7c00);
                assertThat(floatToF16(f) & 0x3ff).isNotZero();
            } else {
                assertThat(floatToF16(f) & 0xffff).as("half %04x", h).isEqualTo(h);
            }
        }
    }

    @Test
    void knownValues() {
        assertThat(f16ToFloat((short) 0x3c00)).isEqualTo(1.0f);
        assertThat(f16ToFloat((short) 0xc000)).isEqualTo(-2.0f);
        assertThat(f16ToFloat((short) 0x7bff)).isEqualTo(65504.0f);
        assertThat(f16ToFloat((short) 0x0001)).isEqualTo(0x1p-24f);
        assertThat(f16ToFloat((short) 0x03ff)).isEqualTo(1023 * 0x1p-24f);
        assertThat(f16ToFloat((short) 0x0400)).isEqualTo(0x1p-14f);
        assertThat(f16ToFloat((short) 0x7c00)).isEqualTo(Float.POSITIVE_INFINITY);
        assertThat(f16ToFloat((short) 0xfc00)).isEqualTo(Float.NEGATIVE_INFINITY);
        assertThat(Float.floatToRawIntBits(f16ToFloat((short) 0x8000))).isEqualTo(0x80000000);

        assertThat(floatToF16(65504f)).isEqualTo((short) 0x7bff);
        assertThat(floatToF16(65519.99f)).isEqualTo((short) 0x7bff);       // below the midpoint to infinity
        assertThat(floatToF16(65520f)).isEqualTo((short) 0x7c00);           // midpoint rounds to even: infinity
        assertThat(floatToF16(1e10f)).isEqualTo((short) 0x7c00);
        assertThat(floatToF16(-1e10f)).isEqualTo((short) 0xfc00);
        assertThat(floatToF16(Float.NaN) & 0x7fff).isGreaterThan(0x7c00);
        assertThat(floatToF16(0x1p-24f)).isEqualTo((short) 0x0001);         // smallest subnormal
        assertThat(floatToF16(0x1p-25f)).isEqualTo((short) 0x0000);         // tie between 0 and 1: even is 0
        assertThat(floatToF16(0x1.8p-24f)).isEqualTo((short) 0x0002);       // 1.5 ulp: tie to even 2
        assertThat(floatToF16(0x1.000002p-25f)).isEqualTo((short) 0x0001);  // just above the tie
        assertThat(floatToF16(0x1p-30f)).isEqualTo((short) 0x0000);
        assertThat(floatToF16(-0x1p-30f)).isEqualTo((short) 0x8000);
        assertThat(floatToF16(Float.MIN_VALUE)).isEqualTo((short) 0x0000);
        assertThat(floatToF16(1023.5f * 0x1p-24f)).isEqualTo((short) 0x0400); // carries into the smallest normal
        assertThat(floatToF16(1 + 0x1p-11f)).isEqualTo((short) 0x3c00);      // tie: 1.0 is even
        assertThat(floatToF16(1 + 0x3p-11f)).isEqualTo((short) 0x3c02);      // tie: to the even neighbour above
        assertThat(floatToF16(0.1f)).isEqualTo((short) 0x2e66);
    }

    @Test
    void narrowingPicksTheNearestHalfTiesToEven() {
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < 200_000; i++) {
            float f = i % 2 == 0 ? Float.intBitsToFloat(r.nextInt())               // any bit pattern
                    : (float) (r.nextGaussian() * Math.pow(2, r.nextInt(-26, 17)));  // around the half range
            if (Float.isNaN(f) || Math.abs(f) > 65504f) {
                continue;
            }
            short h = floatToF16(f);
            double chosen = f16ToFloat(h);
            double err = Math.abs(chosen - f);
            for (int d = -1; d <= 1; d += 2) {
                int nb = (h & 0xffff) + d;
                if ((nb & 0x7fff) > 0x7bff || nb < 0 || nb > 0xffff || ((h & 0x7fff) == 0 && d < 0)) {
                    continue;
                }
                double other = f16ToFloat((short) nb);
                double otherErr = Math.abs(other - f);
                assertThat(err).as("f=%s h=%04x", f, h).isLessThanOrEqualTo(otherErr);
                if (err == otherErr && err != 0) {
                    assertThat(h & 1).as("tie to even for %s", f).isZero();
                }
            }
        }
    }

    @Test
    void bfloat16() {
        assertThat(bf16ToFloat((short) 0x3f80)).isEqualTo(1.0f);
        assertThat(bf16ToFloat((short) 0xc0a0)).isEqualTo(-5.0f);
        assertThat(bf16ToFloat((short) 0x7f80)).isEqualTo(Float.POSITIVE_INFINITY);
        assertThat(floatToBf16(1.0f)).isEqualTo((short) 0x3f80);
        assertThat(floatToBf16(Float.intBitsToFloat(0x3f808000))).isEqualTo((short) 0x3f80); // tie, even stays
        assertThat(floatToBf16(Float.intBitsToFloat(0x3f818000))).isEqualTo((short) 0x3f82); // tie, up to even
        assertThat(floatToBf16(Float.intBitsToFloat(0x3f808001))).isEqualTo((short) 0x3f81);
        assertThat(floatToBf16(Float.NaN) & 0x7fff).isGreaterThan(0x7f80);
        assertThat(floatToBf16(Float.MAX_VALUE)).isEqualTo((short) 0x7f80);
        for (int b = 0; b < 0x10000; b++) {
            float f = bf16ToFloat((short) b);
            if (!Float.isNaN(f)) {
                assertThat(floatToBf16(f) & 0xffff).isEqualTo(b);
            }
        }
    }

    @Test
    void clampedNarrowingSaturatesAtTheLargestHalf() {
        assertThat(HalfFloats.floatToF16Clamped(70000f)).isEqualTo((short) 0x7bff);
        assertThat(HalfFloats.floatToF16Clamped(-1e30f)).isEqualTo((short) 0xfbff);
        assertThat(HalfFloats.floatToF16Clamped(65519f)).isEqualTo(floatToF16(65519f));      // rounds to 65504 anyway
        assertThat(HalfFloats.floatToF16Clamped(Float.POSITIVE_INFINITY)).isEqualTo((short) 0x7c00);
        assertThat(f16ToFloat(HalfFloats.floatToF16Clamped(Float.NaN))).isNaN();
        assertThat(HalfFloats.floatToF16Clamped(1.5f)).isEqualTo(floatToF16(1.5f));
    }
}
