package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.inference.serve.OpenAiServer;
import dev.ladder.inference.serve.ServerOptions;
import dev.ladder.sql.db.TestData;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same experiment on the tiny model, once in-process ({@code engine: djl}) and once through {@code ladder serve}
 * ({@code engine: openai}, several items in flight, the server merging them into batches): the same predictions, rows,
 * traces (timings aside) and tables, greedy rungs and seeded sampling (agent-2's samples) alike.
 */
class ServeEquivalenceTest {

    @TempDir static Path tmp;
    static Path model;

    @BeforeAll
    static void tinyModel() throws Exception {
        System.setProperty("ai.djl.offline", "true");
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
        model = tmp.resolve("tiny");
        TinyModels.write(model, TinyModels.Shape.TINY, 1, DType.F32);
    }

    static Path experiment(String file, String modelBlock) throws Exception {
        Path f = tmp.resolve(file);
        Files.writeString(f, """
                name: served-or-not
                benchmark: classicmodels
                split: train
                limit: 6
                seeds: [0]
                output: %s
                models:
                  base:
                %s
                strategies:
                  - prompt-k0
                  - prompt-k3
                  - agent-2
                settings:
                  max_new_tokens: 12
                  candidates: 2
                  gate_budget: 1
                scorers:
                  ts: none
                """.formatted(tmp.resolve("unused"), modelBlock.indent(4).stripTrailing()));
        return f;
    }

    static String row(ItemResult r) {
        return String.join("|", r.cell(), r.itemId(), r.predicted(), String.valueOf(r.va()), String.valueOf(r.ex()),
                String.valueOf(r.em()), String.valueOf(r.errorClass()), r.chosen(), String.valueOf(r.promptTokens()),
                String.valueOf(r.generatedTokens()), String.valueOf(r.calls()), String.valueOf(r.cachedCalls()));
    }

    static List<String> rows(Path run) {
        try (ResultsStore store = ResultsStore.openReadOnly(run.resolve(RunDirectory.RESULTS))) {
            return store.results().stream().map(ServeEquivalenceTest::row).toList();
        }
    }

    /** Every trace line without its wall-time fields. */
    static List<String> traces(Path run) {
        try (ResultsStore store = ResultsStore.openReadOnly(run.resolve(RunDirectory.RESULTS))) {
            return store.cells().stream().flatMap(c -> store.traces(c.name()).stream())
                    .map(t -> t.replaceAll("\"(millis|prefillMillis|decodeMillis)\":\\d+", "")).toList();
        }
    }

    static List<Path> files(Path dir, String glob) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileSystem().getPathMatcher("glob:" + glob).matches(p.getFileName())).sorted().toList();
        }
    }

    @Test
    void servedRunEqualsTheInProcessRun() throws Exception {
        Path inProcess = tmp.resolve("djl");
        LadderCliTest.Run a = LadderCliTest.run("run", experiment("djl.yaml", "path: " + model).toString(),
                "--out", inProcess.toString(), "--generation-cache", tmp.resolve("cache-djl.sqlite").toString(), "--no-progress");
        assertThat(a.code()).as(a.err()).isZero();

        StringWriter log = new StringWriter();
        Path served = tmp.resolve("served");
        // served under the directory's own text, so that the tables name the model as the in-process run does
        try (ServeCommand.Session session = ServeCommand.Session.open(model.toString(), "djl", null, "full", "auto", "cpu", 16,
                model.toString(), new PrintWriter(log, true));
             OpenAiServer server = OpenAiServer.start(session.served(), ServerOptions.defaults(0, "test"),
                     new PrintWriter(log, true))) {
            String block = """
                    engine: openai
                    base_url: %s
                    model: %s
                    max_concurrent: 4
                    """.formatted(server.baseUri(), model);
            LadderCliTest.Run b = LadderCliTest.run("run", experiment("served.yaml", block).toString(), "--out",
                    served.toString(), "--generation-cache", tmp.resolve("cache-served.sqlite").toString(), "--no-progress");
            assertThat(b.code()).as(b.err()).isZero();
            // several items were in flight, and the server merged requests into batches
            assertThat(server.stats().requests()).isGreaterThan(server.stats().batches());
        }

        assertThat(rows(inProcess)).hasSize(18);
        assertThat(rows(served)).containsExactlyElementsOf(rows(inProcess));
        // agent-2 drew seeded samples: the server honoured the seeds as the engine in-process does
        assertThat(traces(inProcess)).anyMatch(t -> t.contains("\"samples\""));
        assertThat(traces(served)).containsExactlyElementsOf(traces(inProcess));
        List<Path> predictions = files(inProcess.resolve(RunDirectory.PREDICTIONS), "*");
        assertThat(predictions).isNotEmpty();
        for (Path p : predictions) {
            assertThat(Files.readString(served.resolve(RunDirectory.PREDICTIONS).resolve(p.getFileName()), StandardCharsets.UTF_8))
                    .as(p.getFileName().toString()).isEqualTo(Files.readString(p, StandardCharsets.UTF_8));
        }
        // every table (CSV and LaTeX) but the costs, which are timings
        List<Path> tables = files(inProcess.resolve("report"), "*.{csv,tex}").stream()
                .filter(p -> !p.getFileName().toString().startsWith("costs")).toList();
        assertThat(tables).hasSizeGreaterThan(3);
        for (Path t : tables) {
            assertThat(Files.readAllBytes(served.resolve("report").resolve(t.getFileName())))
                    .as(t.getFileName().toString()).isEqualTo(Files.readAllBytes(t));
        }
    }
}
