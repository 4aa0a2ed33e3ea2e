package dev.ladder.sql.mutate;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.SqlToken;
import dev.ladder.sql.read.OuterClauses;
import dev.ladder.sql.read.Query;
import java.util.ArrayList;
import java.util.List;

/**
 * One query level of a {@link QueryText}: a plain SELECT (the outermost one, a set-operation branch, a subquery or
 * CTE body) with its clauses as spans of the whole query's tokens. Its own tokens leave out nested subqueries, which
 * are scopes of their own.
 */
final class Scope {

    final QueryText q;
    final OuterClauses clauses;
    /** Index in the whole query's tokens of this level's first token. */
    final int base;
    final boolean outermost;
    /** "" for the outermost query, else "subquery " or "set-operation branch " (descriptions start with it). */
    final String label;
    private FromJoins joins;

    Scope(QueryText q, OuterClauses clauses, int base, boolean outermost, String label) {
        this.q = q;
        this.clauses = clauses;
        this.base = base;
        this.outermost = outermost;
        this.label = label;
    }

    private Span span(OuterClauses.Clause c, int skip) {
        if (c == null) return null;
        int from = c.start() + base + skip;
        // GROUP BY / ORDER BY: skip BY too
        if (skip > 0 && from < c.end() + base && q.tokens.get(from).isWord("BY")) from++;
        return new Span(from, c.end() + base);
    }

    /** The whole clause, keyword included; null when absent. */
    Span clause(OuterClauses.Clause c) {
        return span(c, 0);
    }

    /** The clause after its keyword(s); null when absent. */
    Span body(OuterClauses.Clause c) {
        return span(c, 1);
    }

    Span where() {
        return body(clauses.where);
    }

    Span having() {
        return body(clauses.having);
    }

    Span from() {
        return body(clauses.from);
    }

    /** SELECT items (alias included), in order. */
    List<Span> items() {
        List<Span> out = new ArrayList<>();
        for (OuterClauses.Clause c : clauses.items) out.add(new Span(c.start() + base, c.end() + base));
        return out;
    }

    /** GROUP BY or ORDER BY elements (ORDER BY ones with ASC / DESC). */
    List<Span> elements(OuterClauses.Clause c) {
        List<Span> out = new ArrayList<>();
        if (c == null) return out;
        for (OuterClauses.Clause e : clauses.elements(c)) out.add(new Span(e.start() + base, e.end() + base));
        return out;
    }

    /** Where a SELECT item's alias starts ({@code AS x}, or a bare trailing name), or its end when it has none. */
    int aliasStart(Span item) {
        List<SqlToken> t = q.tokens;
        int n = item.size();
        if (n >= 3 && t.get(item.to() - 2).isWord("AS")) return item.to() - 2;
        if (n >= 2) {
            SqlToken last = t.get(item.to() - 1);
            SqlToken before = t.get(item.to() - 2);
            boolean name = last.type() == SqlToken.Type.QUOTED_IDENTIFIER
                    || (last.type() == SqlToken.Type.STRING && q.dialect == Dialect.MYSQL)
                    || (last.type() == SqlToken.Type.WORD && Tokens.plainWord(last));
            boolean operand = before.isSymbol(")") || before.type() == SqlToken.Type.QUOTED_IDENTIFIER
                    || before.type() == SqlToken.Type.STRING || before.type() == SqlToken.Type.NUMBER
                    || (before.type() == SqlToken.Type.WORD && Tokens.plainWord(before))
                    || before.isWord("END") || before.isWord("NULL") || before.isSymbol("*");
            if (name && operand) return item.to() - 1;
        }
        return item.to();
    }

    /** The outermost FROM clause's joins, read from its tokens; null without a FROM or when it cannot be read. */
    FromJoins joins() {
        if (joins == null && from() != null) joins = FromJoins.read(q, from());
        return joins;
    }

    /** The own tokens of [from, to): nested subqueries left out. */
    List<Integer> own(Span s) {
        List<Integer> out = new ArrayList<>();
        if (s == null) return out;
        for (int k = s.from(); k < s.to(); k++) {
            if (q.opensQuery(k)) {
                k = Query.close(q.tokens, k);
                continue;
            }
            out.add(k);
        }
        return out;
    }

    /** "WHERE", "subquery WHERE", ... for descriptions. */
    String place(String clause) {
        return label + clause;
    }
}
