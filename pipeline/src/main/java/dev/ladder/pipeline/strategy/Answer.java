package dev.ladder.pipeline.strategy;

import java.util.Objects;

/**
 * What a strategy answers.
 *
 * @param sql   the final SQL, {@code ""} when the strategy has nothing to offer (every output was rejected)
 * @param trace everything that led to it
 */
public record Answer(String sql, Trace trace) {
    public Answer {
        Objects.requireNonNull(sql, "sql");
        Objects.requireNonNull(trace, "trace");
    }

    public boolean empty() {
        return sql.isEmpty();
    }
}
