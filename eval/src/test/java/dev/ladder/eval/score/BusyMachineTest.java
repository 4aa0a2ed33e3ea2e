package dev.ladder.eval.score;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.eval.SqliteFixtures;
import dev.ladder.eval.score.em.ExactMatch;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.DatabaseKind;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionError;
import dev.ladder.sql.db.ExecutionLimits;
import dev.ladder.sql.schema.Schema;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TS does not depend on how busy the machine was: a suite database on which a statement times out once (a loaded
 * machine) gets a second, longer try, for the prediction and for the gold; a statement that times out again is
 * flagged, never a silent 0. The database that times out is a wrapper of a real SQLite fixture.
 */
class BusyMachineTest {

    @TempDir Path tmp;

    /** A real database whose first run of each statement times out, as on a machine too busy to finish in time. */
    private static final class BusyOnce implements Database {
        private final Database inner;
        private final Set<String> tried = new HashSet<>();
        private final String always;

        /** @param always statements containing this text time out every time (null: none) */
        BusyOnce(Database inner, String always) {
            this.inner = inner;
            this.always = always;
        }

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
            if ((always != null && sql.contains(always)) || (tried.add(sql) && !sql.toUpperCase().contains("DENSE_RANK"))) {
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

    private Database fixture(String name) throws Exception {
        Path file = SqliteFixtures.create(tmp.resolve(name + ".sqlite"),
                "CREATE TABLE staff (id INTEGER PRIMARY KEY, name TEXT, boss INTEGER)",
                "INSERT INTO staff VALUES (1, 'Ada', NULL), (2, 'Bo', 1), (3, 'Cy', 1), (4, 'Di', 2)");
        return Databases.sqlite(file);
    }

    @Test
    void aTimeoutOnASuiteDatabaseIsTriedAgainAndASecondOneIsFlagged() throws Exception {
        String gold = "SELECT name FROM staff WHERE id NOT IN (SELECT boss FROM staff WHERE boss IS NOT NULL)";
        String same = "SELECT name FROM staff WHERE (id NOT IN (SELECT boss FROM staff WHERE boss IS NOT NULL))";
        try (Database original = fixture("original"); Database suite = new BusyOnce(fixture("suite"), null);
             Database stuck = new BusyOnce(fixture("stuck"), "(id NOT IN")) {
            Scoring once = new Scoring(original, Optional.of(List.of(suite)), ExOptions.DEFAULT,
                    new ExactMatch(original.schema(), false));
            ItemScore s = once.score("x", "c", List.of(gold), same);
            assertThat(s.ex()).isTrue();
            assertThat(s.ts()).isTrue();
            assertThat(s.flags()).noneMatch(f -> f.startsWith("timeout") || f.startsWith("gold-failed"));

            Scoring never = new Scoring(original, Optional.of(List.of(stuck)), ExOptions.DEFAULT,
                    new ExactMatch(original.schema(), false));
            ItemScore t = never.score("x", "c", List.of(gold), same);
            assertThat(t.ts()).isFalse();
            assertThat(t.flags()).contains("timeout:" + stuck.name()).noneMatch(f -> f.startsWith("gold-failed"));
        }
    }
}
