package dev.ladder.sql.read;

import dev.ladder.sql.SqlToken;
import java.util.ArrayList;
import java.util.List;

/**
 * A condition's top-level parts on a query's tokens ([from, to) of {@link Query#tokens()}): its AND conjuncts and OR
 * disjuncts, outside parentheses, {@code BETWEEN x AND y} and {@code CASE ... END}. The one reading of "the conjuncts of
 * a WHERE" that the mutators and the oracle's teachers share.
 */
public final class Conditions {

    private Conditions() {}

    /**
     * Whether [from, to) has an OR-like operator at its own level (OR, XOR, {@code ||}): then AND does not split it
     * into conjuncts. {@code ||} counts although SQLite reads it as concatenation: not splitting is the safe side.
     */
    public static boolean topLevelOr(List<SqlToken> t, int from, int to) {
        for (int k : connectives(t, from, to)) if (orLike(t.get(k))) return true;
        return false;
    }

    /**
     * The top-level AND conjuncts of a condition ({@code BETWEEN x AND y} and CASE bodies do not split it); the whole
     * span when an OR-like operator stands at the top (see {@link #topLevelOr}).
     */
    public static List<OuterClauses.Clause> conjuncts(List<SqlToken> t, int from, int to) {
        if (to <= from) return new ArrayList<>();
        List<Integer> at = connectives(t, from, to);
        if (at.stream().anyMatch(k -> orLike(t.get(k)))) return split(from, to, List.of());
        return split(from, to, at);
    }

    /**
     * The top-level OR disjuncts of a condition; empty when an AND-like operator (AND, {@code &&}, XOR) or a
     * {@code ||} stands at the top beside the ORs, or when there is no OR.
     */
    public static List<OuterClauses.Clause> disjuncts(List<SqlToken> t, int from, int to) {
        List<Integer> at = connectives(t, from, to);
        if (at.isEmpty() || !at.stream().allMatch(k -> t.get(k).isWord("OR"))) return List.of();
        return split(from, to, at);
    }

    private static boolean orLike(SqlToken tok) {
        return tok.isWord("OR") || tok.isWord("XOR") || tok.isSymbol("||");
    }

    /**
     * The logical operators (AND, {@code &&}, OR, XOR, {@code ||}) at the span's own level: outside parentheses, CASE
     * ... END, and not the AND of {@code BETWEEN x AND y}.
     */
    private static List<Integer> connectives(List<SqlToken> t, int from, int to) {
        List<Integer> out = new ArrayList<>();
        int depth = 0;
        int cases = 0;
        int betweens = 0;
        for (int k = from; k < to; k++) {
            SqlToken tok = t.get(k);
            if (tok.isSymbol("(")) depth++;
            else if (tok.isSymbol(")")) depth--;
            if (depth != 0) continue;
            if (tok.isWord("CASE")) cases++;
            else if (tok.isWord("END") && cases > 0) cases--;
            else if (cases > 0) continue;
            else if (tok.isWord("BETWEEN")) betweens++;
            else if (tok.isWord("AND") && betweens > 0) betweens--;
            else if (tok.isWord("AND") || tok.isSymbol("&&") || orLike(tok)) out.add(k);
        }
        return out;
    }

    /** The parts of [from, to) between the operator tokens at {@code at} (empty parts left out). */
    private static List<OuterClauses.Clause> split(int from, int to, List<Integer> at) {
        List<OuterClauses.Clause> out = new ArrayList<>();
        int start = from;
        for (int k : at) {
            if (k > start) out.add(new OuterClauses.Clause(start, k));
            start = k + 1;
        }
        if (to > start) out.add(new OuterClauses.Clause(start, to));
        return out;
    }
}
