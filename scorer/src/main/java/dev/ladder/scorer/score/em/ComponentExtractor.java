package dev.ladder.scorer.score.em;

import static dev.ladder.scorer.score.em.ColumnResolver.localSource;
import static dev.ladder.scorer.score.em.ColumnResolver.tableOf;
import static dev.ladder.scorer.score.em.ExpressionText.MASK;
import static dev.ladder.scorer.score.em.ExpressionText.flatten;
import static dev.ladder.scorer.score.em.ExpressionText.unwrap;
import static dev.ladder.scorer.score.em.SqlNames.aliasName;
import static dev.ladder.scorer.score.em.SqlNames.lower;
import static dev.ladder.scorer.score.em.SqlNames.unquote;

import dev.ladder.scorer.score.em.ConditionReader.Conditions;
import dev.ladder.sql.read.NameScope.Source;
import dev.ladder.sql.read.NameScope;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.ComparisonOperator;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.ExceptOp;
import net.sf.jsqlparser.statement.select.GroupByElement;
import net.sf.jsqlparser.statement.select.IntersectOp;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.Limit;
import net.sf.jsqlparser.statement.select.MinusOp;
import net.sf.jsqlparser.statement.select.Offset;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.ParenthesedFromItem;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperation;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.UnionOp;
import net.sf.jsqlparser.statement.select.WithItem;

/**
 * Turns a JSqlParser SELECT into a {@link SqlUnit}: Spider's components with every expression rendered
 * as canonical text. Column references are resolved through FROM aliases (inner scopes first, then the
 * enclosing queries of correlated subqueries) and the schema; CTE references and derived tables become
 * nested table units whose columns are named by position; literals are masked unless values are compared.
 *
 * <p>This class reads the queries: WITH, set operations, FROM and joins, and each SELECT's clauses. It hands
 * expressions to {@link ExpressionText}, conditions to {@link ConditionReader} and column references to
 * {@link ColumnResolver}, which call back here for the queries nested in them.
 */
final class ComponentExtractor {

    /** Whom the texts are for. */
    enum Texts {
        /** Exact match: nested queries written out in the clauses that hold them. */
        EM,
        /**
         * The error taxonomy, which compares every query level on its own: a nested query is {@code (select)} in the
         * clause that holds it and a derived table's column is its bare name; values compare as MySQL compares them
         * (strings ignore case and trailing blanks, a numeric string is its number, a date literal or a cast of a
         * literal is the literal, {@code x IN (a, b)} is {@code x = a OR x = b}).
         */
        TAXONOMY
    }

    final SchemaIndex schema;
    final boolean compareValues;
    /** false (Spider's DISABLE_DISTINCT): SELECT DISTINCT and an aggregate's DISTINCT are not compared. */
    final boolean compareDistinct;
    /**
     * true (predictions): a table or column the schema does not know, or a clause EM does not compare
     * (TOP, QUALIFY, ...), is an error rather than text, so a query that cannot run never matches.
     */
    final boolean strict;
    final Texts texts;
    private final ExpressionText expressions;
    private final ConditionReader conditions;
    private final ColumnResolver columns;

    ComponentExtractor(SchemaIndex schema, boolean compareValues, boolean compareDistinct) {
        this(schema, compareValues, compareDistinct, false, Texts.EM);
    }

    ComponentExtractor(SchemaIndex schema, boolean compareValues, boolean compareDistinct, boolean strict, Texts texts) {
        this.schema = schema;
        this.compareValues = compareValues;
        this.compareDistinct = compareDistinct;
        this.strict = strict;
        this.texts = texts;
        this.expressions = new ExpressionText(this);
        this.conditions = new ConditionReader(this);
        this.columns = new ColumnResolver(this);
    }

    // the three parts call one another (an expression holds conditions and columns, a condition expressions)

    ExpressionText expressions() {
        return expressions;
    }

    ConditionReader conditions() {
        return conditions;
    }

    ColumnResolver columns() {
        return columns;
    }

    SqlUnit extract(Select select) {
        return unit(select, new Env(null, Map.of(), Set.of(), null));
    }

    static final class CteDef {
        final ParenthesedSelect body;
        final List<String> columnNames;
        /** The body's unit, read once: every reference to the CTE is the same query. */
        SqlUnit unit;

        CteDef(ParenthesedSelect body, List<String> columnNames) {
            this.body = body;
            this.columnNames = columnNames;
        }
    }

    /** {@code found}: where the SELECT being read records its {@link SqlUnit.Structure} (null outside any). */
    record Env(NameScope scope, Map<String, CteDef> ctes, Set<String> expanding, Found found) {
        Env withScope(NameScope s) {
            return new Env(s, ctes, expanding, found);
        }

        Env with(Found f) {
            return new Env(scope, ctes, expanding, f);
        }
    }

    /** What one SELECT's clauses show besides EM's components, gathered while they are rendered. */
    static final class Found {
        final List<String> joins = new ArrayList<>();
        final Set<String> joinPairs = new HashSet<>();
        final Set<String> columns = new HashSet<>();
        /** Keyed by parse node: an expression rendered twice (a SELECT alias used in ORDER BY) is one call. */
        final Map<Expression, String> aggregates = new IdentityHashMap<>();
        final Map<Select, SqlUnit> subqueries = new IdentityHashMap<>();
        final List<SqlUnit> nested = new ArrayList<>();
    }

    enum AliasMode { NONE, ALIAS_FIRST, COLUMN_FIRST }

    /** Where an expression is printed: its scope, and how SELECT aliases / ordinals are resolved. */
    record Ctx(Env env, AliasMode mode, Map<String, Expression> aliases) {
        Ctx with(AliasMode m) {
            return new Ctx(env, m, aliases);
        }
    }

    private SqlUnit unit(Select s, Env env) {
        if (s.getWithItemsList() != null && !s.getWithItemsList().isEmpty()) {
            Map<String, CteDef> ctes = new HashMap<>(env.ctes());
            for (WithItem<?> w : s.getWithItemsList()) {
                if (w.getSelect() == null) throw new UnsupportedSqlException("WITH item that is not a SELECT");
                List<String> names = w.getWithItemList() == null ? List.of()
                        : w.getWithItemList().stream().map(i -> lower(unquote(i.getExpression().toString()))).toList();
                ctes.put(lower(unquote(w.getAliasName())), new CteDef(w.getSelect(), names));
            }
            env = new Env(env.scope(), Map.copyOf(ctes), env.expanding(), env.found());
        }
        if (s instanceof PlainSelect ps) return plain(ps, env);
        SqlUnit u;
        if (s instanceof SetOperationList list) u = setOperations(list, env);
        else if (s instanceof ParenthesedSelect p) u = unit(p.getSelect(), env);
        else throw new UnsupportedSqlException("unsupported query form: " + s.getClass().getSimpleName());
        return outerOrderAndLimit(s, u, outputNames(s), env);
    }

    private SqlUnit setOperations(SetOperationList list, Env env) {
        List<Select> selects = list.getSelects();
        SqlUnit right = unit(selects.get(selects.size() - 1), env);
        for (int i = selects.size() - 2; i >= 0; i--) {
            SqlUnit left = unit(selects.get(i), env);
            if (left.setOp() != null) left = wrap(left);
            String op = operationName(list.getOperation(i));
            right = left.withSetOperation(op, right, Set.of(op));
        }
        return right;
    }

    /** A set operation used as the left operand of another: treated as {@code SELECT * FROM (left)}. */
    private static SqlUnit wrap(SqlUnit inner) {
        return new SqlUnit(List.of("(" + inner.canonical() + ")"), List.of(new SelectUnit("none", false, "*")),
                List.of(), Set.of(), "", List.of(), "", List.of(), null, null, null, Set.of(),
                new SqlUnit.Structure(List.of("*"), List.of(), Set.of(), List.of(), Set.of(), Set.of(), List.of(inner)));
    }

    private static String operationName(SetOperation op) {
        if (op instanceof UnionOp u) return u.isAll() ? "union all" : "union";
        if (op instanceof IntersectOp) return "intersect";
        if (op instanceof ExceptOp || op instanceof MinusOp) return "except";
        return lower(op.toString());
    }

    /** ORDER BY / LIMIT written after a set operation or a parenthesised query: they apply to its result. */
    private SqlUnit outerOrderAndLimit(Select s, SqlUnit u, List<String> outputs, Env env) {
        boolean hasOrder = s.getOrderByElements() != null && !s.getOrderByElements().isEmpty();
        String limit = limit(s.getLimit(), s.getOffset(), s);
        if (!hasOrder && limit == null) return u;
        Set<String> kw = new TreeSet<>();
        List<OrderUnit> order = u.orderBy();
        if (hasOrder) {
            // names refer to the output columns of the first query: name them by position
            NameScope scope = new NameScope(env.scope());
            scope.add(Source.derived(null, outputs, "result"));
            // the ORDER BY of a result reads its output columns, none of a SELECT's own
            Ctx ctx = new Ctx(new Env(scope, env.ctes(), env.expanding(), null), AliasMode.NONE, Map.of());
            order = new ArrayList<>();
            for (OrderByElement o : s.getOrderByElements()) {
                Expression e = o.getExpression();
                String text = e instanceof LongValue lv && lv.getValue() >= 1 && lv.getValue() <= outputs.size()
                        ? "<result>.#" + lv.getValue() : expressions.ex(e, ctx);
                String dir = direction(o);
                order.add(new OrderUnit(dir, text));
                kw.add(dir.split(" ")[0]);
            }
            kw.add("order");
        }
        if (limit != null) kw.add("limit");
        return u.withOrder(order, limit != null ? limit : u.limit(), kw);
    }

    private SqlUnit plain(PlainSelect ps, Env env) {
        if (strict) rejectUncompared(ps);
        Found found = new Found();
        // derived tables see the enclosing queries, not this one's FROM; what they are is recorded here
        Env outer = env.with(found);
        NameScope scope = new NameScope(env.scope());
        List<String> tables = new ArrayList<>();
        Set<String> kw = new TreeSet<>();
        List<Expression> onConditions = new ArrayList<>();
        if (ps.getFromItem() != null) from(ps.getFromItem(), outer, scope, tables, kw, onConditions);
        if (ps.getJoins() != null) {
            for (Join j : ps.getJoins()) join(j, outer, scope, tables, kw, onConditions);
        }
        tables.sort(null);
        Env inner = outer.withScope(scope);

        Map<String, Expression> aliases = new LinkedHashMap<>();
        List<SelectItem<?>> items = ps.getSelectItems();
        for (SelectItem<?> item : items) {
            if (item.getAlias() != null) aliases.putIfAbsent(lower(unquote(item.getAlias().getName())), item.getExpression());
        }
        Ctx ctx = new Ctx(inner, AliasMode.NONE, aliases);

        List<SelectUnit> select = new ArrayList<>();
        for (SelectItem<?> item : items) {
            select.add(expressions.selectUnit(item.getExpression(), ctx));
            star(item.getExpression(), scope, found);
        }
        List<String> written = select.stream().map(SelectUnit::text).toList();
        select.sort(null);
        if (ps.getDistinct() != null && compareDistinct) kw.add("distinct");

        Set<String> keywordConnectors = new HashSet<>();
        List<CondUnit> keywordLeaves = new ArrayList<>();
        for (Expression on : onConditions) {
            Conditions c = conditions.read(on, ctx);
            keywordLeaves.addAll(c.leaves());
            keywordConnectors.addAll(c.connectors());
        }

        Conditions where = ps.getWhere() == null ? Conditions.NONE : conditions.read(ps.getWhere(), ctx);
        if (ps.getWhere() != null) kw.add("where");
        keywordLeaves.addAll(where.leaves());
        keywordConnectors.addAll(where.connectors());

        Set<String> filter = new TreeSet<>();
        for (Expression on : onConditions) {
            for (Expression c : conjuncts(on)) {
                if (!joinPair(c, false, ctx, found)) filter.add(conditions.read(c, ctx).shape());
            }
        }
        for (Expression c : conjuncts(ps.getWhere())) {
            if (!joinPair(c, true, ctx, found)) filter.add(conditions.read(c, ctx).shape());
        }

        List<String> group = new ArrayList<>();
        GroupByElement gb = ps.getGroupBy();
        if (gb != null) {
            ExpressionList<?> exprs = gb.getGroupByExpressionList();
            if (exprs != null) {
                for (Expression e : exprs) group.add(ordinalOr(e, items, ctx.with(AliasMode.COLUMN_FIRST)));
            }
            if (gb.getGroupingSets() != null && !gb.getGroupingSets().isEmpty()) {
                group.add("grouping sets " + lower(gb.getGroupingSets().toString()));
            }
            if (gb.isMysqlWithRollup()) kw.add("rollup");
            group.sort(null);
            if (!group.isEmpty()) kw.add("group");
        }

        String having = "";
        if (ps.getHaving() != null) {
            Conditions h = conditions.read(ps.getHaving(), ctx.with(AliasMode.COLUMN_FIRST));
            having = h.shape();
            keywordLeaves.addAll(h.leaves());
            keywordConnectors.addAll(h.connectors());
            kw.add("having");
        }

        List<OrderUnit> order = new ArrayList<>();
        if (ps.getOrderByElements() != null) {
            for (OrderByElement o : ps.getOrderByElements()) {
                String dir = direction(o);
                order.add(new OrderUnit(dir, ordinalOr(o.getExpression(), items, ctx.with(AliasMode.ALIAS_FIRST))));
                kw.add(dir.split(" ")[0]);
            }
            if (!order.isEmpty()) kw.add("order");
        }
        String limit = limit(ps.getLimit(), ps.getOffset(), ps);
        if (limit != null) kw.add("limit");

        if (keywordConnectors.contains("or")) kw.add("or");
        for (CondUnit c : keywordLeaves) {
            if (c.not()) kw.add("not");
            if (c.op().equals("in")) kw.add("in");
            if (c.op().equals("like")) kw.add("like");
        }
        SqlUnit.Structure structure = new SqlUnit.Structure(written, found.joins, found.joinPairs, List.copyOf(filter),
                Set.copyOf(found.aggregates.values()), found.columns, found.nested);
        return new SqlUnit(tables, select, where.leaves().stream().sorted().toList(), where.connectors(),
                where.shape(), group, having, order, limit, null, null, kw, structure);
    }

    /** The unit of a query nested in the SELECT being read, recorded once per parse node in its structure. */
    SqlUnit nested(Select s, Env env) {
        SqlUnit known = env.found() == null ? null : env.found().subqueries.get(s);
        return known != null ? known : record(s, unit(s, env), env.found());
    }

    private static SqlUnit record(Select node, SqlUnit u, Found found) {
        if (found != null && found.subqueries.putIfAbsent(node, u) == null) found.nested.add(u);
        return u;
    }

    /** {@code *} and {@code t.*} in the SELECT list count as columns; {@code COUNT(*)} does not. */
    private void star(Expression e, NameScope scope, Found found) {
        if (e instanceof AllTableColumns t) {
            String qualifier = lower(unquote(t.getTable().getName()));
            Source src = scope.local(qualifier);
            found.columns.add(src == null ? qualifier + ".*" : tableOf(src) == null ? "*" : tableOf(src) + ".*");
        } else if (e instanceof AllColumns) {
            Source only = scope.sources().size() == 1 ? scope.sources().get(0) : null;
            found.columns.add(only == null || tableOf(only) == null ? "*" : tableOf(only) + ".*");
        }
    }

    /** The AND-ed parts of a condition (none for null). */
    private static List<Expression> conjuncts(Expression condition) {
        List<Expression> out = new ArrayList<>();
        if (condition != null) flatten(condition, AndExpression.class, out);
        return out;
    }

    /**
     * Records {@code c} as a join pair when it compares two columns: any comparison in ON; in WHERE only an
     * equality between columns of two different FROM sources of this SELECT (an implicit join).
     */
    private boolean joinPair(Expression c, boolean inWhere, Ctx ctx, Found found) {
        if (!(c instanceof ComparisonOperator cmp) || inWhere && !(c instanceof EqualsTo)) return false;
        if (!(unwrap(cmp.getLeftExpression()) instanceof Column l) || !(unwrap(cmp.getRightExpression()) instanceof Column r)
                || columns.quotedString(l, ctx) || columns.quotedString(r, ctx)) {
            return false;
        }
        if (inWhere) {
            Source ls = localSource(l, ctx.env().scope());
            Source rs = localSource(r, ctx.env().scope());
            if (ls == null || rs == null || ls == rs) return false;
        }
        found.joinPairs.add(pair(expressions.ex(l, ctx), expressions.ex(r, ctx)));
        return true;
    }

    private static String pair(String a, String b) {
        return a.compareTo(b) <= 0 ? a + " = " + b : b + " = " + a;
    }

    /** Clauses JSqlParser accepts that no component compares: ignoring them would let different queries match. */
    private static void rejectUncompared(PlainSelect ps) {
        String clause = ps.getTop() != null ? "TOP" : ps.getFirst() != null ? "FIRST" : ps.getSkip() != null ? "SKIP"
                : ps.getQualify() != null ? "QUALIFY" : ps.getWindowDefinitions() != null ? "WINDOW"
                : ps.getOracleHierarchical() != null ? "CONNECT BY" : ps.getIntoTables() != null ? "INTO"
                : ps.getForMode() != null ? "FOR UPDATE/SHARE" : ps.getForClause() != null ? "FOR"
                : ps.getLateralViews() != null && !ps.getLateralViews().isEmpty() ? "LATERAL VIEW" : null;
        if (clause == null && ps.getFromItem() != null
                && (ps.getFromItem().getPivot() != null || ps.getFromItem().getUnPivot() != null)) clause = "PIVOT";
        if (clause != null) throw new UnsupportedSqlException("exact match does not compare " + clause);
    }

    static String direction(OrderByElement o) {
        String dir = o.isAsc() ? "asc" : "desc";
        if (o.getNullOrdering() != null) dir += " " + lower(o.getNullOrdering().name().replace('_', ' '));
        return dir;
    }

    /** null without LIMIT; "limit" when values are masked; else the row count (and offset) text. */
    private String limit(Limit limit, Offset offset, Select s) {
        boolean present = limit != null && !limit.isLimitAll() && !limit.isLimitNull() || s.getFetch() != null;
        if (!present) return null;
        if (!compareValues) return MASK;
        StringBuilder sb = new StringBuilder();
        Ctx values = new Ctx(new Env(null, Map.of(), Set.of(), null), AliasMode.NONE, Map.of());
        if (limit != null && limit.getRowCount() != null) sb.append(valueText(limit.getRowCount(), values));
        else if (s.getFetch() != null) sb.append(s.getFetch().getRowCount());
        Expression off = limit != null && limit.getOffset() != null ? limit.getOffset()
                : offset != null ? offset.getOffset() : null;
        if (off != null) sb.append(" offset ").append(valueText(off, values));
        return sb.toString();
    }

    private String valueText(Expression e, Ctx ctx) {
        return expressions.ex(e, ctx);
    }

    /** GROUP BY / ORDER BY item: {@code 2} means the second SELECT item, anything else is an expression. */
    private String ordinalOr(Expression e, List<SelectItem<?>> items, Ctx ctx) {
        if (e instanceof LongValue lv && lv.getValue() >= 1 && lv.getValue() <= items.size()) {
            Expression target = items.get((int) lv.getValue() - 1).getExpression();
            if (!(target instanceof AllColumns)) return expressions.ex(target, ctx.with(AliasMode.NONE));
        }
        return expressions.ex(e, ctx);
    }

    private void join(Join j, Env env, NameScope scope, List<String> tables, Set<String> kw, List<Expression> ons) {
        env.found().joins.add(j.isFull() ? "full" : j.isLeft() || j.isRight() ? "outer" : "inner");
        int before = scope.sources().size();
        from(j.getRightItem(), env, scope, tables, kw, ons);
        if (j.getUsingColumns() != null) {
            List<Source> left = List.copyOf(scope.sources().subList(0, before));
            List<Source> right = List.copyOf(scope.sources().subList(before, scope.sources().size()));
            for (Column c : j.getUsingColumns()) {
                String name = lower(unquote(c.getColumnName()));
                env.found().joinPairs.add(pair(columns.among(name, left, env.found()), columns.among(name, right, env.found())));
            }
        }
        if (!j.isSimple()) {
            kw.add("join");
            if (j.isLeft()) kw.add("left join");
            if (j.isRight()) kw.add("right join");
            if (j.isFull()) kw.add("full join");
            if (j.isCross()) kw.add("cross join");
            if (j.isNatural()) kw.add("natural join");
            if (j.isStraight()) kw.add("straight join");
        }
        if (j.getOnExpressions() != null) ons.addAll(j.getOnExpressions());
    }

    private void from(Object item, Env env, NameScope scope, List<String> tables, Set<String> kw, List<Expression> ons) {
        if (item instanceof Table t) {
            String name = lower(unquote(t.getName()));
            String alias = aliasName(t.getAlias());
            CteDef cte = t.getSchemaName() == null ? env.ctes().get(name) : null;
            if (cte != null && !env.expanding().contains(name)) {
                Set<String> expanding = new HashSet<>(env.expanding());
                expanding.add(name);
                if (cte.unit == null) cte.unit = unit(cte.body, new Env(null, env.ctes(), Set.copyOf(expanding), null));
                SqlUnit body = record(cte.body, cte.unit, env.found());
                List<String> outputs = cte.columnNames.isEmpty() ? outputNames(cte.body) : cte.columnNames;
                addDerived(body, outputs, alias != null ? alias : name, scope, tables);
                return;
            }
            if (strict && schema.known() && !schema.hasTable(name)) throw new UnsupportedSqlException("unknown table " + name);
            tables.add(name);
            scope.add(Source.table(alias, name, schema.table(name)));
        } else if (item instanceof ParenthesedSelect p) {
            SqlUnit body = nested(p, env);
            addDerived(body, outputNames(p), aliasName(p.getAlias()), scope, tables);
        } else if (item instanceof ParenthesedFromItem pf) {
            from(pf.getFromItem(), env, scope, tables, kw, ons);
            if (pf.getJoins() != null) {
                for (Join j : pf.getJoins()) join(j, env, scope, tables, kw, ons);
            }
        } else {
            if (strict) throw new UnsupportedSqlException("exact match does not compare FROM " + item.getClass().getSimpleName());
            tables.add(lower(String.valueOf(item)));
        }
    }

    private static void addDerived(SqlUnit body, List<String> outputs, String alias, NameScope scope, List<String> tables) {
        String canonical = body.canonical();
        tables.add("(" + canonical + ")");
        String id = "q" + Integer.toHexString(canonical.hashCode());
        scope.add(Source.derived(alias, outputs, id));
    }

    /** Output column names of a query: alias, else column name, else the expression text. */
    private static List<String> outputNames(Select s) {
        Select body = s;
        while (true) {
            if (body instanceof ParenthesedSelect p) body = p.getSelect();
            else if (body instanceof SetOperationList l) body = l.getSelects().get(0);
            else break;
        }
        if (!(body instanceof PlainSelect ps)) return List.of();
        List<String> names = new ArrayList<>();
        for (SelectItem<?> item : ps.getSelectItems()) {
            if (item.getAlias() != null) names.add(lower(unquote(item.getAlias().getName())));
            else if (item.getExpression() instanceof Column c) names.add(lower(unquote(c.getColumnName())));
            else names.add(lower(item.getExpression().toString()));
        }
        return names;
    }

    /** A construct the scorer cannot turn into components. */
    static final class UnsupportedSqlException extends RuntimeException {
        UnsupportedSqlException(String message) {
            super(message);
        }
    }
}
