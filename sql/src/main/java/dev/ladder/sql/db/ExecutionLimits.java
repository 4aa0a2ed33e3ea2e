package dev.ladder.sql.db;

import java.time.Duration;

/**
 * Limits for one guarded execution.
 *
 * @param timeout      wall-clock limit, enforced by the server where it can (MariaDB {@code max_statement_time})
 *                     and by the client (statement cancel) everywhere
 * @param rowCap       rows kept; more rows mark the result truncated
 * @param examinedRows a work bound that does not depend on the clock: on MariaDB the statement runs with
 *                     {@code LIMIT ROWS EXAMINED} and one that examines more rows fails as
 *                     {@link ExecutionError.Kind#WORK_LIMIT}, on an idle and on a busy machine alike; 0 for none
 *                     (other servers: ignored, the timeout alone applies). Such a run is also reproducible where
 *                     SQL leaves the order of rows open: MariaDB's internal temporary tables go to disk for it, so
 *                     tied rows come in the same order every time (in memory it varies from run to run)
 * @param byteCap      bytes of values kept (a string counts its characters, a blob its bytes, any other value 16):
 *                     reading stops there and marks the result truncated, so an untrusted query cannot fill memory
 */
public record ExecutionLimits(Duration timeout, int rowCap, long examinedRows, long byteCap) {

    /** Bytes one result may hold by default: far above any answer, far below a Colab VM's memory. */
    public static final long DEFAULT_BYTE_CAP = 64L << 20;
    /**
     * One value larger than this cuts the result before its row (no answer needs a value this large; comparing a
     * cut value would be comparing prefixes). The engines bound it too: MariaDB's {@code max_allowed_packet}, and
     * SQLite's length limit, set to {@link #ENGINE_VALUE_LIMIT} on every connection Ladder opens.
     */
    public static final int MAX_VALUE_BYTES = 4 << 20;
    /** The length limit Ladder sets on SQLite connections: a larger string or blob is an error, never built. */
    public static final int ENGINE_VALUE_LIMIT = 16 << 20;

    public static final ExecutionLimits DEFAULT = new ExecutionLimits(Duration.ofSeconds(10), 10_000);

    public ExecutionLimits {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive");
        }
        if (rowCap < 1) throw new IllegalArgumentException("rowCap must be at least 1");
        if (examinedRows < 0) throw new IllegalArgumentException("examinedRows must be 0 (none) or positive");
        if (byteCap < 1) throw new IllegalArgumentException("byteCap must be at least 1");
    }

    public ExecutionLimits(Duration timeout, int rowCap) {
        this(timeout, rowCap, 0, DEFAULT_BYTE_CAP);
    }

    public ExecutionLimits withTimeout(Duration t) {
        return new ExecutionLimits(t, rowCap, examinedRows, byteCap);
    }

    public ExecutionLimits withRowCap(int cap) {
        return new ExecutionLimits(timeout, cap, examinedRows, byteCap);
    }

    public ExecutionLimits withExaminedRows(long rows) {
        return new ExecutionLimits(timeout, rowCap, rows, byteCap);
    }

    public ExecutionLimits withByteCap(long bytes) {
        return new ExecutionLimits(timeout, rowCap, examinedRows, bytes);
    }
}
