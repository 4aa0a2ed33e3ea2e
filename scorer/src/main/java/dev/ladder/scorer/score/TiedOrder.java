package dev.ladder.scorer.score;

import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionError;
import dev.ladder.sql.db.ExecutionLimits;
import dev.ladder.sql.db.QueryResult;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SelectItems;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.AnalyticExpression;
import net.sf.jsqlparser.expression.AnalyticType;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.PlainSelect;

/**
 * The order an ordered gold really fixes: its rows cut into runs of equal ORDER BY key values. Rows of
 * one run may come in any order (the engine picks one, and may pick another next time); a run that a
 * LIMIT or OFFSET cuts carries its whole tie group as the pool its rows may be chosen from.
 *
 * @param width the gold's column count
 * @param runs  the gold's rows, run by run, in order (canonical comparison keys; SQL NULL is {@code null})
 */
public record TiedOrder(int width, List<Run> runs) {

    /**
     * @param size how many rows of the result this run holds
     * @param pool the rows with this run's key value (more than {@code size} when LIMIT/OFFSET cut the tie)
     */
    public record Run(int size, List<List<Object>> pool) {}

    private static final String KEY_PREFIX = "ladder_tie_key_";
    /** Bound on the unlimited gold run to find tie groups; beyond it, order is compared strictly. */
    private static final int ROW_CAP = 100_000;

    public int rowCount() {
        return runs.stream().mapToInt(Run::size).sum();
    }

    /**
     * The tie structure of {@code goldSql} (already prepared for execution) on {@code db}, or empty when
     * it cannot be found (not a single SELECT with ORDER BY, a non-literal LIMIT, DISTINCT with an
     * unselected sort key, the rewritten query fails or hits the row cap): order is then strict.
     *
     * <p>The engine decides which keys tie, by its own collations: the gold runs once more without LIMIT/OFFSET
     * and with {@code DENSE_RANK() OVER (ORDER BY <its keys>)} selected, and rows of equal rank are one run. Where
     * the engine cannot rank (a key that is itself a window function, a server without window functions), the keys
     * are selected instead and tie when their values are equal.
     */
    public static Optional<TiedOrder> of(Database db, String goldSql) {
        return of(db, goldSql, ExecutionLimits.DEFAULT);
    }

    /** As {@link #of(Database, String)}, the ranking query under {@code limits} (its row cap raised to 100,000). */
    public static Optional<TiedOrder> of(Database db, String goldSql, ExecutionLimits limits) {
        for (boolean rank : new boolean[] {true, false}) {
            Optional<Rewrite> r = rewrite(goldSql, rank);
            if (r.isEmpty()) return Optional.empty();
            Execution ex = db.execute(r.get().sql(), limits.withRowCap(ROW_CAP));
            if (ex instanceof Execution.Success ok) {
                if (ok.result().truncated()) return Optional.empty();
                QueryResult all = ok.result();
                int width = all.columns().size() - r.get().appended();
                List<Integer> keyColumns = new ArrayList<>();
                for (int k = 0; k < r.get().appended(); k++) keyColumns.add(width + k);
                return Optional.of(runs(ResultComparison.keys(all.rows()), width, keyColumns, r.get().start(), r.get().end()));
            }
            // too slow to rank is too slow to run again
            if (ex instanceof Execution.Failure f && (f.error().kind() == ExecutionError.Kind.TIMEOUT
                    || f.error().kind() == ExecutionError.Kind.WORK_LIMIT)) return Optional.empty();
        }
        return Optional.empty();
    }

    /**
     * The gold without LIMIT/OFFSET and with the columns that tell its ties apart appended (the last {@code appended}
     * columns); {@code end} is the row after the gold's window, null for no LIMIT.
     */
    private record Rewrite(String sql, int appended, long start, Long end) {}

    /** @param rank one DENSE_RANK column (the engine's ties), else one column per sort key (equal values tie) */
    private static Optional<Rewrite> rewrite(String goldSql, boolean rank) {
        // a Query of its own: the parsed statement is rewritten below
        if (!(Query.read(goldSql).statement().orElse(null) instanceof PlainSelect select)) return Optional.empty();
        List<OrderByElement> orderBy = select.getOrderByElements();
        if (orderBy == null || orderBy.isEmpty()) return Optional.empty();
        boolean star = select.getSelectItems().stream().anyMatch(i -> i.getExpression().toString().endsWith("*"));
        // each key as an expression: an item named by position or alias stands for the item's expression
        List<OrderByElement> keys = new ArrayList<>();
        for (OrderByElement o : orderBy) {
            int index = SelectItems.indexOf(select, o.getExpression());
            // a position counts the columns a * expands to, which the items do not tell
            if (index >= 0 && star && o.getExpression() instanceof LongValue) return Optional.empty();
            // an unselected key would make DISTINCT keep rows the gold merges
            if (index < 0 && select.getDistinct() != null) return Optional.empty();
            OrderByElement key = new OrderByElement();
            key.setExpression(index >= 0 ? select.getSelectItems().get(index).getExpression() : o.getExpression());
            key.setAsc(o.isAsc());
            key.setAscDescPresent(o.isAscDescPresent());
            key.setNullOrdering(o.getNullOrdering());
            keys.add(key);
        }
        long start = 0;
        Long end = null;
        if (select.getLimit() != null) {
            if (!(select.getLimit().getRowCount() instanceof LongValue count)) {
                if (select.getLimit().getRowCount() != null) return Optional.empty();
            } else {
                end = count.getValue();
            }
            if (select.getLimit().getOffset() != null) {
                if (!(select.getLimit().getOffset() instanceof LongValue off)) return Optional.empty();
                start = off.getValue();
            }
        }
        if (select.getOffset() != null) {
            if (!(select.getOffset().getOffset() instanceof LongValue off)) return Optional.empty();
            start = off.getValue();
        }
        if (end != null) end += start;
        select.setLimit(null);
        select.setOffset(null);
        if (select.getFetch() != null) return Optional.empty();
        if (rank) {
            AnalyticExpression denseRank = new AnalyticExpression();
            denseRank.setName("DENSE_RANK");
            denseRank.setType(AnalyticType.OVER);
            denseRank.setOrderByElements(keys);
            select.addSelectItem(denseRank, new Alias(KEY_PREFIX + "rank"));
            return Optional.of(new Rewrite(select.toString(), 1, start, end));
        }
        for (int k = 0; k < keys.size(); k++) select.addSelectItem(keys.get(k).getExpression(), new Alias(KEY_PREFIX + k));
        return Optional.of(new Rewrite(select.toString(), keys.size(), start, end));
    }

    static TiedOrder runs(List<List<Object>> rows, int width, List<Integer> keyColumns, long start, Long end) {
        int from = (int) Math.min(start, rows.size());
        int to = end == null ? rows.size() : (int) Math.min(end, rows.size());
        List<Run> runs = new ArrayList<>();
        int i = from;
        while (i < to) {
            int j = i + 1;
            while (j < to && sameKey(rows.get(i), rows.get(j), keyColumns)) j++;
            // the tie group may reach past the window: its rows are all valid choices
            int lo = i;
            while (lo > 0 && sameKey(rows.get(lo - 1), rows.get(i), keyColumns)) lo--;
            int hi = j;
            while (hi < rows.size() && sameKey(rows.get(hi), rows.get(i), keyColumns)) hi++;
            List<List<Object>> pool = new ArrayList<>(hi - lo);
            // rows hold NULLs (List.copyOf refuses them)
            for (int k = lo; k < hi; k++) pool.add(Collections.unmodifiableList(new ArrayList<>(rows.get(k).subList(0, width))));
            runs.add(new Run(j - i, pool));
            i = j;
        }
        return new TiedOrder(width, List.copyOf(runs));
    }

    /** Equal values in every key column (ranks, or keys the engine could not rank); NULL ties with NULL. */
    private static boolean sameKey(List<Object> a, List<Object> b, List<Integer> keys) {
        for (int k : keys) {
            if (!Objects.equals(a.get(k), b.get(k))) return false;
        }
        return true;
    }
}
