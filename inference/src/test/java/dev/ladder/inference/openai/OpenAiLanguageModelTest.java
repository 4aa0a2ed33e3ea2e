package dev.ladder.inference.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.inference.ChatMessage;
import dev.ladder.inference.Completion;
import dev.ladder.inference.EngineEvents;
import dev.ladder.inference.EngineRequestException;
import dev.ladder.inference.EngineUnavailableException;
import dev.ladder.inference.FinishReason;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.Sampling;
import dev.ladder.inference.openai.ScriptedServer.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OpenAiLanguageModelTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final RetryPolicy FAST = new RetryPolicy(4, Duration.ofMillis(5), Duration.ofMillis(20));
    private static final String MODELS = "{\"object\":\"list\",\"data\":[{\"id\":\"m\",\"object\":\"model\"}]}";

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) c.close();
        EngineEvents.drain();
    }

    /** A server whose /models lists "m" and whose other paths follow {@code script}. */
    private ScriptedServer server(BiFunction<Integer, ScriptedServer.Seen, Reply> script) throws Exception {
        ScriptedServer s = new ScriptedServer((n, seen) -> seen.path().endsWith("/models") ? Reply.ok(MODELS)
                : seen.path().endsWith("/version") ? Reply.ok("{\"version\":\"9.9\"}") : script.apply(n, seen));
        open.add(s);
        return s;
    }

    private OpenAiLanguageModel connect(ScriptedServer s, OpenAiEndpoint.Api api, int concurrent, Duration timeout) {
        OpenAiLanguageModel m = OpenAiLanguageModel.connect(new OpenAiEndpoint(s.baseUrl(), "m", "sekrit", api,
                api == OpenAiEndpoint.Api.COMPLETIONS ? "llama3-chat" : null, timeout, concurrent, true), FAST);
        open.add(m);
        return m;
    }

    private OpenAiLanguageModel connect(ScriptedServer s) {
        return connect(s, OpenAiEndpoint.Api.COMPLETIONS, 4, Duration.ofSeconds(5));
    }

    /** A completions answer with one choice per text, token ids written the vLLM way. */
    private static String completion(String... texts) {
        StringBuilder choices = new StringBuilder();
        for (int i = 0; i < texts.length; i++) {
            if (i > 0) choices.append(',');
            choices.append("{\"index\":").append(i).append(",\"text\":\"").append(texts[i])
                    .append("\",\"finish_reason\":\"length\",\"logprobs\":{\"tokens\":[\"token_id:7\",\"token_id:")
                    .append(100 + i).append("\"],\"token_logprobs\":[-0.1,-2.5E-7]}}");
        }
        return "{\"choices\":[" + choices + "],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":" + 2 * texts.length + "}}";
    }

    private static GenerationRequest request(String prompt) {
        return GenerationRequest.greedy(prompt, 8);
    }

    @Test
    void sendsEveryRequestFieldAndReadsTheAnswerExactly() throws Exception {
        ScriptedServer s = server((n, seen) -> Reply.ok("{\"choices\":["
                + "{\"index\":1,\"text\":\"b\",\"finish_reason\":\"stop\",\"stop_reason\":\";\",\"logprobs\":{\"tokens\":[\"token_id:5\"],\"token_logprobs\":[-1.0000001]}},"
                + "{\"index\":0,\"text\":\"a\",\"finish_reason\":\"stop\",\"stop_reason\":null,\"logprobs\":{\"tokens\":[\"token_id:4\",\"token_id:9\"],\"token_logprobs\":[-0.33333334,-3.4028235E38]}}],"
                + "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":3}}"));
        OpenAiLanguageModel m = connect(s);
        GenerationRequest r = new GenerationRequest("<|begin_of_text|>hi", null, 12, new Sampling(0.7, 40, 0.9), 2, 42,
                Set.of(128009, 5), List.of(";", "\n\n"));
        Completion c = m.generate(List.of(r)).get(0);

        JsonNode sent = JSON.readTree(s.seen("/v1/completions").get(0).body());
        assertThat(sent.get("model").asText()).isEqualTo("m");
        assertThat(sent.get("prompt").asText()).isEqualTo("<|begin_of_text|>hi");
        assertThat(sent.get("max_tokens").asInt()).isEqualTo(12);
        assertThat(sent.get("temperature").asDouble()).isEqualTo(0.7);
        assertThat(sent.get("top_p").asDouble()).isEqualTo(0.9);
        assertThat(sent.get("top_k").asInt()).isEqualTo(40);
        assertThat(sent.get("n").asInt()).isEqualTo(2);
        assertThat(sent.get("seed").asLong()).isEqualTo(42);
        assertThat(sent.get("stop").toString()).isEqualTo("[\";\",\"\\n\\n\"]");
        assertThat(sent.get("stop_token_ids").toString()).isEqualTo("[5,128009]");
        // the format writes its own BOS: the server must not add another
        assertThat(sent.get("add_special_tokens").asBoolean()).isFalse();
        assertThat(sent.get("return_tokens_as_token_ids").asBoolean()).isTrue();
        assertThat(s.seen("/v1/completions").get(0).authorization()).isEqualTo("Bearer sekrit");

        // choices come back in index order, whatever order the server lists them in
        assertThat(c.candidates()).hasSize(2);
        assertThat(c.candidates().get(0).text()).isEqualTo("a");
        assertThat(c.candidates().get(0).tokenIds()).containsExactly(4, 9);
        assertThat(c.candidates().get(0).logProbs()).containsExactly(-0.33333334f, -Float.MAX_VALUE);
        assertThat(c.candidates().get(0).finishReason()).isEqualTo(FinishReason.STOP_TOKEN);
        assertThat(c.candidates().get(1).finishReason()).isEqualTo(FinishReason.STOP_STRING);
        assertThat(Float.floatToIntBits(c.candidates().get(1).logProbs().get(0))).isEqualTo(Float.floatToIntBits(-1.0000001f));
        assertThat(c.promptTokens()).isEqualTo(3);
        assertThat(m.serverInfo().version()).isEqualTo("9.9");
        assertThat(m.identity()).isEqualTo("openai:m/completions/llama3-chat");
    }

    @Test
    void chatSendsTheConversationAndReadsTheMessage() throws Exception {
        ScriptedServer s = server((n, seen) -> Reply.ok("{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                + "\"content\":\"SELECT 1\"},\"finish_reason\":\"length\",\"logprobs\":{\"content\":[{\"token\":\"token_id:12\","
                + "\"logprob\":-0.5},{\"token\":\"token_id:13\",\"logprob\":-0.25}]}}],\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":2}}"));
        OpenAiLanguageModel m = connect(s, OpenAiEndpoint.Api.CHAT, 2, Duration.ofSeconds(5));
        String prompt = m.promptFormat().format(List.of(ChatMessage.system("be brief"), ChatMessage.user("a \"quoted\"\nline")));
        Completion c = m.generate(List.of(request(prompt))).get(0);
        JsonNode sent = JSON.readTree(s.seen("/v1/chat/completions").get(0).body());
        assertThat(sent.get("messages").toString())
                .isEqualTo("[{\"role\":\"system\",\"content\":\"be brief\"},{\"role\":\"user\",\"content\":\"a \\\"quoted\\\"\\nline\"}]");
        assertThat(sent.has("prompt")).isFalse();
        assertThat(sent.has("add_special_tokens")).isFalse();
        assertThat(c.text()).isEqualTo("SELECT 1");
        assertThat(c.candidates().get(0).tokenIds()).containsExactly(12, 13);
        assertThat(c.candidates().get(0).finishReason()).isEqualTo(FinishReason.LENGTH);
        assertThatThrownBy(() -> m.generate(List.of(request("plain text"))))
                .hasMessageContaining("plain text");
    }

    @Test
    void retriesTooManyRequestsAndUnavailableThenSucceedsAndRecordsTheRetries() throws Exception {
        ScriptedServer s = server((n, seen) -> switch (n) {
            case 1 -> Reply.status(429, "{\"error\":{\"message\":\"slow down\"}}").withHeader("Retry-After", "0.01");
            case 2 -> Reply.status(503, "{\"error\":{\"message\":\"loading\"}}");
            default -> Reply.ok(completion("SELECT 1"));
        });
        OpenAiLanguageModel m = connect(s);
        EngineEvents.drain();
        Completion c = m.generate(List.of(request("q"))).get(0);
        assertThat(c.text()).isEqualTo("SELECT 1");
        assertThat(s.seen("/v1/completions")).hasSize(3);
        List<String> events = EngineEvents.drain();
        assertThat(events).hasSize(2);
        assertThat(events.get(0)).contains("HTTP 429: slow down").contains("try 1 of 4");
        assertThat(events.get(1)).contains("HTTP 503: loading");
    }

    @Test
    void timeoutsAndTruncatedBodiesAreRetried() throws Exception {
        ScriptedServer s = server((n, seen) -> switch (n) {
            case 1 -> Reply.ok(completion("late")).after(1500);
            case 2 -> Reply.ok(completion("cut short")).truncated();
            default -> Reply.ok(completion("SELECT 2"));
        });
        OpenAiLanguageModel m = connect(s, OpenAiEndpoint.Api.COMPLETIONS, 1, Duration.ofMillis(400));
        EngineEvents.drain();
        assertThat(m.generate(List.of(request("q"))).get(0).text()).isEqualTo("SELECT 2");
        List<String> events = EngineEvents.drain();
        assertThat(events).hasSize(2);
        assertThat(events.get(0)).contains("no answer within");
        assertThat(events.get(1)).containsAnyOf("connection failed", "unreadable");
    }

    @Test
    void givesUpAfterTheLastTryWithOneLineThatNamesTheModelAndServer() throws Exception {
        ScriptedServer s = server((n, seen) -> Reply.status(502, "bad gateway"));
        OpenAiLanguageModel m = connect(s);
        assertThatThrownBy(() -> m.generate(List.of(request("q"))))
                .isInstanceOf(EngineUnavailableException.class)
                .hasMessageContaining("model 'm' at " + s.baseUrl())
                .hasMessageContaining("HTTP 502: bad gateway after 4 tries");
        assertThat(s.seen("/v1/completions")).hasSize(4);
    }

    @Test
    void aRequestTheServerRefusesIsOneErrorWithItsMessageAndNoRetry() throws Exception {
        ScriptedServer s = server((n, seen) -> Reply.status(400,
                "{\"error\":{\"message\":\"max_tokens is too large\",\"type\":\"invalid_request_error\"}}"));
        OpenAiLanguageModel m = connect(s);
        assertThatThrownBy(() -> m.generate(List.of(request("q"))))
                .isInstanceOf(EngineRequestException.class)
                .hasMessageContaining("model 'm'")
                .hasMessageContaining("HTTP 400: max_tokens is too large");
        assertThat(s.seen("/v1/completions")).hasSize(1);
    }

    @Test
    void aServerThatIsNotThereOrDoesNotServeTheModelFailsAtConnect() throws Exception {
        int port;
        try (ScriptedServer gone = new ScriptedServer((n, seen) -> Reply.ok(""))) {
            port = gone.port();
        }
        OpenAiEndpoint nowhere = new OpenAiEndpoint("http://127.0.0.1:" + port + "/v1", "m", null,
                OpenAiEndpoint.Api.COMPLETIONS, null, Duration.ofSeconds(2), 1, true);
        assertThatThrownBy(() -> OpenAiLanguageModel.connect(nowhere, FAST))
                .isInstanceOf(EngineUnavailableException.class)
                .hasMessageContaining("connection failed").hasMessageContaining("is the server running?");
        ScriptedServer other = server((n, seen) -> Reply.ok(""));
        OpenAiEndpoint wrong = new OpenAiEndpoint(other.baseUrl(), "llama", null, OpenAiEndpoint.Api.COMPLETIONS, null,
                Duration.ofSeconds(2), 1, true);
        assertThatThrownBy(() -> OpenAiLanguageModel.connect(wrong, FAST))
                .isInstanceOf(EngineRequestException.class)
                .hasMessageContaining("serves [m], not 'llama'");
    }

    @Test
    void keepsAtMostTheConfiguredRequestsInFlightAndAnswersInRequestOrder() throws Exception {
        // later requests answer sooner: arrival order is the reverse of request order
        ScriptedServer s = server((n, seen) -> {
            String prompt;
            try {
                prompt = JSON.readTree(seen.body()).get("prompt").asText();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            int i = Integer.parseInt(prompt.substring(1));
            return Reply.ok(completion("answer " + i)).after(10L * (8 - i));
        });
        OpenAiLanguageModel m = connect(s, OpenAiEndpoint.Api.COMPLETIONS, 3, Duration.ofSeconds(5));
        List<GenerationRequest> reqs = new ArrayList<>();
        for (int i = 0; i < 8; i++) reqs.add(request("q" + i));
        List<Completion> out = m.generate(reqs);
        for (int i = 0; i < 8; i++) assertThat(out.get(i).text()).isEqualTo("answer " + i);
        assertThat(s.maxInFlight()).isLessThanOrEqualTo(3).isGreaterThan(1);
    }

    @Test
    void withoutKnownFormatTheServerAddsItsOwnBosAndCountsComeFromUsage() throws Exception {
        ScriptedServer s = server((n, seen) -> Reply.ok("{\"choices\":[{\"index\":0,\"text\":\"x\",\"finish_reason\":\"stop\"}],"
                + "\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":3}}"));
        OpenAiLanguageModel m = OpenAiLanguageModel.connect(new OpenAiEndpoint(s.baseUrl(), "m", null,
                OpenAiEndpoint.Api.COMPLETIONS, null, Duration.ofSeconds(5), 1, true), FAST);
        open.add(m);
        assertThat(m.promptFormat().writesBos()).isFalse();
        Completion c = m.generate(List.of(request("q"))).get(0);
        assertThat(JSON.readTree(s.seen("/v1/completions").get(0).body()).get("add_special_tokens").asBoolean()).isTrue();
        assertThat(c.candidates().get(0).tokenIds()).containsExactly(-1, -1, -1);
        assertThat(c.candidates().get(0).logProbs()).isEmpty();
        assertThat(s.seen("/v1/completions").get(0).authorization()).isNull();
    }

    @Test
    void theKeyIsNeverInTheEndpointsText() {
        OpenAiEndpoint e = new OpenAiEndpoint("http://h:1/v1/", "m", "sekrit", OpenAiEndpoint.Api.CHAT, null,
                Duration.ofSeconds(1), 1, true);
        assertThat(e.toString()).doesNotContain("sekrit");
        assertThat(e.baseUrl()).isEqualTo("http://h:1/v1");
        assertThat(e.hostAndPort()).isEqualTo("h:1");
        assertThatThrownBy(() -> new OpenAiEndpoint("http://u:p@h/v1", "m", null, OpenAiEndpoint.Api.CHAT, null,
                Duration.ofSeconds(1), 1, true)).hasMessageContaining("api_key_env");
    }

    @Test
    void aPromptLongerThanTheServersWindowGivesEmptyContextCandidatesAsInProcess() throws Exception {
        ScriptedServer s = server((n, seen) -> Reply.status(400, "{\"error\":{\"message\":\"This model's maximum context"
                + " length is 8192 tokens. However, you requested 9000 tokens.\",\"type\":\"BadRequestError\"}}"));
        OpenAiLanguageModel m = connect(s);
        EngineEvents.drain();
        Completion c = m.generate(List.of(request("q").withN(2))).get(0);
        assertThat(c.candidates()).hasSize(2).allSatisfy(x -> {
            assertThat(x.text()).isEmpty();
            assertThat(x.finishReason()).isEqualTo(FinishReason.CONTEXT);
        });
        assertThat(EngineEvents.drain()).singleElement().asString().contains("context window");
    }
}
