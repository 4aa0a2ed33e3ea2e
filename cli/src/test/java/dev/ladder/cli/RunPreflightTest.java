package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.adapters.TinyAdapters;
import dev.ladder.cli.LadderCliTest.Run;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What can be wrong with a run's inputs is found before the run directory exists: a truncated weights file, an
 * adapter trained on another base, a database that cannot be reached. A run directory that holds no rows never blocks
 * the fixed rerun, and there is no report of one.
 */
class RunPreflightTest {

    @TempDir static Path tmp;
    static Path model;
    static Path experiment;

    @BeforeAll
    static void tinyModelAndExperiment() throws IOException {
        LadderCliTest.dataDir();
        model = tmp.resolve("tiny");
        TinyModels.write(model, TinyModels.Shape.TINY, 1, DType.F32);
        experiment = tmp.resolve("two-rungs.yaml");
        Files.writeString(experiment, """
                name: preflight
                benchmark: classicmodels
                split: train
                limit: 2
                output: %s
                models:
                  base: {path: %s}
                strategies: [prompt-k0]
                settings: {max_new_tokens: 4}
                scorers: {ts: none}
                """.formatted(tmp.resolve("unused"), model));
    }

    private static Run run(Path out, String... extra) {
        String[] args = new String[6 + extra.length];
        String[] base = {"run", experiment.toString(), "--out", out.toString(), "--no-progress", "--no-generation-cache"};
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return LadderCliTest.run(args);
    }

    @Test
    void aTruncatedWeightsFileIsFoundBeforeAnythingIsMade() throws IOException {
        Path broken = tmp.resolve("truncated");
        TinyModels.write(broken, TinyModels.Shape.TINY, 1, DType.F32);
        Path weights = broken.resolve("model.safetensors");
        try (RandomAccessFile f = new RandomAccessFile(weights.toFile(), "rw")) {
            f.setLength(f.length() - 1000);   // an interrupted download
        }
        Path out = tmp.resolve("run-truncated");
        Run r = run(out, "--model", broken.toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip()).doesNotContain("\n").startsWith("ladder: truncated safetensors file");
        assertThat(out).doesNotExist();
    }

    @Test
    void anAdapterOfAnotherBaseIsFoundBeforeAnythingIsMade() throws IOException {
        // an adapter trained on a deeper model: its second layer's modules renamed to layer 5 (in the safetensors
        // header only; the names keep their length, so the file stays valid), which the 2-layer base lacks
        Path adapter = tmp.resolve("deeper-lora");
        TinyAdapters.write(model, adapter, 2, 1);
        Path file = adapter.resolve("adapter_model.safetensors");
        byte[] bytes = Files.readAllBytes(file);
        int header = (int) java.nio.ByteBuffer.wrap(bytes, 0, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
        String names = new String(bytes, 8, header, java.nio.charset.StandardCharsets.UTF_8).replace(".layers.1.", ".layers.5.");
        System.arraycopy(names.getBytes(java.nio.charset.StandardCharsets.UTF_8), 0, bytes, 8, header);
        Files.write(file, bytes);
        Path yaml = tmp.resolve("with-adapter.yaml");
        Files.writeString(yaml, Files.readString(experiment)
                .replace("  base: {path: " + model + "}", "  base: {path: " + model + "}\n  qlora: {path: " + model
                        + ", adapter: " + adapter + "}")
                .replace("strategies: [prompt-k0]", "strategies: [prompt-k0, {name: qlora-k0, strategy: prompt-k0, model: qlora}]"));
        Path out = tmp.resolve("run-adapter");
        Run r = LadderCliTest.run("run", yaml.toString(), "--out", out.toString(), "--no-progress", "--no-generation-cache");
        assertThat(r.code()).as(r.out()).isEqualTo(2);
        assertThat(r.err().strip()).doesNotContain("\n").startsWith("ladder: ").contains("layers.5");
        assertThat(out).doesNotExist();
    }

    @Test
    void anUnreachableDatabaseIsFoundBeforeAnythingIsMade() {
        Path out = tmp.resolve("run-url");
        // port 1 on the loopback refuses at once
        Run r = run(out, "--url", "jdbc:mysql://127.0.0.1:1/?user=nobody&password=x");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip()).doesNotContain("\n").startsWith("ladder: ");
        assertThat(out).doesNotExist();
    }

    @Test
    void aRunDirectoryWithoutRowsNeitherBlocksTheRerunNorReports() {
        Path out = tmp.resolve("run-empty");
        // what a run killed before its first item leaves: a results store with a fingerprint and no rows
        RunDirectory dir = RunDirectory.create(out);
        try (ResultsStore store = dir.openResults()) {
            store.putMeta("fingerprint.models.base.path", "0123456789abcdef-of-files-since-replaced");
        }
        Run report = LadderCliTest.run("report", out.toString());
        assertThat(report.code()).isEqualTo(2);
        assertThat(report.err().strip()).doesNotContain("\n").contains("has no results yet");

        Run rerun = run(out);
        assertThat(rerun.code()).as(rerun.err()).isZero();
        try (ResultsStore store = ResultsStore.openReadOnly(out.resolve(RunDirectory.RESULTS))) {
            assertThat(store.results()).hasSize(2);
            assertThat(store.meta("fingerprint.models.base.path")).isNotEqualTo("0123456789abcdef-of-files-since-replaced");
        }
    }
}
