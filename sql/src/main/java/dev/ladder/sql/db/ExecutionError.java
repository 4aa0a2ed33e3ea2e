package dev.ladder.sql.db;

/**
 * Why a statement produced no result. {@code kind} is what callers branch on (repair prompts,
 * error taxonomy); {@code message} is the database's or the guard's own words.
 */
public record ExecutionError(Kind kind, String message) {

    public enum Kind {
        /** The text is not valid SQL for the dialect. */
        SYNTAX,
        /** A table (or view) the statement names does not exist. */
        UNKNOWN_TABLE,
        /** A column the statement names does not exist or is ambiguous. */
        UNKNOWN_COLUMN,
        /** The statement ran longer than the time limit and was stopped. */
        TIMEOUT,
        /**
         * The statement examined more rows than its work bound ({@link ExecutionLimits#examinedRows}) and was stopped:
         * unlike {@link #TIMEOUT}, the same statement on the same data is stopped every time, whatever the load.
         */
        WORK_LIMIT,
        /** The guard (or the read-only connection) refused the statement: it is not one read-only query. */
        REJECTED,
        /**
         * Anything else the database reported about the statement (type errors, bad function arguments, ...).
         * Infrastructure failures (lost connection, server gone) are not results: {@link InfrastructureError}.
         */
        OTHER
    }

    public ExecutionError {
        if (kind == null) throw new IllegalArgumentException("kind is required");
        message = message == null ? "" : message.strip();
    }

    @Override
    public String toString() {
        return kind + ": " + message;
    }
}
