package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.sql.db.UserError;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Argument handling of 'ladder testsuite' (a real build is exercised by TestSuiteBuilderTest). */
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
    void helpListsTheOptions() {
        Run r = run("build", "--help");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("--size", "--seed", "--split", "--max-candidates", "--per-database");
    }
}
