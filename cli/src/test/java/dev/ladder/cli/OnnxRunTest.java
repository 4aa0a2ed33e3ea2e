package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.sql.db.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tiny ladder end to end with {@code engine: onnx} on the exported tiny model, and its refusals. */
class OnnxRunTest {

    /** The inference module's fixture, exported by scripts/reference/make_onnx_fixtures.sh. */
    static final Path EXPORT = Path.of("../inference/src/test/resources/onnx/tiny-optimum").toAbsolutePath().normalize();

    @TempDir static Path tmp;

    @BeforeAll
    static void data() {
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
    }

    static Path experiment(String name, String model) throws Exception {
        Path f = tmp.resolve(name + ".yaml");
        Files.writeString(f, """
                name: %s
                benchmark: classicmodels
                split: train
                limit: 4
                seeds: [0]
                output: %s
                models:
                  base:
                %s
                strategies: [prompt-k0, agent-1]
                settings:
                  max_new_tokens: 8
                  gate_budget: 1
                scorers:
                  ts: none
                """.formatted(name, tmp.resolve(name + "-out"), model));
        return f;
    }

    @Test
    void theTinyLadderRunsOnTheOnnxEngine() throws Exception {
        Path yaml = experiment("onnx", "    path: " + EXPORT + "\n    engine: onnx");
        Path run = tmp.resolve("run");
        LadderCliTest.Run r = LadderCliTest.run("run", yaml.toString(), "--out", run.toString(), "--no-progress",
                "--generation-cache", tmp.resolve("cache.sqlite").toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("with ONNX Runtime on cpu").contains("optimum layout");
        List<ItemResult> rows;
        try (ResultsStore store = ResultsStore.openReadOnly(run.resolve(RunDirectory.RESULTS))) {
            rows = store.results();
        }
        assertThat(rows).hasSize(8).allSatisfy(row -> assertThat(row.calls()).isPositive());
        assertThat(Files.readString(run.resolve("environment.json"))).contains("\"models.base.engine\" : \"onnx\"");
    }

    @Test
    void anAdapterOrADtypeOrAFolderWithoutAnExportIsOneLine() throws Exception {
        LadderCliTest.Run adapter = LadderCliTest.run("run", experiment("a", "    path: " + EXPORT
                + "\n    engine: onnx\n    adapter: " + tmp).toString(), "--no-progress");
        assertThat(adapter.code()).isEqualTo(2);
        assertThat(adapter.err()).contains("models.base.adapter: engine onnx takes no adapter").doesNotContain("\tat ");
        LadderCliTest.Run dtype = LadderCliTest.run("run", experiment("d", "    path: " + EXPORT
                + "\n    engine: onnx\n    dtype: f16").toString(), "--no-progress");
        assertThat(dtype.code()).isEqualTo(2);
        assertThat(dtype.err()).contains("models.base.dtype: engine onnx takes the precision of its export");
        Path empty = Files.createDirectories(tmp.resolve("not-an-export"));
        Files.writeString(empty.resolve("config.json"), "{}");
        LadderCliTest.Run none = LadderCliTest.run("run", experiment("n", "    path: " + empty + "\n    engine: onnx").toString(),
                "--no-progress");
        assertThat(none.code()).isEqualTo(2);
        assertThat(none.err().strip()).contains("no ONNX decoder here").doesNotContain("\tat ").hasLineCount(1);
    }

    @Test
    void benchGenerateTimesTheEnginesSideBySide() {
        LadderCliTest.Run onnxOnly = LadderCliTest.run("bench", "generate", "--engine", "onnx", "--model", EXPORT.toString(),
                "--batches", "1,2", "--prompt-tokens", "8", "--new-tokens", "3", "--threads", "1");
        assertThat(onnxOnly.code()).as(onnxOnly.err()).isZero();
        assertThat(onnxOnly.out()).contains("decode tok/s").containsPattern("onnx\\s+1 ").containsPattern("onnx\\s+2 ");
        LadderCliTest.Run missing = LadderCliTest.run("bench", "generate", "--engine", "both", "--model", EXPORT.toString());
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err().strip()).endsWith("--engine both needs --onnx-model DIR (the ONNX export of --model)");
        LadderCliTest.Run bad = LadderCliTest.run("bench", "generate", "--engine", "tflite", "--model", EXPORT.toString());
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("--engine must be djl, onnx or both");
    }
}
