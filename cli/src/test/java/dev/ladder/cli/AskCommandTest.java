package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.cli.LadderCliTest.Run;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Trace;
import dev.ladder.pipeline.strategy.TraceStep;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.ExecutionLimits;
import dev.ladder.sql.db.TestData;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ladder ask}: a tiny random-weight model through the rungs, the trace in both forms, one-line user errors. */
class AskCommandTest {

    static final String QUESTION = "How many customers are in France?";

    @TempDir static Path tmp;
    static Path tiny;

    @BeforeAll
    static void tinyModel() {
        System.setProperty("ai.djl.offline", "true");
        LadderCliTest.dataDir();
        tiny = tmp.resolve("tiny");
        TinyModels.write(tiny, TinyModels.Shape.TINY, 1, DType.F32);
    }

    static Run ask(String... more) {
        String[] args = new String[4 + more.length];
        args[0] = "ask";
        args[1] = "classicmodels";
        args[2] = QUESTION;
        args[3] = "--model=" + tiny;
        System.arraycopy(more, 0, args, 4, more.length);
        return LadderCliTest.run(args);
    }

    @Test
    void traceTextShowsEveryCallAndTheDecision() {
        Run r = ask("--strategy", "agent-3", "--max-tokens", "4", "--candidates", "1", "--trace");
        assertThat(r.out()).startsWith("question ask, strategy agent-3\n")
                .contains("  generate standard: greedy, 1 output, prompt ")
                .contains("  generate tabular: greedy")
                .contains("  generate samples: t=0.3 seed=" + dev.ladder.pipeline.strategy.Settings.DEFAULT.poolSeed() + ", 1 output")
                .containsPattern("(?m)^answer \\((standard|tabular|sample-1|repair|fallback|none), .+\\): ")
                .containsPattern("(?m)^tokens: prompt [1-9]\\d*, generated [1-9]\\d*; \\d+ ms$");
        // random weights rarely write SQL: either the answer executes (0) or there is none / it fails (1)
        if (r.code() == 0) {
            assertThat(r.out()).containsPattern("(?m)^\\(\\d+\\+? rows?");
        } else {
            assertThat(r.code()).as(r.err()).isEqualTo(1);
            assertThat(r.err()).matches("(no SQL|error): [^\\n]+\\n");
        }
    }

    @Test
    void traceJsonIsOneLineThatReadsBack() {
        Run r = ask("--strategy", "prompt-k3", "--max-tokens", "4", "--trace-json");
        assertThat(r.code()).as(r.err()).isIn(0, 1);
        assertThat(r.out()).endsWith("\n");
        assertThat(r.out().strip()).doesNotContain("\n");
        Trace t = Trace.fromJson(r.out().strip());
        assertThat(t.strategy()).isEqualTo("prompt-k3");
        assertThat(t.questionId()).isEqualTo("ask");
        assertThat(t.steps(TraceStep.Generate.class)).singleElement()
                .satisfies(g -> assertThat(g.generatedTokens()).isBetween(1, 4));
        assertThat(t.steps(TraceStep.Execute.class)).isEmpty();
        assertThat(t.toJson()).isEqualTo(r.out().strip());
    }

    @Test
    void reportPrintsTheSqlAndTheFirstRowsOrTheErrorWithExitOne() {
        Database db = TestData.classicModels();
        Answer ok = answer("SELECT officeCode, city FROM offices ORDER BY officeCode", "standard", "the candidate executes");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = AskCommand.report(ok, db, ExecutionLimits.DEFAULT, 2, false, false, new PrintWriter(out), new PrintWriter(err));
        assertThat(code).isZero();
        assertThat(err.toString()).isEmpty();
        assertThat(out.toString()).isEqualTo("""
                SELECT officeCode, city FROM offices ORDER BY officeCode

                officeCode  city
                ----------  -------------
                1           San Francisco
                2           Boston
                (7 rows, first 2 shown; standard: the candidate executes)
                """);

        Answer failing = answer("SELECT nope FROM offices", "fallback", "the candidate does not execute; the baseline output");
        StringWriter out2 = new StringWriter();
        StringWriter err2 = new StringWriter();
        assertThat(AskCommand.report(failing, db, ExecutionLimits.DEFAULT, 20, true, false, new PrintWriter(out2),
                new PrintWriter(err2))).isEqualTo(1);
        assertThat(out2.toString()).startsWith(failing.trace().toText() + "\nSELECT nope FROM offices\n");
        assertThat(err2.toString()).startsWith("error: UNKNOWN_COLUMN: ").endsWith("\n");
    }

    private static Answer answer(String sql, String chosen, String decision) {
        return new Answer(sql, new Trace.Builder("ask", "agent-0").build(sql, chosen, decision));
    }

    @Test
    void userErrorsAreOneLineAndExitTwo() throws IOException {
        ModelCliTest.assertUserError(ask("--strategy", "agent-9"),
                "--strategy: unknown strategy 'agent-9' (known: prompt-k0, prompt-k3, agent-0, agent-1, agent-2, agent-3, prompt-k1, structured-search, gsr, soft-attention, progressive");
        ModelCliTest.assertUserError(LadderCliTest.run("ask", "classicmodels", QUESTION, "--model", tmp.resolve("none").toString()),
                "no such model directory: ");
        ModelCliTest.assertUserError(ask("--adapter", tmp.resolve("no-adapter").toString()), "adapter directory not found: ");
        Path empty = Files.createDirectories(tmp.resolve("empty-adapter"));
        ModelCliTest.assertUserError(ask("--adapter", empty.toString()), "");
        ModelCliTest.assertUserError(LadderCliTest.run("ask", "nodb", QUESTION, "--model", tiny.toString()), "unknown database 'nodb'");
        ModelCliTest.assertUserError(ask("--max-tokens", "0"), "--max-tokens must be >= 1, got 0");
        // --set reads a pipeline's knobs the way an experiment file's settings block does
        ModelCliTest.assertUserError(ask("--set", "gsr.temperature=-1"), "--set: settings.gsr.temperature: must be >= 0");
        ModelCliTest.assertUserError(ask("--set", "gate_budgets=1"), "--set: settings.gate_budgets: unknown field (did you mean 'gate_budget'?)");
        ModelCliTest.assertUserError(ask("--set", "gsr"), "--set: gsr: expected KEY=VALUE");
        ModelCliTest.assertUserError(ask("--trace", "--trace-json"), "");
        ModelCliTest.assertUserError(ask("--exemplars", "best"), "--exemplars must be fixed or similar, got 'best'");
    }
}
