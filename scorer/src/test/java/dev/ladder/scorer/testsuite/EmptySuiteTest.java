package dev.ladder.scorer.testsuite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.scorer.score.ExOptions;
import dev.ladder.scorer.score.MetricItem;
import dev.ladder.scorer.score.Prediction;
import dev.ladder.scorer.score.Scoring;
import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.db.UserError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A suite with no database beyond the original can only repeat the original's verdicts: wherever one is read, TS is
 * missing with the reason, never EX under another name.
 */
class EmptySuiteTest {

    @TempDir
    Path tmp;

    @Test
    void aScorerGivenASuiteOfNoDatabaseHasNoSuiteAndSaysWhy() throws Exception {
        try (Database original = Databases.sqlite(small(tmp.resolve("small.sqlite"), 1, 2))) {
            Scoring s = new Scoring(original, Optional.of(List.of()), ExOptions.DEFAULT, em(original));
            assertThat(s.hasSuite()).isFalse();
            assertThat(s.whyNoSuite()).hasValue("the test suite has no database beyond the original, so TS would be EX");
            assertThat(s.values(new MetricItem("1", "", List.of("SELECT x FROM t")), new Prediction("SELECT x FROM t")))
                    .containsOnlyKeys("VA", "EX", "EM");
        }
    }

    @Test
    void anEmptyManifestLeavesTsMissingWithTheReason() {
        Path dir = tmp.resolve("suite");
        TestSuiteBuilderTest.emptySuite().write(dir);
        Database original = TestData.classicModels();
        List<Database> opened = new ArrayList<>();
        Scoring s = ScoringSetup.create(original, ExOptions.DEFAULT, ScoringSetup.Suite.STORED, dir, opened);
        assertThat(s.hasSuite()).isFalse();
        assertThat(s.whyNoSuite()).hasValueSatisfying(why -> assertThat(why)
                .startsWith("the test suite in " + dir + " has no database beyond the original"));
        assertThat(opened).isEmpty();
    }

    @Test
    void aSqliteSuiteFolderNeedsADatabaseThatIsNotACopyOfTheOriginal() throws Exception {
        Path file = small(tmp.resolve("small.sqlite"), 1, 2);
        Path suites = tmp.resolve("suites");
        Path folder = Files.createDirectories(suites.resolve("small"));
        try (Database original = Databases.sqlite(file)) {
            // no SQLite file in the database's folder
            assertThat(why(original, suites)).hasValue("the test-suite folder " + folder + " holds no SQLite file, so TS"
                    + " would be EX (expected " + folder + "/*.sqlite, the layout of the official test-suite databases)");
            // the original's copy alone, also twice: the same verdicts again
            Files.copy(file, folder.resolve("small.sqlite"));
            Files.copy(file, folder.resolve("small_copy.sqlite"));
            assertThat(why(original, suites)).hasValue("the test-suite folder " + folder + " holds only copies of the"
                    + " original (small.sqlite), so TS would be EX (the official suites add distilled databases beside it)");
            // a database with other rows beside it is a suite
            small(folder.resolve("small_1.sqlite"), 3, 4);
            assertThat(why(original, suites)).isEmpty();
            assertThat(SqliteSuite.find(suites, "small").orElseThrow().variants()).isEqualTo(1);
        }
    }

    @Test
    void aSqliteFolderWithoutTheOriginalsCopyCountsEveryFile() throws Exception {
        Path file = small(tmp.resolve("small.sqlite"), 1, 2);
        Path suites = tmp.resolve("suites");
        small(suites.resolve("small").resolve("variant.sqlite"), 5, 6);
        try (Database original = Databases.sqlite(file);
             Database other = Databases.sqlite(small(tmp.resolve("other.sqlite"), 1, 2))) {
            assertThat(why(original, suites)).isEmpty();
            // a folder of suites without the database's own folder is still a mistake in the path: one line
            assertThatThrownBy(() -> why(other, suites))
                    .isInstanceOf(UserError.class).hasMessageStartingWith("no test suite for other in " + suites);
        }
    }

    /** Why TS is missing when {@code original} is scored with the suites in {@code suites} (empty: it is scored). */
    private static Optional<String> why(Database original, Path suites) {
        List<Database> opened = new ArrayList<>();
        try {
            Scoring s = ScoringSetup.create(original, ExOptions.DEFAULT, ScoringSetup.Suite.STORED, suites, opened);
            assertThat(s.hasSuite()).isEqualTo(s.whyNoSuite().isEmpty());
            return s.whyNoSuite();
        } finally {
            opened.forEach(Database::close);
        }
    }

    private static ExactMatch em(Database db) {
        return new ExactMatch(db.schema(), false);
    }

    /** A SQLite file with one table t(x) holding {@code a} and {@code b}. */
    private static Path small(Path file, int a, int b) throws Exception {
        Files.createDirectories(file.getParent());
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE t (x INTEGER)");
            st.execute("INSERT INTO t VALUES (" + a + "), (" + b + ")");
        }
        return file;
    }
}
