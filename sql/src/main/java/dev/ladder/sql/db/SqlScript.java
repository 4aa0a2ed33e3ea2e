package dev.ladder.sql.db;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.SqlLexer;
import dev.ladder.sql.SqlToken;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Splits a MySQL dump into statements with the same lexer the guard uses, so semicolons inside
 * strings (with backslash escapes) and comments never split a statement.
 */
public final class SqlScript {

    private SqlScript() {}

    /**
     * @return statements without their terminating semicolon; comment-only pieces are dropped
     * @throws UserError when the script cannot be tokenised or uses DELIMITER (not supported)
     */
    public static List<String> split(String script, String origin) {
        List<SqlToken> tokens;
        try {
            tokens = SqlLexer.tokenize(script, Dialect.MYSQL);
        } catch (SqlLexer.LexException e) {
            throw new UserError(origin + ": cannot read SQL script: " + e.getMessage());
        }
        List<String> statements = new ArrayList<>();
        int start = 0;
        boolean meaningful = false;
        for (SqlToken t : tokens) {
            if (t.isSymbol(";")) {
                if (meaningful) statements.add(script.substring(start, t.start()).strip());
                start = t.end();
                meaningful = false;
            } else if (!t.isTrivia()) {
                if (!meaningful && t.isWord("DELIMITER")) {
                    throw new UserError(origin + ": DELIMITER is not supported in SQL scripts (offset " + t.start() + ")");
                }
                meaningful = true;
            }
        }
        if (meaningful) statements.add(script.substring(start).strip());
        return statements;
    }

    /**
     * True for {@code SET NAMES ...} (plain or inside an executable comment): over JDBC the driver
     * owns the connection character set, and changing it under the driver corrupts text.
     */
    static boolean isSetNames(String statement) {
        List<String> w = leadingWords(statement, 3);
        return w.size() >= 2 && w.get(0).equals("SET")
                && (w.get(1).equals("NAMES") || (w.size() == 3 && w.get(1).equals("CHARACTER") && w.get(2).equals("SET")));
    }

    /** True for {@code CREATE DATABASE/SCHEMA} and {@code USE}: the loader chooses the target database itself. */
    static boolean isDatabaseSwitch(String statement) {
        List<String> w = leadingWords(statement, 2);
        return (!w.isEmpty() && w.get(0).equals("USE"))
                || (w.size() == 2 && w.get(0).equals("CREATE") && (w.get(1).equals("DATABASE") || w.get(1).equals("SCHEMA")));
    }

    /** The first {@code n} words of a statement, upper case, reading inside executable comments as the server does. */
    private static List<String> leadingWords(String statement, int n) {
        List<String> words = new ArrayList<>();
        try {
            for (SqlToken t : SqlLexer.tokenize(statement, Dialect.MYSQL)) {
                if (words.size() >= n) break;
                if (t.type() == SqlToken.Type.EXECUTABLE_COMMENT) {
                    String inner = t.text().substring(2, t.text().length() - 2).replaceFirst("^M?!\\d*", "");
                    words.addAll(leadingWords(inner, n - words.size()));
                } else if (t.type() == SqlToken.Type.WORD) {
                    words.add(t.text().toUpperCase(Locale.ROOT));
                } else if (!t.isTrivia()) {
                    break;
                }
            }
        } catch (SqlLexer.LexException e) {
            return List.of();
        }
        return words;
    }
}
