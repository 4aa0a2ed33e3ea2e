package dev.ladder.pipeline.db;

import dev.ladder.pipeline.sql.SqlLexer;
import dev.ladder.pipeline.sql.SqlToken;
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
        String s = statement.toUpperCase(Locale.ROOT).replaceAll("/\\*!\\d*", " ").replace("*/", " ").strip();
        return s.startsWith("SET NAMES") || s.startsWith("SET CHARACTER SET");
    }
}
