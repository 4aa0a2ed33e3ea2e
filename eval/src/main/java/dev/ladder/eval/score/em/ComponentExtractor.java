package dev.ladder.eval.score.em;

import dev.ladder.sql.read.NameScope.Source;
import dev.ladder.sql.read.NameScope;
import dev.ladder.sql.read.SqlVocabulary;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.AnalyticExpression;
import net.sf.jsqlparser.expression.AnyComparisonExpression;
import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.BooleanValue;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.CollateExpression;
import net.sf.jsqlparser.expression.DateTimeLiteralExpression;
import net.sf.jsqlparser.expression.DateValue;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExtractExpression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.HexValue;
import net.sf.jsqlparser.expression.IntervalExpression;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.MySQLGroupConcat;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.TimeKeyExpression;
import net.sf.jsqlparser.expression.TimeValue;
import net.sf.jsqlparser.expression.TimestampValue;
import net.sf.jsqlparser.expression.TrimFunction;
import net.sf.jsqlparser.expression.WhenClause;
import net.sf.jsqlparser.expression.operators.arithmetic.Addition;
import net.sf.jsqlparser.expression.operators.arithmetic.Multiplication;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.conditional.XorExpression;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.ComparisonOperator;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ExistsExpression;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.IsBooleanExpression;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.expression.operators.relational.LikeExpression;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.expression.operators.relational.RegExpMatchOperator;
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
 */
final class ComponentExtractor {

    /** Spider's AGG_OPS (besides none). */
    static final Set<String> AGGREGATES = Set.of("count", "sum", "avg", "min", "max");

    /** A few MySQL spellings of the same function, folded onto one name. */
    private static final Map<String, String> FUNCTION_SYNONYMS = Map.ofEntries(
            Map.entry("substr", "substring"), Map.entry("ucase", "upper"), Map.entry("lcase", "lower"),
            Map.entry("ceiling", "ceil"), Map.entry("curdate", "current_date"),
            Map.entry("current_timestamp", "now"), Map.entry("localtimestamp", "now"),
            Map.entry("localtime", "now"), Map.entry("curtime", "current_time"),
            Map.entry("character_length", "char_length"), Map.entry("pow", "power"),
            Map.entry("stddev", "std"), Map.entry("stddev_pop", "std"));

    private static final String MASK = "?";

    private static final Pattern PLAIN_NUMBER = Pattern.compile("[-+]?(\\d+(\\.\\d*)?|\\.\\d+)");

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

    /** MySQL time units: JSqlParser reads TIMESTAMPDIFF(MONTH, a, b)'s unit as a column. */
    private static final Set<String> TIME_UNITS = Set.of("microsecond", "second", "minute", "hour", "day", "week",
            "month", "quarter", "year", "second_microsecond", "minute_microsecond", "minute_second",
            "hour_microsecond", "hour_second", "hour_minute", "day_microsecond", "day_second", "day_minute",
            "day_hour", "year_month");

    /** NOT (a op b) written as a comparison with the complementary operator. */
    private static final Map<String, String> NEGATED = Map.of("=", "!=", "!=", "=", "<", ">=", ">=", "<", ">", "<=",
            "<=", ">");

    private final SchemaIndex schema;
    private final boolean compareValues;
    /** false (Spider's DISABLE_DISTINCT): SELECT DISTINCT and an aggregate's DISTINCT are not compared. */
    private final boolean compareDistinct;
    /**
     * true (predictions): a table or column the schema does not know, or a clause EM does not compare
     * (TOP, QUALIFY, ...), is an error rather than text, so a query that cannot run never matches.
     */
    private final boolean strict;
    private final Texts texts;

    ComponentExtractor(SchemaIndex schema, boolean compareValues, boolean compareDistinct) {
        this(schema, compareValues, compareDistinct, false, Texts.EM);
    }

    ComponentExtractor(SchemaIndex schema, boolean compareValues, boolean compareDistinct, boolean strict, Texts texts) {
        this.schema = schema;
        this.compareValues = compareValues;
        this.compareDistinct = compareDistinct;
        this.strict = strict;
        this.texts = texts;
    }

    SqlUnit extract(Select select) {
        return unit(select, new Env(null, Map.of(), Set.of(), null));
    }

    // ------------------------------------------------------------------ scopes

    /** What EM calls a table source: its lower-case name as written (known to the schema or not); null otherwise. */
    private static String tableOf(Source src) {
        return src.kind() == NameScope.Kind.TABLE ? src.written() : null;
    }

    /** The sort key that breaks ties deterministically when several sources of one scope have a column. */
    private static String key(Source src) {
        return src.kind() == NameScope.Kind.TABLE ? src.written() : "<" + src.id() + ">";
    }

    private static final class CteDef {
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
    private record Env(NameScope scope, Map<String, CteDef> ctes, Set<String> expanding, Found found) {
        Env withScope(NameScope s) {
            return new Env(s, ctes, expanding, found);
        }

        Env with(Found f) {
            return new Env(scope, ctes, expanding, f);
        }
    }

    /** What one SELECT's clauses show besides EM's components, gathered while they are rendered. */
    private static final class Found {
        final List<String> joins = new ArrayList<>();
        final Set<String> joinPairs = new HashSet<>();
        final Set<String> columns = new HashSet<>();
        /** Keyed by parse node: an expression rendered twice (a SELECT alias used in ORDER BY) is one call. */
        final Map<Expression, String> aggregates = new IdentityHashMap<>();
        final Map<Select, SqlUnit> subqueries = new IdentityHashMap<>();
        final List<SqlUnit> nested = new ArrayList<>();
    }

    private enum AliasMode { NONE, ALIAS_FIRST, COLUMN_FIRST }

    /** Where an expression is printed: its scope, and how SELECT aliases / ordinals are resolved. */
    private record Ctx(Env env, AliasMode mode, Map<String, Expression> aliases) {
        Ctx with(AliasMode m) {
            return new Ctx(env, m, aliases);
        }
    }

    /** The analysed condition tree of one clause. */
    private record Conditions(List<CondUnit> leaves, Set<String> connectors, String shape) {
        static final Conditions NONE = new Conditions(List.of(), Set.of(), "");
    }

    // ------------------------------------------------------------------ queries

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
                        ? "<result>.#" + lv.getValue() : ex(e, ctx);
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
            select.add(selectUnit(item.getExpression(), ctx));
            star(item.getExpression(), scope, found);
        }
        List<String> written = select.stream().map(SelectUnit::text).toList();
        select.sort(null);
        if (ps.getDistinct() != null && compareDistinct) kw.add("distinct");

        Set<String> keywordConnectors = new HashSet<>();
        List<CondUnit> keywordLeaves = new ArrayList<>();
        for (Expression on : onConditions) {
            Conditions c = conditions(on, ctx);
            keywordLeaves.addAll(c.leaves());
            keywordConnectors.addAll(c.connectors());
        }

        Conditions where = ps.getWhere() == null ? Conditions.NONE : conditions(ps.getWhere(), ctx);
        if (ps.getWhere() != null) kw.add("where");
        keywordLeaves.addAll(where.leaves());
        keywordConnectors.addAll(where.connectors());

        Set<String> filter = new TreeSet<>();
        for (Expression on : onConditions) {
            for (Expression c : conjuncts(on)) {
                if (!joinPair(c, false, ctx, found)) filter.add(conditions(c, ctx).shape());
            }
        }
        for (Expression c : conjuncts(ps.getWhere())) {
            if (!joinPair(c, true, ctx, found)) filter.add(conditions(c, ctx).shape());
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
            Conditions h = conditions(ps.getHaving(), ctx.with(AliasMode.COLUMN_FIRST));
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
    private SqlUnit nested(Select s, Env env) {
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
                || quotedString(l, ctx) || quotedString(r, ctx)) {
            return false;
        }
        if (inWhere) {
            Source ls = localSource(l, ctx.env().scope());
            Source rs = localSource(r, ctx.env().scope());
            if (ls == null || rs == null || ls == rs) return false;
        }
        found.joinPairs.add(pair(ex(l, ctx), ex(r, ctx)));
        return true;
    }

    /** The source of this SELECT's FROM that a column names, or null (unqualified among several, or another scope's). */
    private static Source localSource(Column c, NameScope scope) {
        Table t = c.getTable();
        if (t == null || t.getName() == null) return scope.sources().size() == 1 ? scope.sources().get(0) : null;
        String qualifier = lower(unquote(t.getName()));
        return scope.local(qualifier);
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

    private static String direction(OrderByElement o) {
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
        return ex(e, ctx);
    }

    /** GROUP BY / ORDER BY item: {@code 2} means the second SELECT item, anything else is an expression. */
    private String ordinalOr(Expression e, List<SelectItem<?>> items, Ctx ctx) {
        if (e instanceof LongValue lv && lv.getValue() >= 1 && lv.getValue() <= items.size()) {
            Expression target = items.get((int) lv.getValue() - 1).getExpression();
            if (!(target instanceof AllColumns)) return ex(target, ctx.with(AliasMode.NONE));
        }
        return ex(e, ctx);
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
                env.found().joinPairs.add(pair(among(name, left, env.found()), among(name, right, env.found())));
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

    // ------------------------------------------------------------------ select items

    private SelectUnit selectUnit(Expression expr, Ctx ctx) {
        Expression e = unwrap(expr);
        if (e instanceof Function f && attribute(f) == null && f.getKeep() == null
                && AGGREGATES.contains(functionName(f))) {
            List<Expression> params = parameters(f);
            SelectUnit u = null;
            if (f.isAllColumns() && params.isEmpty() || countOfConstant(f)) {
                u = new SelectUnit(functionName(f), f.isDistinct() && compareDistinct, "*");
            } else if (params.size() == 1 && (f.getOrderByElements() == null || f.getOrderByElements().isEmpty())) {
                u = new SelectUnit(functionName(f), f.isDistinct() && compareDistinct, ex(params.get(0), ctx));
            }
            if (u != null) {
                aggregate(f, u.text(), ctx);
                return u;
            }
        }
        return new SelectUnit("none", false, ex(e, ctx));
    }

    // ------------------------------------------------------------------ conditions

    private Conditions conditions(Expression e, Ctx ctx) {
        List<CondUnit> leaves = new ArrayList<>();
        Set<String> connectors = new TreeSet<>();
        String shape = node(e, ctx, leaves, connectors);
        return new Conditions(leaves, connectors, shape);
    }

    private String node(Expression expr, Ctx ctx, List<CondUnit> leaves, Set<String> connectors) {
        Expression e = unwrap(expr);
        if (texts == Texts.TAXONOMY && e instanceof InExpression in && in.getRightExpression() instanceof ExpressionList<?> values
                && !values.isEmpty()) {
            // x IN (a, b) is x = a OR x = b; x NOT IN (a, b) is x != a AND x != b
            Set<String> parts = new TreeSet<>();
            for (Expression v : values) {
                CondUnit leaf = orient(in.isNot() ? "!=" : "=", in.getLeftExpression(), v, ctx);
                leaves.add(leaf);
                parts.add(leaf.text());
            }
            if (parts.size() == 1) return parts.iterator().next();
            String kind = in.isNot() ? "and" : "or";
            connectors.add(kind);
            return kind + "(" + String.join(", ", parts) + ")";
        }
        String kind = connective(e);
        if (kind != null) {
            connectors.add(kind);
            List<Expression> operands = new ArrayList<>();
            flatten(e, e.getClass(), operands);
            List<String> parts = new ArrayList<>();
            for (Expression o : operands) parts.add(node(o, ctx, leaves, connectors));
            parts.sort(null);
            return kind + "(" + String.join(", ", parts) + ")";
        }
        CondUnit leaf = leaf(e, ctx, connectors);
        leaves.add(leaf);
        return leaf.text();
    }

    private static String connective(Expression e) {
        if (e instanceof AndExpression) return "and";
        if (e instanceof OrExpression) return "or";
        if (e instanceof XorExpression) return "xor";
        return null;
    }

    private static void flatten(Expression e, Class<?> kind, List<Expression> out) {
        Expression u = unwrap(e);
        if (u.getClass() == kind && u instanceof BinaryExpression b) {
            flatten(b.getLeftExpression(), kind, out);
            flatten(b.getRightExpression(), kind, out);
        } else {
            out.add(u);
        }
    }

    private CondUnit leaf(Expression expr, Ctx ctx, Set<String> connectors) {
        Expression e = unwrap(expr);
        if (e instanceof NotExpression n) {
            Expression inner = unwrap(n.getExpression());
            if (connective(inner) != null) {
                String shape = node(inner, ctx, new ArrayList<>(), connectors);
                return new CondUnit(true, "not", shape, null, null);
            }
            CondUnit c = leaf(inner, ctx, connectors);
            String negated = NEGATED.get(c.op());
            if (negated != null && !c.not()) return new CondUnit(false, negated, c.valUnit(), c.val1(), c.val2());
            return new CondUnit(!c.not(), c.op(), c.valUnit(), c.val1(), c.val2());
        }
        if (e instanceof ComparisonOperator co) {
            return orient(comparisonOp(co.getStringExpression()), co.getLeftExpression(), co.getRightExpression(), ctx);
        }
        if (e instanceof LikeExpression l) {
            String op = switch (l.getLikeKeyWord()) {
                case LIKE -> "like";
                case ILIKE -> "ilike";
                case RLIKE, REGEXP -> "regexp";
                case SIMILAR_TO -> "similar to";
                default -> lower(l.getLikeKeyWord().name());
            };
            String right = ex(l.getRightExpression(), ctx);
            if (l.getEscape() != null) right += " escape " + ex(l.getEscape(), ctx);
            return new CondUnit(l.isNot(), op, ex(l.getLeftExpression(), ctx), right, null);
        }
        if (e instanceof RegExpMatchOperator r) {
            return new CondUnit(false, lower(r.getStringExpression()), ex(r.getLeftExpression(), ctx),
                    ex(r.getRightExpression(), ctx), null);
        }
        if (e instanceof InExpression in) {
            return new CondUnit(in.isNot(), "in", ex(in.getLeftExpression(), ctx), inValues(in.getRightExpression(), ctx),
                    null);
        }
        if (e instanceof Between b) {
            return new CondUnit(b.isNot(), "between", ex(b.getLeftExpression(), ctx),
                    ex(b.getBetweenExpressionStart(), ctx), ex(b.getBetweenExpressionEnd(), ctx));
        }
        if (e instanceof IsNullExpression n) {
            return new CondUnit(n.isNot(), "is", ex(n.getLeftExpression(), ctx), "null", null);
        }
        if (e instanceof IsBooleanExpression ib) {
            return new CondUnit(ib.isNot(), "is", ex(ib.getLeftExpression(), ctx), ib.isTrue() ? "true" : "false", null);
        }
        if (e instanceof ExistsExpression x) {
            return new CondUnit(x.isNot(), "exists", "", existsQuery(x.getRightExpression(), ctx), null);
        }
        return new CondUnit(false, "expr", ex(e, ctx), null, null);
    }

    /** The query of EXISTS, with its SELECT list (which cannot change the outcome) replaced by {@code *}. */
    private String existsQuery(Expression right, Ctx ctx) {
        Expression r = unwrap(right);
        if (!(r instanceof Select sub)) return ex(r, ctx);
        SqlUnit u = nested(sub, ctx.env());
        if (texts == Texts.TAXONOMY) return "(select)";
        if (u.setOp() == null) {
            Set<String> kw = new TreeSet<>(u.keywords());
            kw.remove("distinct");
            u = new SqlUnit(u.tables(), List.of(new SelectUnit("none", false, "*")), u.where(), u.whereConnectors(),
                    u.whereShape(), u.groupBy(), u.having(), u.orderBy(), u.limit(), null, null, kw, u.structure());
        }
        return "(" + u.canonical() + ")";
    }

    private static boolean isCondition(Expression e) {
        return e instanceof AndExpression || e instanceof OrExpression || e instanceof XorExpression
                || e instanceof NotExpression || e instanceof ComparisonOperator || e instanceof LikeExpression
                || e instanceof RegExpMatchOperator || e instanceof InExpression || e instanceof Between
                || e instanceof IsNullExpression || e instanceof IsBooleanExpression || e instanceof ExistsExpression;
    }

    private static String comparisonOp(String op) {
        String o = op.replace(" ", "");
        return switch (o) {
            case "<>", "!=", "^=", "~=" -> "!=";
            case "==" -> "=";
            default -> o;
        };
    }

    private static String flip(String op) {
        return switch (op) {
            case ">" -> "<";
            case "<" -> ">";
            case ">=" -> "<=";
            case "<=" -> ">=";
            default -> op;
        };
    }

    /** A comparison with the column side on the left: constants and subqueries go right, ties by text. */
    private CondUnit orient(String op, Expression left, Expression right, Ctx ctx) {
        String l = ex(left, ctx);
        String r = ex(right, ctx);
        int lr = rank(left, ctx);
        int rr = rank(right, ctx);
        if (lr > rr || lr == rr && l.compareTo(r) > 0) {
            return new CondUnit(false, flip(op), r, l, null);
        }
        return new CondUnit(false, op, l, r, null);
    }

    private int rank(Expression expr, Ctx ctx) {
        Expression e = unwrap(expr);
        if (isConstant(e) || e instanceof Column c && quotedString(c, ctx)) return 2;
        if (e instanceof Select || e instanceof AnyComparisonExpression) return 1;
        return 0;
    }

    private String inValues(Expression right, Ctx ctx) {
        Expression r = right;
        if (r instanceof ParenthesedSelect sub) {
            // DISTINCT cannot change the outcome of IN
            SqlUnit u = nested(sub, ctx.env());
            if (texts == Texts.TAXONOMY) return "(select)";
            if (u.setOp() == null && u.keywords().contains("distinct")) {
                Set<String> kw = new TreeSet<>(u.keywords());
                kw.remove("distinct");
                u = new SqlUnit(u.tables(), u.select(), u.where(), u.whereConnectors(), u.whereShape(), u.groupBy(),
                        u.having(), u.orderBy(), u.limit(), null, null, kw, u.structure());
            }
            return "(" + u.canonical() + ")";
        }
        if (r instanceof ExpressionList<?> list) {
            if (!compareValues && !list.isEmpty() && list.stream().allMatch(ComponentExtractor::isConstant)) {
                return "(" + MASK + ")";
            }
            TreeSet<String> parts = new TreeSet<>();
            for (Expression x : list) parts.add(ex(x, ctx));
            return "(" + String.join(", ", parts) + ")";
        }
        return ex(r, ctx);
    }

    // ------------------------------------------------------------------ expressions

    private static Expression unwrap(Expression e) {
        Expression u = e;
        while (u instanceof ParenthesedExpressionList<?> p && p.size() == 1) u = p.get(0);
        return u;
    }

    static boolean isConstant(Expression expr) {
        Expression e = unwrap(expr);
        if (isLiteral(e) || e instanceof NullValue || e instanceof BooleanValue || e instanceof TimeKeyExpression
                || e instanceof JdbcParameter) {
            return true;
        }
        if (e instanceof SignedExpression s) return isConstant(s.getExpression());
        if (e instanceof CastExpression c) return isConstant(c.getLeftExpression());
        if (e instanceof IntervalExpression i) return i.getExpression() == null || isConstant(i.getExpression());
        if (e instanceof Function f) {
            if (AGGREGATES.contains(functionName(f)) || f.isAllColumns()) return false;
            return parameters(f).stream().allMatch(ComponentExtractor::isConstant);
        }
        if (e instanceof ExpressionList<?> list) return list.stream().allMatch(ComponentExtractor::isConstant);
        if (e instanceof BinaryExpression b && !isCondition(b)) {
            return isConstant(b.getLeftExpression()) && isConstant(b.getRightExpression());
        }
        return false;
    }

    private static boolean isLiteral(Expression e) {
        return e instanceof StringValue || e instanceof LongValue || e instanceof DoubleValue || e instanceof DateValue
                || e instanceof TimeValue || e instanceof TimestampValue || e instanceof HexValue
                || e instanceof DateTimeLiteralExpression;
    }

    private String literal(Expression e) {
        if (!compareValues) return MASK;
        if (e instanceof StringValue s) {
            String value = s.getValue().replace("\\'", "'").replace("''", "'");
            return texts == Texts.TAXONOMY ? asCompared(value) : "'" + value + "'";
        }
        if (e instanceof LongValue l) return number(l.getStringValue());
        if (e instanceof DoubleValue d) return number(d.toString());
        if (texts == Texts.TAXONOMY) {
            if (e instanceof DateValue d) return asCompared(String.valueOf(d.getValue()));
            if (e instanceof TimeValue t) return asCompared(String.valueOf(t.getValue()));
            if (e instanceof TimestampValue t) return asCompared(String.valueOf(t.getValue()));
            if (e instanceof DateTimeLiteralExpression d) return asCompared(d.getValue().replaceAll("^'|'$", ""));
        }
        return lower(e.toString());
    }

    /** A string as MySQL's default collations compare it: case and trailing blanks ignored, a numeric one by value. */
    private static String asCompared(String value) {
        String v = lower(value).stripTrailing();
        return PLAIN_NUMBER.matcher(v.trim()).matches() ? number(v.trim()) : "'" + v + "'";
    }

    private static String number(String text) {
        try {
            return new BigDecimal(text).stripTrailingZeros().toPlainString();
        } catch (NumberFormatException e) {
            return lower(text);
        }
    }

    /** Canonical text of an expression. */
    private String ex(Expression expr, Ctx ctx) {
        Expression e = unwrap(expr);
        if (e == null) return "";
        if (isLiteral(e)) return literal(e);
        if (e instanceof NullValue) return "null";
        if (e instanceof BooleanValue b) return b.getValue() ? "true" : "false";
        if (e instanceof JdbcParameter) return MASK;
        if (e instanceof Column c) return column(c, ctx);
        if (e instanceof AllTableColumns atc) return tableStar(atc.getTable(), ctx);
        if (e instanceof AllColumns) return "*";
        if (e instanceof SignedExpression s) {
            if (isLiteral(unwrap(s.getExpression()))) {
                String v = ex(s.getExpression(), ctx);
                return MASK.equals(v) || s.getSign() == '+' ? v : number(s.getSign() + v);
            }
            return s.getSign() + ex(s.getExpression(), ctx);
        }
        if (isCondition(e)) return conditions(e, ctx).shape();
        if (e instanceof Select sub) return "(" + query(nested(sub, ctx.env())) + ")";
        if (e instanceof AnyComparisonExpression any) {
            return lower(any.getAnyType().name()) + " (" + query(nested(any.getSelect(), ctx.env())) + ")";
        }
        if (e instanceof Function f) return function(f, ctx);
        if (e instanceof AnalyticExpression a) return analytic(a, ctx);
        if (e instanceof MySQLGroupConcat g) {
            StringBuilder sb = new StringBuilder("group_concat(");
            if (g.isDistinct()) sb.append("distinct ");
            sb.append(list(g.getExpressionList(), ctx));
            if (g.getOrderByElements() != null) sb.append(orderList(g.getOrderByElements(), ctx));
            if (g.getSeparator() != null) sb.append(" separator ").append(g.getSeparator());
            return aggregate(g, sb.append(')').toString(), ctx);
        }
        if (e instanceof CaseExpression c) {
            StringBuilder sb = new StringBuilder("case");
            if (c.getSwitchExpression() != null) sb.append(' ').append(ex(c.getSwitchExpression(), ctx));
            for (WhenClause w : c.getWhenClauses()) {
                sb.append(" when ").append(ex(w.getWhenExpression(), ctx)).append(" then ")
                        .append(ex(w.getThenExpression(), ctx));
            }
            if (c.getElseExpression() != null) sb.append(" else ").append(ex(c.getElseExpression(), ctx));
            return sb.append(" end").toString();
        }
        if (e instanceof CastExpression c) {
            if (texts == Texts.TAXONOMY && isLiteral(unwrap(c.getLeftExpression()))) return ex(c.getLeftExpression(), ctx);
            return "cast(" + ex(c.getLeftExpression(), ctx) + " as " + lower(String.valueOf(c.getColDataType())) + ")";
        }
        if (e instanceof IntervalExpression i) {
            String v = i.getExpression() != null ? ex(i.getExpression(), ctx)
                    : compareValues ? lower(i.getParameter()).replace("'", "") : MASK;
            return "interval " + v + (i.getIntervalType() != null ? " " + lower(i.getIntervalType()) : "");
        }
        if (e instanceof ExtractExpression x) {
            return "extract(" + lower(x.getName()) + " from " + ex(x.getExpression(), ctx) + ")";
        }
        if (e instanceof TimeKeyExpression t) {
            String name = lower(t.getStringValue()).replace("()", "").replace(' ', '_');
            return FUNCTION_SYNONYMS.getOrDefault(name, name) + "()";
        }
        if (e instanceof TrimFunction t) {
            StringBuilder sb = new StringBuilder("trim(");
            if (t.getTrimSpecification() != null) sb.append(lower(t.getTrimSpecification().name())).append(' ');
            if (t.getExpression() != null) sb.append(ex(t.getExpression(), ctx));
            if (t.getFromExpression() != null) sb.append(" from ").append(ex(t.getFromExpression(), ctx));
            return sb.append(')').toString();
        }
        if (e instanceof CollateExpression c) {
            return ex(c.getLeftExpression(), ctx) + " collate " + lower(c.getCollate());
        }
        if (e instanceof Addition || e instanceof Multiplication) {
            List<Expression> operands = new ArrayList<>();
            flatten(e, e.getClass(), operands);
            String op = e instanceof Addition ? " + " : " * ";
            return "(" + operands.stream().map(o -> ex(o, ctx)).sorted().collect(Collectors.joining(op)) + ")";
        }
        if (e instanceof BinaryExpression b) {
            String op = lower(b.getStringExpression().trim());
            if (op.equals("mod")) op = "%";
            return "(" + ex(b.getLeftExpression(), ctx) + " " + op + " " + ex(b.getRightExpression(), ctx) + ")";
        }
        if (e instanceof ExpressionList<?> l) return "(" + list(l, ctx) + ")";
        return "{" + lower(e.toString()) + "}";
    }

    /** A nested query in the clause that holds it. */
    private String query(SqlUnit u) {
        return texts == Texts.TAXONOMY ? "select" : u.canonical();
    }

    private String list(Collection<? extends Expression> items, Ctx ctx) {
        if (items == null) return "";
        return items.stream().map(x -> ex(x, ctx)).collect(Collectors.joining(", "));
    }

    private String orderList(List<OrderByElement> order, Ctx ctx) {
        if (order == null || order.isEmpty()) return "";
        return " order by " + order.stream().map(o -> ex(o.getExpression(), ctx) + " " + direction(o))
                .collect(Collectors.joining(", "));
    }

    private static String functionName(Function f) {
        String name = lower(unquote(f.getName()));
        return FUNCTION_SYNONYMS.getOrDefault(name, name);
    }

    /** The {@code .attr} after a function call, or null (JSqlParser's getter throws when there is none). */
    private static String attribute(Function f) {
        try {
            Object a = f.getAttribute();
            return a == null ? null : a.toString();
        } catch (NullPointerException e) {
            return f.getAttributeName();
        }
    }

    /** {@code COUNT(1)} and the like count rows exactly as {@code COUNT(*)} does. */
    private static boolean countOfConstant(Function f) {
        List<Expression> params = parameters(f);
        return functionName(f).equals("count") && !f.isDistinct() && params.size() == 1
                && (unwrap(params.get(0)) instanceof LongValue || unwrap(params.get(0)) instanceof StringValue);
    }

    private static List<Expression> parameters(Function f) {
        List<Expression> out = new ArrayList<>();
        if (f.getParameters() != null) out.addAll(f.getParameters());
        return out;
    }

    private String function(Function f, Ctx ctx) {
        StringBuilder sb = new StringBuilder(functionName(f)).append('(');
        if (f.isDistinct() && (compareDistinct || !AGGREGATES.contains(functionName(f)))) sb.append("distinct ");
        if (f.isUnique()) sb.append("unique ");
        List<Expression> params = parameters(f);
        if (countOfConstant(f)) return sb.append("*)").toString();
        if (f.isAllColumns() && params.isEmpty()) sb.append('*');
        sb.append(list(params, ctx));
        if (f.getNamedParameters() != null) sb.append(lower(f.getNamedParameters().toString()));
        sb.append(orderList(f.getOrderByElements(), ctx));
        sb.append(')');
        String attribute = attribute(f);
        if (attribute != null) sb.append('.').append(lower(attribute));
        if (f.getKeep() != null) sb.append(' ').append(lower(f.getKeep().toString()));
        return isAggregate(f.getName()) ? aggregate(f, sb.toString(), ctx) : sb.toString();
    }

    /** Any dialect's aggregate (the taxonomy's), not only Spider's {@link #AGGREGATES}. */
    private static boolean isAggregate(String functionName) {
        return SqlVocabulary.AGGREGATES.contains(SqlVocabulary.upper(unquote(functionName)));
    }

    /** Records an aggregate call of the SELECT being read; returns its text. */
    private static String aggregate(Expression call, String text, Ctx ctx) {
        if (ctx.env().found() != null) ctx.env().found().aggregates.putIfAbsent(call, text);
        return text;
    }

    private String analytic(AnalyticExpression a, Ctx ctx) {
        StringBuilder sb = new StringBuilder(FUNCTION_SYNONYMS.getOrDefault(lower(a.getName()), lower(a.getName())));
        sb.append('(');
        if (a.isDistinct()) sb.append("distinct ");
        if (a.isAllColumns()) sb.append('*');
        List<String> args = new ArrayList<>();
        if (a.getExpression() != null) args.add(ex(a.getExpression(), ctx));
        if (a.getOffset() != null) args.add(ex(a.getOffset(), ctx));
        if (a.getDefaultValue() != null) args.add(ex(a.getDefaultValue(), ctx));
        sb.append(String.join(", ", args));
        sb.append(orderList(a.getFuncOrderBy(), ctx));
        sb.append(')');
        if (a.isIgnoreNulls() || a.isIgnoreNullsOutside()) sb.append(" ignore nulls");
        if (a.getFilterExpression() != null) sb.append(" filter (where ").append(ex(a.getFilterExpression(), ctx)).append(')');
        if (a.getWindowName() != null) return window(a, sb.append(" over ").append(lower(a.getWindowName())).toString(), ctx);
        sb.append(" over (");
        List<String> window = new ArrayList<>();
        if (a.getPartitionExpressionList() != null && !a.getPartitionExpressionList().isEmpty()) {
            window.add("partition by " + a.getPartitionExpressionList().stream().map(x -> ex(x, ctx)).sorted()
                    .collect(Collectors.joining(", ")));
        }
        String order = orderList(a.getOrderByElements(), ctx);
        if (!order.isEmpty()) window.add(order.trim());
        if (a.getWindowElement() != null) window.add(lower(a.getWindowElement().toString()));
        return window(a, sb.append(String.join(" ", window)).append(')').toString(), ctx);
    }

    /** A window function's text, recorded when it is an aggregate ({@code SUM(x) OVER (...)}). */
    private static String window(AnalyticExpression a, String text, Ctx ctx) {
        return isAggregate(a.getName()) ? aggregate(a, text, ctx) : text;
    }

    // ------------------------------------------------------------------ columns

    private String column(Column c, Ctx ctx) {
        String rawName = c.getColumnName();
        String name = lower(unquote(rawName));
        Table t = c.getTable();
        String qualifier = t == null || t.getName() == null ? null : lower(unquote(t.getName()));
        if (qualifier == null) {
            if (ctx.mode() == AliasMode.ALIAS_FIRST && ctx.aliases().containsKey(name)) return alias(name, ctx);
            Source resolved = sourceOf(name, ctx.env().scope());
            if (resolved != null) return reference(resolved, name, ctx.env().found());
            if (ctx.mode() == AliasMode.COLUMN_FIRST && ctx.aliases().containsKey(name)) return alias(name, ctx);
            if (quotedString(c, ctx)) return literal(new StringValue(rawName.substring(1, rawName.length() - 1)));
            NameScope scope = ctx.env().scope();
            if (strict && !ctx.aliases().containsKey(name) && !TIME_UNITS.contains(name) && allKnownTables(scope)) {
                throw new UnsupportedSqlException("unknown column " + name);
            }
            if (scope != null && scope.sources().size() == 1) return reference(scope.sources().get(0), name, ctx.env().found());
            return found(name, ctx.env().found());
        }
        Source src = ctx.env().scope() == null ? null : ctx.env().scope().qualified(qualifier);
        if (src != null) {
            if (strict && src.table() != null && !src.has(name)) {
                throw new UnsupportedSqlException("unknown column " + qualifier + "." + name);
            }
            return reference(src, name, ctx.env().found());
        }
        if (strict && allKnownTables(ctx.env().scope())) {
            throw new UnsupportedSqlException("unknown table or alias " + qualifier + " in " + qualifier + "." + name);
        }
        return found(schema.hasTable(qualifier) ? schema.column(qualifier, name) : qualifier + "." + name, ctx.env().found());
    }

    /** A column of a FROM source: its text, recorded with the bare name where the source is no base table. */
    private String reference(Source src, String name, Found found) {
        String text = qualify(src, name);
        if (found != null) found.columns.add(tableOf(src) != null ? text : name);
        return text;
    }

    /** A column reference no FROM source answers for, recorded as written. */
    private static String found(String text, Found found) {
        if (found != null) found.columns.add(text);
        return text;
    }

    /** A USING column of one side of a join: the first of its sources (by key) that has it, else the only one. */
    private String among(String name, List<Source> sources, Found found) {
        NameScope side = new NameScope(null);
        sources.forEach(side::add);
        Source src = sourceOf(name, side);
        if (src == null && sources.size() == 1) src = sources.get(0);
        return src == null ? found(name, found) : reference(src, name, found);
    }

    /**
     * Whether every source in scope is a schema table with known columns (a name none of them has then
     * cannot run); derived tables and CTEs make the answer unsure, and unsure never rejects.
     */
    private boolean allKnownTables(NameScope start) {
        if (start == null || !schema.known()) return false;
        boolean any = false;
        for (NameScope s = start; s != null; s = s.parent()) {
            for (Source src : s.sources()) {
                if (src.table() == null) return false;
                any = true;
            }
        }
        return any;
    }

    /** MySQL reads a "double-quoted" name that is no column (and no alias) as a string literal. */
    private boolean quotedString(Column c, Ctx ctx) {
        String raw = c.getColumnName();
        if (c.getTable() != null && c.getTable().getName() != null) return false;
        if (raw == null || raw.length() < 2 || !raw.startsWith("\"") || !raw.endsWith("\"")) return false;
        String name = lower(unquote(raw));
        return sourceOf(name, ctx.env().scope()) == null && !ctx.aliases().containsKey(name);
    }

    private String alias(String name, Ctx ctx) {
        return ex(ctx.aliases().get(name), ctx.with(AliasMode.NONE));
    }

    private String tableStar(Table t, Ctx ctx) {
        String qualifier = lower(unquote(t.getName()));
        Source src = ctx.env().scope() == null ? null : ctx.env().scope().qualified(qualifier);
        if (src != null) return texts == Texts.TAXONOMY && tableOf(src) == null ? "*" : key(src) + ".*";
        return qualifier + ".*";
    }

    /** The source of an unqualified column: in the nearest scope that has it, the first by key; null when none. */
    private static Source sourceOf(String name, NameScope start) {
        for (NameScope s = start; s != null; s = s.parent()) {
            Source best = null;
            for (Source src : s.sources()) {
                if (src.has(name) && (best == null || key(src).compareTo(key(best)) < 0)) best = src;
            }
            if (best != null) return best;
        }
        return null;
    }

    private String qualify(Source src, String name) {
        if (tableOf(src) != null) return schema.column(tableOf(src), name);
        if (texts == Texts.TAXONOMY) return name;
        int i = src.outputs().indexOf(name);
        return "<" + src.id() + ">." + (i >= 0 ? "#" + (i + 1) : name);
    }

    // ------------------------------------------------------------------ names

    private static String aliasName(Alias alias) {
        return alias == null || alias.getName() == null ? null : lower(unquote(alias.getName()));
    }

    static String unquote(String s) {
        if (s == null) return "";
        String t = s.trim();
        if (t.length() >= 2) {
            char a = t.charAt(0);
            char b = t.charAt(t.length() - 1);
            if (a == '`' && b == '`' || a == '"' && b == '"' || a == '[' && b == ']') return t.substring(1, t.length() - 1);
        }
        return t;
    }

    static String lower(String s) {
        return s == null ? "" : s.toLowerCase(Locale.ROOT);
    }

    /** A construct the scorer cannot turn into components. */
    static final class UnsupportedSqlException extends RuntimeException {
        UnsupportedSqlException(String message) {
            super(message);
        }
    }
}
