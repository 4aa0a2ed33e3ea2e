package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** A bug in a command is one line on stderr and exit 1; the stack trace only on request. */
class InternalErrorTest {

    record Run(int code, String out, String err) {}

    @Command(name = "boom")
    static final class Boom implements Callable<Integer> {
        @Override
        public Integer call() {
            throw new IllegalStateException("the index went wrong\nsecond line");
        }
    }

    @Command(name = "deep")
    static final class Deep implements Callable<Integer> {
        @Override
        public Integer call() {
            return recurse(0);
        }

        private static int recurse(int n) {
            return recurse(n + 1) + 1;
        }
    }

    /** What a command meets when a jar it needs is not on the classpath. */
    @Command(name = "missing-jar")
    static final class MissingJar implements Callable<Integer> {
        @Override
        public Integer call() {
            throw new NoClassDefFoundError("ai/onnxruntime/OrtException");
        }
    }

    @Command(name = "heap")
    static final class Heap implements Callable<Integer> {
        @Override
        public Integer call() {
            throw new OutOfMemoryError("Java heap space");
        }
    }

    private static Run run(String... args) {
        CommandLine cli = new CommandLine(new Ladder());
        cli.addSubcommand("boom", new Boom());
        cli.addSubcommand("deep", new Deep());
        cli.addSubcommand("missing-jar", new MissingJar());
        cli.addSubcommand("heap", new Heap());
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Ladder.execute(cli, args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(code, out.toString(), err.toString());
    }

    @AfterEach
    void clearDebug() {
        System.clearProperty("ladder.debug");
    }

    @Test
    void unexpectedExceptionIsOneLineAndExitOne() {
        Run r = run("boom");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).hasLineCount(1)
                .startsWith("ladder: internal error: java.lang.IllegalStateException: the index went wrong (please report;")
                .contains("LADDER_DEBUG=1")
                .doesNotContain("\tat ");
    }

    @Test
    void aFullHeapIsOneLineSayingHowMuchAndWhatToDo() {
        Run r = run("heap");
        assertThat(r.code()).isEqualTo(Ladder.FAILED);
        assertThat(r.err()).hasLineCount(1).startsWith("ladder: out of memory: the JVM's heap (")
                .contains("LADDER_JAVA_OPTS=-Xmx").doesNotContain("\tat ");
    }

    @Test
    void stackOverflowIsOneLineToo() {
        Run r = run("deep");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).hasLineCount(1).startsWith("ladder: internal error: java.lang.StackOverflowError");
    }

    @Test
    void aClassMissingFromTheClasspathIsOneLineNamingIt() {
        Run r = run("missing-jar");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).hasLineCount(1).isEqualTo("ladder: this installation lacks the class ai/onnxruntime/OrtException"
                + " (its jar is not on the classpath; ./scripts/setup builds a complete one)" + System.lineSeparator());
    }

    @Test
    void debugPrintsTheStackTraceAfterTheLine() {
        System.setProperty("ladder.debug", "true");
        Run r = run("boom");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).startsWith("ladder: internal error: java.lang.IllegalStateException")
                .contains("\tat " + Boom.class.getName() + ".call");
    }

    @Test
    void userErrorsStayExitTwo() {
        Run r = run("sql");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).startsWith("ladder: ").hasLineCount(1);
    }
}
