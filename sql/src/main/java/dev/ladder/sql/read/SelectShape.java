package dev.ladder.sql.read;

import dev.ladder.sql.SqlToken;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import net.sf.jsqlparser.expression.AllValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.Fetch;
import net.sf.jsqlparser.statement.select.Limit;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperationList;


/**
 * The outermost query's structure. For a set operation: the first branch's SELECT list, FROM and WHERE, GROUP BY
 * and HAVING from any branch, ORDER BY and LIMIT of the whole. Texts are SQL fragments.
 *
 * @param items      SELECT items without aliases; empty when no query was found
 * @param limit      a LIMIT, FETCH FIRST or TOP bounds the rows
 * @param limitCount that bound when it is a number literal
 */
public record SelectShape(boolean parsed, List<String> items, boolean star, boolean distinct, boolean from,
                          boolean setOperation, boolean groupBy, String where, String having, List<String> orderBy,
                          boolean limit, Long limitCount) {

    /** No query found. */
    public static final SelectShape NONE = new SelectShape(false, List.of(), false, false, false, false, false, "", "",
            List.of(), false, null);

    SelectShape withOrderAndLimit(List<String> order, boolean lim, Long count) {
        return new SelectShape(parsed, items, star, distinct, from, setOperation, groupBy, where, having,
                order.isEmpty() ? orderBy : order, lim || limit, lim ? count : limitCount);
    }

    /** The shape of a read query: from its parse when there is one that is a query, else read lexically. */
    static SelectShape of(Query q) {
        if (q.isEmpty()) return NONE;
        SelectShape s = q.select().map(SelectShape::fromSelect).orElse(null);
        if (s == null) s = lexicalShape(q.text(), q.tokens());
        return s == null ? NONE : s;
    }

    /** The shape JSqlParser gives (without {@code useParser}: the lexical reading); for tests of either reading. */
    public static SelectShape of(String sql, boolean useParser) {
        Query q = Query.read(sql);
        SelectShape s = useParser ? q.select().map(SelectShape::fromSelect).orElse(null) : lexicalShape(q.text(), q.tokens());
        return s == null ? NONE : s;
    }

    private static SelectShape fromSelect(Select s) {
        SelectShape inner;
        if (s instanceof ParenthesedSelect p) {
            if (p.getSelect() == null) return null;
            inner = fromSelect(p.getSelect());
        } else if (s instanceof SetOperationList list) {
            List<SelectShape> branches = new ArrayList<>();
            for (Select b : list.getSelects()) {
                SelectShape shape = fromSelect(b);
                if (shape == null) return null;
                branches.add(shape);
            }
            if (branches.isEmpty()) return null;
            SelectShape first = branches.get(0);
            String having = String.join(" AND ", branches.stream().map(SelectShape::having).filter(h -> !h.isBlank()).toList());
            inner = new SelectShape(true, first.items(), first.star(), first.distinct(), first.from(), true,
                    branches.stream().anyMatch(SelectShape::groupBy), first.where(), having, List.of(), false, null);
        } else if (s instanceof PlainSelect ps) {
            List<String> items = new ArrayList<>();
            boolean star = false;
            for (SelectItem<?> item : ps.getSelectItems()) {
                Expression e = item.getExpression();
                if (e instanceof AllColumns) star = true;
                items.add(e.toString());
            }
            Long top = null;
            if (ps.getTop() != null && ps.getTop().getExpression() instanceof LongValue v) top = v.getValue();
            inner = new SelectShape(true, items, star, ps.getDistinct() != null, ps.getFromItem() != null, false,
                    ps.getGroupBy() != null, text(ps.getWhere()), text(ps.getHaving()), List.of(),
                    ps.getTop() != null, top);
        } else {
            return null;
        }
        if (inner == null) return null;
        List<String> order = new ArrayList<>();
        if (s.getOrderByElements() != null) {
            for (OrderByElement o : s.getOrderByElements()) order.add(text(o.getExpression()));
        }
        boolean limited = false;
        Long count = null;
        Limit limit = s.getLimit();
        // LIMIT ALL and LIMIT NULL parse to a row count of AllValue / NullValue: no bound
        if (limit != null && limit.getRowCount() != null && !(limit.getRowCount() instanceof AllValue)
                && !(limit.getRowCount() instanceof NullValue)) {
            limited = true;
            if (limit.getRowCount() instanceof LongValue v) count = v.getValue();
        }
        Fetch fetch = s.getFetch();
        if (fetch != null) {
            limited = true;
            // FETCH FIRST ROW ONLY has no number: one row
            if (fetch.getExpression() == null) count = 1L;
            else if (fetch.getExpression() instanceof LongValue v) count = v.getValue();
        }
        return inner.withOrderAndLimit(order, limited, count);
    }

    private static String text(Object node) {
        return node == null ? "" : node.toString();
    }

    /**
     * The lexical fallback for SQL JSqlParser cannot read: the query's level is the smallest parenthesis depth that
     * holds a SELECT; clause words at that depth (or shallower, for set operations of parenthesised branches) split
     * the statement into branches and clauses.
     */
    private static SelectShape lexicalShape(String sql, List<SqlToken> t) {
        int n = t.size();
        int[] depth = new int[n];
        int d = 0;
        int level = Integer.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            if (t.get(i).isSymbol(")")) d = Math.max(0, d - 1);
            depth[i] = d;
            if (t.get(i).isSymbol("(")) d++;
            if (t.get(i).isWord("SELECT")) level = Math.min(level, depth[i]);
        }
        if (level == Integer.MAX_VALUE) return SelectShape.NONE;

        // clause starts: [token index, branch]; the clause runs to the next start or a token shallower than level
        List<int[]> starts = new ArrayList<>();
        int branch = 0;
        boolean started = false;
        for (int i = 0; i < n; i++) {
            SqlToken tok = t.get(i);
            if (depth[i] > level || tok.type() != SqlToken.Type.WORD || !SqlVocabulary.CLAUSE_STARTS.contains(upper(tok))) continue;
            if (tok.isWord("SELECT")) started = true;
            if (!started) continue;
            if (SqlVocabulary.SET_OPERATIONS.contains(upper(tok))) branch++;
            starts.add(new int[] {i, branch});
        }
        boolean seenSelect = false;
        List<String> items = new ArrayList<>();
        boolean star = false;
        boolean distinct = false;
        boolean from = false;
        boolean groupBy = false;
        String where = "";
        List<String> havings = new ArrayList<>();
        List<String> order = new ArrayList<>();
        boolean limit = false;
        Long count = null;
        for (int k = 0; k < starts.size(); k++) {
            int at = starts.get(k)[0];
            int br = starts.get(k)[1];
            int end = k + 1 < starts.size() ? starts.get(k + 1)[0] : n;
            for (int i = at + 1; i < end; i++) {
                if (depth[i] < depth[at]) {
                    end = i;
                    break;
                }
            }
            String word = upper(t.get(at));
            int body = at + 1;
            if ((word.equals("GROUP") || word.equals("ORDER")) && body < end && t.get(body).isWord("BY")) body++;
            boolean last = br == branch;
            switch (word) {
                case "SELECT" -> {
                    if (br != 0 || seenSelect) break;
                    seenSelect = true;
                    while (body < end && t.get(body).type() == SqlToken.Type.WORD
                            && (SqlVocabulary.SELECT_MODIFIERS.contains(upper(t.get(body))) || t.get(body).isWord("TOP"))) {
                        if (t.get(body).isWord("DISTINCT") || t.get(body).isWord("DISTINCTROW")) distinct = true;
                        if (t.get(body).isWord("TOP") && body + 1 < end && t.get(body + 1).type() == SqlToken.Type.NUMBER) {
                            limit = true;
                            count = parseLong(t.get(body + 1).text());
                            body++;
                        }
                        body++;
                    }
                    for (int[] range : split(t, depth, body, end, depth[at])) {
                        List<SqlToken> item = withoutAlias(t.subList(range[0], range[1]));
                        if (item.isEmpty()) continue;
                        if (item.get(item.size() - 1).isSymbol("*") && (item.size() == 1 || item.size() == 3)) star = true;
                        items.add(sql.substring(item.get(0).start(), item.get(item.size() - 1).end()));
                    }
                }
                case "FROM" -> from |= br == 0;
                case "WHERE" -> {
                    if (br == 0) where = slice(sql, t, body, end);
                }
                case "GROUP" -> groupBy = true;
                case "HAVING" -> havings.add(slice(sql, t, body, end));
                case "ORDER" -> {
                    if (!last) break;
                    order.clear();
                    for (int[] range : split(t, depth, body, end, depth[at])) {
                        List<SqlToken> o = new ArrayList<>(t.subList(range[0], range[1]));
                        while (!o.isEmpty() && (o.get(o.size() - 1).isWord("ASC") || o.get(o.size() - 1).isWord("DESC"))) {
                            o.remove(o.size() - 1);
                        }
                        if (!o.isEmpty()) order.add(sql.substring(o.get(0).start(), o.get(o.size() - 1).end()));
                    }
                }
                case "LIMIT" -> {
                    if (!last || body >= end) break;
                    if (t.get(body).isWord("ALL") || t.get(body).isWord("NULL")) break;
                    limit = true;
                    int c = body + 2 < end && t.get(body + 1).isSymbol(",") ? body + 2 : body;
                    count = t.get(c).type() == SqlToken.Type.NUMBER ? parseLong(t.get(c).text()) : null;
                }
                case "FETCH" -> {
                    if (!last) break;
                    limit = true;
                    SqlToken amount = body + 1 < end ? t.get(body + 1) : null;
                    count = amount == null ? null
                            : amount.type() == SqlToken.Type.NUMBER ? parseLong(amount.text())
                            : amount.isWord("ROW") || amount.isWord("ROWS") ? Long.valueOf(1) : null;
                }
                default -> { }
            }
        }
        if (!seenSelect) return SelectShape.NONE;
        return new SelectShape(false, items, star, distinct, from, branch > 0, groupBy, where,
                String.join(" AND ", havings), order, limit, count);
    }

    /** Ranges [from, to) of the comma-separated parts of tokens[from, to) at the given depth. */
    private static List<int[]> split(List<SqlToken> t, int[] depth, int from, int to, int atDepth) {
        List<int[]> out = new ArrayList<>();
        int start = from;
        for (int i = from; i < to; i++) {
            if (t.get(i).isSymbol(",") && depth[i] == atDepth) {
                out.add(new int[] {start, i});
                start = i + 1;
            }
        }
        if (start < to) out.add(new int[] {start, to});
        return out;
    }

    /** A SELECT item without {@code AS alias} or a bare trailing alias ({@code COUNT(*) n}, {@code c.name nm}). */
    private static List<SqlToken> withoutAlias(List<SqlToken> item) {
        int n = item.size();
        if (n >= 3 && item.get(n - 2).isWord("AS")) return item.subList(0, n - 2);
        if (n >= 2 && isName(item.get(n - 1))) {
            SqlToken before = item.get(n - 2);
            boolean operand = before.type() != SqlToken.Type.SYMBOL || before.isSymbol(")");
            if (operand && !(before.type() == SqlToken.Type.WORD && SqlVocabulary.NOT_COLUMNS.contains(upper(before)))) {
                return item.subList(0, n - 1);
            }
        }
        return item;
    }

    private static boolean isName(SqlToken tok) {
        return tok.type() == SqlToken.Type.QUOTED_IDENTIFIER
                || (tok.type() == SqlToken.Type.WORD && !SqlVocabulary.NOT_COLUMNS.contains(upper(tok)) && !SqlVocabulary.CLAUSE_STARTS.contains(upper(tok)));
    }

    private static String slice(String sql, List<SqlToken> t, int from, int to) {
        return from >= to ? "" : sql.substring(t.get(from).start(), t.get(to - 1).end());
    }

    private static Long parseLong(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String upper(SqlToken tok) {
        return tok.text().toUpperCase(Locale.ROOT);
    }
}
