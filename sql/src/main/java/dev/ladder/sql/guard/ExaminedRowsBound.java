package dev.ladder.sql.guard;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.SqlToken;
import dev.ladder.sql.read.OuterClauses;
import java.util.List;
import java.util.Optional;

/**
 * MariaDB's work bound on one statement: {@code LIMIT ROWS EXAMINED n} on the outermost query (after its own
 * {@code LIMIT}, or as a {@code LIMIT} of its own). Unlike a time limit it stops the same statement on the same data
 * every time, whatever the machine's load. Every other character of the statement stays as written.
 */
public final class ExaminedRowsBound {

    private ExaminedRowsBound() {}

    /**
     * The statement with the bound, or empty when it cannot carry one: not one SELECT this reader understands,
     * already bounded by its own {@code ROWS EXAMINED}, or ending in a clause the bound may not follow.
     */
    public static Optional<String> apply(String sql, long rows) {
        if (rows <= 0) throw new IllegalArgumentException("rows must be positive");
        Optional<OuterClauses> parsed = OuterClauses.parse(sql, Dialect.MYSQL);
        if (parsed.isEmpty()) return Optional.empty();
        OuterClauses q = parsed.get();
        List<SqlToken> t = q.tokens;
        int depth = 0;
        for (SqlToken tok : t) {
            if (tok.isSymbol("(")) depth++;
            else if (tok.isSymbol(")")) depth--;
            else if (tok.isWord("examined")) return Optional.empty();
            // FOR UPDATE / LOCK IN SHARE MODE / INTO / PROCEDURE: never read-only, and the bound would not parse
            else if (depth == 0 && (tok.isWord("for") || tok.isWord("lock") || tok.isWord("into") || tok.isWord("procedure"))) {
                return Optional.empty();
            }
        }
        int at = t.get(t.size() - 1).end();
        String bound = q.limit != null ? " ROWS EXAMINED " + rows : " LIMIT ROWS EXAMINED " + rows;
        return Optional.of(sql.substring(0, at) + bound + sql.substring(at));
    }
}
