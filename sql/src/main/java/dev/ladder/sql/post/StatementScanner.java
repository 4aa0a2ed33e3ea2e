package dev.ladder.sql.post;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.SqlToken;
import dev.ladder.sql.SqlToken.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Finds where the statement that starts at the beginning of a text ends: at the first {@code ;}, at the closing
 * backtick or bold mark of a wrapper, or before a line that is no SQL (a {@code Label:} line such as an invented
 * {@code Question:} exemplar, a Markdown line, a prose sentence, or a second SELECT). Everything is decided on
 * tokens, so a {@code ;} or a {@code Question:} inside a string or a comment does not end the statement.
 */
final class StatementScanner {

    /**
     * @param tokens  the statement's tokens (trivia included), from its first word on
     * @param problem what an unterminated last token leaves open, or null
     */
    record Statement(List<SqlToken> tokens, String problem) {
        Statement {
            tokens = List.copyOf(tokens);
        }
    }

    private final List<SqlToken> tokens;
    private final String text;
    private final StatementStart.Start start;
    private final Steps steps;

    private StatementScanner(List<SqlToken> tokens, String text, StatementStart.Start start, Steps steps) {
        this.tokens = tokens;
        this.text = text;
        this.start = start;
        this.steps = steps;
    }

    /** {@code text} begins with the statement's first word. */
    static Statement scan(String text, StatementStart.Start start, Dialect dialect, Steps steps) {
        String region = text;
        int fence = region.indexOf("```");
        if (fence >= 0) {
            // a closing fence whose opening held no query (the prompt may have opened it)
            region = region.substring(0, fence);
            steps.add(Steps.CODE_FENCE);
            if (!text.substring(fence).replace("`", "").isBlank()) steps.add(Steps.TRAILING_TEXT);
        }
        TolerantLexer.Lexed lexed = TolerantLexer.lex(region, dialect);
        return new StatementScanner(lexed.tokens(), region, start, steps).run(lexed);
    }

    private Statement run(TolerantLexer.Lexed lexed) {
        int depth = 0;
        SqlToken prev = null;
        SqlToken prevPrev = null;
        for (int i = 0; i < tokens.size(); i++) {
            SqlToken t = tokens.get(i);
            if (lexed.isOpenTail(i)) {
                if (start.backtick() && t.text().startsWith("`")) return closeBacktickWrapper(i, t);
                return t.type() == Type.COMMENT ? cut(i + 1, null) : cut(i + 1, lexed.problem());
            }
            if (t.isSymbol(";")) {
                steps.add(Steps.SEMICOLON);
                afterEnd(t.end());
                return cut(i, null);
            }
            if (t.type() == Type.WHITESPACE && (t.text().indexOf('\n') >= 0 || t.text().indexOf('\r') >= 0)
                    && i + 1 < tokens.size() && endsBefore(i + 1, depth, prev, prevPrev)) {
                steps.add(Steps.TRAILING_TEXT);
                return cut(i, null);
            }
            if (depth == 0 && isSentenceEnd(i, prev, prevPrev)) {
                steps.add(Steps.TRAILING_TEXT);
                return cut(i, null);
            }
            if (isBoldMark(i, prev)) {
                steps.add(Steps.MARKDOWN);
                afterEnd(tokens.get(i + 1).end());
                return cut(i, null);
            }
            if (start.backtick() && t.type() == Type.QUOTED_IDENTIFIER && t.text().replace("`", "").isEmpty()
                    && text.substring(t.end()).isBlank()) {
                steps.add(Steps.BACKTICKS);
                return cut(i, null);
            }
            if (t.isSymbol("(")) depth++;
            if (t.isSymbol(")")) depth--;
            if (!t.isTrivia()) {
                prevPrev = prev;
                prev = t;
            }
        }
        return cut(tokens.size(), null);
    }

    /**
     * The wrapper's closing backtick made the lexer read an open quoted identifier. Either the tail starts with it,
     * or the query ends in a quoted name and {@code `name``} holds the name's closing quote and the wrapper's.
     */
    private Statement closeBacktickWrapper(int i, SqlToken tail) {
        steps.add(Steps.BACKTICKS);
        int doubled = tail.text().indexOf("``", 1);
        if (doubled < 0) {
            closeWrapper(tail.start());
            return cut(i, null);
        }
        List<SqlToken> kept = new ArrayList<>(tokens.subList(0, i));
        kept.add(new SqlToken(Type.QUOTED_IDENTIFIER, tail.text().substring(0, doubled + 1), tail.start()));
        closeWrapper(tail.start() + doubled + 1);
        return new Statement(kept, null);
    }

    private Statement cut(int endExclusive, String problem) {
        return new Statement(tokens.subList(0, endExclusive), problem);
    }

    /** Text after the statement's end: a wrapper's closing mark alone is that wrapper; anything else is dropped text. */
    private void afterEnd(int offset) {
        String rest = text.substring(Math.min(offset, text.length())).strip();
        if (rest.isEmpty()) return;
        if (start.backtick() && rest.startsWith("`")) {
            steps.add(Steps.BACKTICKS);
            closeWrapper(text.indexOf('`', offset));
            return;
        }
        if (start.bold() && rest.startsWith("**")) {
            steps.add(Steps.MARKDOWN);
            rest = rest.substring(2).strip();
        }
        if (!rest.isEmpty()) steps.add(Steps.TRAILING_TEXT);
    }

    /** Names what follows the closing backtick(s) of a wrapper starting at {@code offset}. */
    private void closeWrapper(int offset) {
        int i = Math.max(0, Math.min(offset, text.length()));
        while (i < text.length() && text.charAt(i) == '`') i++;
        String rest = text.substring(i).strip();
        if (rest.startsWith("**")) {
            steps.add(Steps.MARKDOWN);
            rest = rest.substring(2).strip();
        }
        if (!rest.isEmpty()) steps.add(Steps.TRAILING_TEXT);
    }

    /**
     * A full stop after a complete statement, followed by a new sentence ("... FROM customers. This query ..."). A dot
     * at the very end is left alone: a truncated {@code c.} must stay dangling, not become {@code c}.
     */
    private boolean isSentenceEnd(int i, SqlToken prev, SqlToken prevPrev) {
        if (!tokens.get(i).isSymbol(".")) return false;
        int next = afterTrivia(i + 1);
        return next >= 0 && isProse(next) && SqlWords.dangling(prev, prevPrev) == null;
    }

    /** Two adjacent {@code *} after a complete operand: Markdown bold, never SQL. */
    private boolean isBoldMark(int i, SqlToken prev) {
        if (i + 1 >= tokens.size() || !tokens.get(i).isSymbol("*") || !tokens.get(i + 1).isSymbol("*")) return false;
        return prev != null && !prev.isSymbol(",") && !prev.isSymbol("(") && !prev.isSymbol(".")
                && !prev.isWord("SELECT") && !prev.isWord("DISTINCT");
    }

    /** Whether the line starting at token {@code j} is no longer part of the statement. */
    private boolean endsBefore(int j, int depth, SqlToken prev, SqlToken prevPrev) {
        SqlToken first = tokens.get(j);
        if (isLabel(j)) return true;
        if (isMarkdownLine(j)) return true;
        if (depth != 0 || SqlWords.dangling(prev, prevPrev) != null) return false;
        if (SqlWords.isQueryStart(first)) return true;
        int k = j;
        if ((first.isSymbol("-") || first.isSymbol("*") || isListNumber(first))
                && k + 2 < tokens.size() && tokens.get(k + 1).type() == Type.WHITESPACE) {
            k += 2;
        }
        return isProse(k);
    }

    private static boolean isListNumber(SqlToken t) {
        return t.type() == Type.NUMBER && t.text().endsWith(".");
    }

    /** {@code Word:} or up to four words then a colon ({@code Question:}, {@code **Note:**}, {@code SQL Query:}). */
    private boolean isLabel(int j) {
        int k = j;
        while (k < tokens.size() && tokens.get(k).isSymbol("*")) k++;
        int words = 0;
        while (k < tokens.size() && words < 4 && tokens.get(k).type() == Type.WORD) {
            words++;
            k++;
            if (k < tokens.size() && isBlank(tokens.get(k)) && k + 1 < tokens.size()
                    && tokens.get(k + 1).type() == Type.WORD) {
                k++;
            }
        }
        while (k < tokens.size() && tokens.get(k).isSymbol("*")) k++;
        return words > 0 && k < tokens.size() && tokens.get(k).isSymbol(":");
    }

    private static final Set<String> RULE_MARKS = Set.of("-", "=", "*", "_", "#");

    /** A Markdown heading ({@code #} in SQLite; in MySQL it is a comment), bold line or horizontal rule. */
    private boolean isMarkdownLine(int j) {
        SqlToken first = tokens.get(j);
        if (first.isSymbol("#")) return true;
        if (first.isSymbol("*") && j + 1 < tokens.size() && tokens.get(j + 1).isSymbol("*")) return true;
        int k = j;
        int marks = 0;
        while (k < tokens.size()) {
            SqlToken t = tokens.get(k);
            if (t.type() == Type.SYMBOL && RULE_MARKS.contains(t.text())) {
                marks++;
            } else if (t.type() == Type.COMMENT && t.text().matches("-+")) {
                marks += t.text().length(); // "---" lexes as "-" and a "--" comment in MySQL
            } else {
                break;
            }
            k++;
        }
        boolean lineEnds = k == tokens.size()
                || tokens.get(k).type() == Type.WHITESPACE && tokens.get(k).text().contains("\n");
        return marks >= 3 && lineEnds;
    }

    /**
     * A sentence: a capitalised word that is no SQL followed by a lower-case word that is no SQL ("This query",
     * "Note that"), a word with an apostrophe ("Here's"), or three non-SQL words in a row, which no query has.
     */
    private boolean isProse(int k) {
        SqlToken w1 = word(k);
        if (w1 == null) return false;
        String a = w1.text();
        boolean capitalised = Character.isUpperCase(a.charAt(0)) && !a.equals(a.toUpperCase());
        if (k + 1 < tokens.size() && a.length() > 1 && capitalised) {
            SqlToken next = tokens.get(k + 1);
            if (next.type() == Type.STRING && next.text().startsWith("'")) return true;
        }
        // words may be apart by newlines or comments: the verdict must not change once those are normalised
        int k2 = afterTrivia(k + 1);
        SqlToken w2 = word(k2);
        if (w2 == null) return false;
        if (capitalised && w2.text().matches("[a-z]{2,}")) return true;
        return word(afterTrivia(k2 + 1)) != null;
    }

    /** The index after the trivia run starting at {@code k}; -1 when no trivia stands there. */
    private int afterTrivia(int k) {
        int j = k;
        while (j < tokens.size() && tokens.get(j).isTrivia()) j++;
        return j > k ? j : -1;
    }

    /** The token at {@code k} when it is an unquoted word that is no SQL. */
    private SqlToken word(int k) {
        if (k < 0 || k >= tokens.size()) return null;
        SqlToken t = tokens.get(k);
        return t.type() == Type.WORD && !SqlWords.isSqlWord(t.text()) ? t : null;
    }

    private static boolean isBlank(SqlToken t) {
        return t.type() == Type.WHITESPACE && t.text().indexOf('\n') < 0;
    }
}
