package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.inference.openai.ScriptedServer;
import dev.ladder.inference.openai.ScriptedServer.Reply;
import dev.ladder.sql.db.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ladder run} with {@code engine: openai} against a scripted server (the thing around the runner and client under
 * test): items answered several at a time, the server's identity recorded without secrets, and a server that dies
 * mid-run leaving a run that, started again against a server that is back, ends with the rows of an uninterrupted run.
 */
class ServedRunTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** What the scripted "model" writes: a pick among these by the prompt's hash, so the same request gets the same text. */
    private static final List<String> SQL = List.of("SELECT COUNT(*) FROM customers", "SELECT city FROM offices",
            "SELECT productName FROM products WHERE buyPrice > 50", "SELECT nonsense FROM nowhere", "not sql at all");

    @TempDir static Path tmp;

    @BeforeAll
    static void data() {
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
    }

    /** An OpenAI completion answer for a request body: n choices, each a deterministic function of prompt, seed and index. */
    static String answer(String body) {
        try {
            JsonNode req = JSON.readTree(body);
            String prompt = req.get("prompt").asText();
            int n = req.path("n").asInt(1);
            long seed = req.path("seed").asLong(0);
            ObjectNode out = JSON.createObjectNode();
            ArrayNode choices = out.putArray("choices");
            for (int i = 0; i < n; i++) {
                int pick = Math.floorMod(prompt.hashCode() + 31 * (int) seed + 7 * i, SQL.size());
                ObjectNode c = choices.addObject();
                c.put("index", i).put("text", SQL.get(pick)).put("finish_reason", "stop").putNull("stop_reason");
                ObjectNode lp = c.putObject("logprobs");
                lp.putArray("tokens").add("token_id:" + (10 + pick)).add("token_id:3");
                lp.putArray("token_logprobs").add(-0.5f).add(-1.25f);
            }
            out.putObject("usage").put("prompt_tokens", prompt.length() / 4).put("completion_tokens", 2 * n);
            return out.toString();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static ScriptedServer server(int port, BiFunction<Integer, ScriptedServer.Seen, Reply> completions) throws Exception {
        return new ScriptedServer(port, (n, seen) -> switch (seen.path()) {
            case "/v1/models" -> Reply.ok("{\"object\":\"list\",\"data\":[{\"id\":\"scripted-sql\",\"object\":\"model\"}]}");
            case "/version" -> Reply.ok("{\"version\":\"0.0-scripted\"}");
            default -> completions.apply(n, seen);
        });
    }

    static Path experiment(String name, int port) throws Exception {
        return experiment(name, "http://127.0.0.1:" + port + "/v1");
    }

    static Path experiment(String name, String baseUrl) throws Exception {
        Path f = tmp.resolve(name + ".yaml");
        Files.writeString(f, """
                name: %s
                benchmark: classicmodels
                split: train
                limit: 10
                seeds: [0]
                output: %s
                models:
                  served:
                    engine: openai
                    base_url: %s
                    model: scripted-sql
                    prompt_format: llama3-chat
                    max_concurrent: 3
                    retries: 2
                    timeout_seconds: 5
                strategies:
                  - prompt-k0
                  - agent-1
                settings:
                  max_new_tokens: 24
                scorers:
                  ts: none
                """.formatted(name, tmp.resolve(name + "-unused"), baseUrl));
        return f;
    }

    /** A row without its timings. */
    static String row(ItemResult r) {
        return String.join("|", r.cell(), r.itemId(), r.predicted(), String.valueOf(r.va()), String.valueOf(r.ex()),
                String.valueOf(r.em()), String.valueOf(r.errorClass()), r.chosen(), String.valueOf(r.promptTokens()),
                String.valueOf(r.generatedTokens()), String.valueOf(r.calls()));
    }

    static List<String> rows(Path run) {
        try (ResultsStore store = ResultsStore.openReadOnly(run.resolve(RunDirectory.RESULTS))) {
            return store.results().stream().map(ServedRunTest::row).toList();
        }
    }

    @Test
    void aServedModelRunsItemsConcurrentlyAndAServerThatDiesLeavesAResumableRun() throws Exception {
        // uninterrupted
        Path whole = tmp.resolve("whole");
        List<String> expected;
        try (ScriptedServer s = server(0, (n, seen) -> Reply.ok(answer(seen.body())).after(20))) {
            LadderCliTest.Run r = LadderCliTest.run("run", experiment("served", s.port()).toString(), "--out", whole.toString(),
                    "--generation-cache", tmp.resolve("cache-whole.sqlite").toString(), "--no-progress");
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(r.err()).contains("scripted-sql served at " + s.baseUrl()).contains("up to 3 requests in flight");
            // the server batched what the run kept in flight
            assertThat(s.maxInFlight()).isGreaterThan(1).isLessThanOrEqualTo(3);
            expected = rows(whole);
            assertThat(expected).hasSize(20);
            JsonNode env = JSON.readTree(whole.resolve("environment.json").toFile());
            assertThat(env.get("models.served.engine").asText()).isEqualTo("openai");
            assertThat(env.get("models.served.server").asText()).isEqualTo("127.0.0.1:" + s.port());
            assertThat(env.get("models.served.served_model").asText()).isEqualTo("scripted-sql");
            assertThat(env.get("models.served.server_version").asText()).isEqualTo("0.0-scripted");
            assertThat(Files.readString(whole.resolve("report/report.md"))).contains("engine openai");
        }

        // the server dies after a few completions: the run stops with one line and keeps what it finished
        Path broken = tmp.resolve("broken");
        AtomicReference<ScriptedServer> dying = new AtomicReference<>();
        AtomicBoolean dead = new AtomicBoolean();
        int port;
        try (ScriptedServer s = server(0, (n, seen) -> {
            if (n <= 6) return Reply.ok(answer(seen.body()));
            if (dead.compareAndSet(false, true)) new Thread(() -> dying.get().close()).start();
            return Reply.ok(answer(seen.body())).truncated();
        })) {
            dying.set(s);
            port = s.port();
            Path exp = experiment("served", port);
            LadderCliTest.Run r = LadderCliTest.run("run", exp.toString(), "--out", broken.toString(),
                    "--generation-cache", tmp.resolve("cache-broken.sqlite").toString(), "--no-progress");
            assertThat(r.code()).as(r.out() + r.err()).isNotZero();
            assertThat(r.err().strip().lines().filter(l -> l.startsWith("ladder:")).count()).as(r.err()).isEqualTo(1);
            assertThat(r.err()).contains("scripted-sql").contains("resumes");
            assertThat(r.err()).doesNotContain("\tat ");
        }
        int kept = rows(broken).size();
        assertThat(kept).isLessThan(20);

        // back on the same port: the run resumes and ends as the uninterrupted one did
        AtomicInteger asked = new AtomicInteger();
        try (ScriptedServer s = server(port, (n, seen) -> {
            asked.incrementAndGet();
            return Reply.ok(answer(seen.body()));
        })) {
            LadderCliTest.Run r = LadderCliTest.run("run", experiment("served", port).toString(), "--out", broken.toString(),
                    "--generation-cache", tmp.resolve("cache-broken.sqlite").toString(), "--no-progress");
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(r.out()).contains(kept + " already done");
        }
        assertThat(rows(broken)).containsExactlyElementsOf(expected);
        assertThat(Files.readString(broken.resolve("predictions/prompt-k0.sql")))
                .isEqualTo(Files.readString(whole.resolve("predictions/prompt-k0.sql")));
        try (Stream<Path> files = Files.walk(broken)) {
            for (Path f : files.filter(Files::isRegularFile).filter(p -> !p.toString().endsWith(".sqlite")).toList()) {
                assertThat(Files.readString(f, java.nio.charset.StandardCharsets.ISO_8859_1)).doesNotContain("Bearer");
            }
        }
    }

    @Test
    void aBaseUrlNamingAnEnvironmentVariableIsReadWhenTheServerIsCalledAndRecordedAsWritten() throws Exception {
        // surefire sets LADDER_TEST_SERVER_HOST=127.0.0.1 (pom.xml), as a cluster job sets the server's address
        try (ScriptedServer s = server(0, (n, seen) -> Reply.ok(answer(seen.body())))) {
            String template = "http://${LADDER_TEST_SERVER_HOST}:" + s.port() + "/v1";
            Path out = tmp.resolve("from-env");
            LadderCliTest.Run r = LadderCliTest.run("run", experiment("from-env", template).toString(), "--out",
                    out.toString(), "--limit", "3", "--no-generation-cache", "--no-progress");
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(r.err()).contains("served at http://127.0.0.1:" + s.port() + "/v1");
            assertThat(rows(out)).hasSize(6);
            // the experiment as written: the same config wherever the server runs (a resumed shard's server may move)
            assertThat(Files.readString(out.resolve(RunDirectory.CONFIG))).contains("base_url: \"" + template + "\"")
                    .doesNotContain("127.0.0.1");
            assertThat(Files.readString(out.resolve(RunDirectory.ENVIRONMENT)))
                    .contains("\"models.served.server\" : \"127.0.0.1:" + s.port() + "\"");
        }
        // a variable that is not set: one line naming it, nothing made
        Path nowhere = tmp.resolve("unset-env");
        LadderCliTest.Run unset = LadderCliTest.run("run", experiment("unset-env", "${LADDER_TEST_UNSET_SERVER_URL}").toString(),
                "--out", nowhere.toString(), "--no-generation-cache", "--no-progress");
        assertThat(unset.code()).isEqualTo(2);
        assertThat(unset.err().strip()).doesNotContain("\n").startsWith("ladder: models.served.base_url '${LADDER_TEST_UNSET_SERVER_URL}'"
                + " names the environment variable LADDER_TEST_UNSET_SERVER_URL, which is not set");
        assertThat(nowhere).doesNotExist();
        // a '$' that is not ${NAME}: refused where the file says it
        LadderCliTest.Run bad = LadderCliTest.run("run", experiment("bad-env", "http://$HOST:8000/v1").toString(),
                "--no-progress");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("base_url").contains("has a '$' that is not ${NAME}");
    }

    @Test
    void aServerThatIsNotThereIsOneLineAndNoRunDirectory() throws Exception {
        int port;
        try (ScriptedServer s = server(0, (n, seen) -> Reply.ok(""))) {
            port = s.port();
        }
        Path out = tmp.resolve("nowhere");
        LadderCliTest.Run r = LadderCliTest.run("run", experiment("nowhere", port).toString(), "--out", out.toString(),
                "--no-generation-cache", "--no-progress");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip()).doesNotContain("\n").contains("models.served").contains("is the server running?");
        assertThat(out).doesNotExist();
    }
}
