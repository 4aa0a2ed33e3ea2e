package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.eval.experiment.ClassicModelsExemplars;
import dev.ladder.inference.text.PromptFormats;
import dev.ladder.pipeline.prompt.Example;
import dev.ladder.pipeline.prompt.ExemplarSelector;
import dev.ladder.pipeline.prompt.SqlPrompt;
import dev.ladder.sql.db.SchemaRenderer;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** 'ladder adapters export-train': training prompts are the inference prompts, byte for byte. */
class AdaptersExportCommandTest {

    record Run(int code, String out, String err) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private static Benchmark bench;
    private static String schema;

    @TempDir
    Path dir;

    @BeforeAll
    static void setUp() {
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
        bench = Benchmarks.load("classicmodels");
        schema = SchemaRenderer.summary(TestData.classicModels().schema());
    }

    /** The command with the error handling of {@link Ladder#run} (it is registered under 'ladder adapters' there). */
    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        PrintWriter errWriter = new PrintWriter(err, true);
        CommandLine cli = new CommandLine(new AdaptersExportCommand());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(errWriter);
        cli.setParameterExceptionHandler((ex, a) -> {
            errWriter.println("ladder: " + ex.getMessage());
            return Ladder.USER_ERROR;
        });
        cli.setExecutionExceptionHandler((ex, c, p) -> {
            if (ex instanceof UserError) {
                errWriter.println("ladder: " + ex.getMessage());
                return Ladder.USER_ERROR;
            }
            throw ex;
        });
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private List<JsonNode> export(String promptFormat, int k) throws IOException {
        Path file = dir.resolve("train-" + promptFormat + "-k" + k + ".jsonl");
        Run r = run("--benchmark", "classicmodels", "--split", "train", "--format", "chat-jsonl", "--out", file.toString(),
                "--k", Integer.toString(k), "--prompt-format", promptFormat);
        assertThat(r.err()).isEmpty();
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("wrote 200 training items", "k=" + k, promptFormat);
        List<JsonNode> rows = new ArrayList<>();
        for (String line : Files.readAllLines(file)) rows.add(JSON.readTree(line));
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left.filter(p -> p.getFileName().toString().endsWith(".tmp"))).isEmpty();
        }
        return rows;
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 3})
    void trainingPromptIsTheInferencePromptUpToTheAnswer(int k) throws IOException {
        List<JsonNode> rows = export("llama3-chat", k);
        List<BenchmarkItem> items = bench.split("train");
        // the path a prompt-only strategy takes: selector -> SqlPrompt -> PromptFormat
        ExemplarSelector selector = ClassicModelsExemplars.selector(bench, "fixed", ClassicModelsExemplars.DEFAULT_SEED);
        SqlPrompt inference = SqlPrompt.of(PromptFormats.byName("llama3-chat"));
        for (int i = 0; i < items.size(); i++) {
            BenchmarkItem item = items.get(i);
            JsonNode row = rows.get(i);
            List<Example> exemplars = k == 0 ? List.of() : selector.select(item.question(), k);
            String prompt = inference.prompt(schema, exemplars, item.question());
            assertThat(row.get("prompt").asText()).as(item.id()).isEqualTo(prompt);
            String full = row.get("prompt").asText() + row.get("completion").asText();
            assertThat(full).startsWith(prompt).isEqualTo(prompt + item.sql() + "<|eot_id|>");
            assertThat(prompt).startsWith("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n")
                    .endsWith("SQL:<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"llama3-chat", "chatml", "completion"})
    void everyFormatExportsTheWholeTrainSplitWithGoldAnswers(String format) throws IOException {
        String end = switch (format) {
            case "llama3-chat" -> "<|eot_id|>";
            case "chatml" -> "<|im_end|>";
            default -> "<|end_of_text|>";
        };
        List<String> fixed = ClassicModelsExemplars.fixedIds();
        ExemplarSelector selector = ClassicModelsExemplars.selector(bench, "fixed", ClassicModelsExemplars.DEFAULT_SEED);
        SqlPrompt inference = SqlPrompt.of(PromptFormats.byName(format));
        for (int k : new int[] {0, 3}) {
            List<JsonNode> rows = export(format, k);
            List<BenchmarkItem> items = bench.split("train");
            assertThat(rows).hasSize(200);
            for (int i = 0; i < rows.size(); i++) {
                JsonNode row = rows.get(i);
                BenchmarkItem item = items.get(i);
                assertThat(row.get("id").asText()).isEqualTo(item.id());
                JsonNode messages = row.get("messages");
                assertThat(messages).hasSize(3);
                assertThat(List.of(messages.get(0).get("role").asText(), messages.get(1).get("role").asText(),
                        messages.get(2).get("role").asText())).containsExactly("system", "user", "assistant");
                assertThat(messages.get(2).get("content").asText()).isEqualTo(item.sql());
                assertThat(messages.get(1).get("content").asText()).endsWith("Question: " + item.question() + "\nSQL:");
                assertThat(row.get("completion").asText()).endsWith(item.sql() + end);
                String prompt = row.get("prompt").asText();
                List<Example> chosen = k == 0 ? List.of() : selector.select(item.question(), k);
                assertThat(prompt).as(item.id()).isEqualTo(inference.prompt(schema, chosen, item.question()));
                assertThat(row.get("completion").asText()).isEqualTo(inference.answerTurn(item.sql()));
                assertThat(prompt.split(java.util.regex.Pattern.quote("Question: " + item.question() + "\n"), -1)).hasSize(2);
                List<String> exemplarIds = new ArrayList<>();
                row.get("exemplars").forEach(e -> exemplarIds.add(e.asText()));
                assertThat(exemplarIds).hasSize(k).doesNotContain(item.id());
                if (k == 3) {
                    List<String> expected = new ArrayList<>(fixed);
                    expected.remove(item.id());
                    assertThat(exemplarIds).isEqualTo(expected.subList(0, 3));
                    for (String id : exemplarIds) {
                        String sql = items.stream().filter(x -> x.id().equals(id)).findFirst().orElseThrow().sql();
                        assertThat(prompt).contains("SQL: " + sql + "\n");
                    }
                }
            }
            if (k == 3) {
                // the three fixed exemplars themselves get the other two and the spare
                JsonNode first = rows.stream().filter(r -> r.get("id").asText().equals(fixed.get(0))).findFirst().orElseThrow();
                assertThat(first.get("exemplars").toString()).isEqualTo("[\"" + fixed.get(1) + "\",\"" + fixed.get(2) + "\",\"" + fixed.get(3) + "\"]");
            }
        }
    }

    @Test
    void userErrorsAreOneLineAndWriteNothing() throws IOException {
        Path out = dir.resolve("out.jsonl");
        Path aFile = Files.writeString(dir.resolve("plain"), "x");
        String[][] cases = {
            {"--benchmark", "nope", "--out", out.toString()},
            {"--benchmark", "classicmodels", "--split", "dev", "--out", out.toString()},
            {"--benchmark", "classicmodels", "--format", "alpaca", "--out", out.toString()},
            {"--benchmark", "classicmodels", "--prompt-format", "vicuna", "--out", out.toString()},
            {"--benchmark", "classicmodels", "--k", "2", "--out", out.toString()},
            {"--benchmark", "classicmodels", "--k", "two", "--out", out.toString()},
            {"--benchmark", "classicmodels", "--out", aFile.resolve("x.jsonl").toString()},
            {"--benchmark", "classicmodels", "--out", dir.toString()},
            {"--out", out.toString()},
        };
        for (String[] args : cases) {
            Run r = run(args);
            assertThat(r.code()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.err().strip().lines()).as(String.join(" ", args)).hasSize(1);
            assertThat(r.err()).startsWith("ladder: ");
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrderElementsOf(Set.of("plain"));
        }
    }

    @Test
    void helpNamesTheOptions() {
        Run r = run("--help");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("export-train", "--benchmark", "--split", "--format", "--out", "--k", "--prompt-format");
    }
}
