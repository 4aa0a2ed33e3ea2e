package dev.ladder.sql;

import dev.ladder.sql.Dialect;
import java.util.ArrayList;
import java.util.List;

/**
 * A small, dialect-aware SQL lexer. It exists so that checks on untrusted SQL agree with the server
 * about where strings and comments end: a lexer that disagrees (e.g. about backslash escapes) is how
 * a second statement hides inside what looks like a string.
 */
public final class SqlLexer {

    /** Thrown for text that cannot be tokenised (unterminated string, identifier or comment). */
    public static final class LexException extends Exception {
        private static final long serialVersionUID = 1L;
        private final int offset;

        LexException(String message, int offset) {
            super(message + " at offset " + offset);
            this.offset = offset;
        }

        public int offset() {
            return offset;
        }
    }

    private static final String[] MULTI_CHAR_SYMBOLS = {
        "<=>", ":=", "<=", ">=", "<>", "!=", "||", "&&", "<<", ">>", "->>", "->", "::"
    };

    private final Dialect dialect;
    private final String src;
    private int pos;

    private SqlLexer(Dialect dialect, String src) {
        this.dialect = dialect;
        this.src = src;
    }

    public static List<SqlToken> tokenize(String sql, Dialect dialect) throws LexException {
        return new SqlLexer(dialect, sql).run();
    }

    /** Tokens without whitespace and ordinary comments. */
    public static List<SqlToken> significant(String sql, Dialect dialect) throws LexException {
        return tokenize(sql, dialect).stream().filter(t -> !t.isTrivia()).toList();
    }

    private List<SqlToken> run() throws LexException {
        List<SqlToken> out = new ArrayList<>();
        while (pos < src.length()) {
            int start = pos;
            char c = src.charAt(pos);
            SqlToken.Type type;
            if (Character.isWhitespace(c)) {
                while (pos < src.length() && Character.isWhitespace(src.charAt(pos))) pos++;
                type = SqlToken.Type.WHITESPACE;
            } else if (startsLineComment()) {
                while (pos < src.length() && src.charAt(pos) != '\n' && src.charAt(pos) != '\r') pos++;
                type = SqlToken.Type.COMMENT;
            } else if (c == '/' && peek(1) == '*') {
                // MySQL runs the inside of /*! */ and /*M! */; SQLite would not, but no model has a
                // reason to write one, so it is flagged in every dialect
                boolean executable = peek(2) == '!' || (peek(2) == 'M' && peek(3) == '!');
                int close = src.indexOf("*/", pos + 2);
                if (close < 0) throw new LexException("unterminated comment", start);
                pos = close + 2;
                type = executable ? SqlToken.Type.EXECUTABLE_COMMENT : SqlToken.Type.COMMENT;
            } else if (c == '\'') {
                readQuoted('\'', dialect == Dialect.MYSQL, "string literal");
                type = SqlToken.Type.STRING;
            } else if (c == '"') {
                readQuoted('"', dialect == Dialect.MYSQL, dialect == Dialect.MYSQL ? "string literal" : "quoted identifier");
                type = dialect == Dialect.MYSQL ? SqlToken.Type.STRING : SqlToken.Type.QUOTED_IDENTIFIER;
            } else if (c == '`') {
                readQuoted('`', false, "quoted identifier");
                type = SqlToken.Type.QUOTED_IDENTIFIER;
            } else if (c == '[' && dialect == Dialect.SQLITE) {
                int close = src.indexOf(']', pos + 1);
                if (close < 0) throw new LexException("unterminated quoted identifier", start);
                pos = close + 1;
                type = SqlToken.Type.QUOTED_IDENTIFIER;
            } else if (Character.isDigit(c) || (c == '.' && Character.isDigit(peek(1)))) {
                readNumber();
                type = SqlToken.Type.NUMBER;
            } else if (isWordStart(c)) {
                while (pos < src.length() && isWordPart(src.charAt(pos))) pos++;
                type = SqlToken.Type.WORD;
            } else if (c == '@') {
                pos++;
                if (peek(0) == '@') pos++;
                if (peek(0) == '`' || peek(0) == '\'' || peek(0) == '"') {
                    char q = src.charAt(pos);
                    readQuoted(q, q != '`' && dialect == Dialect.MYSQL, "variable name");
                } else {
                    while (pos < src.length() && (isWordPart(src.charAt(pos)) || src.charAt(pos) == '.')) pos++;
                }
                type = SqlToken.Type.VARIABLE;
            } else {
                pos += symbolLength();
                type = SqlToken.Type.SYMBOL;
            }
            out.add(new SqlToken(type, src.substring(start, pos), start));
        }
        return out;
    }

    private boolean startsLineComment() {
        char c = src.charAt(pos);
        if (c == '#' && dialect == Dialect.MYSQL) return true;
        if (c == '-' && peek(1) == '-') {
            // MySQL needs whitespace or a control character (or end of input) after "--"; SQLite
            // does not. The server tests the next byte with its own (ASCII) ctype table, so only
            // U+0000..U+0020 and U+007F count: "--" followed by U+2003 or U+0085 is not a comment
            // to MySQL/MariaDB, which read those characters as part of an identifier.
            if (dialect == Dialect.SQLITE) return true;
            char after = peek(2);
            return after <= ' ' || after == '\u007F';
        }
        return false;
    }

    private void readQuoted(char quote, boolean backslashEscapes, String what) throws LexException {
        int start = pos;
        pos++; // opening quote
        while (pos < src.length()) {
            char c = src.charAt(pos);
            if (backslashEscapes && c == '\\') {
                pos += 2;
                continue;
            }
            if (c == quote) {
                if (peek(1) == quote) { // doubled quote is an escaped quote
                    pos += 2;
                    continue;
                }
                pos++;
                return;
            }
            pos++;
        }
        throw new LexException("unterminated " + what, start);
    }

    private void readNumber() {
        if (src.charAt(pos) == '0' && (peek(1) == 'x' || peek(1) == 'X' || peek(1) == 'b' || peek(1) == 'B')
                && isWordPart(peek(2))) {
            pos += 2;
            while (pos < src.length() && Character.isLetterOrDigit(src.charAt(pos))) pos++;
            return;
        }
        boolean integer = true;
        while (pos < src.length() && Character.isDigit(src.charAt(pos))) pos++;
        if (pos < src.length() && src.charAt(pos) == '.') {
            integer = false;
            pos++;
            while (pos < src.length() && Character.isDigit(src.charAt(pos))) pos++;
        }
        if (pos < src.length() && (src.charAt(pos) == 'e' || src.charAt(pos) == 'E')) {
            int save = pos;
            pos++;
            if (pos < src.length() && (src.charAt(pos) == '+' || src.charAt(pos) == '-')) pos++;
            if (pos < src.length() && Character.isDigit(src.charAt(pos))) {
                while (pos < src.length() && Character.isDigit(src.charAt(pos))) pos++;
                integer = false;
            } else {
                pos = save;
            }
        }
        // identifiers may start with digits in MySQL (e.g. 1abc, 1e): keep them one token. A
        // decimal or exponent literal ends where its digits end, as in the server: MySQL reads
        // 1.5abc and 1e0FOR as a number followed by a word.
        if (integer) {
            while (pos < src.length() && isWordPart(src.charAt(pos))) pos++;
        }
    }

    private int symbolLength() {
        for (String s : MULTI_CHAR_SYMBOLS) {
            if (src.startsWith(s, pos)) return s.length();
        }
        return 1;
    }

    private char peek(int ahead) {
        int i = pos + ahead;
        return i < src.length() ? src.charAt(i) : 0;
    }

    private static boolean isWordStart(char c) {
        return Character.isLetter(c) || c == '_' || c == '$';
    }

    private static boolean isWordPart(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }
}
