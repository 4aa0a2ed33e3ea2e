package dev.ladder.scorer.score;

import dev.ladder.sql.db.QueryResult;
import dev.ladder.sql.db.Values;
import java.math.BigDecimal;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Whether two query results are the same answer, by the rules of {@link ExMode} (a pure function).
 *
 * <p>Values are compared in the canonical forms of {@link dev.ladder.sql.db.Values}, with
 * one more step: every number (integer, DECIMAL, DOUBLE) is compared by its exact decimal value,
 * so {@code 5}, {@code 5.00} and {@code 5.0e0} are equal (as Python's {@code 5 == 5.0} in the
 * reference evaluators), while {@code 0.1 + 0.2} as a double is not {@code 0.3} unless a tolerance
 * is set. NULL equals NULL. Dates, date-times and times are compared by their ISO text, so a date
 * equals the same text from an expression ({@code MAX(d)} on SQLite is text) but {@code 2004-01-01} is
 * not {@code 2004-01-01 00:00:00}; strings compare case-sensitively.
 */
public final class ResultComparison {

    /** Bound on column permutations tried for one pair of results (Spider samples instead). */
    private static final int MAX_PERMUTATIONS = 20_000;

    private ResultComparison() {}

    /**
     * @param orderMatters SPIDER mode: rows must come in the same order (the gold has ORDER BY);
     *                     ignored in BIRD mode
     */
    public static boolean equal(QueryResult gold, QueryResult predicted, boolean orderMatters, ExOptions options) {
        List<List<Object>> g = keys(gold.rows());
        List<List<Object>> p = keys(predicted.rows());
        // a truncated result has rows (or bytes) beyond those kept: it equals no whole result of as many rows, and
        // never an empty one; in BIRD mode its kept rows may still show the same set (the rest is unseen, so flagged)
        if (gold.truncated() != predicted.truncated()) {
            if (g.isEmpty() || p.isEmpty() || options.mode() != ExMode.BIRD) return false;
        }
        if (g.isEmpty() && p.isEmpty()) return true;
        double tol = options.tolerance();
        if (options.mode() == ExMode.BIRD) {
            if (gold.columns().size() != predicted.columns().size()) return false;
            return tol == 0 ? new HashSet<>(g).equals(new HashSet<>(p)) : sameSetApprox(g, p, tol);
        }
        if (g.size() != p.size()) return false;
        int width = gold.columns().size();
        if (width != predicted.columns().size()) return false;

        // a permutation can only map gold column i to a predicted column holding the same values
        List<List<Integer>> candidates = new ArrayList<>();
        for (int i = 0; i < width; i++) {
            List<Object> gc = column(g, i, orderMatters);
            List<Integer> js = new ArrayList<>();
            for (int j = 0; j < width; j++) {
                if (sameRows(List.of(gc), List.of(column(p, j, orderMatters)), tol)) js.add(j);
            }
            if (js.isEmpty()) return false;
            candidates.add(js);
        }
        return search(g, p, candidates, new int[width], new boolean[width], 0, orderMatters, tol, new int[] {0});
    }

    /**
     * SPIDER-mode EX against an ordered gold whose order may have ties: rows must follow the gold's runs of
     * equal sort keys in order, within a run they compare as a multiset, and a run cut by LIMIT/OFFSET
     * accepts any rows of its tie group. Column order is free, as in {@link #equal}.
     */
    public static boolean equalTied(TiedOrder gold, QueryResult predicted, ExOptions options) {
        List<List<Object>> p = keys(predicted.rows());
        if (predicted.truncated()) return false; // the gold here is whole (ties are only found for a whole gold)
        int n = gold.rowCount();
        if (n == 0 && p.isEmpty()) return true;
        if (p.size() != n) return false;
        int width = gold.width();
        if (width != predicted.columns().size()) return false;
        double tol = options.tolerance();
        List<List<List<Object>>> segments = new ArrayList<>();
        int at = 0;
        for (TiedOrder.Run r : gold.runs()) {
            segments.add(p.subList(at, at + r.size()));
            at += r.size();
        }
        List<List<Integer>> candidates = new ArrayList<>();
        for (int i = 0; i < width; i++) {
            List<Integer> js = new ArrayList<>();
            for (int j = 0; j < width; j++) {
                boolean fits = true;
                for (int s = 0; s < segments.size() && fits; s++) {
                    fits = subBag(project(segments.get(s), j), project(gold.runs().get(s).pool(), i), tol);
                }
                if (fits) js.add(j);
            }
            if (js.isEmpty()) return false;
            candidates.add(js);
        }
        return searchTied(gold, segments, candidates, new int[width], new boolean[width], 0, tol, new int[] {0});
    }

    private static boolean searchTied(TiedOrder gold, List<List<List<Object>>> segments, List<List<Integer>> candidates,
                                      int[] perm, boolean[] used, int i, double tol, int[] tried) {
        if (i == perm.length) {
            if (++tried[0] > MAX_PERMUTATIONS) return false;
            for (int s = 0; s < segments.size(); s++) {
                if (!subBag(permute(segments.get(s), perm), gold.runs().get(s).pool(), tol)) return false;
            }
            return true;
        }
        for (int j : candidates.get(i)) {
            if (used[j]) continue;
            used[j] = true;
            perm[i] = j;
            if (searchTied(gold, segments, candidates, perm, used, i + 1, tol, tried)) return true;
            used[j] = false;
            if (tried[0] > MAX_PERMUTATIONS) return false;
        }
        return false;
    }

    private static List<List<Object>> project(List<List<Object>> rows, int column) {
        List<List<Object>> out = new ArrayList<>(rows.size());
        for (List<Object> r : rows) out.add(Collections.singletonList(r.get(column)));
        return out;
    }

    /** Every row of {@code a} matched to a distinct row of {@code b}. */
    private static boolean subBag(List<List<Object>> a, List<List<Object>> b, double tol) {
        if (a.size() > b.size()) return false;
        if (tol == 0) {
            Map<List<Object>, Integer> have = counts(b);
            for (Map.Entry<List<Object>, Integer> e : counts(a).entrySet()) {
                if (have.getOrDefault(e.getKey(), 0) < e.getValue()) return false;
            }
            return true;
        }
        boolean[] taken = new boolean[b.size()];
        outer:
        for (List<Object> row : a) {
            for (int k = 0; k < b.size(); k++) {
                if (!taken[k] && rowEqual(row, b.get(k), tol)) {
                    taken[k] = true;
                    continue outer;
                }
            }
            return false;
        }
        return true;
    }

    private static boolean search(List<List<Object>> g, List<List<Object>> p, List<List<Integer>> candidates,
                                  int[] perm, boolean[] used, int i, boolean ordered, double tol, int[] tried) {
        if (i == perm.length) {
            if (++tried[0] > MAX_PERMUTATIONS) return false;
            // ordered: every column sequence already matches, hence every row does
            return ordered || sameBag(g, permute(p, perm), tol);
        }
        for (int j : candidates.get(i)) {
            if (used[j]) continue;
            used[j] = true;
            perm[i] = j;
            if (search(g, p, candidates, perm, used, i + 1, ordered, tol, tried)) return true;
            used[j] = false;
            if (tried[0] > MAX_PERMUTATIONS) return false;
        }
        return false;
    }

    private static List<List<Object>> permute(List<List<Object>> rows, int[] perm) {
        List<List<Object>> out = new ArrayList<>(rows.size());
        for (List<Object> r : rows) {
            List<Object> row = new ArrayList<>(perm.length);
            for (int j : perm) row.add(r.get(j));
            out.add(row);
        }
        return out;
    }

    /** Column i as a one-column sequence, sorted when order does not matter (so it compares as a bag). */
    private static List<Object> column(List<List<Object>> rows, int i, boolean ordered) {
        List<Object> col = new ArrayList<>(rows.size());
        for (List<Object> r : rows) col.add(r.get(i));
        if (!ordered) col.sort(VALUE_ORDER);
        return col;
    }

    /** Two single-column (or any) row lists equal position by position. */
    private static boolean sameRows(List<List<Object>> a, List<List<Object>> b, double tol) {
        if (tol == 0) return a.equals(b);
        if (a.size() != b.size()) return false;
        for (int k = 0; k < a.size(); k++) {
            if (!rowEqual(a.get(k), b.get(k), tol)) return false;
        }
        return true;
    }

    private static boolean sameBag(List<List<Object>> a, List<List<Object>> b, double tol) {
        if (tol == 0) return counts(a).equals(counts(b));
        List<List<Object>> x = new ArrayList<>(a);
        List<List<Object>> y = new ArrayList<>(b);
        x.sort(ROW_ORDER);
        y.sort(ROW_ORDER);
        if (sameRows(x, y, tol)) return true;
        // values near a rounding boundary can sort differently: fall back to greedy matching
        boolean[] taken = new boolean[y.size()];
        outer:
        for (List<Object> row : x) {
            for (int k = 0; k < y.size(); k++) {
                if (!taken[k] && rowEqual(row, y.get(k), tol)) {
                    taken[k] = true;
                    continue outer;
                }
            }
            return false;
        }
        return true;
    }

    private static boolean sameSetApprox(List<List<Object>> a, List<List<Object>> b, double tol) {
        for (List<Object> r : a) if (b.stream().noneMatch(s -> rowEqual(r, s, tol))) return false;
        for (List<Object> r : b) if (a.stream().noneMatch(s -> rowEqual(r, s, tol))) return false;
        return true;
    }

    private static Map<List<Object>, Integer> counts(List<List<Object>> rows) {
        Map<List<Object>, Integer> m = new HashMap<>();
        for (List<Object> r : rows) m.merge(r, 1, Integer::sum);
        return m;
    }

    private static boolean rowEqual(List<Object> a, List<Object> b, double tol) {
        if (a.size() != b.size()) return false;
        for (int k = 0; k < a.size(); k++) {
            Object x = a.get(k);
            Object y = b.get(k);
            if (x instanceof BigDecimal bx && y instanceof BigDecimal by) {
                double dx = bx.doubleValue();
                double dy = by.doubleValue();
                if (Math.abs(dx - dy) > tol * Math.max(1, Math.max(Math.abs(dx), Math.abs(dy)))) return false;
            } else if (!Objects.equals(x, y)) {
                return false;
            }
        }
        return true;
    }

    /** Comparison keys: numbers become exact, scale-free decimals; everything else stays as it is. */
    static List<List<Object>> keys(List<List<Object>> rows) {
        List<List<Object>> out = new ArrayList<>(rows.size());
        for (List<Object> r : rows) {
            List<Object> row = new ArrayList<>(r.size());
            for (Object v : r) row.add(key(v));
            out.add(row);
        }
        return out;
    }

    static Object key(Object v) {
        if (v instanceof TemporalAccessor t) return Values.iso(t);
        if (v instanceof Double d) {
            return d.isNaN() || d.isInfinite() ? d : strip(BigDecimal.valueOf(d));
        }
        if (v instanceof Float f) return key(f.doubleValue());
        if (v instanceof BigDecimal bd) return strip(bd);
        if (v instanceof Number n) return strip(new BigDecimal(n.toString()));
        return v;
    }

    private static BigDecimal strip(BigDecimal bd) {
        if (bd.signum() == 0) return BigDecimal.ZERO;
        BigDecimal s = bd.stripTrailingZeros();
        return s.scale() < 0 ? s.setScale(0) : s;
    }

    /** A total order over canonical values: NULL first, then numbers, then the rest by type name and text. */
    private static final Comparator<Object> VALUE_ORDER = (a, b) -> {
        if (a == b) return 0;
        if (a == null) return -1;
        if (b == null) return 1;
        if (a instanceof BigDecimal x && b instanceof BigDecimal y) return x.compareTo(y);
        if (a instanceof BigDecimal) return -1;
        if (b instanceof BigDecimal) return 1;
        int byType = a.getClass().getName().compareTo(b.getClass().getName());
        return byType != 0 ? byType : a.toString().compareTo(b.toString());
    };

    private static final Comparator<List<Object>> ROW_ORDER = (a, b) -> {
        for (int k = 0; k < Math.min(a.size(), b.size()); k++) {
            int c = VALUE_ORDER.compare(a.get(k), b.get(k));
            if (c != 0) return c;
        }
        return Integer.compare(a.size(), b.size());
    };
}
