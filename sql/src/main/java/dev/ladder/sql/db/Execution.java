package dev.ladder.sql.db;

/** Outcome of guarded execution: a result or a structured error, never an exception to parse. */
public sealed interface Execution permits Execution.Success, Execution.Failure {

    String sql();

    default boolean ok() {
        return this instanceof Success;
    }

    record Success(String sql, QueryResult result) implements Execution {}

    record Failure(String sql, ExecutionError error) implements Execution {}

    static Execution failure(String sql, ExecutionError.Kind kind, String message) {
        return new Failure(sql, new ExecutionError(kind, message));
    }
}
