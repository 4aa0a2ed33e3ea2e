package dev.ladder.sql;

/**
 * One lexical token of SQL text.
 *
 * @param type  what kind of token
 * @param text  the exact source text (quotes and comment markers included)
 * @param start offset of the first character in the source
 */
public record SqlToken(Type type, String text, int start) {

    public enum Type {
        /** Unquoted identifier or keyword. */
        WORD,
        /** Identifier in backticks, double quotes (SQLite) or brackets (SQLite). */
        QUOTED_IDENTIFIER,
        /** String literal (single quotes; double quotes in MySQL). */
        STRING,
        NUMBER,
        /** {@code @name} user variable or {@code @@name} system variable. */
        VARIABLE,
        /** Operator or punctuation, including {@code ;}, {@code (}, {@code :=}. */
        SYMBOL,
        /** Ordinary comment ({@code --}, {@code #}, {@code /* *}{@code /}). */
        COMMENT,
        /** MySQL/MariaDB executable comment {@code /*! ... *}{@code /}: the server runs what is inside. */
        EXECUTABLE_COMMENT,
        WHITESPACE
    }

    public int end() {
        return start + text.length();
    }

    /** True for tokens a parser would skip: whitespace and ordinary comments. */
    public boolean isTrivia() {
        return type == Type.WHITESPACE || type == Type.COMMENT;
    }

    public boolean isWord(String word) {
        return type == Type.WORD && text.equalsIgnoreCase(word);
    }

    public boolean isSymbol(String symbol) {
        return type == Type.SYMBOL && text.equals(symbol);
    }
}
