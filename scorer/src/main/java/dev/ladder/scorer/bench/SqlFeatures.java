package dev.ladder.scorer.bench;

import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SqlVocabulary;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import net.sf.jsqlparser.expression.AnalyticExpression;
import net.sf.jsqlparser.expression.AnyComparisonExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.Parenthesis;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.relational.LikeExpression;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.ParenthesedFromItem;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperationList;

/**
 * Structural features of one SQL query, read from its JSqlParser tree: what Spider's hardness rule
 * counts, plus the tables it touches. Counts are for the outermost query; nested queries, set
 * operations, CTEs and window functions are counted as nesting.
 *
 * @param tables        lower-case names of all tables referenced anywhere (CTE names excluded)
 * @param tableUnits    FROM items of the outermost query (1 + number of joins)
 * @param hasWhere      outermost WHERE present
 * @param hasGroupBy    outermost GROUP BY present
 * @param hasOrderBy    outermost ORDER BY present
 * @param hasLimit      outermost LIMIT present
 * @param hasHaving     outermost HAVING present
 * @param orCount       ORs in ON/WHERE/HAVING of the outermost query
 * @param likeCount     LIKE / NOT LIKE in ON/WHERE/HAVING of the outermost query
 * @param aggregates    aggregate calls anywhere in the outermost query's clauses
 * @param selectItems   items of the outermost SELECT list
 * @param whereConditions leaf conditions of the outermost WHERE
 * @param groupByItems  expressions of the outermost GROUP BY
 * @param nested        subqueries in the outermost query + set-operation branches beyond the first + CTEs
 * @param setOperations UNION / INTERSECT / EXCEPT count
 * @param windowFunctions OVER(...) calls anywhere
 */
public record SqlFeatures(Set<String> tables, int tableUnits, boolean hasWhere, boolean hasGroupBy, boolean hasOrderBy,
                          boolean hasLimit, boolean hasHaving, int orCount, int likeCount, int aggregates,
                          int selectItems, int whereConditions, int groupByItems, int nested, int setOperations,
                          int windowFunctions) {

    /** Parses {@code sql}; throws {@link IllegalArgumentException} naming the parse problem. */
    public static SqlFeatures of(String sql) {
        Query query = Query.read(sql);
        Statement st = query.statement()
                .orElseThrow(() -> new IllegalArgumentException("cannot parse SQL: " + query.parseFailure()));
        if (!(st instanceof Select select)) throw new IllegalArgumentException("not a SELECT: " + firstLine(sql));
        // the tables as the query model reads them (the taxonomy and the gold features read the same set)
        Set<String> tables = query.tables().names();
        int ctes = select.getWithItemsList() == null ? 0 : select.getWithItemsList().size();
        Select body = unwrap(select);
        int setOps = 0;
        PlainSelect top;
        int extraBranches = 0;
        if (body instanceof SetOperationList list) {
            setOps = list.getOperations().size();
            extraBranches = list.getSelects().size() - 1;
            Select first = unwrap(list.getSelects().get(0));
            top = first instanceof PlainSelect p ? p : null;
        } else {
            top = body instanceof PlainSelect p ? p : null;
        }
        Counter c = new Counter();
        if (top == null) {
            return new SqlFeatures(tables, 1, false, false, false, false, false, 0, 0, 0, 1, 0, 0,
                    ctes + extraBranches, setOps, 0);
        }
        int units = 0;
        if (top.getFromItem() != null) {
            units = 1;
            countFromItem(top.getFromItem(), c);
        }
        if (top.getJoins() != null) {
            for (Join j : top.getJoins()) {
                units++;
                countFromItem(j.getFromItem(), c);
                if (j.getOnExpressions() != null) j.getOnExpressions().forEach(e -> c.scan(e));
            }
        }
        for (SelectItem<?> item : top.getSelectItems()) c.scanAggregatesOnly(item.getExpression());
        int whereConditions = 0;
        if (top.getWhere() != null) {
            c.scan(top.getWhere());
            whereConditions = leafConditions(top.getWhere());
        }
        int groupBy = 0;
        if (top.getGroupBy() != null && top.getGroupBy().getGroupByExpressionList() != null) {
            groupBy = top.getGroupBy().getGroupByExpressionList().size();
            for (Object e : top.getGroupBy().getGroupByExpressionList()) c.scanAggregatesOnly((Expression) e);
        }
        if (top.getHaving() != null) c.scan(top.getHaving());
        if (top.getOrderByElements() != null) top.getOrderByElements().forEach(o -> c.scanAggregatesOnly(o.getExpression()));
        boolean limit = top.getLimit() != null || body.getLimit() != null;
        boolean orderBy = top.getOrderByElements() != null || body.getOrderByElements() != null;
        return new SqlFeatures(tables, units, top.getWhere() != null, groupBy > 0, orderBy, limit,
                top.getHaving() != null, c.ors, c.likes, c.aggregates, top.getSelectItems().size(), whereConditions,
                groupBy, c.subqueries + ctes + extraBranches, setOps, countWindows(sql));
    }

    /** Spider's hardness: easy, medium, hard or extra, from the component counts (see docs/benchmark.md). */
    public String hardness() {
        int comp1 = (hasWhere ? 1 : 0) + (hasGroupBy ? 1 : 0) + (hasOrderBy ? 1 : 0) + (hasLimit ? 1 : 0)
                + Math.max(0, tableUnits - 1) + orCount + likeCount;
        int comp2 = nested + windowFunctions;
        int others = (aggregates > 1 ? 1 : 0) + (selectItems > 1 ? 1 : 0) + (whereConditions > 1 ? 1 : 0)
                + (groupByItems > 1 ? 1 : 0);
        if (comp1 <= 1 && others == 0 && comp2 == 0) return "easy";
        if ((others <= 2 && comp1 <= 1 && comp2 == 0) || (comp1 <= 2 && others < 2 && comp2 == 0)) return "medium";
        if ((others > 2 && comp1 <= 2 && comp2 == 0) || (comp1 > 2 && comp1 <= 3 && others <= 2 && comp2 == 0)
                || (comp1 <= 1 && others == 0 && comp2 <= 1)) {
            return "hard";
        }
        return "extra";
    }

    public int joins() {
        return Math.max(0, tableUnits - 1);
    }

    private static void countFromItem(FromItem item, Counter c) {
        if (item instanceof ParenthesedSelect) c.subqueries++;
        else if (item instanceof ParenthesedFromItem p) countFromItem(p.getFromItem(), c);
    }

    private static Select unwrap(Select s) {
        Select cur = s;
        while (cur instanceof ParenthesedSelect p && p.getSelect() != null) cur = p.getSelect();
        return cur;
    }

    private static int leafConditions(Expression e) {
        Expression x = e;
        while (x instanceof Parenthesis p) x = p.getExpression();
        if (x instanceof AndExpression a) return leafConditions(a.getLeftExpression()) + leafConditions(a.getRightExpression());
        if (x instanceof OrExpression o) return leafConditions(o.getLeftExpression()) + leafConditions(o.getRightExpression());
        return 1;
    }

    private static int countWindows(String sql) {
        // OVER ( after a function call; counted on the text so that windows inside subqueries count too
        return (int) Pattern.compile("(?i)\\)\\s*OVER\\s*[(a-z_]").matcher(sql).results().count();
    }

    private static String firstLine(String s) {
        if (s == null) return "";
        int nl = s.indexOf('\n');
        return nl >= 0 ? s.substring(0, nl) : s;
    }

    /** Counts ORs, LIKEs, aggregates and subqueries in one query level (does not enter subqueries). */
    private static final class Counter extends ExpressionVisitorAdapter<Void> {
        int ors;
        int likes;
        int aggregates;
        int subqueries;
        private boolean aggregatesOnly;

        void scan(Expression e) {
            aggregatesOnly = false;
            e.accept(this, null);
        }

        void scanAggregatesOnly(Expression e) {
            if (e == null) return;
            aggregatesOnly = true;
            e.accept(this, null);
            aggregatesOnly = false;
        }

        @Override
        public <S> Void visit(OrExpression expr, S context) {
            if (!aggregatesOnly) ors++;
            return super.visit(expr, context);
        }

        @Override
        public <S> Void visit(LikeExpression expr, S context) {
            if (!aggregatesOnly) likes++;
            return super.visit(expr, context);
        }

        @Override
        public <S> Void visit(Function f, S context) {
            if (f.getName() != null && SqlVocabulary.AGGREGATES.contains(f.getName().toUpperCase(Locale.ROOT))) aggregates++;
            return super.visit(f, context);
        }

        @Override
        public <S> Void visit(AnalyticExpression a, S context) {
            if (SqlVocabulary.AGGREGATES.contains(a.getName().toUpperCase(Locale.ROOT))) aggregates++;
            return null;
        }

        @Override
        public <S> Void visit(ParenthesedSelect s, S context) {
            subqueries++;
            return null; // nested queries are counted, not entered
        }

        /** {@code x > ALL (SELECT ...)}, {@code x = ANY (...)}, {@code x < SOME (...)}: a nested query too. */
        @Override
        public <S> Void visit(AnyComparisonExpression e, S context) {
            subqueries++;
            return null;
        }

        /** JSqlParser dispatches subqueries in expressions here (Select.accept), whatever their class. */
        @Override
        public <S> Void visit(Select s, S context) {
            subqueries++;
            return null;
        }
    }
}
