package dev.ladder.scorer.score;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.scorer.SqliteFixtures;
import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SQLite has no date type: a date read from a DATE column and the same date out of an expression are one answer. */
class SqliteDatesTest {

    @TempDir
    Path dir;

    private Database transcripts() throws Exception {
        Path file = dir.resolve("transcripts.sqlite");
        SqliteFixtures.create(file,
                "CREATE TABLE Transcripts (transcript_id INTEGER PRIMARY KEY, transcript_date DATETIME, issued DATE)",
                "INSERT INTO Transcripts VALUES (1, '1975-10-28 15:39:04', '1975-10-28'), "
                        + "(2, '2013-09-17 18:08:37', '2013-09-17'), (3, '1988-02-23 00:00:00', '1988-02-23')");
        return Databases.sqlite(file);
    }

    private static boolean ex(Database db, String gold, String predicted) {
        Scoring s = new Scoring(db, Optional.empty(), ExOptions.DEFAULT, new ExactMatch(db.schema(), false));
        return s.score("q", "date", List.of(gold), predicted).ex();
    }

    @Test
    void aDateOutOfAnExpressionEqualsTheSameDateFromItsColumn() throws Exception {
        try (Database db = transcripts()) {
            String gold = "SELECT transcript_date FROM Transcripts ORDER BY transcript_date DESC LIMIT 1";
            assertThat(ex(db, gold, "SELECT MAX(transcript_date) FROM Transcripts")).isTrue();
            assertThat(ex(db, gold, "SELECT CAST(transcript_date AS TEXT) FROM Transcripts WHERE transcript_id = 2")).isTrue();
            assertThat(ex(db, "SELECT transcript_date FROM Transcripts WHERE transcript_id = 3",
                    "SELECT transcript_date || '' FROM Transcripts WHERE transcript_id = 3")).isTrue();
            assertThat(ex(db, "SELECT issued FROM Transcripts", "SELECT MIN(issued) || '' FROM Transcripts GROUP BY transcript_id")).isTrue();
            // a different date, and a date against a date-time, still differ
            assertThat(ex(db, gold, "SELECT MIN(transcript_date) FROM Transcripts")).isFalse();
            assertThat(ex(db, "SELECT issued FROM Transcripts WHERE transcript_id = 3",
                    "SELECT transcript_date FROM Transcripts WHERE transcript_id = 3")).isFalse();
        }
    }

    @Test
    void dateTimeTextWrittenAnotherWayIsTheTextItPrints() throws Exception {
        Path file = dir.resolve("stamps.sqlite");
        // made-up stamps, written three ways SQLite keeps as they are
        SqliteFixtures.create(file, "CREATE TABLE stamps (id INTEGER PRIMARY KEY, at DATETIME, day DATE)",
                "INSERT INTO stamps VALUES (1, '2020-01-02T03:04:05', '2020-01-02'), (2, '2020-01-02 03:04:05.000', '2020-01-02'), "
                        + "(3, '2020-01-02 03:04:05.500', '2020-01-02'), (4, '2020-01-02 03:04:05', '2020-01-02')");
        try (Database db = Databases.sqlite(file)) {
            for (int id = 1; id <= 4; id++) {
                String gold = "SELECT at FROM stamps WHERE id = " + id;
                assertThat(ex(db, gold, "SELECT CAST(at AS TEXT) FROM stamps WHERE id = " + id)).as("id %d as text", id).isTrue();
                assertThat(ex(db, gold, "SELECT at || '' FROM stamps WHERE id = " + id)).as("id %d || ''", id).isTrue();
                assertThat(ex(db, gold, "SELECT MAX(at) FROM stamps WHERE id = " + id)).as("id %d MAX", id).isTrue();
            }
            // the same instant printed differently is not the same answer
            for (int id = 1; id <= 3; id++) {
                assertThat(ex(db, "SELECT at FROM stamps WHERE id = " + id, "SELECT at FROM stamps WHERE id = 4")).as("id %d", id).isFalse();
                assertThat(ex(db, "SELECT at FROM stamps WHERE id = " + id, "SELECT '2020-01-02 03:04:05'")).as("id %d", id).isFalse();
            }
            assertThat(ex(db, "SELECT at FROM stamps WHERE id = 3", "SELECT '2020-01-02 03:04:05.5'")).isFalse();
            assertThat(ex(db, "SELECT at FROM stamps WHERE id = 4", "SELECT '2020-01-02 03:04:05'")).isTrue();
            assertThat(ex(db, "SELECT at FROM stamps ORDER BY id", "SELECT CAST(at AS TEXT) FROM stamps ORDER BY id")).isTrue();
        }
    }
}
