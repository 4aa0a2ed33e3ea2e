package dev.ladder.scorer.score;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.scorer.SqliteFixtures;
import dev.ladder.scorer.TimingOutDatabase;
import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
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

    /** A real database whose first run of each statement times out, and statements containing {@code always} every time. */
    private static Database busyOnce(Database inner, String always) {
        Set<String> tried = new HashSet<>();
        return new TimingOutDatabase(inner, sql -> (always != null && sql.contains(always))
                || (tried.add(sql) && !sql.toUpperCase().contains("DENSE_RANK")));
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
        try (Database original = fixture("original"); Database suite = busyOnce(fixture("suite"), null);
             Database stuck = busyOnce(fixture("stuck"), "(id NOT IN")) {
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
