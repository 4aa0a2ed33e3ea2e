package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.sql.db.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An ONNX export pulled from a hub beside the safetensors ({@code ladder model pull --onnx}) and {@code engine: auto}:
 * the onnx engine on the CPU where the export is there and nothing asks for djl, djl with an adapter.
 */
class OnnxAutoTest {

    static final String REPO = "ladder-test/tiny-with-onnx";

    @TempDir static Path tmp;
    static HttpServer hub;

    @BeforeAll
    static void hubWithAnExport() throws Exception {
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
        System.setProperty("ai.djl.offline", "true");
        // make-tiny's default model is the one the fixture export was made from (scripts/reference/make_onnx_fixtures.sh)
        Path src = tmp.resolve("tiny");
        assertThat(LadderCliTest.run("model", "make-tiny", src.toString()).code()).isZero();
        Map<String, byte[]> files = LocalHub.filesOf(src);
        files.put("onnx/model.onnx", Files.readAllBytes(OnnxRunTest.EXPORT.resolve("model.onnx")));
        files.put("onnx/model_quantized.onnx", new byte[16]);
        hub = LocalHub.serve(REPO, files);
        System.setProperty("ladder.hf.endpoint", "http://127.0.0.1:" + hub.getAddress().getPort());
        System.setProperty("ladder.models.dir", tmp.resolve("models").toString());
    }

    @AfterAll
    static void stop() {
        hub.stop(0);
        System.clearProperty("ladder.hf.endpoint");
        System.clearProperty("ladder.models.dir");
    }

    @Test
    void autoRunsThePulledExportOnTheCpuAndDjlWhereAnAdapterAsksForIt() throws Exception {
        LadderCliTest.Run unknown = LadderCliTest.run("model", "pull", REPO, "--onnx", "q4");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err().strip()).isEqualTo("ladder: " + REPO + "@main has no ONNX export 'q4'; it has fp32, quantized");

        LadderCliTest.Run pulled = LadderCliTest.run("model", "pull", REPO, "--onnx", "fp32");
        assertThat(pulled.code()).as(pulled.err()).isZero();
        assertThat(pulled.err()).contains("ONNX export fp32 (onnx/model.onnx)");
        Path dir = tmp.resolve("models/ladder-test--tiny-with-onnx/main");
        assertThat(dir.resolve("onnx/model.onnx")).exists();
        assertThat(dir.resolve("model.safetensors")).exists();
        LadderCliTest.Run info = LadderCliTest.run("model", "info", REPO);
        assertThat(info.out()).containsPattern("(?m)^onnx export +fp32 \\(onnx/model.onnx");

        Path auto = run("auto", "    path: " + REPO + "\n    engine: auto");
        assertThat(Files.readString(auto.resolve(RunDirectory.ENVIRONMENT))).contains("\"models.base.engine\" : \"onnx\"");
        assertThat(Files.readString(auto.resolve(RunDirectory.CONFIG))).contains("engine: auto");

        Path adapter = tmp.resolve("lora");
        assertThat(LadderCliTest.run("adapters", "make-tiny", "--base", dir.toString(), adapter.toString()).code()).isZero();
        Path djl = run("auto-adapter", "    path: " + REPO + "\n    engine: auto\n    adapter: " + adapter);
        assertThat(Files.readString(djl.resolve(RunDirectory.ENVIRONMENT))).contains("\"models.base.engine\" : \"djl\"");
    }

    private static Path run(String name, String model) throws Exception {
        Path yaml = tmp.resolve(name + ".yaml");
        Files.writeString(yaml, """
                name: %s
                benchmark: classicmodels
                split: train
                limit: 2
                output: %s
                models:
                  base:
                %s
                strategies: [prompt-k0]
                settings: {max_new_tokens: 6}
                scorers: {ts: none}
                """.formatted(name, tmp.resolve(name + "-run"), model));
        Path out = tmp.resolve(name + "-run");
        LadderCliTest.Run r = LadderCliTest.run("run", yaml.toString(), "--no-progress", "--no-generation-cache");
        assertThat(r.code()).as(r.err()).isZero();
        try (ResultsStore rows = ResultsStore.openReadOnly(out.resolve(RunDirectory.RESULTS))) {
            assertThat(rows.results()).hasSize(2);
        }
        return out;
    }
}
