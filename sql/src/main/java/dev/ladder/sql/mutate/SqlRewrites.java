package dev.ladder.sql.mutate;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.SqlToken;
import dev.ladder.sql.read.Identifiers;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SqlVocabulary;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;

/**
 * Edits that keep a query's answer, one {@link Rewrite} at a time: a scorer must give the result the same EX and TS as
 * the query (EM may differ). Edits are made on the query's own text (token spans); every result reads with
 * {@link Query#read} as one SELECT.
 * <ul>
 * <li>{@code PERMUTE_COLUMNS}: the outermost SELECT's items in another order. Only where EX ignores column order
 * (SPIDER mode: {@code ResultComparison} matches columns up to a permutation; BIRD mode does not, so a scorer in that
 * mode must not be handed it), only for a plain SELECT with no bare {@code *} and no ORDER BY or GROUP BY by
 * position.</li>
 * <li>{@code RENAME_ALIASES}: every table alias (tables and derived tables, at any level) renamed, definition and
 * qualifiers alike. An alias any of whose spellings in the text is neither is left as it is.</li>
 * <li>{@code NOT_EQUALS_SPELLING}: one {@code <>} written {@code !=}, or the other way.</li>
 * <li>{@code COMMUTE_AND}: the top-level AND conjuncts of a WHERE, HAVING or ON condition in another order.</li>
 * <li>{@code IN_TO_OR}: {@code x IN (a, b)} as {@code (x = a OR x = b)} for a list of literals of one kind, or back:
 * {@code x = a OR x = b} (a whole condition, a conjunct or a parenthesised group) as {@code x IN (a, b)}.</li>
 * <li>{@code JOIN_ON_TO_WHERE}: in a level whose joins are all inner ({@code JOIN}, {@code INNER JOIN},
 * {@code CROSS JOIN}, commas; no USING), every join written as a comma and its ON condition ANDed into WHERE.</li>
 * <li>{@code REDUNDANT_PARENTHESES}: parentheses around a WHERE condition or one of its conjuncts.</li>
 * </ul>
 */
public final class SqlRewrites {

    /** Tokens that may stand right before an operand of IN and after its list: where the expression starts or ends. */
    private static final Set<String> BOUNDARY_WORDS = Set.of("WHERE", "AND", "OR", "XOR", "NOT", "ON", "HAVING", "WHEN",
            "THEN", "ELSE", "END", "SELECT");

    private SqlRewrites() {}

    /** Applies r to sql, or empty when r does not apply to it. Deterministic given the Random's state. */
    public static Optional<Rewritten> apply(Rewrite r, String sql, Dialect dialect, Random random) {
        Optional<QueryText> read = QueryText.of(sql, dialect);
        if (read.isEmpty()) return Optional.empty();
        QueryText q = read.get();
        return Candidate.pick(sites(r, q, random), random, c -> realise(r, q, c));
    }

    /** The rewrites that apply to sql, in enum order. */
    public static List<Rewrite> applicable(String sql, Dialect dialect) {
        Optional<QueryText> read = QueryText.of(sql, dialect);
        if (read.isEmpty()) return List.of();
        List<Rewrite> out = new ArrayList<>();
        for (Rewrite r : Rewrite.values()) {
            if (Candidate.any(sites(r, read.get(), new Random(0)), c -> realise(r, read.get(), c))) out.add(r);
        }
        return out;
    }

    private static Optional<Rewritten> realise(Rewrite r, QueryText q, Candidate c) {
        String out = Edit.apply(q.text, c.edits());
        if (out.equals(q.text)) return Optional.empty();
        Query read = Query.read(out, q.query.dialect());
        if (read.tooComplex() || read.select().isEmpty()) return Optional.empty();
        return Optional.of(new Rewritten(out, r, c.where()));
    }

    private static List<List<Candidate>> sites(Rewrite r, QueryText q, Random random) {
        return switch (r) {
            case PERMUTE_COLUMNS -> permuteColumns(q, random);
            case RENAME_ALIASES -> renameAliases(q, random);
            case NOT_EQUALS_SPELLING -> notEquals(q);
            case COMMUTE_AND -> commuteAnd(q, random);
            case IN_TO_OR -> inToOr(q);
            case JOIN_ON_TO_WHERE -> joinOnToWhere(q);
            case REDUNDANT_PARENTHESES -> parentheses(q);
        };
    }

    /** A random order of n elements (Fisher-Yates). */
    private static int[] shuffle(int n, Random random) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) p[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int x = p[i];
            p[i] = p[j];
            p[j] = x;
        }
        return p;
    }

    /** A random order of n elements other than the identity (n >= 2). */
    private static int[] permutation(int n, Random random) {
        int[] p = shuffle(n, random);
        boolean identity = true;
        for (int i = 0; i < n; i++) identity &= p[i] == i;
        if (identity) {
            for (int i = 0; i < n; i++) p[i] = (i + 1) % n;
        }
        return p;
    }

    /**
     * The parts in the permuted order, each separator (the text between two parts, e.g. {@code ", "} or
     * {@code " AND "}) kept at its place: one edit from the first part's start to the last one's end.
     */
    private static Edit reorder(QueryText q, List<Span> parts, int[] order) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < parts.size(); i++) {
            b.append(q.text(parts.get(order[i])));
            if (i + 1 < parts.size()) b.append(q.text, q.end(parts.get(i).to() - 1), q.start(parts.get(i + 1).from()));
        }
        return new Edit(q.start(parts.get(0).from()), q.end(parts.get(parts.size() - 1).to() - 1), b.toString());
    }

    private static String numbered(int[] order) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < order.length; i++) b.append(i == 0 ? "" : ", ").append(order[i] + 1);
        return b.toString();
    }

    // ------------------------------------------------------------------ PERMUTE_COLUMNS

    private static List<List<Candidate>> permuteColumns(QueryText q, Random random) {
        Scope s = q.outermost();
        if (s == null) return List.of();
        List<Span> items = s.items();
        if (items.size() < 2) return List.of();
        for (Span item : items) {
            if (item.size() == 1 && q.tokens.get(item.from()).isSymbol("*")) return List.of();
        }
        for (Span e : concat(s.elements(s.clauses.orderBy), s.elements(s.clauses.groupBy))) {
            if (q.tokens.get(e.from()).type() == SqlToken.Type.NUMBER) return List.of(); // by position
        }
        int[] order = permutation(items.size(), random);
        return List.of(List.of(Candidate.of(reorder(q, items, order), "SELECT: items in the order " + numbered(order))));
    }

    private static List<Span> concat(List<Span> a, List<Span> b) {
        List<Span> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    // ------------------------------------------------------------------ RENAME_ALIASES

    private static List<List<Candidate>> renameAliases(QueryText q, Random random) {
        List<SqlToken> t = q.tokens;
        // alias (lower case) -> its definitions' tokens
        Map<String, List<Integer>> definitions = new LinkedHashMap<>();
        for (Scope s : q.scopes) {
            FromJoins joins = s.joins();
            if (joins == null) continue;
            List<Span> factors = new ArrayList<>();
            factors.add(joins.first());
            for (FromJoins.Join j : joins.joins()) factors.add(j.factor());
            for (Span f : factors) {
                int alias = aliasOf(q, f);
                if (alias >= 0) {
                    definitions.computeIfAbsent(Identifiers.unquote(t.get(alias)).toLowerCase(Locale.ROOT),
                            k -> new ArrayList<>()).add(alias);
                }
            }
        }
        Set<String> used = new HashSet<>();
        for (SqlToken tok : t) used.add(Identifiers.unquote(tok).toLowerCase(Locale.ROOT));
        List<String> aliases = new ArrayList<>();
        List<List<Integer>> spellings = new ArrayList<>();
        for (Map.Entry<String, List<Integer>> e : definitions.entrySet()) {
            Set<Integer> defs = new HashSet<>(e.getValue());
            List<Integer> all = new ArrayList<>();
            boolean safe = true;
            for (int k = 0; k < t.size() && safe; k++) {
                SqlToken tok = t.get(k);
                if (tok.type() != SqlToken.Type.WORD && tok.type() != SqlToken.Type.QUOTED_IDENTIFIER) continue;
                if (!Identifiers.unquote(tok).equalsIgnoreCase(e.getKey())) continue;
                boolean qualifier = k + 1 < t.size() && t.get(k + 1).isSymbol(".") && !(k > 0 && t.get(k - 1).isSymbol("."));
                // a column, a table or a SELECT alias of the same spelling: renaming cannot tell them apart
                safe = defs.contains(k) || qualifier;
                all.add(k);
            }
            if (safe) {
                aliases.add(e.getKey());
                spellings.add(all);
            }
        }
        if (aliases.isEmpty()) return List.of();
        List<String> pool = new ArrayList<>();
        for (int i = 1; pool.size() < aliases.size(); i++) {
            String name = "t" + i;
            if (!used.contains(name) && !SqlVocabulary.isSqlWord(name)) pool.add(name);
        }
        int[] order = shuffle(pool.size(), random);
        List<Edit> edits = new ArrayList<>();
        List<String> said = new ArrayList<>();
        for (int a = 0; a < aliases.size(); a++) {
            String name = pool.get(order[a]);
            for (int k : spellings.get(a)) {
                SqlToken tok = t.get(k);
                edits.add(new Edit(tok.start(), tok.end(), SqlCorruptions.spelled(tok, name, q.dialect)));
            }
            said.add(t.get(spellings.get(a).get(0)).text() + " -> " + name);
        }
        return List.of(List.of(new Candidate(edits, "aliases: " + String.join(", ", said))));
    }

    /** The alias token of a FROM factor ({@code t a}, {@code t AS a}, {@code (SELECT ...) AS a}), or -1. */
    private static int aliasOf(QueryText q, Span f) {
        List<SqlToken> t = q.tokens;
        int k = f.from();
        if (q.opensQuery(k)) {
            k = Query.close(t, k) + 1;
        } else {
            if (!Identifiers.isIdentifier(t.get(k))) return -1;
            k++;
            if (k + 1 < f.to() && t.get(k).isSymbol(".")) k += 2;
        }
        if (k < f.to() && t.get(k).isWord("AS")) k++;
        if (k != f.to() - 1) return -1; // no alias, or index hints and the like after it
        SqlToken a = t.get(k);
        return Identifiers.isIdentifier(a) && !SqlVocabulary.isReserved(a) ? k : -1;
    }

    // ------------------------------------------------------------------ NOT_EQUALS_SPELLING

    private static List<List<Candidate>> notEquals(QueryText q) {
        List<List<Candidate>> sites = new ArrayList<>();
        for (SqlToken tok : q.tokens) {
            String other = tok.isSymbol("<>") ? "!=" : tok.isSymbol("!=") ? "<>" : null;
            if (other == null) continue;
            sites.add(List.of(Candidate.of(new Edit(tok.start(), tok.end(), other),
                    "`" + tok.text() + "` -> `" + other + "` at offset " + tok.start())));
        }
        return sites;
    }

    // ------------------------------------------------------------------ COMMUTE_AND

    private static List<List<Candidate>> commuteAnd(QueryText q, Random random) {
        List<List<Candidate>> sites = new ArrayList<>();
        for (Scope s : q.scopes) {
            List<Span> conditions = new ArrayList<>();
            List<String> names = new ArrayList<>();
            conditions.add(s.where());
            names.add("WHERE");
            conditions.add(s.having());
            names.add("HAVING");
            if (s.joins() != null) {
                for (FromJoins.Join j : s.joins().joins()) {
                    conditions.add(j.condition());
                    names.add("JOIN ON");
                }
            }
            for (int i = 0; i < conditions.size(); i++) {
                Span c = conditions.get(i);
                if (c == null || c.isEmpty()) continue;
                if (Tokens.wrapped(q.tokens, c)) c = new Span(c.from() + 1, c.to() - 1);
                List<Span> conj = Tokens.conjuncts(q.tokens, c);
                if (conj.size() < 2 || conj.size() != parsedConjuncts(q, c)) continue;
                int[] order = permutation(conj.size(), random);
                Edit e = reorder(q, conj, order);
                sites.add(List.of(Candidate.of(e, s.place(names.get(i)) + ": `" + q.text(c) + "` -> `" + e.text() + "`")));
            }
        }
        return sites;
    }

    /** How many top-level AND conjuncts JSqlParser reads in the condition (-1 when it cannot read it alone). */
    private static int parsedConjuncts(QueryText q, Span c) {
        Expression e;
        try {
            e = CCJSqlParserUtil.parseCondExpression(q.text(c), false,
                    p -> p.withBackslashEscapeCharacter(q.dialect != Dialect.SQLITE));
        } catch (JSQLParserException | RuntimeException ex) {
            return -1;
        }
        return count(e);
    }

    private static int count(Expression e) {
        return e instanceof AndExpression and ? count(and.getLeftExpression()) + count(and.getRightExpression()) : 1;
    }

    // ------------------------------------------------------------------ IN_TO_OR

    private static List<List<Candidate>> inToOr(QueryText q) {
        List<List<Candidate>> sites = new ArrayList<>();
        List<SqlToken> t = q.tokens;
        for (int k = 1; k + 1 < t.size(); k++) {
            if (!t.get(k).isWord("IN") || !t.get(k + 1).isSymbol("(") || q.opensQuery(k + 1)) continue;
            if (t.get(k - 1).isWord("NOT")) continue;
            int close = Query.close(t, k + 1);
            List<String> values = literals(q, new Span(k + 2, close));
            int operand = operandStart(q, k);
            if (values == null || operand < 0 || !boundaryAfter(t, close + 1)) continue;
            String x = q.text(operand, k);
            List<String> ors = new ArrayList<>();
            for (String v : values) ors.add(x + " = " + v);
            String replaced = "(" + String.join(" OR ", ors) + ")";
            sites.add(List.of(Candidate.of(new Edit(q.start(operand), q.end(close), replaced),
                    "`" + q.text(operand, close + 1) + "` -> `" + replaced + "`")));
        }
        // back: x = a OR x = b, where a whole condition, a conjunct or a parenthesised group is one
        Set<Span> regions = new LinkedHashSet<>();
        for (Scope s : q.scopes) {
            for (Span c : new Span[] {s.where(), s.having()}) {
                if (c == null || c.isEmpty()) continue;
                regions.add(c);
                regions.addAll(Tokens.conjuncts(t, c));
            }
        }
        for (int k = 0; k + 1 < t.size(); k++) {
            if (!t.get(k).isSymbol("(") || q.opensQuery(k)) continue;
            if (k > 0 && (Identifiers.isIdentifier(t.get(k - 1)) && !SqlVocabulary.is(t.get(k - 1), BOUNDARY_WORDS))) continue;
            if (k > 0 && t.get(k - 1).isWord("IN")) continue;
            regions.add(new Span(k + 1, Query.close(t, k)));
        }
        for (Span r : regions) {
            Candidate c = orToIn(q, r);
            if (c != null) sites.add(List.of(c));
        }
        return sites;
    }

    /** The values of a list of literals of one kind (strings or numbers), or null when it is something else. */
    private static List<String> literals(QueryText q, Span list) {
        List<String> out = new ArrayList<>();
        SqlToken.Type kind = null;
        int k = list.from();
        while (k < list.to()) {
            int n = Tokens.literal(q.tokens, k, list.to());
            if (n == 0) return null;
            SqlToken.Type type = q.tokens.get(k + n - 1).type();
            if (kind != null && kind != type) return null;
            kind = type;
            out.add(q.text(k, k + n));
            k += n;
            if (k < list.to()) {
                if (!q.tokens.get(k).isSymbol(",")) return null;
                k++;
                if (k >= list.to()) return null;
            }
        }
        return out.isEmpty() ? null : out;
    }

    /**
     * Where the operand of the IN at {@code in} starts: a column ({@code c}, {@code t.c}) or a function call on
     * columns, standing where an expression starts (after WHERE, AND, a parenthesis, ...); else -1.
     */
    private static int operandStart(QueryText q, int in) {
        List<SqlToken> t = q.tokens;
        int k = in - 1;
        int start;
        if (t.get(k).isSymbol(")")) {
            int depth = 0;
            int open = -1;
            for (int i = k; i >= 0; i--) {
                if (t.get(i).isSymbol(")")) depth++;
                else if (t.get(i).isSymbol("(") && --depth == 0) {
                    open = i;
                    break;
                }
            }
            if (open < 1 || q.opensQuery(open) || t.get(open - 1).type() != SqlToken.Type.WORD) return -1;
            for (int i = open; i < k; i++) if (t.get(i).isWord("SELECT")) return -1;
            start = open - 1;
        } else if (Identifiers.reference(t, k) != null) {
            start = k >= 2 && t.get(k - 1).isSymbol(".") ? k - 2 : k;
        } else {
            return -1;
        }
        if (start == 0) return -1;
        SqlToken before = t.get(start - 1);
        if (before.isSymbol(".")) return -1;
        return before.isSymbol("(") || before.isSymbol(",") || SqlVocabulary.is(before, BOUNDARY_WORDS) ? start : -1;
    }

    private static boolean boundaryAfter(List<SqlToken> t, int k) {
        if (k >= t.size()) return true;
        SqlToken a = t.get(k);
        return a.isSymbol(")") || a.isSymbol(",") || SqlVocabulary.is(a, BOUNDARY_WORDS)
                || SqlVocabulary.is(a, SqlVocabulary.CLAUSE_STARTS);
    }

    /** {@code x = a OR x = b ...} over the whole region as {@code x IN (a, b, ...)}; null when the region is not that. */
    private static Candidate orToIn(QueryText q, Span region) {
        List<SqlToken> t = q.tokens;
        List<Span> parts = Tokens.disjuncts(t, region);
        if (parts.size() < 2) return null;
        String column = null;
        SqlToken.Type kind = null;
        List<String> values = new ArrayList<>();
        for (Span p : parts) {
            int eq = p.from() + (p.size() >= 3 && t.get(p.from() + 1).isSymbol(".") ? 3 : 1);
            if (eq >= p.to() || !t.get(eq).isSymbol("=")) return null;
            if (Identifiers.reference(t, eq - 1) == null) return null;
            String x = q.text(p.from(), eq);
            int n = Tokens.literal(t, eq + 1, p.to());
            if (n == 0 || eq + 1 + n != p.to()) return null;
            SqlToken.Type type = t.get(p.to() - 1).type();
            if (column != null && (!column.equalsIgnoreCase(x) || kind != type)) return null;
            column = x;
            kind = type;
            values.add(q.text(eq + 1, p.to()));
        }
        String in = column + " IN (" + String.join(", ", values) + ")";
        return Candidate.of(new Edit(q.start(region.from()), q.end(region.to() - 1), in),
                "`" + q.text(region) + "` -> `" + in + "`");
    }

    // ------------------------------------------------------------------ JOIN_ON_TO_WHERE

    private static List<List<Candidate>> joinOnToWhere(QueryText q) {
        List<List<Candidate>> sites = new ArrayList<>();
        for (Scope s : q.scopes) {
            FromJoins joins = s.joins();
            if (joins == null || !joins.allInner() || joins.joins().stream().noneMatch(j -> j.condition() != null)) continue;
            List<Edit> edits = new ArrayList<>();
            List<String> moved = new ArrayList<>();
            for (FromJoins.Join j : joins.joins()) {
                if (j.kind() == FromJoins.Kind.COMMA) continue;
                edits.add(new Edit(q.removalStart(j.operator().from()), q.start(j.factor().from()), ", "));
                if (j.condition() == null) continue;
                edits.add(new Edit(q.removalStart(j.on()), q.end(j.condition().to() - 1), ""));
                String c = q.text(j.condition());
                moved.add(Tokens.topLevelOr(q.tokens, j.condition()) ? "(" + c + ")" : c);
            }
            String conditions = String.join(" AND ", moved);
            Span where = s.where();
            if (where == null || where.isEmpty()) {
                edits.add(Edit.insert(q.end(s.from().to() - 1), " WHERE " + conditions));
            } else if (Tokens.topLevelOr(q.tokens, where)) {
                edits.add(Edit.insert(q.start(where.from()), conditions + " AND ("));
                edits.add(Edit.insert(q.end(where.to() - 1), ")"));
            } else {
                edits.add(Edit.insert(q.start(where.from()), conditions + " AND "));
            }
            sites.add(List.of(new Candidate(edits, s.place("FROM") + ": joins as commas, `" + conditions + "` in WHERE")));
        }
        return sites;
    }

    // ------------------------------------------------------------------ REDUNDANT_PARENTHESES

    private static List<List<Candidate>> parentheses(QueryText q) {
        List<List<Candidate>> sites = new ArrayList<>();
        for (Scope s : q.scopes) {
            Span where = s.where();
            if (where == null || where.isEmpty()) continue;
            List<Candidate> options = new ArrayList<>();
            List<Span> spans = new ArrayList<>();
            spans.add(where);
            List<Span> conj = Tokens.conjuncts(q.tokens, where);
            if (conj.size() > 1) spans.addAll(conj);
            for (Span c : spans) {
                String wrapped = "(" + q.text(c) + ")";
                options.add(new Candidate(List.of(Edit.insert(q.start(c.from()), "("), Edit.insert(q.end(c.to() - 1), ")")),
                        s.place("WHERE") + ": `" + wrapped + "`"));
            }
            sites.add(options);
        }
        return sites;
    }
}
