package dev.ladder.scorer.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;

/**
 * How a run picks {@code limit} items of a split. The first N items of a split are rarely a fair sample (a benchmark
 * file is often grouped by category: ClassicModels' first ten are all lookups), so the default is a stratified,
 * seeded sample: proportional to the strata (category x difficulty), the same seed giving the same items.
 *
 * @param method stratified (the default) or the first items in file order
 * @param seed   seed of the stratified draw (ignored by {@code first})
 */
public record ItemSubset(Method method, long seed) {

    public enum Method {
        STRATIFIED, FIRST;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The method named by {@code text} (case ignored), or null. */
        public static Method parse(String text) {
            for (Method m : values()) if (m.label().equalsIgnoreCase(text == null ? "" : text.strip())) return m;
            return null;
        }
    }

    public static final ItemSubset DEFAULT = new ItemSubset(Method.STRATIFIED, 0);

    public ItemSubset {
        Objects.requireNonNull(method, "method");
    }

    /**
     * The chosen items in split order, and how they were chosen in words.
     *
     * @param items       the items a run answers
     * @param description e.g. "10 of 200, stratified by category and difficulty (seed 0)"
     */
    public record Selection(List<BenchmarkItem> items, String description) {
        public Selection {
            items = List.copyOf(items);
        }
    }

    /** All items when {@code limit} is null or not below their number, else {@code limit} of them by the method. */
    public Selection select(List<BenchmarkItem> all, Integer limit) {
        int n = all.size();
        if (limit == null || limit >= n) return new Selection(all, "all " + n + " items of the split");
        if (method == Method.FIRST) return new Selection(all.subList(0, limit), "the first " + limit + " of " + n + " items in file order");
        return new Selection(stratified(all, limit), limit + " of " + n + " items, stratified by category and difficulty"
                + " (proportional allocation, seed " + seed + ")");
    }

    /**
     * Largest-remainder allocation of {@code limit} over the strata (each stratum gets floor(limit * size / n), the
     * rest go to the largest remainders, ties to the larger stratum, then to the stratum met first in the file), then
     * a seeded shuffle within each stratum; the chosen items are returned in file order.
     */
    private List<BenchmarkItem> stratified(List<BenchmarkItem> all, int limit) {
        Map<String, List<Integer>> strata = new LinkedHashMap<>();
        for (int i = 0; i < all.size(); i++) {
            BenchmarkItem item = all.get(i);
            strata.computeIfAbsent(item.category() + "\u0000" + item.difficulty(), k -> new ArrayList<>()).add(i);
        }
        List<String> keys = new ArrayList<>(strata.keySet());
        int n = all.size();
        Map<String, Integer> quota = new LinkedHashMap<>();
        int given = 0;
        for (String k : keys) {
            int q = (int) ((long) limit * strata.get(k).size() / n);
            quota.put(k, q);
            given += q;
        }
        List<String> byRemainder = new ArrayList<>(keys);
        // remainder of stratum k is (limit * size mod n) / n: compare the integer numerators exactly
        byRemainder.sort(Comparator.<String>comparingLong(k -> -(((long) limit * strata.get(k).size()) % n))
                .thenComparingInt(k -> -strata.get(k).size())
                .thenComparingInt(keys::indexOf));
        for (int i = 0; given < limit; i++, given++) {
            String k = byRemainder.get(i);
            quota.merge(k, 1, Integer::sum);
        }
        Set<Integer> chosen = new HashSet<>();
        for (String k : keys) {
            List<Integer> members = new ArrayList<>(strata.get(k));
            // one generator per stratum, seeded from the run's seed and the stratum's name: adding or removing items
            // of one stratum does not change the draw of another
            Collections.shuffle(members, new Random(seed * 1_000_003L + k.hashCode()));
            chosen.addAll(members.subList(0, quota.get(k)));
        }
        List<BenchmarkItem> out = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) if (chosen.contains(i)) out.add(all.get(i));
        return out;
    }
}
