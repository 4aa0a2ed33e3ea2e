package dev.ladder.eval.check;

import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionLimits;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SelectItems;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.PlainSelect;

/**
 * Finds ties that make a gold answer depend on the engine: rows that ORDER BY cannot tell apart
 * but that differ, and ties across a LIMIT cut-off (which change the returned set). It re-runs
 * the query without LIMIT and with the ORDER BY keys added to the SELECT list.
 */
public final class OrderCheck {

    private static final String KEY_PREFIX = "ladder_order_key_";

    private OrderCheck() {}

    /**
     * Problems found: ties across a LIMIT cut-off always; ties inside the result only when
     * {@code orderMatters} (otherwise the rows are compared as a bag and their order is free).
     */
    public static List<String> problems(Database db, String sql, boolean orderMatters) {
        // a Query of its own: the parsed statement is rewritten below
        Query query = Query.read(sql);
        if (query.isEmpty()) return List.of();
        if (query.statement().isEmpty()) return List.of("cannot parse the SQL to check its ORDER BY");
        if (!(query.statement().get() instanceof PlainSelect select)) return List.of();
        List<OrderByElement> orderBy = select.getOrderByElements();
        if (orderBy == null || orderBy.isEmpty()) {
            return select.getLimit() != null ? List.of("LIMIT without ORDER BY: the returned rows are arbitrary") : List.of();
        }
        int width = select.getSelectItems().size();
        List<Integer> keyColumns = new ArrayList<>();
        int appended = 0;
        for (OrderByElement o : orderBy) {
            int index = SelectItems.indexOf(select, o.getExpression());
            if (index < 0) {
                if (select.getDistinct() != null) return List.of("cannot check ties: DISTINCT with ORDER BY on an unselected expression");
                select.addSelectItem(o.getExpression(), new Alias(KEY_PREFIX + appended));
                index = width + appended++;
            }
            keyColumns.add(index);
        }
        // LIMIT n, LIMIT n OFFSET m and LIMIT m, n: the window is rows (start, end]
        long start = 0;
        Long end = null;
        if (select.getLimit() != null && select.getLimit().getRowCount() instanceof LongValue lv) {
            if (select.getLimit().getOffset() instanceof LongValue off) start = off.getValue();
            if (select.getOffset() != null && select.getOffset().getOffset() instanceof LongValue off) start = off.getValue();
            end = start + lv.getValue();
        }
        select.setLimit(null);
        select.setOffset(null);
        Execution ex = db.execute(select.toString(), ExecutionLimits.DEFAULT.withRowCap(100_000));
        if (!(ex instanceof Execution.Success ok)) return List.of("cannot check ties: " + ((Execution.Failure) ex).error());
        List<List<Object>> rows = ok.result().rows();
        List<String> problems = new ArrayList<>();
        int upTo = end == null ? rows.size() : (int) Math.min(rows.size(), end + 1);
        for (int i = 1; i < upTo; i++) {
            List<Object> a = rows.get(i - 1);
            List<Object> b = rows.get(i);
            boolean atCut = end != null && (i == end || (start > 0 && i == start));
            boolean inside = i > start;
            if ((atCut || (orderMatters && inside)) && sameKey(a, b, keyColumns) && !a.subList(0, width).equals(b.subList(0, width))) {
                problems.add((atCut ? "tie across the LIMIT cut-off" : "tie in ORDER BY") + " between rows " + i + " and " + (i + 1)
                        + ": " + a.subList(0, width) + " / " + b.subList(0, width));
                if (problems.size() == 3) break;
            }
        }
        return problems;
    }

    private static boolean sameKey(List<Object> a, List<Object> b, List<Integer> keys) {
        for (int k : keys) {
            if (!Objects.equals(a.get(k), b.get(k))) return false;
        }
        return true;
    }
}
