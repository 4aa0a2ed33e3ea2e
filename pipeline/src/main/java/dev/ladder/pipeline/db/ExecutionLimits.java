package dev.ladder.pipeline.db;

import java.time.Duration;

/**
 * Limits for one guarded execution.
 *
 * @param timeout wall-clock limit, enforced by the server where it can (MariaDB {@code max_statement_time})
 *                and by the client (statement cancel) everywhere
 * @param rowCap  rows kept; more rows mark the result truncated
 */
public record ExecutionLimits(Duration timeout, int rowCap) {

    public static final ExecutionLimits DEFAULT = new ExecutionLimits(Duration.ofSeconds(10), 10_000);

    public ExecutionLimits {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive");
        }
        if (rowCap < 1) throw new IllegalArgumentException("rowCap must be at least 1");
    }

    public ExecutionLimits withTimeout(Duration t) {
        return new ExecutionLimits(t, rowCap);
    }

    public ExecutionLimits withRowCap(int cap) {
        return new ExecutionLimits(timeout, cap);
    }
}
