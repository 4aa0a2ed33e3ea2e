package dev.ladder.eval.report;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import net.sf.jsqlparser.expression.AnalyticExpression;
import net.sf.jsqlparser.expression.AnyComparisonExpression;
import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.BooleanValue;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.DateTimeLiteralExpression;
import net.sf.jsqlparser.expression.DateValue;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.expression.ExtractExpression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.IntervalExpression;
import net.sf.jsqlparser.expression.HexValue;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.MySQLGroupConcat;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.TimeKeyExpression;
import net.sf.jsqlparser.expression.TimeValue;
import net.sf.jsqlparser.expression.TimestampValue;
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
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.expression.operators.relational.LikeExpression;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.GroupByElement;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.LateralSubSelect;
import net.sf.jsqlparser.statement.select.Limit;
import net.sf.jsqlparser.statement.select.Offset;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.ParenthesedFromItem;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.WithItem;

/**
 * Explains a wrong prediction by the first component in which its SQL tree differs from the gold SQL's.
 *
 * <p>Both queries are parsed with JSqlParser and walked at every level (CTE bodies, derived tables, subqueries,
 * set-operation branches). The components, tested in this order, are:
 * <ol>
 *   <li>{@code wrong-table}: the sets of base tables (lower case, schema prefix dropped, CTE names excluded) differ;</li>
 *   <li>{@code wrong-join}: the number of joins (explicit JOINs plus comma-joined FROM items), their kinds (inner,
 *       outer for LEFT/RIGHT, full) or the set of join column pairs differs; a pair is an unordered pair of columns
 *       compared in an ON condition, named in USING, or equated in a top-level WHERE conjunct across two FROM
 *       sources of the same SELECT (an implicit join);</li>
 *   <li>{@code wrong-column}: the sets of referenced columns differ; a column is {@code table.column} with aliases
 *       resolved, or its bare name where the table cannot be told;</li>
 *   <li>{@code wrong-aggregation}: per SELECT, the aggregate calls (name, DISTINCT, arguments), the GROUP BY keys
 *       or the HAVING condition differ;</li>
 *   <li>{@code wrong-filter}: per SELECT, the filter (WHERE conjuncts that are no implicit join, plus ON conjuncts
 *       that compare no two columns) differs as a canonical condition;</li>
 *   <li>{@code wrong-projection-or-order}: per SELECT, in order, the SELECT list (order kept, aliases ignored),
 *       DISTINCT, ORDER BY or LIMIT/OFFSET differ;</li>
 *   <li>{@code other}: none of these differ (nesting, set operations, ...), or a query does not parse and a lexical
 *       scan finds the same tables in both (a different lexical table set gives {@code wrong-table}).</li>
 * </ol>
 * Canonical conditions flatten AND/OR (and + and *) and sort their operands, write literals on the right of
 * comparisons, fold {@code <>} onto {@code !=}, push NOT into comparisons and NOT-able predicates, write
 * {@code x IN (a, b)} as {@code x = a OR x = b}, read {@code DATE '...'} and other casts of literals as the literal,
 * lower-case strings (MySQL's default collations ignore case) and write numbers and numeric strings by value.
 * A SELECT alias used in GROUP BY, HAVING or ORDER BY, and an ordinal in GROUP BY or ORDER BY, stand for the
 * aliased or numbered SELECT item. Per-SELECT texts are compared as sorted lists, so a CTE and the equivalent
 * derived table compare equal. Unqualified columns of multi-table SELECTs are resolved with what both queries
 * reveal (see {@link SqlTree#resolveTogether}).
 */
public final class ErrorTaxonomy {

    private ErrorTaxonomy() {
    }

    /**
     * The error class of one prediction; never throws.
     *
     * @param gold             the gold SQL
     * @param predicted        the predicted SQL ({@code ""} or null when there was none)
     * @param executes         the prediction ran without error
     * @param executionCorrect the prediction's result matched the gold result
     */
    public static ErrorClass classify(String gold, String predicted, boolean executes, boolean executionCorrect) {
        if (executionCorrect) return ErrorClass.CORRECT;
        if (!executes || predicted == null || predicted.isBlank()) return ErrorClass.NOT_EXECUTABLE;
        if (gold == null || gold.isBlank()) return ErrorClass.OTHER;
        try {
            return compare(gold, predicted);
        } catch (RuntimeException | StackOverflowError e) {
            return ErrorClass.OTHER; // a construct the walk does not expect: no component can be blamed
        }
    }

    private static ErrorClass compare(String gold, String predicted) {
        SqlTree g = SqlTree.parse(gold);
        SqlTree p = SqlTree.parse(predicted);
        if (g == null || p == null) {
            return lexicalTables(gold).equals(lexicalTables(predicted)) ? ErrorClass.OTHER : ErrorClass.WRONG_TABLE;
        }
        if (!g.tables.equals(p.tables)) return ErrorClass.WRONG_TABLE;
        SqlTree.resolveTogether(g, p);
        if (g.joins != p.joins || !sorted(g.joinKinds).equals(sorted(p.joinKinds)) || !g.joinPairs().equals(p.joinPairs())) {
            return ErrorClass.WRONG_JOIN;
        }
        if (!sameColumns(g.columns(), p.columns())) return ErrorClass.WRONG_COLUMN;
        Components gc = g.components();
        Components pc = p.components();
        if (!gc.aggregation().equals(pc.aggregation())) return ErrorClass.WRONG_AGGREGATION;
        if (!gc.filter().equals(pc.filter())) return ErrorClass.WRONG_FILTER;
        if (!gc.projection().equals(pc.projection())) return ErrorClass.WRONG_PROJECTION_OR_ORDER;
        return ErrorClass.OTHER;
    }

    private static List<String> sorted(List<String> values) {
        return values.stream().sorted().toList();
    }

    /** Equal sets, or equal once a column whose table is unknown may stand for the same name in any table. */
    private static boolean sameColumns(Set<Col> a, Set<Col> b) {
        return a.equals(b) || covered(a, b) && covered(b, a);
    }

    private static boolean covered(Set<Col> from, Set<Col> by) {
        for (Col c : from) {
            if (by.stream().noneMatch(o -> o.name().equals(c.name())
                    && (c.table() == null || o.table() == null || c.table().equals(o.table())))) {
                return false;
            }
        }
        return true;
    }

    /** A resolved column reference; {@code table} null where the query does not tell. */
    record Col(String table, String name) {
    }

    /** Canonical per-SELECT texts of the later components (aggregation and filter sorted, projection in walk order). */
    record Components(List<String> aggregation, List<String> filter, List<String> projection) {
    }

    // ------------------------------------------------------------------ lexical fallback

    private static final Pattern COMMENTS = Pattern.compile("--[^\\n]*|#[^\\n]*|/\\*.*?\\*/", Pattern.DOTALL);
    private static final Pattern STRINGS = Pattern.compile("'(?:[^'\\\\]|\\\\.|'')*'");
    /** EXTRACT(YEAR FROM d) and friends: a FROM that names no table. */
    private static final Pattern FROM_IN_CALL =
            Pattern.compile("(?i)\\b(?:extract|trim|substring|substr|position|overlay)\\s*\\([^()]*\\)");
    private static final Pattern FROM_CLAUSE = Pattern.compile("(?is)\\bfrom\\s+(.*?)(?=\\b(?:where|group|order|having"
            + "|limit|union|intersect|except|window)\\b|[();]|$)");
    /** FROM items start after a comma or a JOIN keyword. */
    private static final Pattern ITEM_START = Pattern.compile("(?i)\\b(?:straight_)?join\\b|,");
    private static final Pattern IDENTIFIER = Pattern.compile("[\\w$]+");
    private static final Pattern JOINED = Pattern.compile("(?i)\\bjoin\\s+([`\"\\[\\]\\w.$]+)");
    private static final Pattern CTE_NAME =
            Pattern.compile("(?i)(?:\\bwith(?:\\s+recursive)?|,)\\s*([`\"\\[\\]\\w$]+)\\s*(?:\\([^()]*\\)\\s*)?as\\s*\\(");

    /** Table names read off the text after FROM and JOIN (CTE names excluded), for SQL the parser rejects. */
    static Set<String> lexicalTables(String sql) {
        Set<String> out = new TreeSet<>();
        if (sql == null) return out;
        String s = COMMENTS.matcher(sql).replaceAll(" ");
        s = STRINGS.matcher(s).replaceAll("''");
        s = FROM_IN_CALL.matcher(s).replaceAll("f()");
        Matcher m = FROM_CLAUSE.matcher(s);
        while (m.find()) {
            for (String part : ITEM_START.split(m.group(1))) {
                String t = part.trim();
                if (!t.isEmpty()) out.add(bareName(t.split("\\s+")[0]));
            }
        }
        m = JOINED.matcher(s); // joins after a parenthesis the FROM clause scan stopped at
        while (m.find()) out.add(bareName(m.group(1)));
        m = CTE_NAME.matcher(s);
        while (m.find()) out.remove(bareName(m.group(1)));
        out.removeIf(t -> !IDENTIFIER.matcher(t).matches());
        return out;
    }

    private static String bareName(String qualified) {
        String t = qualified.replaceAll("[`\"\\[\\]]", "");
        int dot = t.lastIndexOf('.');
        return lower(dot >= 0 ? t.substring(dot + 1) : t);
    }

    static String name(String identifier) {
        if (identifier == null) return "";
        String t = identifier.trim();
        if (t.length() >= 2) {
            char a = t.charAt(0);
            char b = t.charAt(t.length() - 1);
            if (a == '`' && b == '`' || a == '"' && b == '"' || a == '[' && b == ']') t = t.substring(1, t.length() - 1);
        }
        return lower(t);
    }

    static String lower(String s) {
        return s == null ? "" : s.toLowerCase(Locale.ROOT);
    }

    // ------------------------------------------------------------------ the walked tree

    /**
     * What one parsed query says, collected over all its SELECTs: tables, joins, column references, and per
     * SELECT the clauses later rendered canonically. Also the source of {@link GoldFeatures}.
     */
    static final class SqlTree {

        static final Set<String> AGGREGATES = Set.of("count", "sum", "avg", "min", "max", "group_concat", "stddev",
                "stddev_pop", "stddev_samp", "std", "variance", "var_pop", "var_samp", "bit_and", "bit_or", "bit_xor",
                "json_arrayagg", "json_objectagg", "string_agg", "array_agg", "listagg", "median");

        private static final Map<String, String> MIRRORED = Map.of("<", ">", ">", "<", "<=", ">=", ">=", "<=");
        private static final Map<String, String> NEGATED =
                Map.of("=", "!=", "!=", "=", "<", ">=", ">=", "<", ">", "<=", "<=", ">");
        private static final Pattern PLAIN_NUMBER = Pattern.compile("[-+]?(\\d+(\\.\\d*)?|\\.\\d+)");

        /** Base tables used anywhere (lower case, CTE names excluded). */
        final Set<String> tables = new TreeSet<>();
        /** JOIN clauses and comma-joined FROM items anywhere. */
        int joins;
        /** One entry per join: {@code inner} (also comma, CROSS, NATURAL), {@code outer} (LEFT, RIGHT) or {@code full}. */
        final List<String> joinKinds = new ArrayList<>();
        /** Aggregate calls anywhere, window aggregates included. */
        int aggregateCalls;
        /** Deepest subquery level: 0 for the outermost query; CTE bodies and derived tables count one level. */
        int depth;

        private final List<Ref> refs = new ArrayList<>();
        private final List<Ref[]> pairs = new ArrayList<>();
        private final List<Level> levels = new ArrayList<>();
        private final Map<Column, Ref> refOf = new IdentityHashMap<>();
        private final Map<Column, Expression> aliasOf = new IdentityHashMap<>();
        private final Map<AllTableColumns, Ref> starOf = new IdentityHashMap<>();

        private SqlTree() {
        }

        /** The walked tree of a SELECT, or null when {@code sql} is blank, does not parse, or is no SELECT. */
        static SqlTree parse(String sql) {
            if (sql == null || sql.isBlank()) return null;
            try {
                Statement st = CCJSqlParserUtil.parse(sql);
                if (!(st instanceof Select select)) return null;
                SqlTree tree = new SqlTree();
                tree.select(select, null, Set.of(), 0);
                return tree;
            } catch (Exception | StackOverflowError e) {
                return null;
            }
        }

        // ---------------------------------------------------------- walk

        /** A FROM source: its name in the query (alias, else table name) and its base table (null: derived or CTE). */
        private record Source(String key, String table) {
        }

        private static final class Scope {
            final Scope parent;
            final List<Source> sources = new ArrayList<>();

            Scope(Scope parent) {
                this.parent = parent;
            }
        }

        /** One column reference; unresolved ones may be resolved by {@link #resolveTogether}. */
        private static final class Ref {
            final String name;
            String table;
            final List<String> candidates;
            /** Written "double-quoted": MySQL reads it as a string unless it names a column. */
            final String quotedText;
            boolean literal;

            Ref(String name, String table, List<String> candidates, String quotedText) {
                this.name = name;
                this.table = table;
                this.candidates = candidates;
                this.quotedText = quotedText;
            }

            String key() {
                return table == null ? name : table + "." + name;
            }
        }

        /** The clauses of one SELECT (or the ORDER BY / LIMIT written after a set operation). */
        private static final class Level {
            final List<Expression> items = new ArrayList<>();
            boolean distinct;
            final List<Expression> filters = new ArrayList<>();
            final List<Expression> groupBy = new ArrayList<>();
            Expression having;
            final List<OrderByElement> orderBy = new ArrayList<>();
            Expression limit;
            Expression offset;
            final List<Expression> aggregates = new ArrayList<>();
            boolean outer;
            final int depth;

            Level(int depth) {
                this.depth = depth;
            }
        }

        private void select(Select s, Scope outer, Set<String> ctes, int level) {
            depth = Math.max(depth, level);
            Set<String> visible = ctes;
            if (s.getWithItemsList() != null && !s.getWithItemsList().isEmpty()) {
                Set<String> names = new HashSet<>(ctes);
                for (WithItem<?> w : s.getWithItemsList()) {
                    names.add(name(w.getAliasName())); // before its body: a recursive CTE names itself
                    if (w.getSelect() != null) select(w.getSelect(), outer, Set.copyOf(names), level + 1);
                }
                visible = Set.copyOf(names);
            }
            if (s instanceof PlainSelect ps) {
                plain(ps, outer, visible, level);
                return;
            }
            if (s instanceof SetOperationList list) {
                for (Select branch : list.getSelects()) select(branch, outer, visible, level);
            } else if (s instanceof ParenthesedSelect p && p.getSelect() != null) {
                select(p.getSelect(), outer, visible, level);
            } else {
                return; // VALUES and the like: nothing to compare
            }
            boolean ordered = s.getOrderByElements() != null && !s.getOrderByElements().isEmpty();
            if (ordered || s.getLimit() != null || s.getOffset() != null) {
                Level l = new Level(level);
                l.outer = true;
                if (ordered) l.orderBy.addAll(s.getOrderByElements());
                limit(l, s.getLimit(), s.getOffset());
                levels.add(l);
            }
        }

        private void plain(PlainSelect ps, Scope outer, Set<String> ctes, int level) {
            Level l = new Level(level);
            levels.add(l);
            Map<String, Expression> aliases = new HashMap<>();
            for (SelectItem<?> item : ps.getSelectItems()) {
                if (item.getAlias() != null) aliases.putIfAbsent(name(item.getAlias().getName()), item.getExpression());
            }
            Walker w = new Walker(new Scope(outer), l, ctes, level, aliases);
            List<Expression> on = new ArrayList<>();
            if (ps.getFromItem() != null) from(ps.getFromItem(), w, on);
            if (ps.getJoins() != null) {
                for (Join j : ps.getJoins()) join(j, w, on);
            }
            for (Expression e : on) {
                for (Expression c : conjuncts(e)) {
                    if (!joinCondition(c, w, false)) {
                        l.filters.add(c);
                        w.walk(c);
                    }
                }
            }
            for (SelectItem<?> item : ps.getSelectItems()) {
                l.items.add(item.getExpression());
                w.walk(item.getExpression());
            }
            l.distinct = ps.getDistinct() != null;
            if (ps.getWhere() != null) {
                for (Expression c : conjuncts(ps.getWhere())) {
                    if (!joinCondition(c, w, true)) {
                        l.filters.add(c);
                        w.walk(c);
                    }
                }
            }
            GroupByElement gb = ps.getGroupBy();
            if (gb != null && gb.getGroupByExpressionList() != null) {
                for (Object o : gb.getGroupByExpressionList()) {
                    l.groupBy.add((Expression) o);
                    w.walkOutput((Expression) o);
                }
            }
            if (ps.getHaving() != null) {
                l.having = ps.getHaving();
                w.walkOutput(ps.getHaving());
            }
            if (ps.getOrderByElements() != null) {
                for (OrderByElement o : ps.getOrderByElements()) {
                    l.orderBy.add(o);
                    w.walkOutput(o.getExpression());
                }
            }
            limit(l, ps.getLimit(), ps.getOffset());
        }

        private static void limit(Level l, Limit limit, Offset offset) {
            if (limit != null) {
                l.limit = limit.getRowCount();
                l.offset = limit.getOffset();
            }
            if (offset != null && offset.getOffset() != null) l.offset = offset.getOffset();
        }

        private void from(FromItem item, Walker w, List<Expression> on) {
            String alias = item.getAlias() == null ? null : name(item.getAlias().getName());
            if (item instanceof Table t) {
                String table = name(t.getName());
                boolean cte = t.getSchemaName() == null && w.ctes.contains(table);
                if (!cte) tables.add(table);
                w.scope.sources.add(new Source(alias != null ? alias : table, cte ? null : table));
            } else if (item instanceof ParenthesedFromItem pf) {
                from(pf.getFromItem(), w, on);
                if (pf.getJoins() != null) {
                    for (Join j : pf.getJoins()) join(j, w, on);
                }
            } else if (item instanceof ParenthesedSelect p) {
                // a derived table sees the enclosing queries but not its siblings, unless LATERAL
                select(p, item instanceof LateralSubSelect ? w.scope : w.scope.parent, w.ctes, w.level + 1);
                w.scope.sources.add(new Source(alias != null ? alias : "", null));
            } else {
                w.scope.sources.add(new Source(alias != null ? alias : "", null));
            }
        }

        private void join(Join j, Walker w, List<Expression> on) {
            joins++;
            joinKinds.add(j.isFull() ? "full" : j.isLeft() || j.isRight() ? "outer" : "inner");
            List<Source> before = List.copyOf(w.scope.sources);
            from(j.getFromItem(), w, on);
            List<Source> added = List.copyOf(w.scope.sources.subList(before.size(), w.scope.sources.size()));
            if (j.getOnExpressions() != null) on.addAll(j.getOnExpressions());
            if (j.getUsingColumns() != null) {
                for (Column c : j.getUsingColumns()) {
                    String n = name(c.getColumnName());
                    pairs.add(new Ref[] {w.unqualified(null, n, before), w.unqualified(null, n, added)});
                }
            }
        }

        /**
         * Records {@code c} as a join pair when it compares two columns: any comparison in ON; in WHERE only an
         * equality between columns of two different FROM sources of this SELECT (an implicit join).
         */
        private boolean joinCondition(Expression c, Walker w, boolean inWhere) {
            if (!(c instanceof ComparisonOperator cmp)) return false;
            if (inWhere && !(c instanceof EqualsTo)) return false;
            if (!(unwrap(cmp.getLeftExpression()) instanceof Column l)
                    || !(unwrap(cmp.getRightExpression()) instanceof Column r)) {
                return false;
            }
            if (quoted(l.getColumnName()) || quoted(r.getColumnName())) return false;
            if (inWhere) {
                Source ls = w.localSource(l);
                Source rs = w.localSource(r);
                if (ls == null || rs == null || ls == rs) return false;
            }
            w.walk(l);
            w.walk(r);
            pairs.add(new Ref[] {refOf.get(l), refOf.get(r)});
            return true;
        }

        private static boolean quoted(String raw) {
            return raw != null && raw.length() >= 2 && raw.startsWith("\"") && raw.endsWith("\"");
        }

        /** Visits the expressions of one SELECT: column references, aggregates, and subqueries (walked one level down). */
        private final class Walker extends ExpressionVisitorAdapter<Void> {
            final Scope scope;
            final Level target;
            final Set<String> ctes;
            final int level;
            final Map<String, Expression> aliases;
            /** In GROUP BY, HAVING and ORDER BY, where SELECT aliases are visible. */
            private boolean output;

            Walker(Scope scope, Level target, Set<String> ctes, int level, Map<String, Expression> aliases) {
                this.scope = scope;
                this.target = target;
                this.ctes = ctes;
                this.level = level;
                this.aliases = aliases;
            }

            void walk(Expression e) {
                output = false;
                if (e != null) e.accept(this, null);
            }

            void walkOutput(Expression e) {
                output = true;
                if (e != null) e.accept(this, null);
                output = false;
            }

            /** The source of this SELECT that a column names, or null (unqualified, or another scope's). */
            Source localSource(Column c) {
                String q = qualifier(c);
                if (q == null) return scope.sources.size() == 1 ? scope.sources.get(0) : null;
                for (Source s : scope.sources) {
                    if (s.key().equals(q)) return s;
                }
                return null;
            }

            /** The sources an unqualified column may come from: those of the nearest SELECT that has any. */
            List<Source> nearestSources() {
                for (Scope s = scope; s != null; s = s.parent) {
                    if (!s.sources.isEmpty()) return s.sources;
                }
                return List.of();
            }

            Ref unqualified(Column node, String n, List<Source> sources) {
                boolean derived = sources.stream().anyMatch(s -> s.table() == null);
                List<String> real = sources.stream().map(Source::table).filter(Objects::nonNull).distinct().toList();
                String table = !derived && real.size() == 1 ? real.get(0) : null;
                List<String> candidates = derived || table != null ? List.of() : real;
                return add(node, new Ref(n, table, candidates, null));
            }

            private Ref add(Column node, Ref r) {
                refs.add(r);
                if (node != null) refOf.put(node, r);
                return r;
            }

            private Ref qualified(Column node, String n, String q) {
                for (Scope s = scope; s != null; s = s.parent) {
                    for (Source src : s.sources) {
                        if (src.key().equals(q)) return add(node, new Ref(n, src.table(), List.of(), null));
                    }
                }
                // the table's own name although the query aliased it, or a name the query never introduced
                return add(node, new Ref(n, ctes.contains(q) ? null : q, List.of(), null));
            }

            @Override
            public <S> Void visit(Column c, S context) {
                String raw = c.getColumnName();
                String n = name(raw);
                String q = qualifier(c);
                if (q != null) {
                    qualified(c, n, q);
                } else if (output && aliases.containsKey(n)) {
                    aliasOf.put(c, aliases.get(n));
                } else if (quoted(raw)) {
                    List<String> real = nearestSources().stream().map(Source::table).filter(Objects::nonNull)
                            .distinct().toList();
                    add(c, new Ref(n, null, real, raw.substring(1, raw.length() - 1)));
                } else {
                    unqualified(c, n, nearestSources());
                }
                return null;
            }

            @Override
            public <S> Void visit(AllColumns a, S context) {
                if (a instanceof AllTableColumns t) {
                    starOf.put(t, qualified(null, "*", name(t.getTable().getName())));
                } else {
                    List<Source> sources = nearestSources();
                    String table = sources.size() == 1 ? sources.get(0).table() : null;
                    add(null, new Ref("*", table, List.of(), null));
                }
                return null;
            }

            @Override
            public <S> Void visit(AllTableColumns a, S context) {
                return visit((AllColumns) a, context);
            }

            @Override
            public <S> Void visit(Function f, S context) {
                if (AGGREGATES.contains(lower(f.getName()))) {
                    aggregateCalls++;
                    target.aggregates.add(f);
                }
                if (f.getParameters() != null) {
                    for (Expression p : f.getParameters()) {
                        if (!(p instanceof AllColumns) || p instanceof AllTableColumns) p.accept(this, context);
                    }
                }
                if (f.getNamedParameters() != null) f.getNamedParameters().forEach(p -> p.accept(this, context));
                if (f.getOrderByElements() != null) f.getOrderByElements().forEach(o -> o.getExpression().accept(this, context));
                return null;
            }

            @Override
            public <S> Void visit(AnalyticExpression a, S context) {
                if (AGGREGATES.contains(lower(a.getName()))) {
                    aggregateCalls++;
                    target.aggregates.add(a);
                }
                List<Expression> parts = new ArrayList<>();
                parts.add(a.getExpression());
                parts.add(a.getOffset());
                parts.add(a.getDefaultValue());
                parts.add(a.getFilterExpression());
                if (a.getPartitionExpressionList() != null) parts.addAll(a.getPartitionExpressionList());
                if (a.getOrderByElements() != null) a.getOrderByElements().forEach(o -> parts.add(o.getExpression()));
                if (a.getFuncOrderBy() != null) a.getFuncOrderBy().forEach(o -> parts.add(o.getExpression()));
                for (Expression p : parts) {
                    if (p != null && !(p instanceof AllColumns && !(p instanceof AllTableColumns))) p.accept(this, context);
                }
                return null;
            }

            @Override
            public <S> Void visit(MySQLGroupConcat g, S context) {
                aggregateCalls++;
                target.aggregates.add(g);
                return super.visit(g, context);
            }

            @Override
            public <S> Void visit(Select s, S context) {
                select(s, scope, ctes, level + 1);
                return null;
            }

            @Override
            public <S> Void visit(ParenthesedSelect s, S context) {
                select(s, scope, ctes, level + 1);
                return null;
            }

            @Override
            public <S> Void visit(AnyComparisonExpression a, S context) {
                if (a.getSelect() != null) select(a.getSelect(), scope, ctes, level + 1);
                return null;
            }
        }

        private static String qualifier(Column c) {
            Table t = c.getTable();
            return t == null || t.getName() == null ? null : name(t.getName());
        }

        private static List<Expression> conjuncts(Expression e) {
            List<Expression> out = new ArrayList<>();
            Expression u = unwrap(e);
            if (u instanceof AndExpression a) {
                out.addAll(conjuncts(a.getLeftExpression()));
                out.addAll(conjuncts(a.getRightExpression()));
            } else if (u != null) {
                out.add(u);
            }
            return out;
        }

        private static Expression unwrap(Expression e) {
            Expression u = e;
            while (u instanceof ParenthesedExpressionList<?> p && p.size() == 1) u = p.get(0);
            return u;
        }

        // ---------------------------------------------------------- resolution

        /**
         * Resolves unqualified columns of multi-table SELECTs with what both queries reveal: if exactly one of the
         * SELECT's tables is known (from a qualified or single-table reference in either query) to have the column,
         * it is that table's. A "double-quoted" name that no query uses as a column becomes a string literal.
         */
        static void resolveTogether(SqlTree a, SqlTree b) {
            Map<String, Set<String>> known = new HashMap<>();
            Set<String> names = new HashSet<>();
            List<Ref> all = new ArrayList<>(a.refs);
            all.addAll(b.refs);
            for (Ref r : all) {
                if (r.quotedText != null) continue;
                names.add(r.name);
                if (r.table != null) known.computeIfAbsent(r.table, t -> new HashSet<>()).add(r.name);
            }
            for (Ref r : all) {
                if (r.quotedText != null && !names.contains(r.name)) {
                    r.literal = true;
                } else if (r.table == null && !r.candidates.isEmpty()) {
                    List<String> hits = r.candidates.size() == 1 ? r.candidates : r.candidates.stream()
                            .filter(t -> known.getOrDefault(t, Set.of()).contains(r.name)).toList();
                    if (hits.size() == 1) r.table = hits.get(0);
                }
            }
        }

        // ---------------------------------------------------------- components

        Set<Col> columns() {
            Set<Col> out = new HashSet<>();
            for (Ref r : refs) {
                if (!r.literal) out.add(new Col(r.table, r.name));
            }
            return out;
        }

        Set<String> joinPairs() {
            Set<String> out = new TreeSet<>();
            for (Ref[] p : pairs) {
                String x = p[0] == null ? "?" : p[0].key();
                String y = p[1] == null ? "?" : p[1].key();
                out.add(x.compareTo(y) <= 0 ? x + " = " + y : y + " = " + x);
            }
            return out;
        }

        Components components() {
            List<String> aggregation = new ArrayList<>();
            List<String> filter = new ArrayList<>();
            List<String> projection = new ArrayList<>();
            for (Level l : levels) {
                Set<String> aggs = new TreeSet<>();
                l.aggregates.forEach(e -> aggs.add(render(e)));
                Set<String> keys = new TreeSet<>();
                l.groupBy.forEach(e -> keys.add(outputKey(e, l)));
                String having = l.having == null ? "" : render(l.having);
                if (!aggs.isEmpty() || !keys.isEmpty() || !having.isEmpty()) {
                    aggregation.add("aggregates " + aggs + " group by " + keys + " having " + having);
                }
                if (!l.filters.isEmpty()) {
                    filter.add(l.filters.stream().map(this::render).distinct().sorted().collect(Collectors.joining(" and ")));
                }
                projection.add(l.depth + ": " + projection(l));
            }
            // sorted, so that a CTE and the same derived table compare equal; the outermost level sorts first
            aggregation.sort(null);
            filter.sort(null);
            projection.sort(null);
            return new Components(aggregation, filter, projection);
        }

        private String projection(Level l) {
            StringBuilder sb = new StringBuilder(l.outer ? "(result)" : l.distinct ? "distinct " : "");
            sb.append(l.items.stream().map(this::render).collect(Collectors.joining(", ")));
            if (!l.orderBy.isEmpty()) {
                sb.append(" order by ").append(l.orderBy.stream().map(o -> outputKey(o.getExpression(), l)
                        + (o.isAsc() ? "" : " desc")
                        + (o.getNullOrdering() == null ? "" : " " + lower(o.getNullOrdering().toString())))
                        .collect(Collectors.joining(", ")));
            }
            if (l.limit != null) sb.append(" limit ").append(render(l.limit));
            String offset = l.offset == null ? "0" : render(l.offset);
            if (!offset.equals("0")) sb.append(" offset ").append(offset);
            return sb.toString();
        }

        /** A GROUP BY or ORDER BY key: an ordinal stands for that SELECT item. */
        private String outputKey(Expression e, Level l) {
            if (unwrap(e) instanceof LongValue v && v.getValue() >= 1 && v.getValue() <= l.items.size()) {
                return render(l.items.get((int) v.getValue() - 1));
            }
            return render(e);
        }

        // ---------------------------------------------------------- canonical text

        private String render(Expression expr) {
            Expression e = unwrap(expr);
            if (e == null) return "";
            if (e instanceof Column c) return column(c);
            String literal = literal(e);
            if (literal != null) return literal;
            if (e instanceof AndExpression || e instanceof OrExpression || e instanceof XorExpression) {
                List<String> operands = new ArrayList<>();
                flatten(e, e.getClass(), operands);
                String op = e instanceof AndExpression ? " and " : e instanceof OrExpression ? " or " : " xor ";
                return "(" + operands.stream().sorted().collect(Collectors.joining(op)) + ")";
            }
            if (e instanceof NotExpression n) {
                Expression inner = unwrap(n.getExpression());
                if (inner instanceof ComparisonOperator c && NEGATED.containsKey(operator(c))) {
                    return comparison(c.getLeftExpression(), NEGATED.get(operator(c)), c.getRightExpression());
                }
                String negated = negated(inner);
                return negated != null ? negated : "not " + render(inner);
            }
            if (e instanceof ComparisonOperator c) {
                return comparison(c.getLeftExpression(), operator(c), c.getRightExpression());
            }
            String predicate = predicate(e, false);
            if (predicate != null) return predicate;
            if (e instanceof Select) return "(select)";
            if (e instanceof AnyComparisonExpression a) return lower(a.getAnyType().name()) + " (select)";
            if (e instanceof Function f) return function(f);
            if (e instanceof MySQLGroupConcat g) {
                return "group_concat(" + (g.isDistinct() ? "distinct " : "") + list(g.getExpressionList())
                        + orderBy(g.getOrderByElements()) + (g.getSeparator() == null ? "" : " separator " + g.getSeparator())
                        + ")";
            }
            if (e instanceof AnalyticExpression a) return analytic(a);
            if (e instanceof AllTableColumns t) return qualifiedStar(t);
            if (e instanceof AllColumns) return "*";
            if (e instanceof CaseExpression c) {
                StringBuilder sb = new StringBuilder("case");
                if (c.getSwitchExpression() != null) sb.append(' ').append(render(c.getSwitchExpression()));
                for (WhenClause w : c.getWhenClauses()) {
                    sb.append(" when ").append(render(w.getWhenExpression())).append(" then ").append(render(w.getThenExpression()));
                }
                if (c.getElseExpression() != null) sb.append(" else ").append(render(c.getElseExpression()));
                return sb.append(" end").toString();
            }
            if (e instanceof CastExpression c) {
                return "cast(" + render(c.getLeftExpression()) + " as " + lower(String.valueOf(c.getColDataType())) + ")";
            }
            if (e instanceof SignedExpression s) return s.getSign() + render(s.getExpression());
            if (e instanceof ExtractExpression x) return "extract(" + lower(x.getName()) + " from " + render(x.getExpression()) + ")";
            if (e instanceof IntervalExpression i) {
                String v = i.getExpression() != null ? render(i.getExpression()) : string(i.getParameter().replace("'", ""));
                return "interval " + v + (i.getIntervalType() == null ? "" : " " + lower(i.getIntervalType()));
            }
            if (e instanceof Addition || e instanceof Multiplication) {
                List<String> operands = new ArrayList<>();
                flatten(e, e.getClass(), operands);
                return "(" + operands.stream().sorted().collect(Collectors.joining(e instanceof Addition ? " + " : " * ")) + ")";
            }
            if (e instanceof BinaryExpression b) {
                return "(" + render(b.getLeftExpression()) + " " + lower(b.getStringExpression().trim()) + " "
                        + render(b.getRightExpression()) + ")";
            }
            if (e instanceof ExpressionList<?> l) return "(" + list(l) + ")";
            return lower(e.toString()).replaceAll("\\s+", " ");
        }

        /** {@code NOT x} for predicates that carry their own NOT: the predicate with its NOT toggled. */
        private String negated(Expression e) {
            return predicate(e, true);
        }

        /** BETWEEN, IN, LIKE, IS NULL and EXISTS with their NOT ({@code flip} toggles it); null for other expressions. */
        private String predicate(Expression e, boolean flip) {
            if (e instanceof Between b) {
                return render(b.getLeftExpression()) + (b.isNot() != flip ? " not" : "") + " between "
                        + render(b.getBetweenExpressionStart()) + " and " + render(b.getBetweenExpressionEnd());
            }
            if (e instanceof InExpression in) {
                boolean not = in.isNot() != flip;
                if (in.getRightExpression() instanceof ExpressionList<?> list && !list.isEmpty()) {
                    // x IN (a, b) is written as x = a OR x = b; NOT IN as x != a AND x != b
                    List<String> terms = list.stream().map(v -> comparison(in.getLeftExpression(), not ? "!=" : "=",
                            (Expression) v)).distinct().sorted().toList();
                    return terms.size() == 1 ? terms.get(0) : "(" + String.join(not ? " and " : " or ", terms) + ")";
                }
                return render(in.getLeftExpression()) + (not ? " not in " : " in ") + render(in.getRightExpression());
            }
            if (e instanceof LikeExpression like) {
                return render(like.getLeftExpression()) + (like.isNot() != flip ? " not " : " ")
                        + (like.getLikeKeyWord() == null ? "like" : lower(like.getLikeKeyWord().name()).replace('_', ' ')) + " " + render(like.getRightExpression())
                        + (like.getEscape() == null ? "" : " escape " + lower(like.getEscape().toString()));
            }
            if (e instanceof IsNullExpression n) {
                return render(n.getLeftExpression()) + (n.isNot() != flip ? " is not null" : " is null");
            }
            if (e instanceof ExistsExpression x) return (x.isNot() != flip ? "not " : "") + "exists (select)";
            return null;
        }

        private void flatten(Expression e, Class<?> kind, List<String> out) {
            Expression u = unwrap(e);
            if (u != null && u.getClass() == kind && u instanceof BinaryExpression b) {
                flatten(b.getLeftExpression(), kind, out);
                flatten(b.getRightExpression(), kind, out);
            } else {
                out.add(render(u));
            }
        }

        private static String operator(ComparisonOperator c) {
            String op = c.getStringExpression().trim();
            return op.equals("<>") || op.equals("^=") ? "!=" : op;
        }

        /** Literals on the right; the operands of = and != in a fixed order. */
        private String comparison(Expression left, String op, Expression right) {
            String l = render(left);
            String r = render(right);
            boolean ll = isLiteral(left);
            boolean rl = isLiteral(right);
            if (ll && !rl || ll == rl && (op.equals("=") || op.equals("!=")) && l.compareTo(r) > 0) {
                return r + " " + MIRRORED.getOrDefault(op, op) + " " + l;
            }
            return l + " " + op + " " + r;
        }

        private boolean isLiteral(Expression expr) {
            Expression e = unwrap(expr);
            return literal(e) != null || e instanceof SignedExpression s && isLiteral(s.getExpression());
        }

        /** The normalised text of a literal, or null when {@code e} is none. */
        private String literal(Expression e) {
            if (e instanceof StringValue s) return string(s.getValue().replace("''", "'").replace("\\'", "'"));
            if (e instanceof LongValue l) return number(l.getStringValue());
            if (e instanceof DoubleValue d) return number(d.toString());
            if (e instanceof HexValue h) return lower(h.toString());
            if (e instanceof DateValue d) return string(String.valueOf(d.getValue()));
            if (e instanceof TimeValue t) return string(String.valueOf(t.getValue()));
            if (e instanceof TimestampValue t) return string(String.valueOf(t.getValue()));
            if (e instanceof DateTimeLiteralExpression d) return string(d.getValue().replaceAll("^'|'$", ""));
            if (e instanceof NullValue) return "null";
            if (e instanceof BooleanValue b) return b.getValue() ? "true" : "false";
            if (e instanceof TimeKeyExpression t) return lower(t.getStringValue()).replace("()", "");
            // DATE '2004-01-01' parses as a cast; a cast literal compares as its value
            if (e instanceof CastExpression c && !(unwrap(c.getLeftExpression()) instanceof CastExpression)) {
                return literal(unwrap(c.getLeftExpression()));
            }
            if (e instanceof SignedExpression s) {
                Expression inner = unwrap(s.getExpression());
                if (inner instanceof LongValue l) return number(s.getSign() + l.getStringValue());
                if (inner instanceof DoubleValue d) return number(s.getSign() + d.toString());
            }
            if (e instanceof Column c && refOf.containsKey(c) && refOf.get(c).literal) return string(refOf.get(c).quotedText);
            return null;
        }

        /** Strings compare case-insensitively and without trailing blanks; numeric strings compare as numbers. */
        private static String string(String value) {
            String v = lower(value).stripTrailing();
            String n = PLAIN_NUMBER.matcher(v.trim()).matches() ? number(v.trim()) : null;
            return n != null ? n : "'" + v + "'";
        }

        private static String number(String text) {
            String t = text.startsWith("+") ? text.substring(1) : text;
            if (!PLAIN_NUMBER.matcher(t).matches() || t.length() > 60) return lower(text);
            return new BigDecimal(t).stripTrailingZeros().toPlainString();
        }

        private String column(Column c) {
            Expression aliased = aliasOf.get(c);
            if (aliased != null) return render(aliased);
            Ref r = refOf.get(c);
            if (r != null) return r.literal ? string(r.quotedText) : r.key();
            String q = qualifier(c);
            return (q == null ? "" : q + ".") + name(c.getColumnName());
        }

        private String qualifiedStar(AllTableColumns t) {
            Ref r = starOf.get(t);
            return r != null ? r.key() : name(t.getTable().getName()) + ".*";
        }

        private String function(Function f) {
            String n = lower(f.getName());
            List<Expression> params = new ArrayList<>();
            if (f.getParameters() != null) params.addAll(f.getParameters());
            if (n.equals("count") && !f.isDistinct() && params.size() == 1) {
                Expression p = unwrap(params.get(0));
                // COUNT(1), COUNT('x') and COUNT(*) all count rows
                if (p instanceof LongValue || p instanceof StringValue || p instanceof AllColumns && !(p instanceof AllTableColumns)) {
                    return "count(*)";
                }
            }
            if (f.getNamedParameters() != null) params.addAll(f.getNamedParameters());
            String args = f.isAllColumns() && params.isEmpty() ? "*" : list(params);
            return n + "(" + (f.isDistinct() ? "distinct " : "") + args + orderBy(f.getOrderByElements()) + ")";
        }

        private String analytic(AnalyticExpression a) {
            StringBuilder sb = new StringBuilder(lower(a.getName())).append('(');
            if (a.isDistinct()) sb.append("distinct ");
            if (a.isAllColumns()) sb.append('*');
            List<String> args = new ArrayList<>();
            for (Expression x : new Expression[] {a.getExpression(), a.getOffset(), a.getDefaultValue()}) {
                if (x != null) args.add(render(x));
            }
            sb.append(String.join(", ", args)).append(orderBy(a.getFuncOrderBy())).append(") over (");
            if (a.getPartitionExpressionList() != null && !a.getPartitionExpressionList().isEmpty()) {
                sb.append("partition by ").append(a.getPartitionExpressionList().stream().map(x -> render((Expression) x))
                        .sorted().collect(Collectors.joining(", ")));
            }
            sb.append(orderBy(a.getOrderByElements()));
            if (a.getWindowElement() != null) sb.append(' ').append(lower(a.getWindowElement().toString()));
            return sb.append(')').toString();
        }

        private String orderBy(List<OrderByElement> order) {
            if (order == null || order.isEmpty()) return "";
            return " order by " + order.stream().map(o -> render(o.getExpression()) + (o.isAsc() ? "" : " desc"))
                    .collect(Collectors.joining(", "));
        }

        private String list(List<? extends Expression> items) {
            if (items == null) return "";
            return items.stream().map(this::render).collect(Collectors.joining(", "));
        }
    }
}
