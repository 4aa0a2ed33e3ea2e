package dev.ladder.eval.report;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The statistics of a report: Wilson score intervals of proportions, percentile bootstrap intervals of paired
 * differences, the exact McNemar (sign) test and Holm's step-down adjustment. Pure functions; every resampling is
 * seeded so the same input gives the same numbers.
 */
public final class Statistics {

    /** Resamples a bootstrap draws unless told otherwise. */
    public static final int DEFAULT_RESAMPLES = 1000;
    /** Seed of the bootstrap's {@link SplittableRandom} unless told otherwise. */
    public static final long DEFAULT_SEED = 0L;
    /** Coverage of every interval: the 2.5th and 97.5th percentiles of the bootstrap distribution. */
    public static final double LEVEL = 0.95;

    private Statistics() {
    }

    /**
     * A point estimate with its interval; all three are {@link Double#NaN} when there was nothing to estimate from.
     *
     * @param value the estimate on the observed data
     * @param lower the interval's lower end
     * @param upper the interval's upper end
     */
    public record Estimate(double value, double lower, double upper) {
        static final Estimate NONE = new Estimate(Double.NaN, Double.NaN, Double.NaN);

        /** Whether there was data to estimate from. */
        public boolean present() {
            return !Double.isNaN(value);
        }
    }

    /**
     * The exact McNemar test of two paired binary outcomes.
     *
     * @param n paired items
     * @param b items the first outcome got right and the second wrong
     * @param c items the first outcome got wrong and the second right
     * @param p the two-sided exact p-value
     */
    public record McNemar(int n, int b, int c, double p) {
    }

    /** The share of {@code true}; NaN for no values. */
    public static double proportion(boolean[] values) {
        if (values.length == 0) return Double.NaN;
        int k = 0;
        for (boolean v : values) if (v) k++;
        return (double) k / values.length;
    }

    /** The 0.975 quantile of the standard normal: the z of every two-sided 95% Wilson interval. */
    public static final double Z_95 = 1.959963984540054;

    /**
     * The proportion {@code k / n} with its 95% Wilson score interval:
     * {@code (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)}. Unlike the percentile bootstrap it is not
     * degenerate at 0 or n successes (0/10 gives [0, 0.278], not [0, 0]). NaNs for {@code n = 0}.
     */
    public static Estimate wilson(int k, int n) {
        if (k < 0 || k > n) throw new IllegalArgumentException("successes must be in [0, n]: " + k + " of " + n);
        if (n == 0) return Estimate.NONE;
        double p = (double) k / n;
        double z2 = Z_95 * Z_95;
        double denominator = 1 + z2 / n;
        double centre = (p + z2 / (2.0 * n)) / denominator;
        double half = Z_95 * Math.sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / denominator;
        // the ends are exactly 0 and 1 at k = 0 and k = n; rounding must not print -0.000 or 1.000 off by an ulp
        double lower = k == 0 ? 0 : Math.max(0, centre - half);
        double upper = k == n ? 1 : Math.min(1, centre + half);
        return new Estimate(p, lower, upper);
    }

    /** {@link #wilson(int, int)} of the {@code true}s among the values. */
    public static Estimate wilson(boolean[] values) {
        int k = 0;
        for (boolean v : values) if (v) k++;
        return wilson(k, values.length);
    }

    /**
     * The mean of the values with its 95% percentile bootstrap interval: {@code resamples} times, draw
     * {@code values.length} indices with replacement from a {@link SplittableRandom} seeded with {@code seed} and take
     * the resample's mean; the interval is the 2.5th and 97.5th {@link #percentile} of those means. The result depends
     * on the order of {@code values}; callers sort them (reports sort by item id). For per-item differences in {-1, 0, 1} it draws the same indices as
     * {@link #pairedBootstrapDifference} with the same seed, so both give the same interval.
     */
    public static Estimate bootstrapMean(double[] values, int resamples, long seed) {
        requirePositive(resamples);
        int n = values.length;
        if (n == 0) return Estimate.NONE;
        SplittableRandom random = new SplittableRandom(seed);
        double[] means = new double[resamples];
        for (int r = 0; r < resamples; r++) {
            double sum = 0;
            for (int i = 0; i < n; i++) sum += values[random.nextInt(n)];
            means[r] = sum / n;
        }
        return interval(mean(values), means);
    }

    /** The arithmetic mean; NaN for no values. */
    public static double mean(double[] values) {
        if (values.length == 0) return Double.NaN;
        double sum = 0;
        for (double v : values) sum += v;
        return sum / values.length;
    }

    /** The sample standard deviation (divisor {@code m - 1}); NaN for fewer than two values. */
    public static double sampleSd(double[] values) {
        if (values.length < 2) return Double.NaN;
        double m = mean(values);
        double squares = 0;
        for (double v : values) squares += (v - m) * (v - m);
        return Math.sqrt(squares / (values.length - 1));
    }

    /**
     * Holm's step-down adjustment of a family of p-values (controls the family-wise error rate): sort ascending,
     * the i-th smallest (from 1) becomes {@code min(1, (m - i + 1) p_(i))}, then running maxima make the adjusted
     * values monotone in the order of the raw ones. Ties keep their input order. NaNs stay NaN and do not count in m.
     */
    public static double[] holm(double[] p) {
        double[] adjusted = new double[p.length];
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < p.length; i++) {
            if (Double.isNaN(p[i])) adjusted[i] = Double.NaN;
            else order.add(i);
        }
        order.sort(Comparator.comparingDouble(i -> p[i])); // stable: ties keep input order
        int m = order.size();
        double running = 0;
        for (int rank = 0; rank < m; rank++) {
            int i = order.get(rank);
            running = Math.max(running, Math.min(1.0, (m - rank) * p[i]));
            adjusted[i] = running;
        }
        return adjusted;
    }

    /**
     * The paired difference {@code proportion(second) - proportion(first)} with its 95% percentile bootstrap
     * interval; each resample draws one set of item indices and uses it for both sides, so the pairing is kept.
     *
     * @throws IllegalArgumentException when the arrays differ in length
     */
    public static Estimate pairedBootstrapDifference(boolean[] first, boolean[] second, int resamples, long seed) {
        requirePositive(resamples);
        int n = requireSameLength(first, second);
        if (n == 0) return Estimate.NONE;
        SplittableRandom random = new SplittableRandom(seed);
        double[] diffs = new double[resamples];
        for (int r = 0; r < resamples; r++) {
            int delta = 0;
            for (int i = 0; i < n; i++) {
                int j = random.nextInt(n);
                delta += (second[j] ? 1 : 0) - (first[j] ? 1 : 0);
            }
            diffs[r] = (double) delta / n;
        }
        return interval(proportion(second) - proportion(first), diffs);
    }

    /** The exact McNemar test of paired outcomes; see {@link #mcnemarExactP(int, int)}. */
    public static McNemar mcnemar(boolean[] first, boolean[] second) {
        int n = requireSameLength(first, second);
        int b = 0;
        int c = 0;
        for (int i = 0; i < n; i++) {
            if (first[i] && !second[i]) b++;
            if (!first[i] && second[i]) c++;
        }
        return new McNemar(n, b, c, mcnemarExactP(b, c));
    }

    /**
     * The two-sided exact McNemar p-value: under the null each of the {@code b + c} discordant pairs falls either
     * way with probability 1/2, so {@code p = min(1, 2 * sum_{i <= min(b,c)} C(b+c, i) / 2^(b+c))}; 1 when
     * {@code b + c = 0}. Binomial coefficients are summed exactly as integers, so large counts lose no precision.
     */
    public static double mcnemarExactP(int b, int c) {
        if (b < 0 || c < 0) throw new IllegalArgumentException("discordant counts must be >= 0: b=" + b + ", c=" + c);
        int n = b + c;
        if (n == 0) return 1.0;
        int k = Math.min(b, c);
        BigInteger tail = BigInteger.ZERO;
        BigInteger choose = BigInteger.ONE; // C(n, 0)
        for (int i = 0; i <= k; i++) {
            tail = tail.add(choose);
            choose = choose.multiply(BigInteger.valueOf(n - i)).divide(BigInteger.valueOf(i + 1L));
        }
        BigDecimal p = new BigDecimal(tail.shiftLeft(1)).divide(new BigDecimal(BigInteger.ONE.shiftLeft(n)),
                MathContext.DECIMAL128);
        return Math.min(1.0, p.doubleValue());
    }

    /**
     * The {@code q}-quantile of sorted values with linear interpolation between order statistics (Hyndman and
     * Fan's type 7, the default of R and NumPy): {@code h = (m - 1) q}, between {@code sorted[floor(h)]} and the
     * next value.
     */
    public static double percentile(double[] sorted, double q) {
        if (sorted.length == 0) return Double.NaN;
        if (q < 0 || q > 1) throw new IllegalArgumentException("quantile must be in [0, 1]: " + q);
        double h = (sorted.length - 1) * q;
        int lo = (int) Math.floor(h);
        int hi = Math.min(lo + 1, sorted.length - 1);
        return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
    }

    private static Estimate interval(double observed, double[] resampled) {
        Arrays.sort(resampled);
        double tail = (1 - LEVEL) / 2;
        return new Estimate(observed, percentile(resampled, tail), percentile(resampled, 1 - tail));
    }

    private static void requirePositive(int resamples) {
        if (resamples < 1) throw new IllegalArgumentException("resamples must be >= 1: " + resamples);
    }

    private static int requireSameLength(boolean[] first, boolean[] second) {
        if (first.length != second.length) {
            throw new IllegalArgumentException("paired outcomes differ in length: " + first.length + " vs "
                    + second.length);
        }
        return first.length;
    }

    /**
     * Cohen's kappa of two binary raters from their 2×2 counts: {@code a} both yes, {@code b} only the first,
     * {@code c} only the second, {@code d} both no. NaN when there are no items or chance agreement is 1 (a rater
     * that never varies).
     */
    public static double cohenKappa(int a, int b, int c, int d) {
        double n = a + b + c + d;
        if (n == 0) return Double.NaN;
        double po = (a + d) / n;
        double pe = ((a + b) * (a + c) + (c + d) * (b + d)) / (n * n);
        return pe >= 1 ? Double.NaN : (po - pe) / (1 - pe);
    }
}
