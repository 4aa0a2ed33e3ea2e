package dev.ladder.sql.mutate;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.SqlToken;
import dev.ladder.sql.read.Conditions;
import dev.ladder.sql.read.OuterClauses;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SqlVocabulary;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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

    /** {@link Conditions#topLevelOr} over a span. */
    static boolean topLevelOr(List<SqlToken> t, Span s) {
        return Conditions.topLevelOr(t, s.from(), s.to());
    }

    /** {@link Conditions#conjuncts} over a span. */
    static List<Span> conjuncts(List<SqlToken> t, Span s) {
        if (s == null || s.isEmpty()) return new ArrayList<>();
        return spans(Conditions.conjuncts(t, s.from(), s.to()));
    }

    /** {@link Conditions#disjuncts} over a span. */
    static List<Span> disjuncts(List<SqlToken> t, Span s) {
        return spans(Conditions.disjuncts(t, s.from(), s.to()));
    }

    private static List<Span> spans(List<OuterClauses.Clause> clauses) {
        List<Span> out = new ArrayList<>();
        for (OuterClauses.Clause c : clauses) out.add(new Span(c.start(), c.end()));
        return out;
    }

    /** Whether the span is one parenthesised expression: {@code ( ... )} with the parentheses matching each other. */
    static boolean wrapped(List<SqlToken> t, Span s) {
        return s.size() >= 2 && t.get(s.from()).isSymbol("(") && !t.get(s.from() + 1).isWord("SELECT")
                && !t.get(s.from() + 1).isWord("WITH")
                && Query.close(t, s.from()) == s.to() - 1;
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
        if (like.equals(like.toUpperCase(Locale.ROOT))) return word.toUpperCase(Locale.ROOT);
        if (like.equals(like.toLowerCase(Locale.ROOT))) return word.toLowerCase(Locale.ROOT);
        return word.charAt(0) + word.substring(1).toLowerCase(Locale.ROOT);
    }
}
