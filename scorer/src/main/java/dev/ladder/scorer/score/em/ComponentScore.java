package dev.ladder.scorer.score.em;

/**
 * One component of exact set match for one item, as in Spider's partial scores: how many units the
 * gold and the prediction have in this component and how many of the prediction's units were matched
 * (each gold unit at most once).
 *
 * <p>{@link #precision()}, {@link #recall()} and {@link #f1()} are Spider's per-item scores
 * ({@code get_scores} in evaluation.py): all three are 1 when the component matches exactly
 * ({@code goldCount == predCount == matched}, which includes "neither has it") and 0 otherwise. Spider
 * averages precision over items with {@link #hasPred()} and recall over items with {@link #hasGold()}.
 * The {@code set*} helpers give the fractional set scores for finer-grained analysis.
 *
 * @param goldCount units in the gold query
 * @param predCount units in the predicted query
 * @param matched   predicted units that matched a gold unit
 */
public record ComponentScore(int goldCount, int predCount, int matched) {

    public ComponentScore {
        if (goldCount < 0 || predCount < 0 || matched < 0 || matched > Math.min(goldCount, predCount)) {
            throw new IllegalArgumentException("bad component counts: gold=" + goldCount + " pred=" + predCount
                    + " matched=" + matched);
        }
    }

    /** Both sides agree completely on this component (Spider: partial F1 == 1). */
    public boolean exact() {
        return goldCount == predCount && matched == predCount;
    }

    public boolean hasGold() {
        return goldCount > 0;
    }

    public boolean hasPred() {
        return predCount > 0;
    }

    /** Spider's per-item precision ("acc"): 1 when {@link #exact()}, else 0. */
    public double precision() {
        return exact() ? 1.0 : 0.0;
    }

    /** Spider's per-item recall ("rec"): 1 when {@link #exact()}, else 0. */
    public double recall() {
        return exact() ? 1.0 : 0.0;
    }

    /** Spider's per-item F1: 1 when {@link #exact()}, else 0. */
    public double f1() {
        return exact() ? 1.0 : 0.0;
    }

    /** matched / predCount; 1 when neither side has the component, 0 when only the gold has it. */
    public double setPrecision() {
        if (predCount == 0) return goldCount == 0 ? 1.0 : 0.0;
        return (double) matched / predCount;
    }

    /** matched / goldCount; 1 when neither side has the component, 0 when only the prediction has it. */
    public double setRecall() {
        if (goldCount == 0) return predCount == 0 ? 1.0 : 0.0;
        return (double) matched / goldCount;
    }

    /** Harmonic mean of {@link #setPrecision()} and {@link #setRecall()}. */
    public double setF1() {
        double p = setPrecision();
        double r = setRecall();
        return p + r == 0 ? 0.0 : 2 * p * r / (p + r);
    }
}
