package dev.ladder.scorer.score;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.scorer.MariaDbFixtures;
import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.sql.db.Database;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Dates and times on MariaDB compare as the server prints them: a DATETIME(3) prints three digits of fraction
 * ({@code 2020-01-02 03:04:05.000}), a DATETIME none, so each equals its own text and not the other.
 */
class MariaDbDatesTest {

    private static final String NAME = "ladder_dates_test";
    private static Database db;

    @BeforeAll
    static void setUp() throws Exception {
        db = MariaDbFixtures.create(NAME,
                "CREATE TABLE stamps (id INT PRIMARY KEY, at DATETIME, at3 DATETIME(3), ts2 TIMESTAMP(2) NULL, t3 TIME(3), t TIME, "
                        + "day DATE, text VARCHAR(30))",
                "INSERT INTO stamps VALUES (1, '2020-01-02 03:04:05', '2020-01-02 03:04:05', '2020-01-02 03:04:05', '03:04:05', "
                        + "'03:04:05', '2020-01-02', '2020-01-02T03:04:05'), "
                        + "(2, '2020-01-02 03:04:06', '2020-01-02 03:04:05.5', '2020-01-02 03:04:05.25', '03:04:05.5', '03:04:06', "
                        + "'2020-01-03', '2020-01-02 03:04:05.000')");
    }

    @AfterAll
    static void tearDown() throws Exception {
        db.close();
        MariaDbFixtures.drop(NAME);
    }

    private static boolean ex(String gold, String predicted) {
        Scoring s = new Scoring(db, Optional.empty(), ExOptions.DEFAULT, new ExactMatch(db.schema(), false));
        return s.score("q", "date", List.of(gold), predicted).ex();
    }

    @Test
    void everyTemporalEqualsItsOwnText() {
        for (String column : List.of("at", "at3", "ts2", "t3", "t", "day")) {
            for (int id = 1; id <= 2; id++) {
                String where = " FROM stamps WHERE id = " + id;
                assertThat(ex("SELECT " + column + where, "SELECT CAST(" + column + " AS CHAR)" + where)).as("%s %d", column, id).isTrue();
                assertThat(ex("SELECT CONCAT(" + column + ", '')" + where, "SELECT " + column + where)).as("%s %d", column, id).isTrue();
            }
        }
        assertThat(ex("SELECT at3 FROM stamps ORDER BY id", "SELECT MAX(at3) FROM stamps GROUP BY id ORDER BY id")).isTrue();
    }

    @Test
    void valuesPrintedDifferentlyDiffer() {
        String whole = "SELECT at FROM stamps WHERE id = 1";
        assertThat(ex(whole, "SELECT at3 FROM stamps WHERE id = 1")).as("05 is not 05.000").isFalse();
        assertThat(ex(whole, "SELECT text FROM stamps WHERE id = 1")).as("T form").isFalse();
        assertThat(ex(whole, "SELECT text FROM stamps WHERE id = 2")).as("05.000 text").isFalse();
        assertThat(ex("SELECT at3 FROM stamps WHERE id = 1", "SELECT text FROM stamps WHERE id = 2")).as("05.000 both").isTrue();
        assertThat(ex("SELECT at3 FROM stamps WHERE id = 2", "SELECT '2020-01-02 03:04:05.5'")).as("05.500 is not 05.5").isFalse();
        assertThat(ex("SELECT at3 FROM stamps WHERE id = 2", "SELECT '2020-01-02 03:04:05.500'")).isTrue();
        assertThat(ex("SELECT t FROM stamps WHERE id = 1", "SELECT t3 FROM stamps WHERE id = 1")).as("03:04:05 is not 03:04:05.000").isFalse();
        assertThat(ex("SELECT day FROM stamps WHERE id = 1", "SELECT CAST(day AS DATETIME) FROM stamps WHERE id = 1")).isFalse();
    }
}
