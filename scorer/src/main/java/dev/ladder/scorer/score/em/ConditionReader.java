package dev.ladder.scorer.score.em;

import static dev.ladder.scorer.score.em.ExpressionText.MASK;
import static dev.ladder.scorer.score.em.ExpressionText.flatten;
import static dev.ladder.scorer.score.em.ExpressionText.isConstant;
import static dev.ladder.scorer.score.em.ExpressionText.unwrap;
import static dev.ladder.scorer.score.em.SqlNames.lower;

import dev.ladder.scorer.score.em.ComponentExtractor.Ctx;
import dev.ladder.scorer.score.em.ComponentExtractor.Env;
import dev.ladder.scorer.score.em.ComponentExtractor.Texts;
import dev.ladder.sql.read.SqlVocabulary;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import net.sf.jsqlparser.expression.AnyComparisonExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.conditional.XorExpression;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.ComparisonOperator;
import net.sf.jsqlparser.expression.operators.relational.ExistsExpression;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.IsBooleanExpression;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.expression.operators.relational.LikeExpression;
import net.sf.jsqlparser.expression.operators.relational.RegExpMatchOperator;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.Select;

/**
 * The condition trees of WHERE, HAVING and ON for {@link ComponentExtractor}: AND / OR / XOR flattened into a sorted
 * shape, NOT folded into the complementary comparison, and every leaf a {@link CondUnit} with its column side first.
 */
final class ConditionReader {

    /** NOT (a op b) written as a comparison with the complementary operator. */
    private static final Map<String, String> NEGATED = Map.of("=", "!=", "!=", "=", "<", ">=", ">=", "<", ">", "<=",
            "<=", ">");

    private final ComponentExtractor query;
    private final boolean compareValues;
    private final Texts texts;

    ConditionReader(ComponentExtractor query) {
        this.query = query;
        this.compareValues = query.compareValues;
        this.texts = query.texts;
    }

    /** The analysed condition tree of one clause. */
    record Conditions(List<CondUnit> leaves, Set<String> connectors, String shape) {
        static final Conditions NONE = new Conditions(List.of(), Set.of(), "");
    }

    /** The condition tree of one clause (WHERE, HAVING, an ON), or of a condition written as a value. */
    Conditions read(Expression e, Ctx ctx) {
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

    static boolean isCondition(Expression e) {
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

    /** A comparison with the column side on the left: constants and subqueries go right, ties by text. */
    private CondUnit orient(String op, Expression left, Expression right, Ctx ctx) {
        String l = ex(left, ctx);
        String r = ex(right, ctx);
        int lr = rank(left, ctx);
        int rr = rank(right, ctx);
        if (lr > rr || lr == rr && l.compareTo(r) > 0) {
            return new CondUnit(false, SqlVocabulary.mirrored(op), r, l, null);
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
            if (!compareValues && !list.isEmpty() && list.stream().allMatch(ExpressionText::isConstant)) {
                return "(" + MASK + ")";
            }
            TreeSet<String> parts = new TreeSet<>();
            for (Expression x : list) parts.add(ex(x, ctx));
            return "(" + String.join(", ", parts) + ")";
        }
        return ex(r, ctx);
    }

    // ------------------------------------------------------------------ the other readers

    private SqlUnit nested(Select s, Env env) {
        return query.nested(s, env);
    }

    private String ex(Expression expr, Ctx ctx) {
        return query.expressions().ex(expr, ctx);
    }

    private boolean quotedString(Column c, Ctx ctx) {
        return query.columns().quotedString(c, ctx);
    }
}
