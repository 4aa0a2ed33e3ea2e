package dev.ladder.pipeline.sql.read;

import dev.ladder.pipeline.sql.SqlToken;
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
        int depth = 0;
        int cases = 0;
        for (int k = from; k < to; k++) {
            SqlToken tok = t.get(k);
            if (tok.isSymbol("(")) depth++;
            else if (tok.isSymbol(")")) depth--;
            else if (depth == 0 && tok.isWord("CASE")) cases++;
            else if (depth == 0 && tok.isWord("END") && cases > 0) cases--;
            else if (depth == 0 && cases == 0 && (tok.isWord("OR") || tok.isWord("XOR") || tok.isSymbol("||"))) return true;
        }
        return false;
    }

    /**
     * The top-level AND conjuncts of a condition ({@code BETWEEN x AND y} and CASE bodies do not split it); the whole
     * span when an OR-like operator stands at the top (see {@link #topLevelOr}).
     */
    public static List<OuterClauses.Clause> conjuncts(List<SqlToken> t, int from, int to) {
        List<OuterClauses.Clause> out = new ArrayList<>();
        if (to <= from) return out;
        if (topLevelOr(t, from, to)) {
            out.add(new OuterClauses.Clause(from, to));
            return out;
        }
        return split(t, from, to, true);
    }

    /**
     * The top-level OR disjuncts of a condition; empty when an AND-like operator (AND, {@code &&}, XOR) or a
     * {@code ||} stands at the top beside the ORs, or when there is no OR.
     */
    public static List<OuterClauses.Clause> disjuncts(List<SqlToken> t, int from, int to) {
        int depth = 0;
        int cases = 0;
        int betweens = 0;
        boolean or = false;
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
            else if (tok.isWord("AND") || tok.isSymbol("&&") || tok.isWord("XOR") || tok.isSymbol("||")) return List.of();
            else if (tok.isWord("OR")) or = true;
        }
        return or ? split(t, from, to, false) : List.of();
    }

    /** Splits at AND (conjuncts) or OR (disjuncts) at the span's level, outside BETWEEN ... AND and CASE ... END. */
    private static List<OuterClauses.Clause> split(List<SqlToken> t, int from, int to, boolean and) {
        List<OuterClauses.Clause> out = new ArrayList<>();
        int depth = 0;
        int cases = 0;
        int betweens = 0;
        int start = from;
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
            else if (and ? tok.isWord("AND") || tok.isSymbol("&&") : tok.isWord("OR")) {
                if (k > start) out.add(new OuterClauses.Clause(start, k));
                start = k + 1;
            }
        }
        if (to > start) out.add(new OuterClauses.Clause(start, to));
        return out;
    }
}
