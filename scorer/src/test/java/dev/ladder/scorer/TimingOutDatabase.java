package dev.ladder.scorer;

import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.DatabaseKind;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionError;
import dev.ladder.sql.db.ExecutionLimits;
import dev.ladder.sql.schema.Schema;
import java.util.function.Predicate;

/**
 * A real database whose chosen statements time out, as on a machine too busy to finish them in time: the thing around
 * a scorer under test, since a real timeout depends on the machine.
 *
 * @param timesOut which statements time out (it may keep state: "the first run of each")
 */
public record TimingOutDatabase(Database inner, Predicate<String> timesOut) implements Database {

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public DatabaseKind kind() {
        return inner.kind();
    }

    @Override
    public Execution execute(String sql, ExecutionLimits limits) {
        if (timesOut.test(sql)) {
            return new Execution.Failure(sql, new ExecutionError(ExecutionError.Kind.TIMEOUT, "statement timed out"));
        }
        return inner.execute(sql, limits);
    }

    @Override
    public Schema schema() {
        return inner.schema();
    }

    @Override
    public void close() {
        inner.close();
    }
}
