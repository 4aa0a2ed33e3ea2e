package dev.ladder.pipeline.sql.mutate;

import dev.ladder.pipeline.db.Dialect;
import dev.ladder.pipeline.sql.SqlToken;
import dev.ladder.pipeline.sql.read.SqlVocabulary;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** Readings of token ranges the mutators share: conjuncts, disjuncts, names. */
final class Tokens {

    private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]*");

    private Tokens() {}

    /** A word that may name a column or alias: not a keyword, clause word or reserved word. */
    static boolean plainWord(SqlToken t) {
        return t.type() == SqlToken.Type.WORD && !SqlVocabulary.is(t, SqlVocabulary.NOT_COLUMNS)
                && !SqlVocabulary.is(t, SqlVocabulary.CLAUSE_STARTS) && !SqlVocabulary.isReserved(t);
    }

    /** A schema name as it may stand in SQL: bare when it is a plain name and no SQL word, else quoted. */
    static String name(String name, Dialect dialect) {
        if (PLAIN_NAME.matcher(name).matches() && !SqlVocabulary.isSqlWord(name)) return name;
        return dialect == Dialect.SQLITE ? '"' + name.replace("\"", "\"\"") + '"' : '`' + name.replace("`", "``") + '`';
    }

    /**
     * Whether [from, to) has an OR-like operator at its own level (OR, XOR, {@code ||}): then AND does not split it
     * into conjuncts. {@code ||} counts although SQLite reads it as concatenation: not splitting is the safe side.
     */
    static boolean topLevelOr(List<SqlToken> t, Span s) {
        int depth = 0;
        int cases = 0;
        for (int k = s.from(); k < s.to(); k++) {
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
    static List<Span> conjuncts(List<SqlToken> t, Span s) {
        List<Span> out = new ArrayList<>();
        if (s == null || s.isEmpty()) return out;
        if (topLevelOr(t, s)) {
            out.add(s);
            return out;
        }
        return split(t, s, true);
    }

    /**
     * The top-level OR disjuncts of a condition; empty when an AND-like operator (AND, {@code &&}, XOR) or a
     * {@code ||} stands at the top beside the ORs, or when there is no OR.
     */
    static List<Span> disjuncts(List<SqlToken> t, Span s) {
        int depth = 0;
        int cases = 0;
        int betweens = 0;
        boolean or = false;
        for (int k = s.from(); k < s.to(); k++) {
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
        return or ? split(t, s, false) : List.of();
    }

    /** Splits at AND (conjuncts) or OR (disjuncts) at the span's level, outside BETWEEN ... AND and CASE ... END. */
    private static List<Span> split(List<SqlToken> t, Span s, boolean and) {
        List<Span> out = new ArrayList<>();
        int depth = 0;
        int cases = 0;
        int betweens = 0;
        int start = s.from();
        for (int k = s.from(); k < s.to(); k++) {
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
                if (k > start) out.add(new Span(start, k));
                start = k + 1;
            }
        }
        if (s.to() > start) out.add(new Span(start, s.to()));
        return out;
    }

    /** Whether the span is one parenthesised expression: {@code ( ... )} with the parentheses matching each other. */
    static boolean wrapped(List<SqlToken> t, Span s) {
        return s.size() >= 2 && t.get(s.from()).isSymbol("(") && !t.get(s.from() + 1).isWord("SELECT")
                && !t.get(s.from() + 1).isWord("WITH")
                && dev.ladder.pipeline.sql.read.Query.close(t, s.from()) == s.to() - 1;
    }

    /** A literal: a string, or a number with an optional sign. Returns the tokens it spans from {@code k}, or 0. */
    static int literal(List<SqlToken> t, int k, int end) {
        if (k >= end) return 0;
        SqlToken tok = t.get(k);
        if (tok.type() == SqlToken.Type.STRING || tok.type() == SqlToken.Type.NUMBER) return 1;
        if ((tok.isSymbol("-") || tok.isSymbol("+")) && k + 1 < end && t.get(k + 1).type() == SqlToken.Type.NUMBER) return 2;
        return 0;
    }

    /** Matches upper, lower or leading-capital spelling of {@code like} for {@code word}. */
    static String sameCase(String like, String word) {
        if (like.equals(like.toUpperCase(java.util.Locale.ROOT))) return word.toUpperCase(java.util.Locale.ROOT);
        if (like.equals(like.toLowerCase(java.util.Locale.ROOT))) return word.toLowerCase(java.util.Locale.ROOT);
        return word.charAt(0) + word.substring(1).toLowerCase(java.util.Locale.ROOT);
    }
}
