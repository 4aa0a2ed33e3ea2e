package dev.ladder.sql.post;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.SqlLexer;
import dev.ladder.sql.SqlToken;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link SqlLexer} for text that may not lex: model output often ends inside a string, or goes on into prose with an
 * apostrophe. The text lexes normally up to the unterminated construct, which becomes one last token holding the
 * rest of the text.
 */
final class TolerantLexer {

    /**
     * @param tokens  every token of the text, in order, covering it completely
     * @param problem null, or what the last token leaves open (e.g. {@code unterminated string literal})
     */
    record Lexed(List<SqlToken> tokens, String problem) {
        Lexed {
            tokens = List.copyOf(tokens);
        }

        boolean isOpenTail(int index) {
            return problem != null && index == tokens.size() - 1;
        }
    }

    private TolerantLexer() {}

    static Lexed lex(String text, Dialect dialect) {
        try {
            return new Lexed(SqlLexer.tokenize(text, dialect), null);
        } catch (SqlLexer.LexException e) {
            int at = Math.max(0, Math.min(e.offset(), text.length()));
            List<SqlToken> head = new ArrayList<>();
            try {
                // the lexer only looks ahead inside a token, so the text before the failure lexes the same on its own
                head.addAll(SqlLexer.tokenize(text.substring(0, at), dialect));
            } catch (SqlLexer.LexException unexpected) {
                at = 0;
            }
            String rest = text.substring(at);
            head.add(new SqlToken(tailType(rest, dialect), rest, at));
            String message = e.getMessage();
            int cut = message.lastIndexOf(" at offset ");
            return new Lexed(head, cut > 0 ? message.substring(0, cut) : message);
        }
    }

    private static SqlToken.Type tailType(String rest, Dialect dialect) {
        if (rest.startsWith("/*")) return SqlToken.Type.COMMENT;
        if (rest.startsWith("'")) return SqlToken.Type.STRING;
        if (rest.startsWith("\"")) {
            return dialect == Dialect.MYSQL ? SqlToken.Type.STRING : SqlToken.Type.QUOTED_IDENTIFIER;
        }
        if (rest.startsWith("@")) return SqlToken.Type.VARIABLE;
        return SqlToken.Type.QUOTED_IDENTIFIER;
    }
}
