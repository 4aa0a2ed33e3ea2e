package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.cli.LadderCliTest.Run;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
 * {@code ladder serve} and {@code ladder bench serve}: one-line user errors before anything loads; a real serve
 * process (tiny model, key from the environment) that answers, then exits 0 on SIGTERM; the benchmark's table.
 */
class ServeCommandTest {

    @TempDir static Path tmp;
    static Path tiny;

    @BeforeAll
    static void tinyModel() {
        System.setProperty("ai.djl.offline", "true");
        LadderCliTest.dataDir();
        tiny = tmp.resolve("tiny");
        TinyModels.write(tiny, TinyModels.Shape.TINY, 1, DType.F32);
    }

    @Test
    void userErrorsAreOneLineAndExitTwo() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            String port = Integer.toString(taken.getLocalPort());
            for (String[] args : new String[][] {
                {"serve", "--model", tmp.resolve("no-such-model").toString(), "--port", "0"},
                {"serve", "--model", tiny.toString(), "--port", port},
                {"serve", "--model", tiny.toString(), "--port", "0", "--api-key-env", "LADDER_SERVE_TEST_UNSET_VARIABLE"},
                {"serve", "--model", tiny.toString(), "--port", "0", "--api-key-env", "sk-not/a-name"},
                {"serve", "--model", tiny.toString(), "--port", "70000"},
                {"serve", "--model", tiny.toString(), "--port", "0", "--max-batch-rows", "0"},
                {"serve", "--model", tiny.toString(), "--port", "0", "--allow-host", "http://proxy.example:8080"},
                {"serve", "--model", tiny.toString(), "--port", "0", "--adapter", tmp.resolve("no-adapter").toString()},
                {"bench", "serve", "--model", tiny.toString(), "--concurrency", "0"},
            }) {
                Run r = LadderCliTest.run(args);
                assertThat(r.code()).as(String.join(" ", args) + ": " + r.err()).isEqualTo(2);
                assertThat(r.err().strip()).as(String.join(" ", args)).startsWith("ladder: ").doesNotContain("\n");
                assertThat(r.out()).isEmpty();
            }
            assertThat(LadderCliTest.run("serve", "--model", tiny.toString(), "--port", port).err())
                    .contains("cannot listen on 127.0.0.1:" + port);
            assertThat(LadderCliTest.run("serve", "--model", tiny.toString(), "--port", "0", "--api-key-env",
                    "LADDER_SERVE_TEST_UNSET_VARIABLE").err()).contains("LADDER_SERVE_TEST_UNSET_VARIABLE is not set");
            assertThat(LadderCliTest.run("serve", "--model", tiny.toString(), "--port", "0", "--allow-host",
                    "proxy.example:8080").err()).contains("--allow-host 'proxy.example:8080' is not a host name");
        }
    }

    @Test
    void servesUntilSigtermThenExitsZero() throws Exception {
        Path log = tmp.resolve("serve.log");
        Path stdout = tmp.resolve("serve.out");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g", "-Dai.djl.offline=true", "-Dladder.cache.dir=" + tmp.resolve("cache"),
                "-cp", System.getProperty("java.class.path"), "dev.ladder.cli.Ladder",
                "serve", "--model", tiny.toString(), "--port", "0", "--served-name", "tiny-test",
                "--api-key-env", "LADDER_SERVE_TEST_KEY", "--allow-host", "box.example")
                .redirectError(log.toFile()).redirectOutput(stdout.toFile());
        pb.environment().put("LADDER_SERVE_TEST_KEY", "k-2718");
        Process p = pb.start();
        try {
            // stdout goes to a file (a pipe nobody drains could block the child); the test class path's logback may
            // print its status there first, the launcher's stdout has only the serving line
            String line = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (line == null && p.isAlive() && System.nanoTime() < deadline) {
                line = Files.readAllLines(stdout).stream().filter(l -> l.startsWith("serving ") && l.endsWith("/v1"))
                        .findFirst().orElse(null);
                if (line == null) Thread.sleep(50);
            }
            assertThat(line).as(Files.readString(log)).isNotNull();
            Matcher m = Pattern.compile("serving tiny-test on (http://127\\.0\\.0\\.1:\\d+/v1)").matcher(line);
            assertThat(m.matches()).as(line).isTrue();
            String base = m.group(1);

            HttpClient http = HttpClient.newHttpClient();
            ObjectMapper json = new ObjectMapper();
            HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create(base + "/models")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(401);
            HttpResponse<String> models = http.send(HttpRequest.newBuilder(URI.create(base + "/models"))
                    .header("Authorization", "Bearer k-2718").build(), HttpResponse.BodyHandlers.ofString());
            JsonNode model = json.readTree(models.body()).path("data").path(0);
            assertThat(model.path("id").asText()).isEqualTo("tiny-test");
            assertThat(model.path("ladder").path("prompt_format").asText()).isEqualTo("llama3-chat");
            assertThat(model.path("ladder").path("fingerprint").asText())
                    .matches("model=[0-9a-f]{64} dtype=f32 device=cpu adapter=none");
            HttpResponse<String> completion = http.send(HttpRequest.newBuilder(URI.create(base + "/completions"))
                    .header("Authorization", "Bearer k-2718").header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"tiny-test\",\"prompt\":\"A note\",\"max_tokens\":3,"
                            + "\"temperature\":0}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(completion.statusCode()).as(completion.body()).isEqualTo(200);
            assertThat(json.readTree(completion.body()).path("usage").path("completion_tokens").asInt()).isBetween(1, 3);

            // DNS rebinding: a page whose name resolves here still sends its name, and is refused before the key
            int port = URI.create(base).getPort();
            assertThat(rawGet(port, "evil.example:" + port)).startsWith("HTTP/1.1 403 ").contains("host_not_allowed");
            assertThat(rawGet(port, "box.example:" + port)).startsWith("HTTP/1.1 401 ");
            assertThat(rawGet(port, "localhost:" + port)).startsWith("HTTP/1.1 401 ");
            assertThat(Files.readString(log)).contains("serve: answering requests whose Host is localhost, a loopback "
                    + "address or one of box.example");

            p.destroy();   // SIGTERM
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(Files.readString(log)).isZero();
            assertThat(Files.readString(log)).contains("serve: stopped after").doesNotContain("k-2718");
        } finally {
            p.destroyForcibly();
        }
    }

    /** GET /v1/models with this Host header, over a raw socket (HttpClient will not set Host). */
    static String rawGet(int port, String host) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write(("GET /v1/models HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void benchServePrintsBothPathsSideBySide() {
        Run r = LadderCliTest.run("bench", "serve", "--model", tiny.toString(), "--requests", "6", "--concurrency", "3",
                "--max-tokens", "4", "--max-batch-rows", "4", "--device", "cpu");
        assertThat(r.code()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines.get(0)).matches("path +requests +clients +generated tokens +wall s +tok/s +engine batches +requests/batch");
        assertThat(lines.get(2)).matches("in-process +6 +- +\\d+ +[\\d.]+ +[\\d.]+ +2 +3\\.0");
        assertThat(lines.get(3)).matches("serve +6 +3 +\\d+ +[\\d.]+ +[\\d.]+ +\\d+ +[\\d.]+");
        assertThat(lines.get(4)).matches("serve / in-process throughput: [\\d.]+; identical completions: 6/6; "
                + "largest server batch: \\d requests?");
    }
}
