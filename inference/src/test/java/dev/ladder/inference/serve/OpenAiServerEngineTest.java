package dev.ladder.inference.serve;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.Device;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.inference.Candidate;
import dev.ladder.inference.ChatMessage;
import dev.ladder.inference.Completion;
import dev.ladder.inference.FinishReason;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.Sampling;
import dev.ladder.inference.llm.DjlLanguageModel;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.inference.model.TinyTokenizer;
import dev.ladder.inference.text.PromptFormats;
import dev.ladder.inference.text.Tokenizer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real tiny djl model over HTTP: greedy and seeded completions, chat, stops and the context limit equal what the
 * in-process engine returns for the same requests (text, token ids, log-probs to the bit, finish reasons, prompt
 * tokens), also for concurrent requests the scheduler merges into one batch.
 */
class OpenAiServerEngineTest {

    static final String BOS = "<|begin_of_text|>";

    @TempDir static Path tmp;
    static DjlLanguageModel lm;
    static Tokenizer tokenizer;
    static RecordingModel recording;
    static OpenAiServer server;

    @BeforeAll
    static void start() throws Exception {
        System.setProperty("ai.djl.offline", "true");
        Path dir = tmp.resolve("tiny");
        TinyModels.write(dir, TinyModels.Shape.TINY, 1, DType.F32);
        lm = DjlLanguageModel.load(dir, Device.cpu(), DjlLanguageModel.Options.DEFAULT);
        tokenizer = Tokenizer.load(dir);
        recording = new RecordingModel(lm);
        assertThat(PromptFormats.completionFor(dir).bos()).isEqualTo(BOS);
        ServedModel served = new ServedModel(recording, "tiny", "djl", "fp", BOS, tokenizer::decode,
                TinyTokenizer.VOCAB_SIZE);
        server = OpenAiServer.start(served, ServerOptions.defaults(0, "test"), null);
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
        if (lm != null) lm.close();
        if (tokenizer != null) tokenizer.close();
    }

    @Test
    void greedySeededAndBosCompletionsEqualTheInProcessEngine() {
        String text = "The lighthouse keeper counted";
        expectSame(body("\"prompt\":" + json(text) + ",\"max_tokens\":12,\"temperature\":0,\"add_special_tokens\":false"),
                new GenerationRequest(text, null, 12, Sampling.GREEDY, 1, 0, Set.of(), List.of()));

        List<Integer> ids = List.of(TinyTokenizer.BEGIN_OF_TEXT, 84, 104, 101, 32, 116, 114, 97, 105, 110);
        expectSame(body("\"prompt\":" + ids + ",\"max_tokens\":10,\"temperature\":0.8,\"top_p\":0.9,\"top_k\":40,"
                        + "\"n\":3,\"seed\":123"),
                new GenerationRequest(null, ids, 10, new Sampling(0.8, 40, 0.9), 3, 123, Set.of(), List.of()));

        // add_special_tokens (default true) prepends the BOS the tokenizer would add; not a second one
        Completion withBos = expectSame(body("\"prompt\":\"SELECT\",\"max_tokens\":6,\"temperature\":0"),
                new GenerationRequest(BOS + "SELECT", null, 6, Sampling.GREEDY, 1, 0, Set.of(), List.of()));
        Completion already = expectSame(body("\"prompt\":\"" + BOS + "SELECT\",\"max_tokens\":6,\"temperature\":0"),
                new GenerationRequest(BOS + "SELECT", null, 6, Sampling.GREEDY, 1, 0, Set.of(), List.of()));
        Completion without = expectSame(body("\"prompt\":\"SELECT\",\"max_tokens\":6,\"temperature\":0,"
                + "\"add_special_tokens\":false"), new GenerationRequest("SELECT", null, 6, Sampling.GREEDY, 1, 0, Set.of(), List.of()));
        assertThat(withBos.promptTokens()).isEqualTo(already.promptTokens()).isEqualTo(without.promptTokens() + 1);
    }

    @Test
    void chatFormatsWithTheModelsTemplate() {
        List<ChatMessage> messages = List.of(ChatMessage.system("You write short notes."), ChatMessage.user("A note on rivers"));
        String prompt = lm.promptFormat().format(messages);
        assertThat(prompt).startsWith(BOS);
        ObjectNode body = body("\"messages\":[{\"role\":\"system\",\"content\":\"You write short notes.\"},"
                + "{\"role\":\"user\",\"content\":\"A note on rivers\"}],\"max_tokens\":8,\"temperature\":0.7,\"seed\":9,"
                + "\"n\":2,\"logprobs\":true");
        GenerationRequest expected = new GenerationRequest(prompt, null, 8, new Sampling(0.7, 0, 1.0), 2, 9, Set.of(), List.of());
        Http.Answer a = Http.post(server, "/v1/chat/completions", body.toString());
        assertThat(a.status()).as(a.text()).isEqualTo(200);
        assertThat(recording.batches.get(recording.batches.size() - 1)).containsExactly(expected);
        Completion ref = lm.generate(List.of(expected)).get(0);
        assertThat(a.json().path("usage").path("prompt_tokens").asInt()).isEqualTo(ref.promptTokens());
        for (int i = 0; i < 2; i++) {
            JsonNode choice = a.json().path("choices").path(i);
            Candidate c = ref.candidates().get(i);
            assertThat(choice.path("message").path("content").asText()).isEqualTo(c.text());
            JsonNode content = choice.path("logprobs").path("content");
            assertThat(content).hasSize(c.tokenIds().size());
            StringBuilder joined = new StringBuilder();
            for (int t = 0; t < content.size(); t++) {
                assertFloatExact(content.path(t).path("logprob"),
                        a.decimals().path("choices").path(i).path("logprobs").path("content").path(t).path("logprob"),
                        c.logProbs().get(t));
                joined.append(content.path(t).path("token").asText());
            }
            assertThat(joined.toString()).isEqualTo(tokenizer.decode(c.tokenIds()));
            assertThat(choice.path("ladder_finish_reason").asText()).isEqualTo(c.finishReason().name().toLowerCase(Locale.ROOT));
        }
    }

    @Test
    void stopStringsStopTokensAndTheContextEndAsTheEngineSays() {
        // a stop string the greedy continuation really contains: two ASCII letters after its first character
        String prompt = null;
        String stop = null;
        for (String p : List.of("The coastal train", "A loaf of bread", "Seven violins", "SELECT name FROM")) {
            String t = lm.generate(List.of(new GenerationRequest(p, null, 24, Sampling.GREEDY, 1, 0, Set.of(), List.of())))
                    .get(0).text();
            for (int i = 1; i + 2 <= t.length() && stop == null; i++) {
                if (t.substring(i, i + 2).matches("[A-Za-z]{2}")) stop = t.substring(i, i + 2);
            }
            if (stop != null) {
                prompt = p;
                break;
            }
        }
        assertThat(stop).as("no greedy continuation with two ASCII letters").isNotNull();
        Completion byString = expectSame(body("\"prompt\":" + json(prompt) + ",\"max_tokens\":24,\"temperature\":0,"
                        + "\"add_special_tokens\":false,\"stop\":[\"#never#\"," + json(stop) + "]"),
                new GenerationRequest(prompt, null, 24, Sampling.GREEDY, 1, 0, Set.of(), List.of("#never#", stop)));
        assertThat(byString.candidates().get(0).finishReason()).isEqualTo(FinishReason.STOP_STRING);
        JsonNode last = lastAnswer.json().path("choices").path(0);
        assertThat(last.path("finish_reason").asText()).isEqualTo("stop");
        assertThat(last.path("stop_reason").asText()).isEqualTo(stop);

        List<Integer> greedyIds = lm.generate(List.of(new GenerationRequest(prompt, null, 24, Sampling.GREEDY, 1, 0,
                Set.of(), List.of()))).get(0).candidates().get(0).tokenIds();
        int stopId = greedyIds.get(2);
        Completion byToken = expectSame(body("\"prompt\":" + json(prompt) + ",\"max_tokens\":24,\"temperature\":0,"
                        + "\"add_special_tokens\":false,\"stop_token_ids\":[" + stopId + "]"),
                new GenerationRequest(prompt, null, 24, Sampling.GREEDY, 1, 0, Set.of(stopId), List.of()));
        assertThat(byToken.candidates().get(0).finishReason()).isEqualTo(FinishReason.STOP_TOKEN);
        assertThat(lastAnswer.json().path("choices").path(0).path("finish_reason").asText()).isEqualTo("stop");
        assertThat(lastAnswer.json().path("choices").path(0).path("stop_reason").isNull()).isTrue();

        // TINY's window is 2048: a 2046-token prompt has room for 2 of the 5 tokens asked
        List<Integer> longPrompt = new ArrayList<>();
        for (int i = 0; i < 2046; i++) longPrompt.add(32 + i % 90);
        Completion context = expectSame(body("\"prompt\":" + longPrompt + ",\"max_tokens\":5,\"temperature\":0"),
                new GenerationRequest(null, longPrompt, 5, Sampling.GREEDY, 1, 0, Set.of(), List.of()));
        assertThat(context.candidates().get(0).finishReason()).isEqualTo(FinishReason.CONTEXT);
        assertThat(lastAnswer.json().path("choices").path(0).path("finish_reason").asText()).isEqualTo("length");
    }

    @Test
    void concurrentRequestsMergedIntoOneBatchEqualTheEngineOnThatBatch() throws Exception {
        Map<GenerationRequest, ObjectNode> sent = new HashMap<>();
        sent.put(new GenerationRequest("Seven violins", null, 9, Sampling.GREEDY, 1, 0, Set.of(), List.of()),
                body("\"prompt\":\"Seven violins\",\"max_tokens\":9,\"temperature\":0,\"add_special_tokens\":false"));
        sent.put(new GenerationRequest(BOS + "A loaf", null, 7, new Sampling(1.0, 0, 1.0), 2, 77, Set.of(), List.of()),
                body("\"prompt\":\"A loaf\",\"max_tokens\":7,\"seed\":77,\"n\":2"));
        List<Integer> ids = List.of(TinyTokenizer.BEGIN_OF_TEXT, 83, 69, 76, 69, 67, 84);
        sent.put(new GenerationRequest(null, ids, 11, new Sampling(0.6, 5, 1.0), 1, 5, new LinkedHashSet<>(List.of(508)),
                        List.of()),
                body("\"prompt\":" + ids + ",\"max_tokens\":11,\"temperature\":0.6,\"top_k\":5,\"seed\":5,"
                        + "\"stop_token_ids\":[508]"));

        recording.holdNextCall();
        CompletableFuture<Http.Answer> first = Http.postAsync(server, "/v1/completions",
                body("\"prompt\":\"hold\",\"max_tokens\":2,\"temperature\":0").toString(), null);
        recording.awaitEntered();
        int before = recording.batches.size();
        Map<GenerationRequest, CompletableFuture<Http.Answer>> answers = new HashMap<>();
        sent.forEach((r, b) -> {
            b.put("logprobs", 0);
            b.put("return_tokens_as_token_ids", true);
            answers.put(r, Http.postAsync(server, "/v1/completions", b.toString(), null));
        });
        OpenAiServerRequestsTest.waitFor(() -> server.stats().queued() == 3);
        recording.release();
        assertThat(first.get(60, TimeUnit.SECONDS).status()).isEqualTo(200);

        Map<GenerationRequest, Http.Answer> got = new HashMap<>();
        for (var e : answers.entrySet()) got.put(e.getKey(), e.getValue().get(60, TimeUnit.SECONDS));
        assertThat(recording.batches).hasSize(before + 1);
        List<GenerationRequest> batch = recording.batches.get(before);
        assertThat(batch).containsExactlyInAnyOrderElementsOf(sent.keySet());
        assertThat(server.stats().largestBatch()).isGreaterThanOrEqualTo(3);

        List<Completion> reference = lm.generate(batch);
        for (int i = 0; i < batch.size(); i++) {
            GenerationRequest r = batch.get(i);
            Http.Answer a = got.get(r);
            assertThat(a.status()).as(a.text()).isEqualTo(200);
            assertSameAnswer(a, reference.get(i));
            // the engine's guarantee: the same tokens as the request alone
            Completion alone = lm.generate(List.of(r)).get(0);
            for (int c = 0; c < r.n(); c++) {
                assertThat(alone.candidates().get(c).tokenIds()).isEqualTo(reference.get(i).candidates().get(c).tokenIds());
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static Http.Answer lastAnswer;

    /**
     * Sends {@code body} (log-probs and token ids asked for), checks that the server handed the engine exactly
     * {@code expected}, and that the answer equals the engine's own answer to it, run alone as the server ran it.
     */
    private static Completion expectSame(ObjectNode body, GenerationRequest expected) {
        body.put("logprobs", 0);
        body.put("return_tokens_as_token_ids", true);
        Http.Answer a = Http.post(server, "/v1/completions", body.toString());
        lastAnswer = a;
        assertThat(a.status()).as(a.text()).isEqualTo(200);
        assertThat(recording.batches.get(recording.batches.size() - 1)).containsExactly(expected);
        Completion ref = lm.generate(List.of(expected)).get(0);
        assertSameAnswer(a, ref);
        return ref;
    }

    private static void assertSameAnswer(Http.Answer a, Completion ref) {
        JsonNode usage = a.json().path("usage");
        assertThat(usage.path("prompt_tokens").asInt()).isEqualTo(ref.promptTokens());
        int generated = ref.candidates().stream().mapToInt(c -> c.tokenIds().size()).sum();
        assertThat(usage.path("completion_tokens").asInt()).isEqualTo(generated);
        assertThat(a.json().path("choices")).hasSize(ref.candidates().size());
        for (int i = 0; i < ref.candidates().size(); i++) {
            Candidate c = ref.candidates().get(i);
            JsonNode choice = a.json().path("choices").path(i);
            assertThat(choice.path("text").asText()).isEqualTo(c.text());
            assertThat(choice.path("ladder_finish_reason").asText()).isEqualTo(c.finishReason().name().toLowerCase(Locale.ROOT));
            JsonNode lp = choice.path("logprobs");
            List<Integer> ids = new ArrayList<>();
            for (JsonNode t : lp.path("tokens")) ids.add(Integer.parseInt(t.asText().substring("token_id:".length())));
            assertThat(ids).isEqualTo(c.tokenIds());
            ArrayNode logprobs = (ArrayNode) lp.path("token_logprobs");
            assertThat(logprobs).hasSize(c.logProbs().size());
            for (int t = 0; t < logprobs.size(); t++) {
                assertFloatExact(logprobs.get(t), a.decimals().path("choices").path(i).path("logprobs")
                        .path("token_logprobs").path(t), c.logProbs().get(t));
            }
        }
    }

    /** Read as a client would (a double narrowed to float, or the exact decimal), the bits are the engine's. */
    private static void assertFloatExact(JsonNode asDouble, JsonNode asDecimal, float expected) {
        assertThat(Float.floatToIntBits(asDouble.floatValue())).as("%s vs %s", asDouble, expected)
                .isEqualTo(Float.floatToIntBits(expected));
        assertThat(Float.floatToIntBits(Float.parseFloat(asDecimal.decimalValue().toString())))
                .isEqualTo(Float.floatToIntBits(expected));
        // the shortest form: at most 9 significant digits (a widened double would show about 17)
        assertThat(asDecimal.decimalValue().stripTrailingZeros().precision()).as(asDecimal.toString()).isLessThanOrEqualTo(9);
    }

    private static ObjectNode body(String fields) {
        try {
            return (ObjectNode) Http.PLAIN.readTree("{\"model\":\"tiny\"," + fields + "}");
        } catch (Exception e) {
            throw new IllegalArgumentException(fields, e);
        }
    }

    private static String json(String s) {
        return Http.PLAIN.getNodeFactory().textNode(s).toString();
    }
}
