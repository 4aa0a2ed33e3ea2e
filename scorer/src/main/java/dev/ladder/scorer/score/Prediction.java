package dev.ladder.scorer.score;

import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Execution;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A predicted query as the metrics see it, with its executions kept for the metrics of one row: VA, EX and TS
 * ask for the same runs, and each runs once.
 */
public final class Prediction {

    private final String sql;
    private final Map<String, Execution> runs = new ConcurrentHashMap<>();

    public Prediction(String sql) {
        this.sql = sql == null ? "" : sql;
    }

    /** The predicted SQL ({@code ""} when there is none). */
    public String sql() {
        return sql;
    }

    /** True when there is no prediction to score. */
    public boolean isEmpty() {
        return sql.isBlank();
    }

    /** {@code text} (the prediction or a form of it) run on {@code db} by {@code how}, once per database and text. */
    public Execution run(Database db, String text, Function<String, Execution> how) {
        return runs.computeIfAbsent(db.name() + '\u0000' + text, k -> how.apply(text));
    }
}
