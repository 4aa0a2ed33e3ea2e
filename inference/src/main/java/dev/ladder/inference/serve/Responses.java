package dev.ladder.inference.serve;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.inference.Candidate;
import dev.ladder.inference.Completion;
import dev.ladder.inference.FinishReason;
import dev.ladder.inference.text.CompletionFormat;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/** The JSON the server writes: OpenAI's completion, chat completion, model list and error shapes. */
final class Responses {

    /**
     * Floats are written with the shortest digits that read back to the same float (Schubfach, the fast writer):
     * a client that parses a log-prob as a float gets the engine's exact bits, and no double's extra digits appear.
     * Reading is strict: duplicate keys and trailing content are errors.
     */
    static final ObjectMapper JSON = JsonMapper.builder()
            .enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** What vLLM writes for a log-prob that is not finite (JSON has no infinity). */
    static final float NON_FINITE_LOGPROB = -9999.0f;

    private Responses() {}

    static byte[] bytes(ObjectNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);   // a tree of plain values always writes
        }
    }

    static ObjectNode error(ApiException e) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode err = root.putObject("error");
        err.put("message", e.getMessage());
        err.put("type", e.type());
        err.put("param", e.param());
        err.put("code", e.code());
        return root;
    }

    static ObjectNode models(ServedModel served, String promptFormat, long created) {
        ObjectNode root = JSON.createObjectNode();
        root.put("object", "list");
        ObjectNode m = root.putArray("data").addObject();
        m.put("id", served.name());
        m.put("object", "model");
        m.put("created", created);
        m.put("owned_by", "ladder");
        ObjectNode ladder = m.putObject("ladder");
        ladder.put("prompt_format", promptFormat);
        // a completion format's BOS is the model's own: a client formatting prompts needs it to write the same text
        if (served.model().promptFormat() instanceof CompletionFormat completion) {
            ladder.put("bos_token", completion.bos());
        }
        ladder.put("fingerprint", served.fingerprint());
        ladder.put("engine", served.engine());
        return root;
    }

    static ObjectNode version(String version) {
        ObjectNode root = JSON.createObjectNode();
        root.put("version", version);
        return root;
    }

    /** A {@code text_completion} or {@code chat.completion} for a request and the engine's answer to it. */
    static ObjectNode completion(ApiRequest request, Completion completion, ServedModel served, long createdSeconds) {
        ObjectNode root = JSON.createObjectNode();
        String id = UUID.randomUUID().toString().replace("-", "");
        root.put("id", (request.chat() ? "chatcmpl-" : "cmpl-") + id);
        root.put("object", request.chat() ? "chat.completion" : "text_completion");
        root.put("created", createdSeconds);
        root.put("model", served.name());
        ArrayNode choices = root.putArray("choices");
        int generated = 0;
        List<Candidate> candidates = completion.candidates();
        for (int i = 0; i < candidates.size(); i++) {
            Candidate c = candidates.get(i);
            generated += c.tokenIds().size();
            ObjectNode choice = choices.addObject();
            choice.put("index", i);
            if (request.chat()) {
                ObjectNode message = choice.putObject("message");
                message.put("role", "assistant");
                message.put("content", c.text());
                if (request.logprobs()) chatLogprobs(choice.putObject("logprobs"), c, request.tokensAsIds(), served);
                else choice.putNull("logprobs");
            } else {
                choice.put("text", c.text());
                if (request.logprobs()) completionLogprobs(choice.putObject("logprobs"), c, request.tokensAsIds(), served);
                else choice.putNull("logprobs");
            }
            choice.put("finish_reason", c.finishReason() == FinishReason.STOP_TOKEN
                    || c.finishReason() == FinishReason.STOP_STRING ? "stop" : "length");
            String stop = stopString(c, request.generation().stopStrings(), served.decoder());
            if (stop == null) choice.putNull("stop_reason");
            else choice.put("stop_reason", stop);
            choice.put("ladder_finish_reason", c.finishReason().name().toLowerCase(Locale.ROOT));
        }
        ObjectNode usage = root.putObject("usage");
        usage.put("prompt_tokens", completion.promptTokens());
        usage.put("completion_tokens", generated);
        usage.put("total_tokens", completion.promptTokens() + generated);
        return root;
    }

    private static void completionLogprobs(ObjectNode out, Candidate c, boolean asIds, ServedModel served) {
        List<String> pieces = pieces(c, served);
        ArrayNode tokens = out.putArray("tokens");
        ArrayNode logprobs = out.putArray("token_logprobs");
        ArrayNode top = out.putArray("top_logprobs");
        ArrayNode offsets = out.putArray("text_offset");
        int offset = 0;
        for (int i = 0; i < c.tokenIds().size(); i++) {
            tokens.add(token(c.tokenIds().get(i), pieces, i, asIds));
            logprobs.add(finite(c.logProbs().get(i)));
            top.addObject();   // alternatives are not computed: only the chosen token's log-prob
            offsets.add(offset);
            offset += pieces == null ? 0 : pieces.get(i).length();
        }
    }

    private static void chatLogprobs(ObjectNode out, Candidate c, boolean asIds, ServedModel served) {
        List<String> pieces = pieces(c, served);
        ArrayNode content = out.putArray("content");
        for (int i = 0; i < c.tokenIds().size(); i++) {
            ObjectNode t = content.addObject();
            t.put("token", token(c.tokenIds().get(i), pieces, i, asIds));
            t.put("logprob", finite(c.logProbs().get(i)));
            ArrayNode bytes = t.putArray("bytes");
            if (pieces != null) {
                for (byte b : pieces.get(i).getBytes(StandardCharsets.UTF_8)) bytes.add(b & 0xFF);
            }
            t.putArray("top_logprobs");
        }
    }

    private static List<String> pieces(Candidate c, ServedModel served) {
        return served.decoder() == null ? null : TokenPieces.of(served.decoder(), c.tokenIds());
    }

    private static String token(int id, List<String> pieces, int i, boolean asIds) {
        return asIds || pieces == null ? "token_id:" + id : pieces.get(i);
    }

    private static float finite(float logProb) {
        return Float.isFinite(logProb) ? logProb : NON_FINITE_LOGPROB;
    }

    /**
     * Which stop string ended a {@code STOP_STRING} candidate: the engine cut its text before the earliest match, so it
     * is the first (in the request's order) that starts where the text ends in the uncut decoding of its ids. Null for
     * other finishes, and when it cannot be told (no decoder and several stop strings).
     */
    static String stopString(Candidate c, List<String> stops, ServedModel.TokenDecoder decoder) {
        if (c.finishReason() != FinishReason.STOP_STRING || stops.isEmpty()) return null;
        if (decoder != null) {
            String uncut = decoder.decode(c.tokenIds());
            for (String s : stops) {
                if (uncut.startsWith(s, c.text().length())) return s;
            }
        }
        return stops.size() == 1 ? stops.get(0) : null;
    }
}
