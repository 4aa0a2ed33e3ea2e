package dev.ladder.eval.report;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * How a report column's numbers are written. Every format goes through here, so the same value always gives the
 * same text: fixed decimals, half-up rounding, no locale, no negative zero.
 */
public enum Style {
    /** Free text, written as is. */
    TEXT,
    /** Whole counts: {@code 20}. */
    COUNT,
    /** Proportions in [0, 1] with three decimals: {@code 0.650}. */
    PROPORTION,
    /** Differences of proportions, signed, three decimals: {@code +0.050}, {@code -0.100}. */
    DIFFERENCE,
    /**
     * p-values: four decimals for reading ({@code 0.0215}, {@code <0.0001}); for machines six significant digits
     * without trailing zeros ({@code 0.0214844}, {@code 1}), so small p-values keep their size.
     */
    P_VALUE,
    /** Means and medians of milliseconds and tokens, one decimal: {@code 1234.5}. */
    DECIMAL;

    /** Shown for a missing value in Markdown and LaTeX (CSV leaves the field empty, JSON writes null). */
    public static final String MISSING = "—";

    private static final BigDecimal SMALLEST_SHOWN_P = new BigDecimal("0.0001");

    /** The number as it goes to CSV and JSON; null when missing. */
    BigDecimal machine(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) return null;
        BigDecimal v = switch (this) {
            case COUNT -> BigDecimal.valueOf(Math.round(value));
            case PROPORTION, DIFFERENCE -> BigDecimal.valueOf(value).setScale(3, RoundingMode.HALF_UP);
            case P_VALUE -> BigDecimal.valueOf(value).round(new MathContext(6, RoundingMode.HALF_UP)).stripTrailingZeros();
            case DECIMAL -> BigDecimal.valueOf(value).setScale(1, RoundingMode.HALF_UP);
            case TEXT -> throw new IllegalStateException("text column has no number");
        };
        return v.signum() == 0 ? v.abs() : v;
    }

    /** The number as a CSV field: plain digits, empty when missing. */
    String csv(double value) {
        BigDecimal v = machine(value);
        return v == null ? "" : v.toPlainString();
    }

    /** The number as a reader sees it in Markdown and LaTeX; {@link #MISSING} when missing. */
    String display(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) return MISSING;
        return switch (this) {
            case DIFFERENCE -> {
                BigDecimal v = machine(value);
                yield (v.signum() < 0 ? "" : "+") + v.toPlainString();
            }
            case P_VALUE -> {
                BigDecimal v = BigDecimal.valueOf(value).setScale(4, RoundingMode.HALF_UP);
                yield v.compareTo(SMALLEST_SHOWN_P) < 0 ? "<0.0001" : v.toPlainString();
            }
            default -> machine(value).toPlainString();
        };
    }
}
