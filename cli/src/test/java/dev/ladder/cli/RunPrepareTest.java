package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.sql.db.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ladder run --prepare}, a cluster's setup job: the run's shared work (here a hub model pulled into the store)
 * done once and nothing else, so that the run after it pulls nothing.
 */
class RunPrepareTest {

    @TempDir static Path tmp;

    @BeforeAll
    static void data() {
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
        System.setProperty("ai.djl.offline", "true");
    }

    @AfterEach
    void restore() {
        System.clearProperty("ladder.hf.endpoint");
        System.clearProperty("ladder.models.dir");
    }

    @Test
    void prepareAloneAnswersNothingWritesNoRunAndLeavesTheModelPulledForTheRun() throws Exception {
        Path src = tmp.resolve("tiny");
        assertThat(LadderCliTest.run("model", "make-tiny", src.toString()).code()).isZero();
        Path store = tmp.resolve("shared-models");
        System.setProperty("ladder.models.dir", store.toString());
        Path out = tmp.resolve("run");
        Path yaml = tmp.resolve("hub.yaml");
        Files.writeString(yaml, """
                name: prepared
                benchmark: classicmodels
                split: train
                limit: 3
                output: %s
                models:
                  base: {path: ladder-test/tiny-prepared}
                strategies: [prompt-k0]
                settings: {max_new_tokens: 8}
                scorers: {ts: none}
                """.formatted(out));
        HttpServer hub = LocalHub.serve("ladder-test/tiny-prepared", LocalHub.filesOf(src));
        int before = LocalHub.DOWNLOADS.get();
        try {
            System.setProperty("ladder.hf.endpoint", "http://127.0.0.1:" + hub.getAddress().getPort());
            LadderCliTest.Run prepared = LadderCliTest.run("run", yaml.toString(), "--prepare", "--no-generation-cache");
            assertThat(prepared.code()).as(prepared.err()).isZero();
            Path pulled = store.resolve("ladder-test--tiny-prepared").resolve("main");
            assertThat(prepared.out()).startsWith("prepared prepared (nothing answered, no run directory written):")
                    .contains("model base: " + pulled).contains("database classicmodels (3 items of classicmodels train)")
                    .contains("TS is off (scorers.ts: none)");
            assertThat(prepared.err()).contains("pulling ladder-test/tiny-prepared@main");
            assertThat(pulled.resolve("model.safetensors")).exists();
            assertThat(out).doesNotExist();
        } finally {
            hub.stop(0);
        }
        int downloads = LocalHub.DOWNLOADS.get() - before;
        assertThat(downloads).isPositive();
        // the hub is gone: the run finds the model in the store and downloads nothing
        System.setProperty("ladder.hf.endpoint", "http://127.0.0.1:9");
        LadderCliTest.Run run = LadderCliTest.run("run", yaml.toString(), "--no-progress", "--no-generation-cache");
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.err()).doesNotContain("pulling");
        assertThat(LocalHub.DOWNLOADS.get() - before).isEqualTo(downloads);
        try (ResultsStore rows = ResultsStore.openReadOnly(out.resolve(RunDirectory.RESULTS))) {
            assertThat(rows.results()).hasSize(3);
        }
    }
}
