package dev.ladder.eval.score;

import dev.ladder.eval.SqliteFixtures;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.eval.score.em.ExactMatch;
import dev.ladder.pipeline.db.Database;
import dev.ladder.pipeline.db.Databases;
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
}
