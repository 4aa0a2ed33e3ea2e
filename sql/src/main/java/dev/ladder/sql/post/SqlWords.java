package dev.ladder.sql.post;

import dev.ladder.sql.SqlToken;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SqlVocabulary;
import java.util.Locale;
import java.util.Set;

/**
 * The fixed word lists of the post-processor. Only words that cannot be unquoted column names in MySQL (reserved
 * words) are upper-cased everywhere; function names only right before {@code (}, where no column name can stand, so
 * a column called {@code date} or {@code count} is never touched.
 */
final class SqlWords {

    /** Reserved words: upper-cased wherever they stand as a word (never next to a dot). */
    static final Set<String> KEYWORDS = SqlVocabulary.RESERVED;

    /** Function names: upper-cased only when the next token is {@code (}. */
    static final Set<String> FUNCTIONS = SqlVocabulary.FUNCTIONS;

    /** Operators and punctuation after which a statement cannot end ({@code *} is decided by context). */
    private static final Set<String> DANGLING_SYMBOLS = Set.of(
            ",", "(", ".", "=", "<", ">", "<=", ">=", "<>", "!=", "<=>", "+", "-", "/", "%", "||", "&&", "|", "&",
            "^", "!", "~", "<<", ">>", ":=", "::", "->", "->>", ":");

    private SqlWords() {}

    static String upper(String word) {
        return word.toUpperCase(Locale.ROOT);
    }

    static boolean isKeyword(SqlToken t) {
        return t.type() == SqlToken.Type.WORD && KEYWORDS.contains(upper(t.text()));
    }

    /** Any word the post-processor knows as SQL (keyword, function, type, clause word). */
    static boolean isSqlWord(String word) {
        return SqlVocabulary.isSqlWord(word);
    }

    /** A plain identifier: an unquoted word that is no SQL keyword, or a quoted identifier. */
    static boolean isIdentifier(SqlToken t) {
        return (t.type() == SqlToken.Type.WORD && !KEYWORDS.contains(upper(t.text())))
                || t.type() == SqlToken.Type.QUOTED_IDENTIFIER;
    }

    static boolean isQueryStart(SqlToken t) {
        return Query.startsQuery(t);
    }

    /**
     * What a statement ending in {@code last} (preceded by {@code before}, may be null) leaves dangling, in words for a
     * rejection; null when it may end there.
     */
    static String dangling(SqlToken last, SqlToken before) {
        if (last == null) return null;
        if (last.type() == SqlToken.Type.WORD && SqlVocabulary.DANGLING.contains(upper(last.text()))) return upper(last.text());
        if (last.type() != SqlToken.Type.SYMBOL) return null;
        String s = last.text();
        if (s.equals(",")) return "comma";
        if (s.equals("(")) return "open parenthesis";
        if (s.equals("*")) {
            // "SELECT *" and "t.*" are complete; "price *" is a multiplication missing its operand
            return before != null && isOperand(before) ? "operator '*'" : null;
        }
        if (s.equals(".")) return "'.'";
        return DANGLING_SYMBOLS.contains(s) ? "operator '" + s + "'" : null;
    }

    private static boolean isOperand(SqlToken t) {
        return switch (t.type()) {
            case NUMBER, STRING, QUOTED_IDENTIFIER, VARIABLE -> true;
            case WORD -> !KEYWORDS.contains(upper(t.text())) && !SqlVocabulary.DANGLING.contains(upper(t.text()));
            case SYMBOL -> t.text().equals(")");
            default -> false;
        };
    }
}
