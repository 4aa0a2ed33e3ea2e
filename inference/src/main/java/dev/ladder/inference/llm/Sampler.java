package dev.ladder.inference.llm;

import dev.ladder.inference.Sampling;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Chooses the next token from one row of float32 logits on the host: arg-max for greedy, otherwise temperature,
 * then top-k, then top-p (the smallest most-likely set whose probability reaches p), then one draw from the
 * renormalised kept set with the row's own random stream. The log-probability reported is always the one under the
 * raw logits ({@code logit - logsumexp(logits)}), before temperature and truncation.
 */
public final class Sampler {
    private Sampler() {}

    /** A chosen token and its log-probability under the raw logits. */
    public record Choice(int token, float logProb) {}

    /** Tokens whose weight relative to the best is below this are not sorted unless the kept set needs them. */
    private static final double CANDIDATE_FLOOR = 1e-9;

    public static Choice choose(float[] logits, int offset, int vocab, Sampling sampling, SplittableRandom rng) {
        float max = Float.NEGATIVE_INFINITY;
        int argMax = 0;
        for (int i = 0; i < vocab; i++) {
            float l = logits[offset + i];
            if (l > max) {
                max = l;
                argMax = i;
            }
        }
        if (!Float.isFinite(max)) throw new IllegalStateException("logits are not finite (max " + max + ")");
        double sumRaw = 0;
        for (int i = 0; i < vocab; i++) sumRaw += Math.exp(logits[offset + i] - max);
        double lse = max + Math.log(sumRaw);
        if (sampling.greedy()) return new Choice(argMax, (float) (max - lse));

        double t = sampling.temperature();
        double[] w = new double[vocab];
        double total = 0;
        int candidates = 0;
        for (int i = 0; i < vocab; i++) {
            double wi = Math.exp((logits[offset + i] - max) / t);
            w[i] = wi;
            total += wi;
            if (wi >= CANDIDATE_FLOOR) candidates++;
        }
        int token;
        if (sampling.topK() == 0 && sampling.topP() >= 1) {
            token = draw(w, total, rng);
        } else {
            // sort the plausible tokens (by weight, descending); all others weigh less than each of them
            long[] packed = new long[candidates];
            int n = 0;
            for (int i = 0; i < vocab; i++) {
                if (w[i] >= CANDIDATE_FLOOR) packed[n++] = pack((float) w[i], i);
            }
            int k = sampling.topK() == 0 ? vocab : Math.min(sampling.topK(), vocab);
            // the normaliser of the kept set before top-p: all tokens, or the k best
            double keptTotal = 0;
            boolean complete = sampling.topK() == 0 || candidates >= k;
            if (complete) {
                Arrays.sort(packed, 0, n);
                if (sampling.topK() == 0) {
                    double candidateMass = 0;
                    for (int j = 0; j < n; j++) candidateMass += w[index(packed[j])];
                    keptTotal = total;
                    // the nucleus lies among the candidates only if they reach top-p by themselves
                    if (candidateMass < sampling.topP() * total) complete = false;
                } else {
                    for (int j = 0; j < k; j++) keptTotal += w[index(packed[n - 1 - j])];
                }
            }
            if (!complete) {
                packed = new long[vocab];
                for (int i = 0; i < vocab; i++) packed[i] = pack((float) w[i], i);
                Arrays.sort(packed);
                n = vocab;
                keptTotal = 0;
                for (int j = 0; j < k; j++) keptTotal += w[index(packed[n - 1 - j])];
            }
            // walk the k best in descending order until their share reaches top-p
            int keep = 0;
            double cum = 0;
            double target = sampling.topP() * keptTotal;
            int limit = Math.min(k, n);
            while (keep < limit) {
                cum += w[index(packed[n - 1 - keep])];
                keep++;
                if (cum >= target) break;
            }
            double u = rng.nextDouble() * cum;
            double acc = 0;
            token = index(packed[n - 1]);
            for (int j = 0; j < keep; j++) {
                int id = index(packed[n - 1 - j]);
                acc += w[id];
                if (u < acc) {
                    token = id;
                    break;
                }
            }
        }
        return new Choice(token, (float) (logits[offset + token] - lse));
    }

    private static int draw(double[] w, double total, SplittableRandom rng) {
        double u = rng.nextDouble() * total;
        double acc = 0;
        int last = 0;
        for (int i = 0; i < w.length; i++) {
            if (w[i] > 0) last = i;
            acc += w[i];
            if (u < acc) return i;
        }
        return last;
    }

    /**
     * Non-negative float bits order like the floats; ties order by descending index so that, read from the end,
     * equal weights come lowest id first.
     */
    private static long pack(float w, int index) {
        return ((long) Float.floatToIntBits(w) << 32) | (0xFFFFFFFFL & ~index);
    }

    private static int index(long packed) {
        return ~(int) packed;
    }
}
