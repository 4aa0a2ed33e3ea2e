package dev.ladder.example.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.cli.LadderCliTestAccess;
import dev.ladder.cli.LadderCliTestAccess.Run;
import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.inference.engine.Engines;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.sql.db.TestData;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proof that an engine plugs in through its package and one registration line: {@link CannedEngine} lives only in
 * test sources, and {@code ladder run}, {@code ask}, {@code generate} and {@code serve} load it, read its own field and
 * apply its refusals with no edit anywhere else. A tiny random-weight folder lends it a tokenizer.
 */
class CannedEngineTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String REPLY = "SELECT COUNT(*) FROM offices";

    @TempDir static Path tmp;
    static Path tiny;

    @BeforeAll
    static void model() {
        System.setProperty("ai.djl.offline", "true");
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
        tiny = tmp.resolve("tiny");
        TinyModels.write(tiny, TinyModels.Shape.TINY, 1, DType.F32);
    }

    @Test
    void theRegistryListsItAfterTheBuiltInEngines() {
        assertThat(Engines.registry().names()).containsExactly("auto", "djl", "onnx", "openai", "oracle", CannedEngine.NAME);
        assertThat(ExperimentLoader.KNOWN_ENGINES).contains(CannedEngine.NAME);
        assertThat(Engines.registry().commandLineNames()).contains(CannedEngine.NAME).doesNotContain("oracle");
    }

    @Test
    void runAnswersWithItAndRecordsIt() throws Exception {
        Path yaml = tmp.resolve("canned.yaml");
        Path run = tmp.resolve("run");
        Files.writeString(yaml, """
                name: canned
                benchmark: classicmodels
                split: train
                limit: 3
                models:
                  canned: {engine: canned, path: %s, reply: "%s"}
                strategies:
                  - {name: prompt-k0, strategy: prompt-k0, model: canned}
                scorers: {ts: none}
                """.formatted(tiny, REPLY));
        Run r = LadderCliTestAccess.run("run", yaml.toString(), "--out", run.toString(), "--no-progress");
        assertThat(r.code()).as(r.err()).isZero();
        List<ItemResult> rows;
        try (ResultsStore store = ResultsStore.openReadOnly(run.resolve(RunDirectory.RESULTS))) {
            rows = store.results();
        }
        assertThat(rows).hasSize(3).allSatisfy(x -> assertThat(x.predicted()).startsWith(REPLY));
        JsonNode env = JSON.readTree(run.resolve("environment.json").toFile());
        assertThat(env.path("models.canned.engine").asText()).isEqualTo(CannedEngine.NAME);
        assertThat(env.path("models.canned.reply").asText()).isEqualTo(REPLY);
        // its own field is part of the resolved config, and nothing it does not take
        assertThat(Files.readString(run.resolve("config.yaml"))).contains("reply: " + REPLY).doesNotContain("dtype:");

        // what it refuses is one line naming the field, before anything is made
        Files.writeString(yaml, Files.readString(yaml).replace("reply: \"" + REPLY + "\"", "reply: \" \""));
        Run refused = LadderCliTestAccess.run("run", yaml.toString(), "--out", tmp.resolve("refused").toString(),
                "--no-progress");
        assertThat(refused.code()).isEqualTo(2);
        assertThat(refused.err()).contains("models.canned.reply: engine canned needs a reply that is not blank")
                .doesNotContain("\tat ");
        assertThat(tmp.resolve("refused")).doesNotExist();
    }

    @Test
    void askAndGenerateLoadItByName() throws Exception {
        Run ask = LadderCliTestAccess.run("ask", "classicmodels", "How many customers are there?", "--strategy",
                "prompt-k0", "--model", tiny.toString(), "--engine", CannedEngine.NAME);
        assertThat(ask.code()).as(ask.err()).isZero();
        assertThat(ask.out()).contains(CannedEngine.DEFAULT_REPLY);

        Run gen = LadderCliTestAccess.run("generate", "--model", tiny.toString(), "--engine", CannedEngine.NAME,
                "--max-tokens", "64", "--json", "Count the customers:");
        assertThat(gen.code()).as(gen.err()).isZero();
        assertThat(JSON.readTree(gen.out().strip()).path("text").asText()).isEqualTo(CannedEngine.DEFAULT_REPLY);

        Run dtype = LadderCliTestAccess.run("generate", "--model", tiny.toString(), "--engine", CannedEngine.NAME,
                "--dtype", "f16", "x");
        assertThat(dtype.code()).isEqualTo(2);
        assertThat(dtype.err().strip()).isEqualTo("ladder: --dtype: engine canned takes no dtype: it has no weights");
    }

    @Test
    void serveServesItAndAnswersARequest() throws Exception {
        Path log = tmp.resolve("serve.log");
        Path stdout = tmp.resolve("serve.out");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-Dai.djl.offline=true", "-Dladder.cache.dir=" + tmp.resolve("cache"),
                "-cp", System.getProperty("java.class.path"), "dev.ladder.cli.Ladder",
                "serve", "--model", tiny.toString(), "--engine", CannedEngine.NAME, "--port", "0", "--served-name", "canned")
                .redirectError(log.toFile()).redirectOutput(stdout.toFile());
        Process p = pb.start();
        try {
            String line = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (line == null && p.isAlive() && System.nanoTime() < deadline) {
                line = Files.readAllLines(stdout).stream().filter(l -> l.startsWith("serving ") && l.endsWith("/v1"))
                        .findFirst().orElse(null);
                if (line == null) Thread.sleep(50);
            }
            assertThat(line).as(Files.readString(log)).isNotNull();
            Matcher m = Pattern.compile("serving canned on (http://127\\.0\\.0\\.1:\\d+/v1)").matcher(line);
            assertThat(m.matches()).as(line).isTrue();
            HttpResponse<String> completion = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create(m.group(1) + "/completions")).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"canned\",\"prompt\":\"Count\",\"max_tokens\":64}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(completion.statusCode()).as(completion.body()).isEqualTo(200);
            assertThat(JSON.readTree(completion.body()).path("choices").path(0).path("text").asText())
                    .isEqualTo(CannedEngine.DEFAULT_REPLY);
            p.destroy();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            p.destroyForcibly();
        }
    }
}
