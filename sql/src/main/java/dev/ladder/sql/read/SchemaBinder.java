package dev.ladder.sql.read;

import dev.ladder.sql.read.NameScope.Source;
import dev.ladder.sql.read.SchemaBinding.BoundColumn;
import dev.ladder.sql.read.SchemaBinding.ColumnPair;
import dev.ladder.sql.read.SchemaBinding.UnknownColumn;
import dev.ladder.sql.read.SchemaBinding.ValueCondition;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.AnalyticExpression;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.MySQLGroupConcat;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.operators.relational.ComparisonOperator;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.GreaterThan;
import net.sf.jsqlparser.expression.operators.relational.GreaterThanEquals;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.LikeExpression;
import net.sf.jsqlparser.expression.operators.relational.MinorThan;
import net.sf.jsqlparser.expression.operators.relational.MinorThanEquals;
import net.sf.jsqlparser.expression.operators.relational.NotEqualsTo;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.GroupByElement;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.LateralSubSelect;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.ParenthesedFromItem;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.WithItem;

/**
 * The walk behind {@link SchemaBinding}: one pass over a parsed statement, scope by scope. Its expression visitor
 * resolves every {@link Column} in the {@link Ctx} it is handed (the SELECT's scope and the clause it stands in).
 */
final class SchemaBinder extends ExpressionVisitorAdapter<Void> {

    /** One SELECT's names: its sources, the CTEs a WITH defines, its SELECT-list aliases, USING-merged columns. */
    private static final class Scope {
        final Scope parent;
        final NameScope names;
        final Map<String, List<String>> ctes = new HashMap<>(); // lower-case name -> columns (null: not known yet)
        final Set<String> aliases = new HashSet<>();
        final Set<String> coalesced = new HashSet<>();

        Scope(Scope parent) {
            this.parent = parent;
            this.names = new NameScope(parent == null ? null : parent.names);
        }

        Source qualified(String qualifier) {
            return names.local(qualifier);
        }

        Scope cteScope(String name) {
            for (Scope s = this; s != null; s = s.parent) if (s.ctes.containsKey(lower(name))) return s;
            return null;
        }
    }

    private enum Clause { SELECT, ON, WHERE, GROUP, HAVING, ORDER }

    private record Ctx(Scope scope, Clause clause) {}

    /** A resolved reference: its source, the column (lower case) and, for a schema table, the schema column. */
    private record Ref(Source source, String column, BoundColumn bound) {}

    private record Key(Source source, String column) {}

    final Schema schema;
    final Set<String> tables = new LinkedHashSet<>();
    final Set<BoundColumn> columns = new LinkedHashSet<>();
    final Set<String> unknownTables = new LinkedHashSet<>();
    final Set<UnknownColumn> unknownColumns = new LinkedHashSet<>();
    final Set<ColumnPair> equalities = new LinkedHashSet<>();
    final Set<String> ungrouped = new LinkedHashSet<>();
    final Set<ValueCondition> conditions = new LinkedHashSet<>();
    final Map<Column, Ref> refs = new IdentityHashMap<>();
    boolean star;

    SchemaBinder(Schema schema) {
        this.schema = schema;
    }

    /** Binds a query in the scope that encloses it; returns its output column names (null: not known). */
    List<String> bind(Select s, Scope outer) {
        Scope scope = outer;
        if (s.getWithItemsList() != null && !s.getWithItemsList().isEmpty()) {
            scope = new Scope(outer);
            for (WithItem<?> w : s.getWithItemsList()) {
                String cte = lower(name(w.getAliasName()));
                scope.ctes.put(cte, null); // a recursive CTE's body sees itself, columns unknown
                List<String> outs = w.getSelect() == null ? null : bind(w.getSelect(), scope);
                if (w.getWithItemList() != null && !w.getWithItemList().isEmpty()) {
                    outs = w.getWithItemList().stream().map(i -> name(String.valueOf(i.getExpression()))).toList();
                }
                scope.ctes.put(cte, outs);
            }
        }
        if (s instanceof PlainSelect ps) return bindPlain(ps, scope);
        if (s instanceof ParenthesedSelect p) return p.getSelect() == null ? null : bind(p.getSelect(), scope);
        if (s instanceof SetOperationList list) {
            List<String> first = null;
            for (int i = 0; i < list.getSelects().size(); i++) {
                List<String> outs = bind(list.getSelects().get(i), scope);
                if (i == 0) first = outs;
            }
            return first; // a set operation's ORDER BY names its output columns: not resolved here
        }
        return null; // VALUES and the like
    }

    private List<String> bindPlain(PlainSelect ps, Scope outer) {
        Scope scope = new Scope(outer);
        if (ps.getFromItem() != null) from(ps.getFromItem(), scope, outer);
        if (ps.getJoins() != null) for (Join j : ps.getJoins()) join(j, scope, outer);
        List<SelectItem<?>> items = ps.getSelectItems() == null ? List.of() : ps.getSelectItems();
        for (SelectItem<?> item : items) {
            if (item.getAlias() != null) scope.aliases.add(lower(name(item.getAlias().getName())));
        }
        for (SelectItem<?> item : items) {
            Expression e = item.getExpression();
            if (e instanceof AllTableColumns t) {
                String q = name(t.getTable().getName());
                if (scope.qualified(q) == null) unknownColumns.add(new UnknownColumn(q, "*", "unknown qualifier '" + q + "'"));
            }
            if (e instanceof AllColumns) star = true;
            else walk(e, scope, Clause.SELECT);
        }
        walk(ps.getWhere(), scope, Clause.WHERE);
        for (Expression key : groupKeys(ps.getGroupBy())) walk(key, scope, Clause.GROUP);
        walk(ps.getHaving(), scope, Clause.HAVING);
        if (ps.getOrderByElements() != null) {
            for (OrderByElement o : ps.getOrderByElements()) walk(o.getExpression(), scope, Clause.ORDER);
        }
        checkGrouping(ps, items, scope);
        return outputs(items, scope);
    }

    private void from(FromItem item, Scope scope, Scope outer) {
        String alias = alias(item.getAlias());
        if (item instanceof net.sf.jsqlparser.schema.Table t) {
            String written = name(t.getName());
            Scope cteAt = t.getSchemaName() == null ? scope.cteScope(written) : null;
            Optional<Table> table = schema.table(written);
            if (cteAt != null) {
                scope.names.add(Source.cte(alias, written, cteAt.ctes.get(lower(written))));
            } else {
                if (table.isPresent()) tables.add(table.get().name());
                else unknownTables.add(written);
                scope.names.add(Source.table(alias, written, table.orElse(null)));
            }
        } else if (item instanceof ParenthesedSelect p) {
            // a derived table sees the enclosing queries, not its siblings (unless LATERAL)
            List<String> outs = bind(p, p instanceof LateralSubSelect ? scope : outer);
            if (p.getAlias() != null && p.getAlias().getAliasColumns() != null) {
                outs = p.getAlias().getAliasColumns().stream().map(c -> name(c.name)).toList();
            }
            scope.names.add(Source.derived(alias, outs, null));
        } else if (item instanceof ParenthesedFromItem pf) {
            if (pf.getFromItem() != null) from(pf.getFromItem(), scope, outer);
            if (pf.getJoins() != null) for (Join j : pf.getJoins()) join(j, scope, outer);
        } else {
            scope.names.add(Source.derived(alias, null, null)); // table functions: columns not known
        }
    }

    private void join(Join j, Scope scope, Scope outer) {
        from(j.getRightItem(), scope, outer);
        Source right = scope.names.sources().get(scope.names.sources().size() - 1);
        List<String> merged = new ArrayList<>();
        if (j.getUsingColumns() != null) j.getUsingColumns().forEach(c -> merged.add(name(c.getColumnName())));
        if (j.isNatural() && right.columnNames() != null) merged.addAll(right.columnNames());
        for (String col : merged) {
            Source left = scope.names.sources().stream().filter(s -> s != right && s.has(col)).findFirst().orElse(null);
            if (left == null || !right.has(col)) {
                if (!j.isNatural() && scope.names.sources().stream().noneMatch(Source::opaque)) {
                    unknownColumns.add(new UnknownColumn(null, col, "USING column '" + col + "' is not in both sides"));
                }
                continue;
            }
            scope.coalesced.add(lower(col));
            Ref a = ref(left, col);
            Ref b = ref(right, col);
            for (Ref r : List.of(a, b)) if (r.bound() != null) columns.add(r.bound());
            pair(a, b);
        }
        if (j.getOnExpressions() != null) for (Expression on : j.getOnExpressions()) walk(on, scope, Clause.ON);
    }

    private void walk(Expression e, Scope scope, Clause clause) {
        if (e != null) e.accept(this, new Ctx(scope, clause));
    }

    @Override
    public <S> Void visit(Column column, S context) {
        resolve(column, (Ctx) context);
        return null;
    }

    @Override
    public <S> Void visit(EqualsTo eq, S context) {
        Ctx ctx = (Ctx) context;
        if (eq.getLeftExpression() instanceof Column l && eq.getRightExpression() instanceof Column r) {
            Ref a = resolve(l, ctx);
            Ref b = resolve(r, ctx);
            if (ctx.clause() == Clause.ON || ctx.clause() == Clause.WHERE) pair(a, b);
            return null;
        }
        condition(eq, "=", context);
        return super.visit(eq, context);
    }

    @Override
    public <S> Void visit(NotEqualsTo e, S context) {
        condition(e, "<>", context);
        return super.visit(e, context);
    }

    @Override
    public <S> Void visit(GreaterThan e, S context) {
        condition(e, ">", context);
        return super.visit(e, context);
    }

    @Override
    public <S> Void visit(GreaterThanEquals e, S context) {
        condition(e, ">=", context);
        return super.visit(e, context);
    }

    @Override
    public <S> Void visit(MinorThan e, S context) {
        condition(e, "<", context);
        return super.visit(e, context);
    }

    @Override
    public <S> Void visit(MinorThanEquals e, S context) {
        condition(e, "<=", context);
        return super.visit(e, context);
    }

    @Override
    public <S> Void visit(LikeExpression e, S context) {
        if (e.getLeftExpression() instanceof Column c && literal(e.getRightExpression()) != null) {
            valueCondition(c, (e.isNot() ? "NOT " : "") + (e.getLikeKeyWord() == null ? "LIKE" : e.getLikeKeyWord().name()),
                    literal(e.getRightExpression()), context);
        }
        return super.visit(e, context);
    }

    @Override
    public <S> Void visit(InExpression e, S context) {
        if (e.getLeftExpression() instanceof Column c && e.getRightExpression() instanceof ExpressionList<?> list) {
            for (Expression x : list) {
                String v = literal(x);
                if (v != null) valueCondition(c, e.isNot() ? "NOT IN" : "IN", v, context);
            }
        }
        return super.visit(e, context);
    }

    /** {@code column op literal} or {@code literal op column} (in WHERE, ON or HAVING): a value condition. */
    private void condition(ComparisonOperator e, String op, Object context) {
        String right = literal(e.getRightExpression());
        String left = literal(e.getLeftExpression());
        if (e.getLeftExpression() instanceof Column c && right != null) valueCondition(c, op, right, context);
        else if (e.getRightExpression() instanceof Column c && left != null) valueCondition(c, SqlVocabulary.mirrored(op), left, context);
    }

    private void valueCondition(Column c, String op, String value, Object context) {
        Ctx ctx = (Ctx) context;
        if (ctx.clause() != Clause.WHERE && ctx.clause() != Clause.ON && ctx.clause() != Clause.HAVING) return;
        Ref ref = resolve(c, ctx);
        if (ref != null && ref.bound() != null) conditions.add(new ValueCondition(ref.bound(), op, value));
    }

    /** A string or number literal's value (a string unquoted), else null. */
    private static String literal(Expression e) {
        if (e instanceof StringValue s) return s.getValue().replace("''", "'");
        if (e instanceof LongValue l) return l.getStringValue();
        if (e instanceof DoubleValue d) return d.toString();
        if (e instanceof SignedExpression s && s.getSign() == '-' && literal(s.getExpression()) != null
                && !(s.getExpression() instanceof StringValue)) {
            return "-" + literal(s.getExpression());
        }
        return null;
    }

    @Override
    public <S> Void visit(ParenthesedSelect select, S context) {
        bind(select, ((Ctx) context).scope());
        return null;
    }

    @Override
    public <S> Void visit(Select select, S context) {
        bind(select, ((Ctx) context).scope());
        return null;
    }

    @Override
    public <S> Void visit(AnalyticExpression a, S context) {
        // the adapter skips PARTITION BY
        if (a.getExpression() != null) a.getExpression().accept(this, context);
        if (a.getPartitionExpressionList() != null) a.getPartitionExpressionList().accept(this, context);
        if (a.getOrderByElements() != null) a.getOrderByElements().forEach(o -> o.getExpression().accept(this, context));
        if (a.getFilterExpression() != null) a.getFilterExpression().accept(this, context);
        return null;
    }

    private void pair(Ref a, Ref b) {
        // two sources of one table (a self-join) are a real join; one source compared with itself is not
        if (a != null && b != null && a.bound() != null && b.bound() != null && a.source() != b.source()) {
            equalities.add(new ColumnPair(a.bound(), b.bound()));
        }
    }

    private Ref resolve(Column c, Ctx ctx) {
        if (refs.containsKey(c)) return refs.get(c);
        String col = name(c.getColumnName());
        String qualifier = c.getTable() == null || c.getTable().getName() == null ? null : name(c.getTable().getName());
        Ref ref = qualifier == null ? unqualified(c, col, ctx) : qualified(col, qualifier, ctx.scope());
        refs.put(c, ref);
        if (ref != null && ref.bound() != null) columns.add(ref.bound());
        return ref;
    }

    private Ref qualified(String col, String qualifier, Scope scope) {
        for (Scope s = scope; s != null; s = s.parent) {
            Source src = s.qualified(qualifier);
            if (src == null) continue;
            if (src.opaque() || src.has(col)) return ref(src, col);
            unknownColumns.add(new UnknownColumn(qualifier, col, "no column '" + col + "' in " + src.label()));
            return null;
        }
        String hint = "";
        for (Scope s = scope; s != null && hint.isEmpty(); s = s.parent) {
            for (Source src : s.names.sources()) {
                // MySQL: once aliased, a table is known by its alias only
                if (src.written() != null && src.written().equalsIgnoreCase(qualifier) && src.alias() != null) {
                    hint = " (" + src.written() + " is aliased as " + src.alias() + ")";
                    break;
                }
            }
        }
        unknownColumns.add(new UnknownColumn(qualifier, col, "unknown qualifier '" + qualifier + "'" + hint));
        return null;
    }

    private Ref unqualified(Column c, String col, Ctx ctx) {
        // ORDER BY looks at SELECT-list aliases first; GROUP BY and HAVING after the FROM items
        if (ctx.clause() == Clause.ORDER && ctx.scope().aliases.contains(lower(col))) return null;
        List<String> labels = new ArrayList<>();
        for (Scope s = ctx.scope(); s != null; s = s.parent) {
            List<Source> having = s.names.sources().stream().filter(src -> src.has(col)).toList();
            if (having.size() == 1 || (having.size() > 1 && s.coalesced.contains(lower(col)))) return ref(having.get(0), col);
            if (having.size() > 1) {
                String in = String.join(" and ", having.stream().map(Source::label).toList());
                unknownColumns.add(new UnknownColumn(null, col, "ambiguous: in " + in));
                return null;
            }
            if (s.names.sources().stream().anyMatch(Source::opaque)) return null; // maybe the unknown table's
            boolean aliasClause = ctx.clause() == Clause.GROUP || ctx.clause() == Clause.HAVING;
            if (s == ctx.scope() && aliasClause && s.aliases.contains(lower(col))) return null;
            s.names.sources().forEach(src -> { if (!labels.contains(src.label())) labels.add(src.label()); });
        }
        // MySQL (and SQLite) read an unresolvable "x" as a string; keywords JSqlParser reads as names are no columns
        if (c.getColumnName().startsWith("\"") || SqlVocabulary.NOT_COLUMNS.contains(SqlVocabulary.upper(col))) return null;
        String where = labels.isEmpty() ? " (no table in scope)" : " in " + String.join(", ", labels);
        unknownColumns.add(new UnknownColumn(null, col, "no column '" + col + "'" + where));
        return null;
    }

    private static Ref ref(Source src, String col) {
        BoundColumn bound = src.table() == null ? null
                : src.table().column(col).map(k -> new BoundColumn(src.table().name(), k.name())).orElse(null);
        return new Ref(src, lower(col), bound);
    }

    /**
     * ONLY_FULL_GROUP_BY as MySQL 8 applies it: in a grouped or aggregated SELECT, a SELECT-list column outside an
     * aggregate must be a GROUP BY key, or its table's whole primary key must be (functional dependence).
     */
    private void checkGrouping(PlainSelect ps, List<SelectItem<?>> items, Scope scope) {
        List<Expression> keys = groupKeys(ps.getGroupBy());
        boolean aggregated = false;
        for (SelectItem<?> item : items) aggregated |= Bare.of(item.getExpression()).aggregate;
        if (ps.getHaving() != null) aggregated |= Bare.of(ps.getHaving()).aggregate;
        if (keys.isEmpty() && !aggregated) return;
        Set<String> keyTexts = new HashSet<>();
        Set<Key> keyColumns = new HashSet<>();
        Set<String> keyNames = new HashSet<>(); // unresolved unqualified keys: SELECT-list aliases
        for (Expression k : keys) {
            keyTexts.add(lower(k.toString()));
            if (k instanceof Column c) {
                Ref r = refs.get(c);
                if (r != null) keyColumns.add(new Key(r.source(), r.column()));
                else if (c.getTable() == null) keyNames.add(lower(name(c.getColumnName())));
            }
        }
        for (SelectItem<?> item : items) {
            Expression e = item.getExpression();
            if (e instanceof AllColumns || keyTexts.contains(lower(e.toString()))) continue;
            if (item.getAlias() != null && keyNames.contains(lower(name(item.getAlias().getName())))) continue;
            for (Column c : Bare.of(e).columns) {
                Ref r = refs.get(c);
                // unresolved, or an enclosing query's column: a constant per group
                if (r == null || !scope.names.sources().contains(r.source())) continue;
                if (keyTexts.contains(lower(c.toString())) || keyColumns.contains(new Key(r.source(), r.column()))) continue;
                List<String> pk = r.source().table() == null ? List.of() : r.source().table().primaryKey();
                if (!pk.isEmpty() && pk.stream().allMatch(k -> keyColumns.contains(new Key(r.source(), lower(k))))) continue;
                ungrouped.add(c.toString());
            }
        }
    }

    private List<String> outputs(List<SelectItem<?>> items, Scope scope) {
        List<String> out = new ArrayList<>();
        for (SelectItem<?> item : items) {
            Expression e = item.getExpression();
            if (item.getAlias() != null) {
                out.add(name(item.getAlias().getName()));
            } else if (e instanceof AllTableColumns t) {
                Source s = scope.qualified(name(t.getTable().getName()));
                if (s == null || s.opaque()) return null;
                out.addAll(s.columnNames());
            } else if (e instanceof AllColumns) {
                for (Source s : scope.names.sources()) {
                    if (s.opaque()) return null;
                    out.addAll(s.columnNames());
                }
            } else if (e instanceof Column c) {
                out.add(name(c.getColumnName()));
            } else {
                out.add(String.valueOf(e)); // MySQL names an unaliased expression by its text
            }
        }
        return out;
    }

    /** A SELECT item's columns outside aggregates, windows and subqueries, and whether it has an aggregate. */
    private static final class Bare extends ExpressionVisitorAdapter<Void> {
        final List<Column> columns = new ArrayList<>();
        boolean aggregate;

        static Bare of(Expression e) {
            Bare b = new Bare();
            if (e != null) e.accept(b, null);
            return b;
        }

        @Override
        public <S> Void visit(Function f, S context) {
            if (f.getName() != null && SqlVocabulary.AGGREGATES.contains(SqlVocabulary.upper(f.getName()))) {
                aggregate = true;
                return null;
            }
            return super.visit(f, context);
        }

        @Override
        public <S> Void visit(MySQLGroupConcat g, S context) {
            aggregate = true;
            return null;
        }

        @Override
        public <S> Void visit(AnalyticExpression a, S context) {
            return null; // a window's arguments: not checked
        }

        @Override
        public <S> Void visit(ParenthesedSelect s, S context) {
            return null;
        }

        @Override
        public <S> Void visit(Select s, S context) {
            return null;
        }

        @Override
        public <S> Void visit(Column c, S context) {
            columns.add(c);
            return null;
        }
    }

    private static List<Expression> groupKeys(GroupByElement g) {
        List<Expression> keys = new ArrayList<>();
        if (g == null) return keys;
        if (g.getGroupByExpressionList() != null) addExpressions(keys, g.getGroupByExpressionList());
        if (g.getGroupingSets() != null) g.getGroupingSets().forEach(set -> addExpressions(keys, set));
        return keys;
    }

    private static void addExpressions(List<Expression> out, Collection<?> list) {
        for (Object o : list) if (o instanceof Expression e) out.add(e);
    }

    private static String alias(Alias a) {
        return a == null ? null : name(a.getName());
    }

    /** A name without its quotes (a MySQL alias may be a string: {@code AS 'total'}). */
    private static String name(String s) {
        if (s == null) return null;
        if (s.length() >= 2 && s.charAt(0) == '\'' && s.endsWith("'")) return s.substring(1, s.length() - 1);
        return Identifiers.unquote(s);
    }

    private static String lower(String s) {
        return s == null ? "" : s.toLowerCase(Locale.ROOT);
    }
}
