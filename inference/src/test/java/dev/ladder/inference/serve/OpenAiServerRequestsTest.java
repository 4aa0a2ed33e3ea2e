package dev.ladder.inference.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.Sampling;

import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The HTTP surface with a scripted engine: every malformed request is a 4xx with an OpenAI error body and the server
 * answers a good request afterwards; the key; engine failures; the full queue; shutdown with requests in flight.
 */
class OpenAiServerRequestsTest {

    static final String GOOD = "{\"model\":\"m\",\"prompt\":\"hello\",\"max_tokens\":3}";

    static ScriptedModel model;
    static OpenAiServer server;

    @BeforeAll
    static void start() throws Exception {
        model = new ScriptedModel();
        server = OpenAiServer.start(served(model), ServerOptions.defaults(0, "test-version"), null);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static ServedModel served(ScriptedModel m) {
        return new ServedModel(m, "m", "scripted", "fp-1", "<|begin_of_text|>", ids -> "x".repeat(ids.size()), 512);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            bad JSON                | /v1/completions      | `{"model":"m","prompt":`                             | 400 | null
            trailing content        | /v1/completions      | `{"model":"m","prompt":"a"} {}`                      | 400 | null
            not an object           | /v1/completions      | `[1, 2]`                                             | 400 | null
            duplicate field         | /v1/completions      | `{"model":"m","model":"m","prompt":"a"}`             | 400 | null
            unknown field           | /v1/completions      | `{"model":"m","prompt":"a","best_of":2}`             | 400 | best_of
            missing model           | /v1/completions      | `{"prompt":"a"}`                                     | 400 | model
            model not a string      | /v1/completions      | `{"model":7,"prompt":"a"}`                           | 400 | model
            missing prompt          | /v1/completions      | `{"model":"m"}`                                      | 400 | prompt
            prompt a number         | /v1/completions      | `{"model":"m","prompt":5}`                           | 400 | prompt
            prompt two strings      | /v1/completions      | `{"model":"m","prompt":["a","b"]}`                   | 400 | prompt
            prompt empty list       | /v1/completions      | `{"model":"m","prompt":[]}`                          | 400 | prompt
            prompt negative id      | /v1/completions      | `{"model":"m","prompt":[1,-1]}`                      | 400 | prompt
            prompt id past vocab    | /v1/completions      | `{"model":"m","prompt":[1,512]}`                     | 400 | prompt
            prompt fractional id    | /v1/completions      | `{"model":"m","prompt":[1,2.5]}`                     | 400 | prompt
            empty prompt, no BOS    | /v1/completions      | `{"model":"m","prompt":"","add_special_tokens":false}` | 400 | prompt
            max_tokens a string     | /v1/completions      | `{"model":"m","prompt":"a","max_tokens":"16"}`       | 400 | max_tokens
            max_tokens negative     | /v1/completions      | `{"model":"m","prompt":"a","max_tokens":-1}`         | 400 | max_tokens
            max_tokens too big      | /v1/completions      | `{"model":"m","prompt":"a","max_tokens":99999999999}` | 400 | max_tokens
            temperature a string    | /v1/completions      | `{"model":"m","prompt":"a","temperature":"hot"}`     | 400 | temperature
            temperature negative    | /v1/completions      | `{"model":"m","prompt":"a","temperature":-0.5}`      | 400 | temperature
            top_p zero              | /v1/completions      | `{"model":"m","prompt":"a","top_p":0}`               | 400 | top_p
            top_k below -1          | /v1/completions      | `{"model":"m","prompt":"a","top_k":-2}`              | 400 | top_k
            n zero                  | /v1/completions      | `{"model":"m","prompt":"a","n":0}`                   | 400 | n
            n 1000                  | /v1/completions      | `{"model":"m","prompt":"a","n":1000}`                | 400 | n
            n fractional            | /v1/completions      | `{"model":"m","prompt":"a","n":1.5}`                 | 400 | n
            seed a string           | /v1/completions      | `{"model":"m","prompt":"a","seed":"x"}`              | 400 | seed
            seed past 64 bits       | /v1/completions      | `{"model":"m","prompt":"a","seed":99999999999999999999}` | 400 | seed
            stop a number list      | /v1/completions      | `{"model":"m","prompt":"a","stop":[1]}`              | 400 | stop
            stop empty string       | /v1/completions      | `{"model":"m","prompt":"a","stop":[""]}`             | 400 | stop
            17 stop strings         | /v1/completions      | `{"model":"m","prompt":"a","stop":["1","2","3","4","5","6","7","8","9","10","11","12","13","14","15","16","17"]}` | 400 | stop
            stop_token_ids strings  | /v1/completions      | `{"model":"m","prompt":"a","stop_token_ids":["x"]}`  | 400 | stop_token_ids
            logprobs a boolean      | /v1/completions      | `{"model":"m","prompt":"a","logprobs":true}`         | 400 | logprobs
            logprobs 6              | /v1/completions      | `{"model":"m","prompt":"a","logprobs":6}`            | 400 | logprobs
            echo                    | /v1/completions      | `{"model":"m","prompt":"a","echo":true}`             | 400 | echo
            streaming               | /v1/completions      | `{"model":"m","prompt":"a","stream":true}`           | 400 | stream
            presence penalty        | /v1/completions      | `{"model":"m","prompt":"a","presence_penalty":0.5}`  | 400 | presence_penalty
            logit bias              | /v1/completions      | `{"model":"m","prompt":"a","logit_bias":{"5":10}}`   | 400 | logit_bias
            user a number           | /v1/completions      | `{"model":"m","prompt":"a","user":5}`                | 400 | user
            chat: messages a string | /v1/chat/completions | `{"model":"m","messages":"hi"}`                      | 400 | messages
            chat: no messages       | /v1/chat/completions | `{"model":"m","messages":[]}`                        | 400 | messages
            chat: tool role         | /v1/chat/completions | `{"model":"m","messages":[{"role":"tool","content":"x"}]}` | 400 | messages
            chat: content parts     | /v1/chat/completions | `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"x"}]}]}` | 400 | messages
            chat: message name      | /v1/chat/completions | `{"model":"m","messages":[{"role":"user","content":"x","name":"a"}]}` | 400 | messages
            chat: prompt field      | /v1/chat/completions | `{"model":"m","messages":[{"role":"user","content":"x"}],"prompt":"a"}` | 400 | prompt
            chat: max tokens differ | /v1/chat/completions | `{"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":3,"max_completion_tokens":4}` | 400 | max_completion_tokens
            chat: top_logprobs 9    | /v1/chat/completions | `{"model":"m","messages":[{"role":"user","content":"x"}],"top_logprobs":9}` | 400 | top_logprobs
            chat: streaming         | /v1/chat/completions | `{"model":"m","messages":[{"role":"user","content":"x"}],"stream":true}` | 400 | stream
            unknown model           | /v1/completions      | `{"model":"gpt-4","prompt":"a"}`                     | 404 | model
            unknown chat model      | /v1/chat/completions | `{"model":"gpt-4","messages":[{"role":"user","content":"x"}]}` | 404 | model
            """)
    void malformedRequestsAreRefusedWithAnOpenAiErrorAndTheServerGoesOn(String what, String path, String body,
                                                                         int status, String param) {
        Http.Answer a = Http.post(server, path, body);
        assertThat(a.status()).as(what + ": " + a.text()).isEqualTo(status);
        assertError(a, status == 404 ? "model_not_found" : null);
        assertThat(a.error().path("param").isNull() ? "null" : a.error().path("param").asText()).as(what).isEqualTo(param);
        assertThat(Http.post(server, "/v1/completions", GOOD).status()).isEqualTo(200);
    }

    @Test
    void streamingSaysSo() {
        Http.Answer a = Http.post(server, "/v1/completions", "{\"model\":\"m\",\"prompt\":\"a\",\"stream\":true}");
        assertThat(a.error().path("message").asText()).isEqualTo("streaming is not supported");
    }

    @Test
    void wrongMethodsPathsAndBodiesAreRefused() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        HttpResponse<String> get = client.send(HttpRequest.newBuilder(Http.uri(server, "/v1/completions")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(get.statusCode()).isEqualTo(405);
        assertThat(get.headers().firstValue("Allow")).contains("POST");
        assertThat(Http.PLAIN.readTree(get.body()).path("error").path("code").asText()).isEqualTo("method_not_allowed");

        Http.Answer postModels = Http.post(server, "/v1/models", "{}");
        assertThat(postModels.status()).isEqualTo(405);
        assertError(postModels, "method_not_allowed");

        Http.Answer unknown = Http.get(server, "/v1/embeddings", null);
        assertThat(unknown.status()).isEqualTo(404);
        assertError(unknown, "not_found");

        Http.Answer empty = Http.post(server, "/v1/completions", "");
        assertThat(empty.status()).isEqualTo(400);
        assertError(empty, null);

        // 5 MiB: over the 4 MiB limit, read and refused (a client that sent it all still reads the 413)
        String huge = "{\"model\":\"m\",\"prompt\":\"" + "a".repeat(5 << 20) + "\"}";
        Http.Answer tooLarge = Http.post(server, "/v1/completions", huge);
        assertThat(tooLarge.status()).isEqualTo(413);
        assertError(tooLarge, "request_too_large");

        assertThat(Http.post(server, "/v1/completions", GOOD).status()).isEqualTo(200);
    }

    @Test
    void goodRequestsGetOpenAiShapes() {
        Http.Answer models = Http.get(server, "/v1/models", null);
        assertThat(models.status()).isEqualTo(200);
        JsonNode m = models.json().path("data").path(0);
        assertThat(models.json().path("object").asText()).isEqualTo("list");
        assertThat(m.path("id").asText()).isEqualTo("m");
        assertThat(m.path("object").asText()).isEqualTo("model");
        assertThat(m.path("owned_by").asText()).isEqualTo("ladder");
        assertThat(m.path("created").isIntegralNumber()).isTrue();
        assertThat(m.path("ladder").path("prompt_format").asText()).isEqualTo("llama3-chat");
        assertThat(m.path("ladder").path("fingerprint").asText()).isEqualTo("fp-1");
        assertThat(m.path("ladder").path("engine").asText()).isEqualTo("scripted");
        assertThat(Http.get(server, "/version", null).json().path("version").asText()).isEqualTo("test-version");

        Http.Answer a = Http.post(server, "/v1/completions", "{\"model\":\"m\",\"prompt\":[\"hi\"],\"n\":2,\"logprobs\":0,"
                + "\"stop\":\"x\",\"seed\":5,\"top_k\":-1,\"user\":\"u\",\"presence_penalty\":0,\"logit_bias\":{},"
                + "\"echo\":false,\"stream\":false,\"max_tokens\":null}");
        assertThat(a.status()).as(a.text()).isEqualTo(200);
        assertThat(a.json().path("id").asText()).matches("cmpl-[0-9a-f]{32}");
        assertThat(a.json().path("object").asText()).isEqualTo("text_completion");
        assertThat(a.json().path("choices")).hasSize(2);
        JsonNode c = a.json().path("choices").path(1);
        assertThat(c.path("index").asInt()).isEqualTo(1);
        // the scripted engine saw the BOS that add_special_tokens (default true) prepends
        assertThat(c.path("text").asText()).isEqualTo("ok:<|begin_of_text|>hi");
        assertThat(c.path("finish_reason").asText()).isEqualTo("length");
        assertThat(c.path("stop_reason").isNull()).isTrue();
        assertThat(c.path("ladder_finish_reason").asText()).isEqualTo("length");
        assertThat(c.path("logprobs").path("tokens")).extracting(JsonNode::asText).containsExactly("x", "x", "x");
        assertThat(c.path("logprobs").path("text_offset")).extracting(JsonNode::asInt).containsExactly(0, 1, 2);
        assertThat(c.path("logprobs").path("top_logprobs")).hasSize(3).allSatisfy(t -> assertThat(t.isEmpty()).isTrue());
        assertThat(c.path("logprobs").path("token_logprobs").path(1).floatValue()).isEqualTo(-1.25f);
        assertThat(a.json().path("usage").path("completion_tokens").asInt()).isEqualTo(6);
        assertThat(a.json().path("usage").path("total_tokens").asInt())
                .isEqualTo(a.json().path("usage").path("prompt_tokens").asInt() + 6);
        GenerationRequest seen = model.batches.get(model.batches.size() - 1).get(0);
        assertThat(seen).isEqualTo(new GenerationRequest("<|begin_of_text|>hi", null, 16, new Sampling(1.0, 0, 1.0), 2, 5,
                Set.of(), List.of("x")));

        Http.Answer chat = Http.post(server, "/v1/chat/completions", "{\"model\":\"m\",\"messages\":[{\"role\":\"system\","
                + "\"content\":\"s\"},{\"role\":\"user\",\"content\":\"q\"}],\"max_completion_tokens\":7,\"temperature\":0,"
                + "\"logprobs\":true,\"top_logprobs\":2,\"return_tokens_as_token_ids\":true}");
        assertThat(chat.status()).as(chat.text()).isEqualTo(200);
        assertThat(chat.json().path("object").asText()).isEqualTo("chat.completion");
        assertThat(chat.json().path("id").asText()).startsWith("chatcmpl-");
        JsonNode msg = chat.json().path("choices").path(0);
        assertThat(msg.path("message").path("role").asText()).isEqualTo("assistant");
        assertThat(msg.path("message").path("content").asText()).startsWith("ok:<|begin_of_text|><|start_header_id|>system");
        JsonNode first = msg.path("logprobs").path("content").path(0);
        assertThat(first.path("token").asText()).isEqualTo("token_id:1");
        assertThat(first.path("logprob").floatValue()).isEqualTo(-0.5f);
        assertThat(first.path("bytes")).extracting(JsonNode::asInt).containsExactly((int) 'x');
        assertThat(first.path("top_logprobs").isArray()).isTrue();
        GenerationRequest chatSeen = model.batches.get(model.batches.size() - 1).get(0);
        assertThat(chatSeen.maxNewTokens()).isEqualTo(7);
        assertThat(chatSeen.sampling().greedy()).isTrue();
    }

    @Test
    void aKeyIsRequiredWhenConfigured() throws Exception {
        try (OpenAiServer keyed = OpenAiServer.start(served(new ScriptedModel()),
                ServerOptions.defaults(0, "v").withApiKey("s3cret-key"), null)) {
            Http.Answer none = Http.post(keyed, "/v1/completions", GOOD);
            assertThat(none.status()).isEqualTo(401);
            assertError(none, "invalid_api_key");
            assertThat(Http.post(keyed, "/v1/completions", GOOD, "Bearer wrong").status()).isEqualTo(401);
            assertThat(Http.post(keyed, "/v1/completions", GOOD, "s3cret-key").status()).isEqualTo(401);
            assertThat(Http.get(keyed, "/v1/models", null).status()).isEqualTo(401);
            assertThat(Http.get(keyed, "/v1/models", "Bearer s3cret-key").status()).isEqualTo(200);
            assertThat(Http.post(keyed, "/v1/completions", GOOD, "Bearer s3cret-key").status()).isEqualTo(200);
        }
    }

    @Test
    void anEngineFailureFailsOnlyItsRequest() throws Exception {
        ScriptedModel m = new ScriptedModel();
        try (OpenAiServer s = OpenAiServer.start(served(m), ServerOptions.defaults(0, "v"), null)) {
            Http.Answer alone = Http.post(s, "/v1/completions", "{\"model\":\"m\",\"prompt\":\"boom\",\"add_special_tokens\":false}");
            assertThat(alone.status()).isEqualTo(500);
            assertError(alone, "engine_error");
            assertThat(alone.error().path("message").asText()).contains("scripted failure");

            // a failing request in one batch with a good one: the batch runs again request by request
            m.holdNextCalls();
            CompletableFuture<Http.Answer> first = Http.postAsync(s, "/v1/completions", GOOD, null);
            m.awaitEntered();
            CompletableFuture<Http.Answer> bad = Http.postAsync(s, "/v1/completions",
                    "{\"model\":\"m\",\"prompt\":\"boom\",\"add_special_tokens\":false}", null);
            CompletableFuture<Http.Answer> good = Http.postAsync(s, "/v1/completions", GOOD, null);
            waitFor(() -> s.stats().queued() == 2);
            m.release();
            assertThat(first.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
            assertThat(bad.get(30, TimeUnit.SECONDS).status()).isEqualTo(500);
            assertThat(good.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
            assertThat(m.batches.get(2)).hasSize(2);   // the merged batch, which failed
            assertThat(s.stats().failedBatches()).isEqualTo(3);   // alone, merged, boom again alone
        }
    }

    @Test
    void aFullQueueAnswers503WithRetryAfter() throws Exception {
        ScriptedModel m = new ScriptedModel();
        try (OpenAiServer s = OpenAiServer.start(served(m), ServerOptions.defaults(0, "v").withMaxQueued(1), null)) {
            m.holdNextCalls();
            CompletableFuture<Http.Answer> running = Http.postAsync(s, "/v1/completions", GOOD, null);
            m.awaitEntered();
            CompletableFuture<Http.Answer> queued = Http.postAsync(s, "/v1/completions", GOOD, null);
            waitFor(() -> s.stats().queued() == 1);
            Http.Answer refused = Http.post(s, "/v1/completions", GOOD);
            assertThat(refused.status()).isEqualTo(503);
            assertThat(refused.retryAfter()).isEqualTo("1");
            assertError(refused, "server_busy");
            m.release();
            assertThat(running.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
            assertThat(queued.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
        }
    }

    @Test
    void aBatchWaitLetsRequestsThatComeAMomentApartShareABatch() throws Exception {
        ScriptedModel m = new ScriptedModel();
        try (OpenAiServer s = OpenAiServer.start(served(m), ServerOptions.defaults(0, "v").withBatchWaitMillis(400), null)) {
            CompletableFuture<Http.Answer> first = Http.postAsync(s, "/v1/completions", GOOD, null);
            waitFor(() -> s.stats().queued() == 1);
            Thread.sleep(50);
            CompletableFuture<Http.Answer> second = Http.postAsync(s, "/v1/completions", GOOD, null);
            assertThat(first.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
            assertThat(second.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
            assertThat(m.batches).hasSize(1);
            assertThat(m.batches.get(0)).hasSize(2);
        }
    }

    @Test
    void theEngineCanRunOnTheCallersThreadUntilClosed() throws Exception {
        ScriptedModel m = new ScriptedModel();
        OpenAiServer s = OpenAiServer.listen(served(m), ServerOptions.defaults(0, "v"), null);
        CompletableFuture<Http.Answer> waiting = Http.postAsync(s, "/v1/completions", GOOD, null);
        waitFor(() -> s.stats().queued() == 1);   // queued: no engine runs yet
        Thread engine = new Thread(s::runEngine, "test-engine");
        engine.start();
        assertThat(waiting.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThat(engine.isAlive()).isTrue();
        s.close();
        engine.join(30_000);
        assertThat(engine.isAlive()).isFalse();
        assertThatThrownBy(s::runEngine).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closeAnswersTheRunningBatchFailsTheQueuedAndStopsListening() throws Exception {
        ScriptedModel m = new ScriptedModel();
        OpenAiServer s = OpenAiServer.start(served(m), ServerOptions.defaults(0, "v").withMaxBatchRows(2), null);
        m.holdNextCalls();
        CompletableFuture<Http.Answer> running = Http.postAsync(s, "/v1/completions", GOOD, null);
        m.awaitEntered();
        CompletableFuture<Http.Answer> queued1 = Http.postAsync(s, "/v1/completions", GOOD, null);
        CompletableFuture<Http.Answer> queued2 = Http.postAsync(s, "/v1/completions", GOOD, null);
        waitFor(() -> s.stats().queued() == 2);

        CompletableFuture<Void> closing = CompletableFuture.runAsync(s::close);
        for (CompletableFuture<Http.Answer> q : List.of(queued1, queued2)) {
            Http.Answer a = q.get(30, TimeUnit.SECONDS);   // before the running batch ends
            assertThat(a.status()).isEqualTo(503);
            assertError(a, "shutting_down");
        }
        assertThat(running).isNotDone();
        Http.Answer late = Http.post(s, "/v1/completions", GOOD);   // the listener is open until the batch is answered
        assertThat(late.status()).isEqualTo(503);
        assertError(late, "shutting_down");
        assertThat(closing).isNotDone();

        m.release();
        Http.Answer answered = running.get(30, TimeUnit.SECONDS);
        assertThat(answered.status()).isEqualTo(200);
        assertThat(answered.json().path("choices").path(0).path("text").asText()).isEqualTo("ok:<|begin_of_text|>hello");
        closing.get(30, TimeUnit.SECONDS);
        assertThat(m.batches).hasSize(1);
        HttpClient fresh = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        assertThatThrownBy(() -> fresh.send(HttpRequest.newBuilder(Http.uri(s, "/v1/models")).GET().build(),
                HttpResponse.BodyHandlers.ofString())).isInstanceOf(ConnectException.class);
        s.close();   // idempotent
    }

    static void assertError(Http.Answer a, String code) {
        JsonNode e = a.error();
        assertThat(a.json().size()).as(a.text()).isEqualTo(1);
        assertThat(e.path("message").isTextual()).as(a.text()).isTrue();
        assertThat(e.path("message").asText()).doesNotContain("\n").doesNotContain("\tat ");
        assertThat(e.path("type").asText()).isIn("invalid_request_error", "server_error");
        assertThat(e.has("param")).isTrue();
        if (code == null) assertThat(e.path("code").isNull()).as(a.text()).isTrue();
        else assertThat(e.path("code").asText()).isEqualTo(code);
    }

    static void waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting");
            Thread.sleep(5);
        }
    }
}
