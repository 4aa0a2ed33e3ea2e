package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.scorer.testsuite.RandomDatabaseGenerator;
import dev.ladder.scorer.testsuite.TestSuite;
import dev.ladder.sql.db.EmbeddedMariaDb;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.db.UserError;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Argument handling of 'ladder testsuite', and a build that stores nothing (a real build is TestSuiteBuilderTest's). */
class TestSuiteCommandTest {

    record Run(int code, String out, String err) {}

    /** Runs the command as Ladder does: user errors are one line and exit code 2. */
    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new TestSuiteCommand());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        cli.setParameterExceptionHandler((ex, a) -> {
            err.write("ladder: " + ex.getMessage() + "\n");
            return Ladder.USER_ERROR;
        });
        cli.setExecutionExceptionHandler((ex, c, p) -> {
            if (ex instanceof UserError) {
                err.write("ladder: " + ex.getMessage() + "\n");
                return Ladder.USER_ERROR;
            }
            throw ex;
        });
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void unknownDatabaseIsAUserError() {
        Run r = run("build", "northwind");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).startsWith("ladder: cannot build a test suite for 'northwind'").hasLineCount(1);
    }

    @Test
    void badNumbersAreUserErrors() {
        assertThat(run("build", "classicmodels", "--size", "0").err()).contains("--size must be at least 1");
        assertThat(run("build", "classicmodels", "--size", "0").code()).isEqualTo(2);
        assertThat(run("build", "classicmodels", "--max-candidates", "x").code()).isEqualTo(2);
        assertThat(run("build", "classicmodels", "--time-limit", "0").err()).contains("--time-limit must be at least 1 second");
    }

    @Test
    void benchRejectsBadRepeatBeforeTouchingAnySuite() {
        Run r = run("bench", "classicmodels", "--repeat", "0");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("ladder: --repeat must be at least 1, got 0\n");
        assertThat(run("bench", "--help").out()).contains("--pred", "--repeat", "--split");
    }

    @Test
    void aBuildThatRunsOutOfItsTimeLimitStoresNothingAndSaysWhy() throws Exception {
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
        Path manifest = TestSuite.defaultDir("classicmodels").resolve(TestSuite.MANIFEST);
        // a seed of its own: its databases are named apart from the stored suite's (another build may replace that)
        LadderCliTest.Run r = LadderCliTest.run("testsuite", "build", "classicmodels", "--time-limit", "1", "--seed", "4049");
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(2);
        assertThat(r.err()).startsWith("ladder: the test suite build ran out of its time limit (1 s) while ")
                .contains("nothing was stored (a stored suite is unchanged): raise --time-limit").hasLineCount(1);
        assertThat(r.out()).doesNotContain("databases kept", "fingerprint");
        assertThat(RandomDatabaseGenerator.databasesStartingWith(EmbeddedMariaDb.shared(), "ts_classicmodels_s4049_")).isEmpty();
        if (Files.isRegularFile(manifest)) assertThat(TestSuite.load(manifest.getParent()).orElseThrow().seed()).isNotEqualTo(4049);
    }

    @Test
    void infoAndBenchRefuseAStoredSuiteWithoutADatabase(@TempDir Path tmp) throws Exception {
        // as a build stored one before such suites were refused
        Path dir = Files.createDirectories(tmp.resolve("classicmodels"));
        Files.writeString(dir.resolve(TestSuite.MANIFEST), "{\"database\": \"classicmodels\", \"databases\": [],"
                + " \"candidates\": 0, \"fingerprint\": \"" + TestSuite.EMPTY_FINGERPRINT + "\"}");
        assertThatThrownBy(() -> TestSuiteCommand.stored("classicmodels", dir)).isInstanceOf(UserError.class)
                .hasMessage("the test suite in " + dir + " has no database beyond the original (0 candidates tried, none"
                        + " kept), so its TS would be EX: rebuild it with 'ladder testsuite build classicmodels'");
    }

    @Test
    void helpListsTheOptions() {
        Run r = run("build", "--help");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("--size", "--seed", "--split", "--max-candidates", "--per-database");
    }
}
