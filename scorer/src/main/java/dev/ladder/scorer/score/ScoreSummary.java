package dev.ladder.scorer.score;

import java.util.List;

/**
 * Means of VA / EX / EM / TS over a set of items. TS is {@code null} ("missing") unless every
 * item has a TS score: a missing suite is never silently replaced by EX.
 */
public record ScoreSummary(int items, double va, double ex, double em, Double ts) {

    public static ScoreSummary of(List<ItemScore> scores) {
        int n = scores.size();
        if (n == 0) return new ScoreSummary(0, 0, 0, 0, null);
        double va = 0, ex = 0, em = 0, ts = 0;
        boolean tsComplete = true;
        for (ItemScore s : scores) {
            if (s.va()) va++;
            if (s.ex()) ex++;
            if (s.em()) em++;
            if (s.ts() == null) tsComplete = false;
            else if (s.ts()) ts++;
        }
        return new ScoreSummary(n, va / n, ex / n, em / n, tsComplete ? ts / n : null);
    }
}
