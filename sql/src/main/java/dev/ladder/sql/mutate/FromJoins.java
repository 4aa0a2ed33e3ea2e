package dev.ladder.sql.mutate;

import dev.ladder.sql.SqlToken;
import dev.ladder.sql.read.Query;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A FROM clause read from its tokens: the first table factor, then each join with its operator, factor and ON
 * condition. Only what the mutators need; a clause it cannot read ({@code FROM (a JOIN b)}, an empty factor) is null.
 *
 * @param first the first table factor
 * @param joins the joins in order
 */
record FromJoins(Span first, List<Join> joins) {

    /** Operator words of a join; LEFT and RIGHT only when not called as functions. */
    private static final Set<String> JOIN_WORDS = Set.of("NATURAL", "INNER", "CROSS", "LEFT", "RIGHT", "FULL", "OUTER",
            "JOIN", "STRAIGHT_JOIN");

    enum Kind { COMMA, INNER, CROSS, LEFT, RIGHT, FULL, NATURAL, STRAIGHT }

    /**
     * @param operator  the operator's tokens ({@code ,}, {@code INNER JOIN}, {@code LEFT OUTER JOIN}, ...)
     * @param factor    the joined table factor (alias included)
     * @param on        the ON keyword's token, or -1
     * @param condition the ON condition, or null
     * @param using     the join has USING (...)
     */
    record Join(Kind kind, Span operator, Span factor, int on, Span condition, boolean using) {}

    static FromJoins read(QueryText q, Span from) {
        List<SqlToken> t = q.tokens;
        List<Join> joins = new ArrayList<>();
        int k = from.from();
        int end = from.to();
        Span first = null;
        Kind kind = null;
        Span operator = null;
        while (k < end) {
            int factorStart = k;
            int factorEnd = next(t, k, end, true);
            if (factorEnd == factorStart) return null;
            if (t.get(factorStart).isSymbol("(") && !q.opensQuery(factorStart)) return null; // a parenthesised join
            int on = -1;
            Span condition = null;
            boolean using = false;
            k = factorEnd;
            if (k < end && t.get(k).isWord("ON")) {
                on = k;
                int condEnd = next(t, k + 1, end, false);
                if (condEnd == k + 1) return null;
                condition = new Span(k + 1, condEnd);
                k = condEnd;
            } else if (k < end && t.get(k).isWord("USING")) {
                using = true;
                if (k + 1 >= end || !t.get(k + 1).isSymbol("(")) return null;
                k = Query.close(t, k + 1) + 1;
            }
            Span factor = new Span(factorStart, factorEnd);
            if (first == null) {
                if (on >= 0 || using) return null;
                first = factor;
            } else {
                joins.add(new Join(kind, operator, factor, on, condition, using));
            }
            if (k >= end) break;
            // an operator
            int opStart = k;
            Kind nextKind = Kind.INNER;
            if (t.get(k).isSymbol(",")) {
                nextKind = Kind.COMMA;
                k++;
            } else {
                while (k < end && isJoinWord(t, k) && !t.get(k).isWord("JOIN") && !t.get(k).isWord("STRAIGHT_JOIN")) {
                    SqlToken w = t.get(k);
                    if (w.isWord("NATURAL")) nextKind = Kind.NATURAL;
                    else if (w.isWord("CROSS")) nextKind = Kind.CROSS;
                    else if (w.isWord("LEFT") && nextKind != Kind.NATURAL) nextKind = Kind.LEFT;
                    else if (w.isWord("RIGHT") && nextKind != Kind.NATURAL) nextKind = Kind.RIGHT;
                    else if (w.isWord("FULL") && nextKind != Kind.NATURAL) nextKind = Kind.FULL;
                    k++;
                }
                if (k >= end) return null;
                if (t.get(k).isWord("STRAIGHT_JOIN")) nextKind = Kind.STRAIGHT;
                else if (!t.get(k).isWord("JOIN")) return null;
                k++;
            }
            kind = nextKind;
            operator = new Span(opStart, k);
        }
        return first == null ? null : new FromJoins(first, List.copyOf(joins));
    }

    private static boolean isJoinWord(List<SqlToken> t, int k) {
        SqlToken w = t.get(k);
        if (w.type() != SqlToken.Type.WORD) return false;
        String u = w.text().toUpperCase(Locale.ROOT);
        if (!JOIN_WORDS.contains(u)) return false;
        // JOIN (SELECT ...) joins a derived table; LEFT(x, 2) is a function
        return u.equals("JOIN") || u.equals("STRAIGHT_JOIN") || !(k + 1 < t.size() && t.get(k + 1).isSymbol("("));
    }

    /** Where a factor (stopping at ON / USING too) or a condition ends: the next operator at this level. */
    private static int next(List<SqlToken> t, int k, int end, boolean factor) {
        int depth = 0;
        for (int i = k; i < end; i++) {
            SqlToken tok = t.get(i);
            if (tok.isSymbol("(")) depth++;
            else if (tok.isSymbol(")")) depth--;
            if (depth != 0) continue;
            if (tok.isSymbol(",") || isJoinWord(t, i)) return i;
            if (factor && (tok.isWord("ON") || tok.isWord("USING"))) return i;
        }
        return end;
    }

    /** Whether every join is an inner one (comma, JOIN, INNER JOIN, CROSS JOIN) without USING. */
    boolean allInner() {
        return joins.stream().allMatch(j -> !j.using() && (j.kind() == Kind.COMMA || j.kind() == Kind.INNER
                || j.kind() == Kind.CROSS));
    }
}
