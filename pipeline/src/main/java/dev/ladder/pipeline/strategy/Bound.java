package dev.ladder.pipeline.strategy;

import java.math.BigDecimal;

/**
 * The closed range {@code [min, max]} of one numeric setting, and the one wording of a value outside it. Where a file
 * or a command line is read, a value outside is one line naming the key, the value and the bound.
 */
public record Bound(double min, double max) {

    /** Where the bounds and the reasons for them are listed. */
    public static final String WHY = "docs/experiments.md#bounds";

    /** Any 64-bit integer: a seed is a label, not a size. */
    public static final Bound ANY_LONG = new Bound(Long.MIN_VALUE, Long.MAX_VALUE);

    public Bound {
        if (!(min <= max)) throw new IllegalArgumentException("a bound needs min <= max, got [" + min + ", " + max + "]");
    }

    public static Bound of(Bounded b) {
        return new Bound(b.min(), b.max());
    }

    public boolean contains(double value) {
        return value >= min && value <= max;
    }

    /**
     * What is wrong with {@code value} (written {@code text}, as the user wrote it), or null when it is inside:
     * {@code must be <= 256, got 1000000000 (...)}, {@code must be >= 1, got 0}.
     */
    public String problem(double value, String text) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "expected a finite number, got " + text + " (NaN and infinity are not allowed)";
        }
        if (value < min) return "must be >= " + format(min) + ", got " + text;
        if (value > max) return "must be <= " + format(max) + ", got " + text + " (the bounds and why: " + WHY + ")";
        return null;
    }

    /** {@code 1 to 256}, {@code 0 to 1}: the range in words (docs, help). */
    public String describe() {
        return this.equals(ANY_LONG) ? "any integer" : format(min) + " to " + format(max);
    }

    /** A bound as a plain decimal: {@code 256}, {@code 0.001}, {@code 2}. */
    public static String format(double d) {
        return BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
    }
}
