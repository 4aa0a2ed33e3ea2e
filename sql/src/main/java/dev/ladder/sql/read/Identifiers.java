package dev.ladder.sql.read;

import dev.ladder.sql.SqlToken;
import java.util.List;

/** Names in SQL tokens: unquoting, and which words may name a table or column. */
public final class Identifiers {

    private Identifiers() {}

    /**
     * The content of a quoted token: {@code `a``b`}, {@code "a""b"}, {@code 'it''s'} with the doubled quote undone,
     * {@code [x]} as is; a string's value as {@link #stringValue} reads it. Other tokens: their text.
     */
    public static String unquote(SqlToken tok) {
        String s = tok.text();
        if (tok.type() != SqlToken.Type.QUOTED_IDENTIFIER && tok.type() != SqlToken.Type.STRING) return s;
        if (s.length() < 2) return s;
        char q = s.charAt(0);
        if (q == '[') return s.substring(1, s.length() - 1);
        if (tok.type() == SqlToken.Type.STRING) return stringValue(s);
        return s.substring(1, s.length() - 1).replace(String.valueOf(q).repeat(2), String.valueOf(q));
    }

    /** An identifier's text without its quotes ({@code `x`}, {@code "x"}, {@code [x]}), doubled quotes undone. */
    public static String unquote(String text) {
        if (text.length() >= 2) {
            char c = text.charAt(0);
            if (c == '`' || c == '"') return text.substring(1, text.length() - 1).replace("" + c + c, "" + c);
            if (c == '[') return text.substring(1, text.length() - 1);
        }
        return text;
    }

    /** A word or a quoted identifier (not a string in double quotes read as an identifier). */
    public static boolean isIdentifier(SqlToken t) {
        return t.type() == SqlToken.Type.WORD || (t.type() == SqlToken.Type.QUOTED_IDENTIFIER && !t.text().startsWith("'"));
    }

    /**
     * The name at {@code i} when it may be a schema name: a word or quoted identifier that is not called as a
     * function. Keywords pass (a column may be called {@code date}); callers match the name against the schema.
     */
    public static String name(List<SqlToken> t, int i) {
        SqlToken tok = t.get(i);
        if (i + 1 < t.size() && t.get(i + 1).isSymbol("(")) return null;
        if (tok.type() == SqlToken.Type.QUOTED_IDENTIFIER) return unquote(tok);
        return tok.type() == SqlToken.Type.WORD ? tok.text() : null;
    }

    /** The name a token refers to when it is a column or table reference (not a keyword or function), else null. */
    public static String reference(List<SqlToken> t, int i) {
        SqlToken tok = t.get(i);
        if (i + 1 < t.size() && t.get(i + 1).isSymbol("(")) return null;
        if (tok.type() == SqlToken.Type.QUOTED_IDENTIFIER) return unquote(tok);
        if (tok.type() != SqlToken.Type.WORD) return null;
        boolean qualified = i > 0 && t.get(i - 1).isSymbol(".");
        if (!qualified && (SqlVocabulary.is(tok, SqlVocabulary.NOT_COLUMNS) || SqlVocabulary.is(tok, SqlVocabulary.CLAUSE_STARTS)
                || SqlVocabulary.isAggregate(tok))) {
            return null;
        }
        return tok.text();
    }
    /**
     * The value of a string literal token: quotes removed, a doubled quote undone, MySQL's backslash escapes resolved
     * ({@code \\%} and {@code \\_} stay escaped, as LIKE reads them).
     */
    public static String stringValue(String token) {
        char q = token.charAt(0);
        StringBuilder sb = new StringBuilder();
        for (int k = 1; k < token.length() - 1; k++) {
            char c = token.charAt(k);
            if (c == '\\' && k + 1 < token.length() - 1) {
                char n = token.charAt(++k);
                switch (n) {
                    case 'n' -> sb.append('\n');
                    case 't' -> sb.append('\t');
                    case 'r' -> sb.append('\r');
                    case '0' -> sb.append('\0');
                    case '%', '_' -> sb.append('\\').append(n); // LIKE escapes stay escaped
                    default -> sb.append(n);
                }
            } else if (c == q && k + 1 < token.length() - 1 && token.charAt(k + 1) == q) {
                sb.append(q);
                k++;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

}
