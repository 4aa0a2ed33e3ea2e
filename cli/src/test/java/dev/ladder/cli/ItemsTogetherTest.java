package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.eval.report.RunLoader;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.sql.db.TestData;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every rung and pipeline answering three items together on the oracle engine (train split, low noise, so repairs,
 * refinements, gates and judge calls happen): their calls from different items meet in rounds, and since the oracle's
 * answer to a request does not depend on its neighbours, the run writes exactly what one item at a time writes —
 * predictions, traces (timings aside) and scores.
 */
class ItemsTogetherTest {

    /** Wall times: the one part of a trace two runs cannot share. */
    private static final Set<String> TIMINGS = Set.of("millis", "prefillMillis", "decodeMillis", "cachedMillis");

    @TempDir static Path tmp;

    @BeforeAll
    static void data() {
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
    }

    @Test
    void everyPipelineAnswersItemsTogetherExactlyAsOneAtATime() throws Exception {
        Path yaml = tmp.resolve("together.yaml");
        Files.writeString(yaml, """
                name: together
                benchmark: classicmodels
                split: train
                limit: 7
                output: %s
                models:
                  oracle: {engine: oracle, noise: "low,seed=5"}
                strategies: [prompt-k0, prompt-k3, agent-0, agent-1, agent-2, agent-3, structured-search, gsr,
                             soft-attention, progressive]
                scorers: {ts: none, judge: oracle}
                """.formatted(tmp.resolve("unused")));
        Path one = tmp.resolve("one");
        Path three = tmp.resolve("three");
        LadderCliTest.Run a = LadderCliTest.run("run", yaml.toString(), "--out", one.toString(), "--no-progress",
                "--no-generation-cache", "--format", "md");
        assertThat(a.code()).as(a.err()).isZero();
        LadderCliTest.Run b = LadderCliTest.run("run", yaml.toString(), "--out", three.toString(), "--no-progress",
                "--no-generation-cache", "--format", "md", "--batch-width", "3");
        assertThat(b.code()).as(b.err()).isZero();

        assertThat(RunLoader.environment(one)).containsEntry("models.oracle.batch_width", "1");
        assertThat(RunLoader.environment(three)).containsEntry("models.oracle.batch_width", "3");
        assertThat(Files.readString(three.resolve(RunDirectory.CONFIG))).contains("batch_width: 3");
        assertThat(Files.readString(one.resolve(RunDirectory.CONFIG))).doesNotContain("batch_width");

        for (String folder : List.of(RunDirectory.PREDICTIONS, RunDirectory.TRACES)) {
            List<Path> files = files(one.resolve(folder));
            assertThat(files).isNotEmpty();
            for (Path f : files) {
                Path other = three.resolve(folder).resolve(one.resolve(folder).relativize(f));
                if (folder.equals(RunDirectory.TRACES) && f.toString().endsWith(".jsonl")) {
                    assertThat(untimed(other)).as(f.toString()).containsExactlyElementsOf(untimed(f));
                } else {
                    assertThat(Files.readString(other, StandardCharsets.UTF_8)).as(f.toString())
                            .isEqualTo(Files.readString(f, StandardCharsets.UTF_8));
                }
            }
        }
        List<String> rowsOne = rows(one);
        assertThat(rowsOne).hasSize(70);
        assertThat(rows(three)).containsExactlyElementsOf(rowsOne);
    }

    @Test
    void aWidthOutsideItsBoundIsOneLine() throws Exception {
        Path yaml = tmp.resolve("bounds.yaml");
        Files.writeString(yaml, """
                name: bounds
                benchmark: classicmodels
                split: train
                limit: 2
                output: %s
                models:
                  oracle: {engine: oracle, batch_width: 0}
                strategies: [prompt-k0]
                """.formatted(tmp.resolve("bounds-out")));
        LadderCliTest.Run r = LadderCliTest.run("run", yaml.toString(), "--no-progress");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip()).isEqualTo("ladder: " + yaml + ": models.oracle.batch_width: must be >= 1, got 0");
        LadderCliTest.Run flag = LadderCliTest.run("run", yaml.toString(), "--batch-width", "5000");
        assertThat(flag.code()).isEqualTo(2);
        assertThat(flag.err().strip()).startsWith("ladder: --batch-width must be <= 1024, got 5000");
        assertThat(tmp.resolve("bounds-out")).doesNotExist();
    }

    private static List<Path> files(Path dir) throws Exception {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).sorted().toList();
        }
    }

    /** Each row's cell, item, prediction and scores (the judge's verdict included), in the store's order. */
    private static List<String> rows(Path run) {
        try (ResultsStore store = ResultsStore.openReadOnly(run.resolve(RunDirectory.RESULTS))) {
            List<String> out = new ArrayList<>();
            for (ItemResult r : store.results()) {
                out.add(String.join(" | ", r.cell(), r.itemId(), r.predicted(), String.valueOf(r.ex()),
                        String.valueOf(r.em()), String.valueOf(r.judged()), String.valueOf(r.calls()),
                        String.valueOf(r.cachedCalls())));
            }
            return out;
        }
    }

    /** Each line of a trace file with the timing fields removed at any depth (key order kept). */
    private static List<String> untimed(Path file) throws Exception {
        ObjectMapper json = new ObjectMapper();
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            JsonNode node = json.readTree(line);
            strip(node);
            out.add(json.writeValueAsString(node));
        }
        return out;
    }

    private static void strip(JsonNode node) {
        if (node instanceof ObjectNode o) o.remove(TIMINGS);
        node.forEach(ItemsTogetherTest::strip);
    }
}
