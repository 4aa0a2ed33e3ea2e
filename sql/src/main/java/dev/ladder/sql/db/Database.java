package dev.ladder.sql.db;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.schema.Schema;
import java.util.Optional;

/**
 * One database a benchmark runs against. Model output is untrusted: {@link #execute} runs exactly
 * one read-only query on a read-only connection with a timeout and a row cap, and reports failures
 * as values.
 */
public interface Database extends AutoCloseable {

    /** Name of the database (schema name for MySQL, file stem for SQLite). */
    String name();

    DatabaseKind kind();

    default Dialect dialect() {
        return kind().dialect();
    }

    /** Guarded execution with {@link ExecutionLimits#DEFAULT}. */
    default Execution execute(String sql) {
        return execute(sql, ExecutionLimits.DEFAULT);
    }

    /** Guarded execution: never throws for anything the SQL text can cause. */
    Execution execute(String sql, ExecutionLimits limits);

    /**
     * The database's plan for a query, without running it ({@code EXPLAIN}; SQLite: {@code EXPLAIN QUERY PLAN}),
     * under the same guard and limits as {@link #execute}: a cheap check that every name resolves and the statement
     * is valid before it is run. Empty when this database cannot explain.
     */
    default Optional<Execution> explain(String sql, ExecutionLimits limits) {
        return Optional.empty();
    }

    /** Tables, columns, keys and row counts (computed once, then cached). */
    Schema schema();

    @Override
    void close();
}
