package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.inference.openai.ScriptedServer;
import dev.ladder.inference.openai.ScriptedServer.Reply;
import dev.ladder.sql.db.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scorers.judge}: every prediction of a run judged by another served model (a scripted server: the thing around
 * the judge pass under test), the verdicts stored with the rows, the report's judge column and agreement table, and a
 * restarted run that asks the judge nothing again.
 */
class JudgeRunTest {

    @TempDir static Path tmp;

    @BeforeAll
    static void data() {
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
    }

    static String judgeAnswer(String body) {
        // YES exactly for the customer count; the judge sees the SQL in its prompt
        boolean yes = body.contains("SELECT COUNT(*) FROM customers");
        String text = yes ? "CORRECT: YES\\nREASONING: it counts the customers." : "CORRECT: NO\\nREASONING: wrong table.";
        return "{\"choices\":[{\"index\":0,\"text\":\"" + text + "\",\"finish_reason\":\"stop\"}],"
                + "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5}}";
    }

    static ScriptedServer judgeServer() throws Exception {
        return new ScriptedServer(0, (n, seen) -> switch (seen.path()) {
            case "/v1/models" -> Reply.ok("{\"object\":\"list\",\"data\":[{\"id\":\"scripted-judge\",\"object\":\"model\"}]}");
            case "/version" -> Reply.ok("{\"version\":\"0.0-scripted\"}");
            default -> Reply.ok(judgeAnswer(seen.body()));
        });
    }

    @Test
    void everyPredictionIsJudgedOnceAndTheReportComparesTheJudgeWithEx() throws Exception {
        try (ScriptedServer model = ServedRunTest.server(0, (n, seen) -> Reply.ok(ServedRunTest.answer(seen.body())));
             ScriptedServer judge = judgeServer()) {
            Path yaml = tmp.resolve("judged.yaml");
            Files.writeString(yaml, """
                    name: judged
                    benchmark: classicmodels
                    split: train
                    limit: 10
                    seeds: [0]
                    output: %s
                    models:
                      served:
                        engine: openai
                        base_url: http://127.0.0.1:%d/v1
                        model: scripted-sql
                        prompt_format: llama3-chat
                      judge:
                        engine: openai
                        base_url: http://127.0.0.1:%d/v1
                        model: scripted-judge
                        prompt_format: chatml
                    strategies:
                      - {name: prompt-k0, strategy: prompt-k0, model: served}
                    settings:
                      max_new_tokens: 24
                    scorers:
                      ts: none
                      judge: judge
                    """.formatted(tmp.resolve("unused"), model.port(), judge.port()));
            Path run = tmp.resolve("run");
            String cache = tmp.resolve("cache-" + System.nanoTime() + ".sqlite").toString();
            LadderCliTest.Run r = LadderCliTest.run("run", yaml.toString(), "--out", run.toString(), "--no-progress",
                    "--generation-cache", cache);
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(r.err()).contains("judge judge: 10 predictions judged");
            List<ItemResult> rows;
            try (ResultsStore store = ResultsStore.openReadOnly(run.resolve(RunDirectory.RESULTS))) {
                rows = store.results();
            }
            assertThat(rows).hasSize(10).allSatisfy(row -> {
                assertThat(row.judge()).isNotNull();
                assertThat(row.judgeReason()).isNotBlank();
            });
            // only predictions that execute reach the judge; the verdict follows what the judge was shown
            long executing = rows.stream().filter(ItemResult::va).count();
            assertThat(judge.seen("/v1/completions")).hasSize((int) executing);
            assertThat(rows).allSatisfy(row -> assertThat(row.judge())
                    .isEqualTo(row.predicted().equals("SELECT COUNT(*) FROM customers")));
            assertThat(rows).filteredOn(row -> !row.va()).allSatisfy(row ->
                    assertThat(row.judgeReason()).isIn("it does not execute", "no SQL to judge"));
            String report = Files.readString(run.resolve("report/report.md"));
            assertThat(report).contains("LLM judge against EX").contains("| Judge");
            assertThat(Files.readString(run.resolve("config.yaml"))).contains("judge: judge");

            // started again: every row has its verdict, the judge is not asked again
            int before = judge.seen("/v1/completions").size();
            LadderCliTest.Run again = LadderCliTest.run("run", yaml.toString(), "--out", run.toString(), "--no-progress",
                    "--generation-cache", cache);
            assertThat(again.code()).as(again.err()).isZero();
            assertThat(judge.seen("/v1/completions")).hasSize(before);
        }
    }

    @Test
    void anUnknownJudgeModelIsOneLineNamingTheField() throws Exception {
        Path yaml = tmp.resolve("bad-judge.yaml");
        Files.writeString(yaml, """
                name: bad
                benchmark: classicmodels
                models:
                  base: {path: Qwen/Qwen2.5-0.5B-Instruct}
                strategies: [prompt-k0]
                scorers:
                  judge: referee
                """);
        LadderCliTest.Run r = LadderCliTest.run("run", yaml.toString(), "--no-progress");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip()).isEqualTo("ladder: " + yaml + ": scorers.judge: unknown model 'referee'; the judge must be one of models: base");
    }
}
