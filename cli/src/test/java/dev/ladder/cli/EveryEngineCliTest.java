package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.cli.LadderCliTest.Run;
import dev.ladder.inference.Completion;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.inference.openai.ScriptedServer;
import dev.ladder.inference.openai.ScriptedServer.Reply;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ladder generate} and {@code ladder ask} with every engine: an ONNX export (named or detected from its folder)
 * and a served model ({@code --server}, a scripted server around the client), and the one-line refusals of flags that
 * mean nothing to the engine at hand.
 */
class EveryEngineCliTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir static Path tmp;
    static Path tiny;

    @BeforeAll
    static void models() {
        System.setProperty("ai.djl.offline", "true");
        LadderCliTest.dataDir();
        tiny = tmp.resolve("tiny");
        TinyModels.write(tiny, TinyModels.Shape.TINY, 1, DType.F32);
    }

    /** A server serving "scripted-sql" whose completions all answer {@code text}. */
    static ScriptedServer server(String text) throws Exception {
        return new ScriptedServer((n, seen) -> switch (seen.path()) {
            case "/v1/models" -> Reply.ok("{\"object\":\"list\",\"data\":[{\"id\":\"scripted-sql\",\"object\":\"model\"}]}");
            case "/v1/completions" -> Reply.ok(("{\"choices\":[{\"index\":0,\"text\":%s,\"finish_reason\":\"stop\"}],"
                    + "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":5}}").formatted(JSON.valueToTree(text).toString()));
            default -> Reply.status(404, "{\"error\":\"no such path\"}");
        });
    }

    @Test
    void generateRunsAnOnnxExportNamedOrDetectedFromItsFolder() throws Exception {
        Run named = LadderCliTest.run("generate", "--model", OnnxRunTest.EXPORT.toString(), "--engine", "onnx",
                "--max-tokens", "4", "--json", "SELECT");
        assertThat(named.code()).as(named.err()).isZero();
        JsonNode line = JSON.readTree(named.out().strip());
        assertThat(line.get("ids")).hasSize(4);
        Run detected = LadderCliTest.run("generate", "--model", OnnxRunTest.EXPORT.toString(), "--max-tokens", "4", "--json",
                "SELECT");
        assertThat(detected.code()).as(detected.err()).isZero();
        // greedy on the same export: the same tokens
        assertThat(detected.out()).isEqualTo(named.out());
    }

    @Test
    void generateAndAskTalkToAServedModel() throws Exception {
        try (ScriptedServer s = server("SELECT COUNT(*) FROM customers")) {
            Run gen = LadderCliTest.run("generate", "--model", "scripted-sql", "--server", s.baseUrl(), "--max-tokens", "9",
                    "Count the customers:");
            assertThat(gen.code()).as(gen.err()).isZero();
            assertThat(gen.out().strip()).isEqualTo("SELECT COUNT(*) FROM customers");
            JsonNode sent = JSON.readTree(s.seen("/v1/completions").get(0).body());
            assertThat(sent.get("model").asText()).isEqualTo("scripted-sql");
            assertThat(sent.get("prompt").asText()).isEqualTo("Count the customers:");
            assertThat(sent.get("max_tokens").asInt()).isEqualTo(9);

            Run ask = LadderCliTest.run("ask", "classicmodels", "How many customers are there?", "--strategy", "prompt-k0",
                    "--model", "scripted-sql", "--engine", "openai", "--server", s.baseUrl());
            assertThat(ask.code()).as(ask.err()).isZero();
            assertThat(ask.out()).contains("SELECT COUNT(*) FROM customers").contains("122");
        }
    }

    @Test
    void serveLoadsAnOnnxExportAndSaysWhichEngineServesIt() {
        StringWriter log = new StringWriter();
        try (ServeCommand.Session s = ServeCommand.Session.open(OnnxRunTest.EXPORT.toString(), "onnx", null, "full", "auto",
                "cpu", 4, null, new PrintWriter(log, true))) {
            assertThat(s.served().engine()).isEqualTo("onnx");
            assertThat(s.served().fingerprint()).contains("dtype=export");
            Completion c = s.served().model().generate(List.of(GenerationRequest.greedy("SELECT", 3))).get(0);
            assertThat(c.candidates().get(0).tokenIds()).hasSize(3);
        }
        assertThat(log.toString()).contains("with ONNX Runtime on cpu");
    }

    @Test
    void askRunsAnOnnxExport() {
        Run r = LadderCliTest.run("ask", "classicmodels", "How many offices are there?", "--strategy", "agent-1",
                "--model", OnnxRunTest.EXPORT.toString(), "--max-tokens", "4", "--trace");
        // random weights rarely write SQL: the answer executes (0) or there is none / it fails (1); never a user error
        assertThat(r.code()).as(r.err()).isIn(0, 1);
        assertThat(r.out()).startsWith("question ask, strategy agent-1\n").contains("  generate standard: greedy");
    }

    @Test
    void flagsThatMeanNothingToTheEngineAreOneLine() throws Exception {
        Run unknown = LadderCliTest.run("generate", "--model", tiny.toString(), "--engine", "tensorrt", "x");
        assertThat(unknown.code()).isEqualTo(2);
        // the registered engines, the test sources' own (dev.ladder.example.engine) after the built-in ones
        assertThat(unknown.err().strip()).startsWith("ladder: --engine must be one of auto, djl, onnx, openai, ")
                .endsWith(", got 'tensorrt'").doesNotContain("oracle");
        Run noServer = LadderCliTest.run("ask", "classicmodels", "q", "--model", "m", "--engine", "openai");
        assertThat(noServer.code()).isEqualTo(2);
        assertThat(noServer.err()).contains("--engine openai needs --server URL").doesNotContain("\tat ");
        Run serverOnDjl = LadderCliTest.run("generate", "--model", tiny.toString(), "--engine", "djl", "--server",
                "http://127.0.0.1:9/v1", "x");
        assertThat(serverOnDjl.code()).isEqualTo(2);
        assertThat(serverOnDjl.err()).contains("--server applies to --engine openai; the engine here is djl");
        Run adapter = LadderCliTest.run("generate", "--model", "m", "--server", "http://127.0.0.1:9/v1", "--adapter",
                tmp.toString(), "x");
        assertThat(adapter.code()).isEqualTo(2);
        assertThat(adapter.err()).contains("--adapter: engine openai takes no adapter");
        Run badUrl = LadderCliTest.run("generate", "--model", "m", "--server", "localhost:8000", "x");
        assertThat(badUrl.code()).isEqualTo(2);
        assertThat(badUrl.err()).startsWith("ladder: --server localhost:8000: ").doesNotContain("\n\t");
        Run logits = LadderCliTest.run("model", "logits", "--model", OnnxRunTest.EXPORT.toString(), "--prompt-ids", "1,2",
                "--out", tmp.resolve("logits.json").toString());
        assertThat(logits.code()).isEqualTo(2);
        assertThat(logits.err()).contains("reads the djl engine's logits; the engine here is onnx");
        try (ScriptedServer tooLong = new ScriptedServer((n, seen) -> switch (seen.path()) {
            case "/v1/models" -> Reply.ok("{\"object\":\"list\",\"data\":[{\"id\":\"scripted-sql\",\"object\":\"model\"}]}");
            default -> Reply.status(400, "{\"error\":{\"message\":\"prompt is longer than the context\"}}");
        })) {
            Run refused = LadderCliTest.run("ask", "classicmodels", "How many offices are there?", "--strategy", "prompt-k0",
                    "--model", "scripted-sql", "--server", tooLong.baseUrl());
            assertThat(refused.code()).as(refused.err()).isEqualTo(2);
            assertThat(refused.err()).startsWith("ladder: --server " + tooLong.baseUrl() + ": ").doesNotContain("internal error")
                    .hasLineCount(1);
        }
        Run oracle = LadderCliTest.run("ask", "classicmodels", "q", "--model", "oracle", "--server", "http://127.0.0.1:9/v1");
        assertThat(oracle.code()).isEqualTo(2);
        assertThat(oracle.err()).contains("it takes no --engine or --server");
        Run onnxDtype = LadderCliTest.run("generate", "--model", OnnxRunTest.EXPORT.toString(), "--dtype", "f16", "x");
        assertThat(onnxDtype.code()).isEqualTo(2);
        assertThat(onnxDtype.err()).contains("--dtype: engine onnx takes the precision of its export");
        try (ScriptedServer down = server("x")) {
            Run notServed = LadderCliTest.run("generate", "--model", "another-model", "--server", down.baseUrl(), "x");
            assertThat(notServed.code()).isEqualTo(2);
            assertThat(notServed.err()).startsWith("ladder: --server " + down.baseUrl() + ": ").contains("another-model");
        }
    }
}
