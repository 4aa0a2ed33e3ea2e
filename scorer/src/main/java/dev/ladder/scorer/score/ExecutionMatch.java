package dev.ladder.scorer.score;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.SqlLexer;
import dev.ladder.sql.SqlToken;
import dev.ladder.sql.db.QueryResult;
import dev.ladder.sql.read.Query;
import java.util.List;

/**
 * The EX rules that act on the SQL text before execution, and the comparison after it.
 * Pure functions: running the queries (and caching gold results) is {@link Scoring}'s job.
 */
public final class ExecutionMatch {

    private ExecutionMatch() {}

    /**
     * The query as the evaluator runs it, in SPIDER mode as the test-suite evaluator prepares it:
     * {@code > =}, {@code < =} and {@code ! =} (one space) become {@code >=}, {@code <=} and
     * {@code !=} (its {@code postprocess}, here outside literals and comments), and unless
     * {@code keepDistinct} every DISTINCT keyword is dropped (so {@code COUNT(DISTINCT x)} becomes
     * {@code COUNT(x)} in gold and prediction alike). BIRD mode runs queries unchanged.
     */
    public static String prepare(String sql, ExOptions options, Dialect dialect) {
        if (options.mode() != ExMode.SPIDER) return sql;
        List<SqlToken> tokens;
        try {
            tokens = SqlLexer.tokenize(sql, dialect);
        } catch (SqlLexer.LexException e) {
            return sql; // guarded execution will report what is wrong with it
        }
        StringBuilder out = new StringBuilder(sql.length());
        for (int i = 0; i < tokens.size(); i++) {
            SqlToken t = tokens.get(i);
            if (!options.keepDistinct() && t.isWord("DISTINCT")) continue;
            out.append(t.text());
            if (i + 2 < tokens.size() && (t.isSymbol(">") || t.isSymbol("<") || t.isSymbol("!"))
                    && tokens.get(i + 1).text().equals(" ") && tokens.get(i + 2).isSymbol("=")) {
                out.append('=');
                i += 2;
            }
        }
        return out.toString();
    }

    /**
     * Whether row order counts: the gold has ORDER BY anywhere outside literals and comments ({@link Query#ordersRows}).
     */
    public static boolean goldOrdered(String goldSql, Dialect dialect) {
        return Query.read(goldSql, dialect).ordersRows();
    }

    /** EX for two results of queries already run; {@code goldSql} decides whether order counts. */
    public static boolean equal(String goldSql, QueryResult gold, QueryResult predicted, ExOptions options, Dialect dialect) {
        return ResultComparison.equal(gold, predicted, goldOrdered(goldSql, dialect), options);
    }
}
