package dev.ladder.scorer.score.em;

import static dev.ladder.scorer.score.em.ComponentExtractor.direction;
import static dev.ladder.scorer.score.em.ConditionReader.isCondition;
import static dev.ladder.scorer.score.em.SqlNames.lower;
import static dev.ladder.scorer.score.em.SqlNames.unquote;

import dev.ladder.scorer.score.em.ComponentExtractor.Ctx;
import dev.ladder.scorer.score.em.ComponentExtractor.Env;
import dev.ladder.scorer.score.em.ComponentExtractor.Texts;
import dev.ladder.scorer.score.em.ConditionReader.Conditions;
import dev.ladder.sql.read.SqlVocabulary;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
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
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.Select;

/**
 * The canonical text of expressions for {@link ComponentExtractor}: literals (masked unless values are compared),
 * function calls under one name per function, aggregates and window functions (recorded in the SELECT being read),
 * CASE, casts, and commutative arithmetic with its operands sorted. Nested queries and conditions are read by the
 * extractor and the {@link ConditionReader}, columns by the {@link ColumnResolver}.
 */
final class ExpressionText {

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

    static final String MASK = "?";

    private static final Pattern PLAIN_NUMBER = Pattern.compile("[-+]?(\\d+(\\.\\d*)?|\\.\\d+)");

    private final ComponentExtractor query;
    private final boolean compareValues;
    private final boolean compareDistinct;
    private final Texts texts;

    ExpressionText(ComponentExtractor query) {
        this.query = query;
        this.compareValues = query.compareValues;
        this.compareDistinct = query.compareDistinct;
        this.texts = query.texts;
    }

    SelectUnit selectUnit(Expression expr, Ctx ctx) {
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

    static void flatten(Expression e, Class<?> kind, List<Expression> out) {
        Expression u = unwrap(e);
        if (u.getClass() == kind && u instanceof BinaryExpression b) {
            flatten(b.getLeftExpression(), kind, out);
            flatten(b.getRightExpression(), kind, out);
        } else {
            out.add(u);
        }
    }

    static Expression unwrap(Expression e) {
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
            return parameters(f).stream().allMatch(ExpressionText::isConstant);
        }
        if (e instanceof ExpressionList<?> list) return list.stream().allMatch(ExpressionText::isConstant);
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

    String literal(Expression e) {
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
    String ex(Expression expr, Ctx ctx) {
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

    // ------------------------------------------------------------------ the other readers

    private SqlUnit nested(Select s, Env env) {
        return query.nested(s, env);
    }

    private Conditions conditions(Expression e, Ctx ctx) {
        return query.conditions().read(e, ctx);
    }

    private String column(Column c, Ctx ctx) {
        return query.columns().column(c, ctx);
    }

    private String tableStar(Table t, Ctx ctx) {
        return query.columns().tableStar(t, ctx);
    }
}
