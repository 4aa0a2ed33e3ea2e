package dev.ladder.eval.score;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

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

    /** Summaries per group, in first-seen order of the group key. */
    public static Map<String, ScoreSummary> by(List<ItemScore> scores, Function<ItemScore, String> key) {
        Map<String, List<ItemScore>> groups = new LinkedHashMap<>();
        for (ItemScore s : scores) groups.computeIfAbsent(key.apply(s), k -> new ArrayList<>()).add(s);
        Map<String, ScoreSummary> out = new LinkedHashMap<>();
        groups.forEach((k, v) -> out.put(k, of(v)));
        return out;
    }
}
