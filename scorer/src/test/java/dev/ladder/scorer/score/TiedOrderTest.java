package dev.ladder.scorer.score;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.scorer.SqliteFixtures;
import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** EX against ordered golds whose sort keys tie, on a hand-made SQLite database. */
class TiedOrderTest {

    @TempDir
    static Path dir;
    private static Database db;

    @BeforeAll
    static void setUp() throws Exception {
        Path file = dir.resolve("ties.sqlite");
        // b, c and d tie on score; insertion order is the order SQLite returns ties in
        SqliteFixtures.create(file, "CREATE TABLE t (name TEXT, score INTEGER)",
                "INSERT INTO t VALUES ('a', 3), ('b', 2), ('c', 2), ('d', 2), ('e', 1)");
        db = Databases.sqlite(file);
    }

    @AfterAll
    static void tearDown() {
        db.close();
    }

    private static boolean ex(String gold, String predicted) {
        Scoring s = new Scoring(db, Optional.empty(), ExOptions.DEFAULT, new ExactMatch(db.schema(), false));
        return s.score("q", "test", List.of(gold), predicted).ex();
    }

    @Test
    void rowsWithinATieMayComeInAnyOrder() {
        assertThat(ex("SELECT name FROM t ORDER BY score DESC", "SELECT name FROM t ORDER BY score DESC, name DESC")).isTrue();
        assertThat(ex("SELECT name, score FROM t ORDER BY score DESC", "SELECT score, name FROM t ORDER BY 1 DESC, 2 DESC"))
                .as("selected sort key, columns swapped").isTrue();
    }

    @Test
    void orderAcrossDifferentKeysStillCounts() {
        assertThat(ex("SELECT name FROM t ORDER BY score DESC", "SELECT name FROM t ORDER BY score ASC")).isFalse();
        assertThat(ex("SELECT name FROM t ORDER BY score DESC", "SELECT name FROM t ORDER BY name DESC")).isFalse();
        assertThat(ex("SELECT name FROM t ORDER BY score DESC", "SELECT name FROM t ORDER BY name")).as("a, b, c, d, e is a valid order").isTrue();
        assertThat(ex("SELECT name FROM t ORDER BY score DESC", "SELECT name FROM t WHERE score > 1 ORDER BY score DESC"))
                .isFalse();
    }

    @Test
    void aLimitCuttingATieAcceptsAnyValidChoice() {
        String gold = "SELECT name FROM t ORDER BY score DESC LIMIT 2";
        assertThat(ex(gold, "SELECT name FROM t ORDER BY score DESC, name DESC LIMIT 2")).isTrue();
        assertThat(ex(gold, "SELECT name FROM t ORDER BY score DESC, name LIMIT 2")).isTrue();
        assertThat(ex(gold, "SELECT name FROM t WHERE name IN ('a', 'e') ORDER BY name")).as("e is not tied").isFalse();
        assertThat(ex(gold, "SELECT name FROM t WHERE name IN ('c', 'a') ORDER BY name DESC")).as("tie row first").isFalse();
        assertThat(ex("SELECT name FROM t ORDER BY score DESC LIMIT 1 OFFSET 2",
                "SELECT name FROM t WHERE name = 'b'")).as("offset and limit inside the tie").isTrue();
        assertThat(ex("SELECT name FROM t ORDER BY score DESC LIMIT 1 OFFSET 2",
                "SELECT name FROM t WHERE name = 'e'")).isFalse();
    }

    @Test
    void aKeyTheEngineCannotRankStillTies() {
        // a window function cannot sit in another's ORDER BY: its values are compared instead
        String gold = "SELECT name, RANK() OVER (ORDER BY score DESC) AS r FROM t ORDER BY r LIMIT 2";
        assertThat(ex(gold, "SELECT name, RANK() OVER (ORDER BY score DESC) AS r FROM t ORDER BY r, name DESC LIMIT 2")).isTrue();
        assertThat(ex(gold, "SELECT name, RANK() OVER (ORDER BY score DESC) AS r FROM t ORDER BY r DESC LIMIT 2")).isFalse();
    }
}
