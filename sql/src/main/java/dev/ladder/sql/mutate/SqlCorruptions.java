package dev.ladder.sql.mutate;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.SqlToken;
import dev.ladder.sql.mutate.ColumnRefs.Bound;
import dev.ladder.sql.mutate.ColumnRefs.Ref;
import dev.ladder.sql.read.Identifiers;
import dev.ladder.sql.read.OuterClauses;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.SetOperationList;

/**
 * Realistic mistakes made in a gold query, one {@link Corruption} at a time: what a model gets wrong, as test input
 * for scorers, the error taxonomy and repair paths. Edits are made on the query's own text (token spans), so the rest
 * of it stays as written. Every result but {@link Corruption#SYNTAX_ERROR}'s reads with {@link Query#read} as one
 * SELECT; {@code SYNTAX_ERROR}'s does not parse. A corruption may happen to keep the answer (on this data, or always:
 * a literal's case under a case-insensitive collation): callers judge that by executing.
 *
 * <p>Sites are the query's levels (the outermost SELECT, set-operation branches, subqueries, CTE bodies) unless said
 * otherwise; columns are resolved against the schema through each level's FROM sources, and only what resolves is
 * edited.
 * <ul>
 * <li>{@code WRONG_COLUMN}: a column reference in a SELECT list or WHERE replaced by another column of its table, one of
 * the same type family (number, text, date/time) when the table has one.</li>
 * <li>{@code DROP_CONJUNCT}: one top-level AND conjunct of a WHERE or HAVING dropped (the clause, when it has one).</li>
 * <li>{@code ADD_CONJUNCT}: a conjunct ANDed to a WHERE (one made when there is none), chosen to change results on
 * most data: {@code col IS NULL} for a nullable column of a FROM table, or {@code col <> lit} for a column of a FROM
 * table and a literal the level already uses, of the column's type family; {@code IS NULL} on a NOT NULL column (no
 * rows) only when neither exists. A WHERE whose top level has OR is parenthesised first.</li>
 * <li>{@code WRONG_JOIN}: an ON equality {@code a.x = b.y} made to join the wrong columns: one side replaced by another
 * column of its table of the other side's type family; where no such column exists, a column compared with
 * itself.</li>
 * <li>{@code MISSING_JOIN}: an inner join's ON condition removed ({@code JOIN t}: a cross join). Outer joins are left
 * alone: {@code LEFT JOIN t} without ON does not parse.</li>
 * <li>{@code MISSING_GROUP_BY}: a GROUP BY clause removed (its HAVING stays, and groups the whole).</li>
 * <li>{@code EXTRA_ORDER_BY}: outermost query only: {@code ORDER BY <select expression> [DESC]} added where there is
 * no ORDER BY, else such a key put first (the rows come in another order); a set operation orders by position.</li>
 * <li>{@code EXTRA_LIMIT}: outermost query only: {@code LIMIT 1} added, or a literal {@code LIMIT n} made smaller.</li>
 * <li>{@code WRONG_AGGREGATE}: one aggregate call swapped: COUNT -> SUM, SUM -> COUNT, AVG -> SUM, MIN <-> MAX
 * ({@code COUNT(*)} is left alone: {@code SUM(*)} does not parse).</li>
 * <li>{@code LITERAL_CASE}: a string literal upper-cased (lower-cased when it has no lower-case letter); format
 * strings of date functions and literals with escapes are left alone. On MariaDB's case-insensitive collations this
 * often keeps the answer, as it would for a model.</li>
 * <li>{@code UNKNOWN_COLUMN}: a column reference renamed to a near miss no table has ({@code customer_name},
 * {@code customerNames}, ...).</li>
 * <li>{@code SYNTAX_ERROR}: a misspelled keyword ({@code SELCT}, {@code FORM}, ...), a missing comma between SELECT
 * items (never where the next item would read as an alias), or an unbalanced parenthesis.</li>
 * </ul>
 */
public final class SqlCorruptions {

    private static final Map<String, String> AGGREGATE_SWAPS = Map.of("COUNT", "SUM", "SUM", "COUNT", "AVG", "SUM",
            "MIN", "MAX", "MAX", "MIN");

    /** Functions whose string arguments are formats: a case change there is no realistic mistake. */
    private static final Set<String> FORMAT_FUNCTIONS = Set.of("DATE_FORMAT", "TIME_FORMAT", "STR_TO_DATE", "STRFTIME",
            "FORMAT", "GET_FORMAT", "PRINTF");

    private static final Map<String, String> MISSPELLINGS = Map.of("SELECT", "SELCT", "FROM", "FORM", "WHERE", "WHRE",
            "GROUP", "GRUOP", "ORDER", "ODRER", "HAVING", "HAVNG", "JOIN", "JION");

    private SqlCorruptions() {}

    /**
     * Applies op to sql (a gold), or empty when op does not apply to this query (e.g. DROP_CONJUNCT without a WHERE,
     * or sql is not one SELECT that parses). Deterministic given the Random's state.
     */
    public static Optional<Corrupted> apply(Corruption op, String sql, Schema schema, Dialect dialect, Random random) {
        Optional<QueryText> read = QueryText.of(sql, dialect);
        if (read.isEmpty()) return Optional.empty();
        QueryText q = read.get();
        return Candidate.pick(sites(op, q, schema), random, c -> realise(op, q, c));
    }

    /** The operators that apply to sql, in enum order. */
    public static List<Corruption> applicable(String sql, Schema schema, Dialect dialect) {
        Optional<QueryText> read = QueryText.of(sql, dialect);
        if (read.isEmpty()) return List.of();
        List<Corruption> out = new ArrayList<>();
        for (Corruption op : Corruption.values()) {
            if (Candidate.any(sites(op, read.get(), schema), c -> realise(op, read.get(), c))) out.add(op);
        }
        return out;
    }

    private static Optional<Corrupted> realise(Corruption op, QueryText q, Candidate c) {
        String out = Edit.apply(q.text, c.edits());
        if (out.equals(q.text)) return Optional.empty();
        Query read = Query.read(out, q.query.dialect());
        boolean parses = !read.tooComplex() && read.select().isPresent();
        if (op == Corruption.SYNTAX_ERROR ? read.statement().isPresent() : !parses) return Optional.empty();
        return Optional.of(new Corrupted(out, op, c.where()));
    }

    private static List<List<Candidate>> sites(Corruption op, QueryText q, Schema schema) {
        return switch (op) {
            case WRONG_COLUMN -> wrongColumn(q, schema);
            case DROP_CONJUNCT -> dropConjunct(q);
            case ADD_CONJUNCT -> addConjunct(q, schema);
            case WRONG_JOIN -> wrongJoin(q, schema);
            case MISSING_JOIN -> missingJoin(q);
            case MISSING_GROUP_BY -> missingGroupBy(q);
            case EXTRA_ORDER_BY -> extraOrderBy(q);
            case EXTRA_LIMIT -> extraLimit(q);
            case WRONG_AGGREGATE -> wrongAggregate(q);
            case LITERAL_CASE -> literalCase(q);
            case UNKNOWN_COLUMN -> unknownColumn(q, schema);
            case SYNTAX_ERROR -> syntaxError(q);
        };
    }

    // ------------------------------------------------------------------ columns

    private static List<List<Candidate>> wrongColumn(QueryText q, Schema schema) {
        List<List<Candidate>> sites = new ArrayList<>();
        for (Scope s : q.scopes) {
            for (Span item : s.items()) {
                for (Ref r : ColumnRefs.in(s, schema, new Span(item.from(), s.aliasStart(item)))) {
                    sites.add(replacements(q, s, r, "SELECT"));
                }
            }
            for (Ref r : ColumnRefs.in(s, schema, s.where())) sites.add(replacements(q, s, r, "WHERE"));
        }
        return sites;
    }

    /** Another column of the reference's table for it: of its type family when the table has one, else any. */
    private static List<Candidate> replacements(QueryText q, Scope s, Ref r, String clause) {
        List<Column> others = r.table().columns().stream().filter(c -> !c.name().equalsIgnoreCase(r.column().name())).toList();
        List<Column> same = others.stream().filter(c -> TypeFamily.of(c) == TypeFamily.of(r.column())).toList();
        List<Candidate> out = new ArrayList<>();
        for (Column c : same.isEmpty() ? others : same) {
            out.add(rename(q, s, r, c.name(), clause, ""));
        }
        return out;
    }

    private static Candidate rename(QueryText q, Scope s, Ref r, String name, String clause, String note) {
        SqlToken tok = q.tokens.get(r.token());
        // an unknown name goes bare: SQLite reads an unknown "name" as a string, and the query would run
        String written = note.isEmpty() ? spelled(tok, name, q.dialect) : name;
        String before = ColumnRefs.text(q, r);
        String after = q.text.substring(q.start(r.start()), tok.start()) + written;
        return Candidate.of(new Edit(tok.start(), tok.end(), written),
                s.place(clause) + ": `" + before + "` -> `" + after + "`" + note);
    }

    /** A name written as the token it replaces was: in the same quotes when quoted. */
    static String spelled(SqlToken tok, String name, Dialect dialect) {
        if (tok.type() == SqlToken.Type.QUOTED_IDENTIFIER) {
            char open = tok.text().charAt(0);
            char close = open == '[' ? ']' : open;
            return open + (open == '[' ? name : name.replace(String.valueOf(open), String.valueOf(open).repeat(2))) + close;
        }
        return Tokens.name(name, dialect);
    }

    private static List<List<Candidate>> unknownColumn(QueryText q, Schema schema) {
        Set<String> taken = new LinkedHashSet<>();
        for (Table t : schema.tables()) {
            taken.add(t.name().toLowerCase(Locale.ROOT));
            for (Column c : t.columns()) taken.add(c.name().toLowerCase(Locale.ROOT));
        }
        for (SqlToken t : q.tokens) {
            if (t.type() == SqlToken.Type.WORD || t.type() == SqlToken.Type.QUOTED_IDENTIFIER) {
                taken.add(Identifiers.unquote(t).toLowerCase(Locale.ROOT));
            }
        }
        List<List<Candidate>> sites = new ArrayList<>();
        for (Scope s : q.scopes) {
            List<Span> ranges = new ArrayList<>();
            List<String> clauses = new ArrayList<>();
            for (Span item : s.items()) {
                ranges.add(new Span(item.from(), s.aliasStart(item)));
                clauses.add("SELECT");
            }
            ranges.add(s.where());
            clauses.add("WHERE");
            ranges.add(s.body(s.clauses.groupBy));
            clauses.add("GROUP BY");
            ranges.add(s.having());
            clauses.add("HAVING");
            ranges.add(s.body(s.clauses.orderBy));
            clauses.add("ORDER BY");
            FromJoins joins = s.joins();
            if (joins != null) {
                for (FromJoins.Join j : joins.joins()) {
                    if (j.condition() == null) continue;
                    ranges.add(j.condition());
                    clauses.add("JOIN ON");
                }
            }
            for (int i = 0; i < ranges.size(); i++) {
                for (Ref r : ColumnRefs.in(s, schema, ranges.get(i))) {
                    List<Candidate> options = new ArrayList<>();
                    for (List<String> names : nearMisses(r.column().name())) {
                        for (String name : names) {
                            // a name that needs quotes (a SQL word) would be quoted: see rename
                            if (!taken.contains(name.toLowerCase(Locale.ROOT)) && Tokens.name(name, q.dialect).equals(name)) {
                                options.add(rename(q, s, r, name, clauses.get(i), " (no such column)"));
                            }
                        }
                        if (!options.isEmpty()) break;
                    }
                    sites.add(options);
                }
            }
        }
        return sites;
    }

    /**
     * Names a model might write for a column: first snake or camel case and plural or singular, then (when none of
     * those is free) a suffix.
     */
    static List<List<String>> nearMisses(String name) {
        Set<String> likely = new LinkedHashSet<>();
        String snake = name.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
        if (!snake.equals(name)) likely.add(snake);
        if (name.contains("_")) {
            StringBuilder camel = new StringBuilder();
            boolean up = false;
            for (char ch : name.toCharArray()) {
                if (ch == '_') {
                    up = camel.length() > 0;
                    continue;
                }
                camel.append(up ? Character.toUpperCase(ch) : ch);
                up = false;
            }
            if (camel.length() > 0) likely.add(camel.toString());
        }
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.endsWith("s")) {
            // status, address, analysis: no singular to take, a plural instead
            if (lower.endsWith("ss") || lower.endsWith("us") || lower.endsWith("is")) likely.add(name + "es");
            else if (name.length() > 1) likely.add(name.substring(0, name.length() - 1));
        } else {
            likely.add(name + "s");
        }
        likely.remove(name);
        return List.of(List.copyOf(likely), List.of(name + "_name", name + "_value", name + "_x"));
    }

    // ------------------------------------------------------------------ conditions

    private static List<List<Candidate>> dropConjunct(QueryText q) {
        List<List<Candidate>> sites = new ArrayList<>();
        for (Scope s : q.scopes) {
            dropFrom(q, s, s.clause(s.clauses.where), "WHERE", sites);
            dropFrom(q, s, s.clause(s.clauses.having), "HAVING", sites);
        }
        return sites;
    }

    private static void dropFrom(QueryText q, Scope s, Span clause, String name, List<List<Candidate>> sites) {
        if (clause == null || clause.size() < 2) return;
        Span body = new Span(clause.from() + 1, clause.to());
        List<Span> conj = Tokens.conjuncts(q.tokens, body);
        if (conj.size() == 1 && Tokens.wrapped(q.tokens, body)) {
            // WHERE (a AND b): the conjuncts inside the parentheses
            List<Span> inner = Tokens.conjuncts(q.tokens, new Span(body.from() + 1, body.to() - 1));
            if (inner.size() > 1) conj = inner;
        }
        if (conj.size() == 1) {
            sites.add(List.of(Candidate.of(new Edit(q.removalStart(clause.from()), q.end(clause.to() - 1), ""),
                    s.place(name) + ": dropped `" + q.text(conj.get(0)) + "` (the whole " + name + ")")));
            return;
        }
        for (int i = 0; i < conj.size(); i++) {
            Span c = conj.get(i);
            Edit e = i == 0 ? new Edit(q.start(c.from()), q.start(conj.get(1).from()), "")
                    : new Edit(q.end(conj.get(i - 1).to() - 1), q.end(c.to() - 1), "");
            sites.add(List.of(Candidate.of(e, s.place(name) + ": dropped `" + q.text(c) + "`")));
        }
    }

    private static List<List<Candidate>> addConjunct(QueryText q, Schema schema) {
        List<List<Candidate>> sites = new ArrayList<>();
        for (Scope s : q.scopes) {
            Span from = s.from();
            if (from == null) continue;
            List<Bound> tables = ColumnRefs.tables(s, schema);
            if (tables.isEmpty()) continue;
            boolean qualify = s.clauses.sources().size() > 1;
            // literals the level uses (its own tokens: subqueries have their own)
            Set<String> literals = new LinkedHashSet<>();
            List<Span> conditions = new ArrayList<>();
            conditions.add(s.where());
            conditions.add(s.having());
            if (s.joins() != null) for (FromJoins.Join j : s.joins().joins()) conditions.add(j.condition());
            for (Span c : conditions) {
                for (int k : s.own(c)) {
                    int n = Tokens.literal(q.tokens, k, c.to());
                    if (n > 0) literals.add(q.text(k, k + n));
                }
            }
            List<Candidate> isNull = new ArrayList<>();
            List<Candidate> notEqual = new ArrayList<>();
            List<Candidate> never = new ArrayList<>();
            for (Bound b : tables) {
                String prefix = qualify ? Tokens.name(b.source().alias(), q.dialect) + "." : "";
                for (Column c : b.table().columns()) {
                    String col = prefix + Tokens.name(c.name(), q.dialect);
                    (c.nullable() ? isNull : never).add(and(q, s, col + " IS NULL"));
                    for (String lit : literals) {
                        if (TypeFamily.ofLiteral(lit) == TypeFamily.of(c)) notEqual.add(and(q, s, col + " <> " + lit));
                    }
                }
            }
            sites.add(isNull);
            sites.add(notEqual);
            if (isNull.isEmpty() && notEqual.isEmpty()) sites.add(never);
        }
        return sites;
    }

    /** {@code condition} ANDed to the level's WHERE (a WHERE made after FROM when there is none). */
    private static Candidate and(QueryText q, Scope s, String condition) {
        Span where = s.where();
        String what = s.place("WHERE") + ": added `" + condition + "`";
        if (where == null || where.isEmpty()) {
            return Candidate.of(Edit.insert(q.end(s.from().to() - 1), " WHERE " + condition), what);
        }
        if (Tokens.topLevelOr(q.tokens, where)) {
            return new Candidate(List.of(Edit.insert(q.start(where.from()), "("),
                    Edit.insert(q.end(where.to() - 1), ") AND " + condition)), what);
        }
        return Candidate.of(Edit.insert(q.end(where.to() - 1), " AND " + condition), what);
    }

    // ------------------------------------------------------------------ joins

    private static List<List<Candidate>> wrongJoin(QueryText q, Schema schema) {
        List<List<Candidate>> sites = new ArrayList<>();
        for (Scope s : q.scopes) {
            FromJoins joins = s.joins();
            if (joins == null) continue;
            for (FromJoins.Join j : joins.joins()) {
                if (j.condition() == null) continue;
                Span cond = j.condition();
                if (Tokens.wrapped(q.tokens, cond)) cond = new Span(cond.from() + 1, cond.to() - 1);
                for (Span c : Tokens.conjuncts(q.tokens, cond)) {
                    List<Candidate> options = joinSwaps(q, s, schema, c);
                    if (!options.isEmpty()) sites.add(options);
                }
            }
        }
        return sites;
    }

    /** For {@code a = b} between two resolved columns: the wrong column on either side, else a column with itself. */
    private static List<Candidate> joinSwaps(QueryText q, Scope s, Schema schema, Span c) {
        List<Ref> refs = ColumnRefs.in(s, schema, c);
        if (refs.size() != 2) return List.of();
        Ref left = refs.get(0);
        Ref right = refs.get(1);
        int eq = left.token() + 1;
        if (left.start() != c.from() || eq >= c.to() || !q.tokens.get(eq).isSymbol("=") || right.start() != eq + 1
                || right.token() != c.to() - 1) {
            return List.of();
        }
        String was = q.text(c);
        List<Candidate> out = new ArrayList<>();
        for (Ref[] side : new Ref[][] {{left, right}, {right, left}}) {
            Ref moved = side[0];
            Ref kept = side[1];
            List<Column> fits = moved.table().columns().stream()
                    .filter(col -> !col.name().equalsIgnoreCase(moved.column().name()))
                    .filter(col -> TypeFamily.of(col) == TypeFamily.of(kept.column())).toList();
            // a key column (primary or foreign key) is the wrong join a model makes: another key of the same tables
            Set<String> keys = keyColumns(schema, moved.table());
            List<Column> keyed = fits.stream().filter(col -> keys.contains(col.name().toLowerCase(Locale.ROOT))).toList();
            for (Column col : keyed.isEmpty() ? fits : keyed) {
                SqlToken tok = q.tokens.get(moved.token());
                String written = spelled(tok, col.name(), q.dialect);
                Edit e = new Edit(tok.start(), tok.end(), written);
                out.add(Candidate.of(e, s.place("JOIN ON") + ": `" + was + "` -> `" + Edit.apply(was,
                        List.of(new Edit(tok.start() - q.start(c.from()), tok.end() - q.start(c.from()), written))) + "`"));
            }
        }
        if (out.isEmpty()) {
            // no other column of the right kind: the left column compared with itself
            String self = ColumnRefs.text(q, left);
            out.add(Candidate.of(new Edit(q.start(right.start()), q.end(right.token()), self),
                    s.place("JOIN ON") + ": `" + was + "` -> `" + self + " = " + self + "`"));
        }
        return out;
    }

    /** A table's key columns (lower case): its primary key, its foreign keys, the columns other tables' keys reference. */
    private static Set<String> keyColumns(Schema schema, Table table) {
        Set<String> out = new LinkedHashSet<>();
        for (String c : table.primaryKey()) out.add(c.toLowerCase(Locale.ROOT));
        for (ForeignKey fk : schema.foreignKeys()) {
            if (fk.table().equalsIgnoreCase(table.name())) {
                for (String c : fk.columns()) out.add(c.toLowerCase(Locale.ROOT));
            }
            if (fk.referencedTable().equalsIgnoreCase(table.name())) {
                for (String c : fk.referencedColumns()) out.add(c.toLowerCase(Locale.ROOT));
            }
        }
        return out;
    }

    private static List<List<Candidate>> missingJoin(QueryText q) {
        List<List<Candidate>> sites = new ArrayList<>();
        for (Scope s : q.scopes) {
            FromJoins joins = s.joins();
            if (joins == null) continue;
            for (FromJoins.Join j : joins.joins()) {
                if (j.on() < 0 || (j.kind() != FromJoins.Kind.INNER && j.kind() != FromJoins.Kind.CROSS)) continue;
                sites.add(List.of(Candidate.of(new Edit(q.removalStart(j.on()), q.end(j.condition().to() - 1), ""),
                        s.place("FROM") + ": `" + q.text(j.operator().from(), j.factor().to()) + "` lost `ON "
                                + q.text(j.condition()) + "` (a cross join)")));
            }
        }
        return sites;
    }

    // ------------------------------------------------------------------ clauses

    private static List<List<Candidate>> missingGroupBy(QueryText q) {
        List<List<Candidate>> sites = new ArrayList<>();
        for (Scope s : q.scopes) {
            Span g = s.clause(s.clauses.groupBy);
            if (g == null) continue;
            sites.add(List.of(Candidate.of(new Edit(q.removalStart(g.from()), q.end(g.to() - 1), ""),
                    s.place("GROUP BY") + ": removed `" + q.text(g) + "`")));
        }
        return sites;
    }

    private static List<List<Candidate>> extraOrderBy(QueryText q) {
        OuterClauses top = q.top;
        List<String> keys = new ArrayList<>();
        Scope outer = q.outermost();
        if (outer != null) {
            for (Span item : outer.items()) {
                Span expr = new Span(item.from(), outer.aliasStart(item));
                if (orderable(q, expr)) keys.add(q.text(expr));
            }
            if (keys.isEmpty()) keys.add("1");
        } else {
            int width = 1;
            if (q.query.select().orElse(null) instanceof SetOperationList list && !list.getSelects().isEmpty()
                    && list.getSelects().get(0) instanceof PlainSelect first
                    && first.getSelectItems().stream().noneMatch(i -> i.getExpression() instanceof AllColumns)) {
                width = first.getSelectItems().size();
            }
            for (int i = 1; i <= width; i++) keys.add(Integer.toString(i));
        }
        List<Candidate> options = new ArrayList<>();
        if (top.orderBy == null) {
            int at = top.limit != null ? q.removalStart(top.limit.start()) : q.end(q.tokens.size() - 1);
            for (String key : keys) {
                for (String dir : List.of("", " DESC")) {
                    String added = "ORDER BY " + key + dir;
                    options.add(Candidate.of(Edit.insert(at, " " + added), "ORDER BY: added `" + added + "`"));
                }
            }
        } else {
            List<OuterClauses.Clause> elements = top.elements(top.orderBy);
            if (elements.isEmpty()) return List.of();
            Set<String> existing = new LinkedHashSet<>();
            for (OuterClauses.Clause e : elements) {
                int end = e.end();
                while (end > e.start() + 1 && (q.tokens.get(end - 1).isWord("ASC") || q.tokens.get(end - 1).isWord("DESC"))) end--;
                existing.add(q.text(e.start(), end).toLowerCase(Locale.ROOT));
            }
            for (int i = 0; i < keys.size(); i++) {
                String key = keys.get(i);
                if (existing.contains(key.toLowerCase(Locale.ROOT)) || existing.contains(Integer.toString(i + 1))) continue;
                for (String dir : List.of("", " DESC")) {
                    options.add(Candidate.of(Edit.insert(q.start(elements.get(0).start()), key + dir + ", "),
                            "ORDER BY: `" + key + dir + "` added as the first key"));
                }
            }
        }
        return List.of(options);
    }

    /** A SELECT expression an ORDER BY may repeat: no star, no window, no subquery. */
    private static boolean orderable(QueryText q, Span expr) {
        if (expr.isEmpty()) return false;
        if (q.tokens.get(expr.to() - 1).isSymbol("*")) return false;
        for (int k = expr.from(); k < expr.to(); k++) {
            if (q.tokens.get(k).isWord("OVER") || q.opensQuery(k)) return false;
        }
        return true;
    }

    private static List<List<Candidate>> extraLimit(QueryText q) {
        OuterClauses top = q.top;
        List<Candidate> options = new ArrayList<>();
        if (top.limit == null) {
            options.add(Candidate.of(Edit.insert(q.end(q.tokens.size() - 1), " LIMIT 1"), "LIMIT: added `LIMIT 1`"));
            return List.of(options);
        }
        int lim = top.limit.start();
        int count = lim + 2 < top.limit.end() && q.tokens.get(lim + 2).isSymbol(",") ? lim + 3 : lim + 1;
        if (count >= top.limit.end() || q.tokens.get(count).type() != SqlToken.Type.NUMBER) return List.of();
        long n;
        try {
            n = Long.parseLong(q.tokens.get(count).text());
        } catch (NumberFormatException e) {
            return List.of();
        }
        SqlToken tok = q.tokens.get(count);
        for (long m = 1; m < n && m <= 100; m++) {
            options.add(Candidate.of(new Edit(tok.start(), tok.end(), Long.toString(m)),
                    "LIMIT: `" + tok.text() + "` -> `" + m + "`"));
        }
        return List.of(options);
    }

    private static List<List<Candidate>> wrongAggregate(QueryText q) {
        List<List<Candidate>> sites = new ArrayList<>();
        List<SqlToken> t = q.tokens;
        for (int k = 0; k + 1 < t.size(); k++) {
            SqlToken tok = t.get(k);
            String swap = tok.type() == SqlToken.Type.WORD ? AGGREGATE_SWAPS.get(tok.text().toUpperCase(Locale.ROOT)) : null;
            if (swap == null || !t.get(k + 1).isSymbol("(")) continue;
            if (k + 3 < t.size() && t.get(k + 2).isSymbol("*") && t.get(k + 3).isSymbol(")")) continue; // COUNT(*)
            if (k > 0 && t.get(k - 1).isSymbol(".")) continue; // a qualified name, not the aggregate
            int close = Query.close(t, k + 1);
            String call = q.text(k, close + 1);
            String written = Tokens.sameCase(tok.text(), swap);
            sites.add(List.of(Candidate.of(new Edit(tok.start(), tok.end(), written),
                    "aggregate: `" + call + "` -> `" + written + call.substring(tok.text().length()) + "`")));
        }
        return sites;
    }

    private static List<List<Candidate>> literalCase(QueryText q) {
        List<List<Candidate>> sites = new ArrayList<>();
        List<SqlToken> t = q.tokens;
        for (int k = 0; k < t.size(); k++) {
            SqlToken tok = t.get(k);
            if (tok.type() != SqlToken.Type.STRING || tok.text().contains("\\") || formatArgument(t, k)) continue;
            String text = tok.text();
            boolean lower = !text.equals(text.toUpperCase(Locale.ROOT));
            String changed = lower ? text.toUpperCase(Locale.ROOT) : text.toLowerCase(Locale.ROOT);
            if (changed.equals(text) || changed.length() != text.length()) continue;
            sites.add(List.of(Candidate.of(new Edit(tok.start(), tok.end(), changed),
                    "literal: `" + text + "` -> `" + changed + "`")));
        }
        return sites;
    }

    /** Whether the token at k is an argument of a date-format function. */
    private static boolean formatArgument(List<SqlToken> t, int k) {
        int depth = 0;
        for (int i = k - 1; i >= 0; i--) {
            if (t.get(i).isSymbol(")")) depth++;
            else if (t.get(i).isSymbol("(")) {
                if (depth == 0) {
                    return i > 0 && t.get(i - 1).type() == SqlToken.Type.WORD
                            && FORMAT_FUNCTIONS.contains(t.get(i - 1).text().toUpperCase(Locale.ROOT));
                }
                depth--;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ syntax

    private static List<List<Candidate>> syntaxError(QueryText q) {
        List<SqlToken> t = q.tokens;
        List<Candidate> misspelled = new ArrayList<>();
        for (SqlToken tok : t) {
            String wrong = tok.type() == SqlToken.Type.WORD ? MISSPELLINGS.get(tok.text().toUpperCase(Locale.ROOT)) : null;
            if (wrong == null) continue;
            String written = Tokens.sameCase(tok.text(), wrong);
            misspelled.add(Candidate.of(new Edit(tok.start(), tok.end(), written),
                    "syntax: `" + tok.text() + "` misspelled `" + written + "`"));
        }
        List<Candidate> comma = new ArrayList<>();
        for (Scope s : q.scopes) {
            List<Span> items = s.items();
            for (int i = 0; i + 1 < items.size(); i++) {
                Span next = items.get(i + 1);
                // a single name after the gap would read as an alias: still valid SQL
                if (next.size() == 1 && t.get(next.from()).type() != SqlToken.Type.NUMBER) continue;
                comma.add(Candidate.of(new Edit(q.end(items.get(i).to() - 1), q.start(next.from()), " "),
                        s.place("SELECT") + ": missing comma between `" + q.text(items.get(i)) + "` and `" + q.text(next) + "`"));
            }
        }
        List<Candidate> parens = new ArrayList<>();
        for (int k = 0; k < t.size(); k++) {
            if (!t.get(k).isSymbol(")")) continue;
            parens.add(Candidate.of(new Edit(q.removalStart(k), q.end(k), ""),
                    "syntax: unbalanced parenthesis, `)` dropped after `" + q.text(Math.max(0, k - 3), k) + "`"));
        }
        if (parens.isEmpty() && q.outermost() != null) {
            Span first = q.outermost().items().get(0);
            parens.add(Candidate.of(Edit.insert(q.start(first.from()), "("),
                    "syntax: unbalanced parenthesis, `(` before `" + q.text(first) + "`"));
        }
        return List.of(misspelled, comma, parens);
    }
}
