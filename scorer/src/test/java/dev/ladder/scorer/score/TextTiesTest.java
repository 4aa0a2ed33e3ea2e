package dev.ladder.scorer.score;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.scorer.MariaDbFixtures;
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

/**
 * Text sort keys tie as the engine's collation compares them, no wider and no narrower: SQLite compares text exactly
 * (BINARY) unless a column says otherwise; MariaDB's default collations ignore case and trailing spaces (and accents,
 * with {@code utf8mb4_general_ci}), a {@code _bin} collation does not.
 */
class TextTiesTest {

    private static final String MARIADB = "ladder_text_ties";

    @TempDir
    static Path dir;
    private static Database sqlite;
    private static Database mariaDb;

    @BeforeAll
    static void setUp() throws Exception {
        // made-up airlines: three spellings of one abbreviation, then another abbreviation
        sqlite = Databases.sqlite(SqliteFixtures.create(dir.resolve("airlines.sqlite"),
                "CREATE TABLE airlines (uid INTEGER PRIMARY KEY, airline TEXT, abbrev TEXT, code TEXT COLLATE NOCASE)",
                "INSERT INTO airlines VALUES (1, 'Alpha', 'US', 'ab'), (2, 'Beta', 'US ', 'AB'), (3, 'Gamma', 'us', 'Ab'), "
                        + "(4, 'Delta', 'ZA', 'zz')"));
        mariaDb = MariaDbFixtures.create(MARIADB,
                "CREATE TABLE airlines (uid INT PRIMARY KEY, airline VARCHAR(20), "
                        + "abbrev VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci, "
                        + "code VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)",
                "INSERT INTO airlines VALUES (1, 'Alpha', 'US', 'ab'), (2, 'Beta', 'US ', 'AB'), (3, 'Gamma', 'us', 'Ab'), "
                        + "(4, 'Delta', 'ZA', 'zz'), (5, 'Epsilon', 'éa', 'ea'), (6, 'Zeta', 'EA', 'eb')");
    }

    @AfterAll
    static void tearDown() throws Exception {
        sqlite.close();
        mariaDb.close();
        MariaDbFixtures.drop(MARIADB);
    }

    private static boolean ex(Database db, String gold, String predicted) {
        Scoring s = new Scoring(db, Optional.empty(), ExOptions.DEFAULT, new ExactMatch(db.schema(), false));
        return s.score("q", "test", List.of(gold), predicted).ex();
    }

    @Test
    void sqliteTextKeysTieOnlyWhenEqual() {
        String gold = "SELECT airline FROM airlines ORDER BY abbrev LIMIT 1";
        assertThat(ex(sqlite, gold, gold)).isTrue();
        // 'US' < 'US ' < 'us' in BINARY: the first row is fixed
        assertThat(ex(sqlite, gold, "SELECT airline FROM airlines WHERE uid = 1")).isTrue();
        assertThat(ex(sqlite, gold, "SELECT airline FROM airlines WHERE abbrev LIKE 'US%' ORDER BY abbrev DESC LIMIT 1")).isFalse();
        assertThat(ex(sqlite, gold, "SELECT airline FROM airlines WHERE uid = 2")).isFalse();
        String all = "SELECT airline FROM airlines ORDER BY abbrev";
        assertThat(ex(sqlite, all, "SELECT airline FROM airlines ORDER BY CAST(abbrev AS BLOB) DESC LIMIT 4")).isFalse();
        assertThat(ex(sqlite, all, "SELECT airline FROM airlines ORDER BY CAST(abbrev AS BLOB)")).isTrue();
        assertThat(ex(sqlite, all, "SELECT airline FROM airlines ORDER BY lower(abbrev), uid DESC")).isFalse();
    }

    @Test
    void aSqliteColumnCollationIsTheEnginesTie() {
        // code is COLLATE NOCASE: 'ab', 'AB' and 'Ab' tie there
        String gold = "SELECT airline FROM airlines ORDER BY code LIMIT 1";
        assertThat(ex(sqlite, gold, "SELECT airline FROM airlines WHERE uid = 3")).isTrue();
        assertThat(ex(sqlite, gold, "SELECT airline FROM airlines WHERE uid = 4")).isFalse();
    }

    @Test
    void mariaDbTiesFollowTheColumnsCollation() {
        String gold = "SELECT airline FROM airlines WHERE uid <= 4 ORDER BY abbrev LIMIT 1";
        for (int uid = 1; uid <= 3; uid++) {
            assertThat(ex(mariaDb, gold, "SELECT airline FROM airlines WHERE uid = " + uid)).as("uid " + uid).isTrue();
        }
        assertThat(ex(mariaDb, gold, "SELECT airline FROM airlines WHERE uid = 4")).isFalse();
        // utf8mb4_general_ci ignores accents: 'éa' and 'EA' tie
        String accents = "SELECT airline FROM airlines ORDER BY abbrev LIMIT 1";
        assertThat(ex(mariaDb, accents, "SELECT airline FROM airlines WHERE uid = 5")).isTrue();
        assertThat(ex(mariaDb, accents, "SELECT airline FROM airlines WHERE uid = 6")).isTrue();
        // utf8mb4_bin compares bytes: 'AB' < 'Ab' < 'ab', no tie
        String bin = "SELECT airline FROM airlines ORDER BY code LIMIT 1";
        assertThat(ex(mariaDb, bin, "SELECT airline FROM airlines WHERE uid = 2")).isTrue();
        assertThat(ex(mariaDb, bin, "SELECT airline FROM airlines WHERE uid = 1")).isFalse();
    }
}
