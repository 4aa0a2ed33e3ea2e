package dev.ladder.inference.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.inference.ChatMessage;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.Sampling;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Turns a JSON body into an {@link ApiRequest}, or refuses it with a 4xx naming the field: every field is checked for
 * its type and range, unknown fields are refused (a field the server silently ignored would change results without
 * anyone noticing).
 */
final class RequestParser {

    /** Most stop strings, as OpenAI allows 4 and vLLM any: enough for Ladder's strategies. */
    static final int MAX_STOP_STRINGS = 16;
    /** Most log-probs alternatives a client may ask for; only the chosen token's is returned. */
    static final int MAX_LOGPROBS = 5;
    static final int DEFAULT_MAX_TOKENS = 16;
    /**
     * A chat request without {@code max_tokens}: OpenAI and vLLM then let it run to the end of the context; here the
     * default is bounded so that one request cannot hold the whole batch (and its KV cache) for the full window.
     */
    static final int DEFAULT_CHAT_MAX_TOKENS = 1024;

    private static final Set<String> SHARED = Set.of("model", "max_tokens", "temperature", "top_p", "top_k", "n", "seed",
            "stop", "stop_token_ids", "logprobs", "stream", "add_special_tokens", "return_tokens_as_token_ids", "user",
            "presence_penalty", "frequency_penalty", "logit_bias");
    private static final Set<String> COMPLETION_ONLY = Set.of("prompt", "echo");
    private static final Set<String> CHAT_ONLY = Set.of("messages", "max_completion_tokens", "top_logprobs");

    private final ServedModel served;
    private final int maxBatchRows;

    RequestParser(ServedModel served, int maxBatchRows) {
        this.served = served;
        this.maxBatchRows = maxBatchRows;
    }

    /** {@code POST /v1/completions}. */
    ApiRequest completion(JsonNode root) {
        Fields f = new Fields(root, COMPLETION_ONLY);
        f.model(served.name());
        if (Boolean.TRUE.equals(f.bool("echo"))) throw ApiException.invalid("echo is not supported", "echo");
        boolean addSpecial = f.boolOr("add_special_tokens", true);
        String text = null;
        List<Integer> ids = null;
        JsonNode prompt = f.get("prompt");
        if (prompt == null || prompt.isNull()) throw ApiException.invalid("'prompt' is required", "prompt");
        if (prompt.isArray() && prompt.size() == 1 && prompt.get(0).isTextual()) prompt = prompt.get(0);
        if (prompt.isTextual()) {
            text = prompt.textValue();
            // vLLM's add_special_tokens: the BOS the model's own tokenizer adds, unless the text already starts with it
            // (a prompt format that writes BOS); with false the text is encoded as it is, like the in-process engine
            if (addSpecial && served.bos() != null && !text.startsWith(served.bos())) text = served.bos() + text;
            if (text.isEmpty()) throw ApiException.invalid("'prompt' is empty", "prompt");
        } else if (prompt.isArray() && !prompt.isEmpty() && prompt.get(0).isNumber()) {
            ids = tokenIds(prompt, "prompt");
        } else if (prompt.isArray() && prompt.size() > 1 && prompt.get(0).isTextual()) {
            throw ApiException.invalid("batched prompts are not supported: send one request per prompt (the server "
                    + "batches concurrent requests itself)", "prompt");
        } else {
            throw ApiException.invalid("'prompt' must be a string, a list of token ids or a list of one string",
                    "prompt");
        }
        Integer logprobs = f.integer("logprobs", 0, MAX_LOGPROBS);
        GenerationRequest g = generation(f, text, ids, f.integerOr("max_tokens", 0, Integer.MAX_VALUE, DEFAULT_MAX_TOKENS));
        return new ApiRequest(false, g, logprobs != null, f.boolOr("return_tokens_as_token_ids", false));
    }

    /** {@code POST /v1/chat/completions}: the messages in the model's own prompt format. */
    ApiRequest chat(JsonNode root) {
        Fields f = new Fields(root, CHAT_ONLY);
        f.model(served.name());
        PromptFormat format = served.model().promptFormat();
        if (format == null) {
            throw ApiException.invalid("model " + served.name() + " has no prompt format: use /v1/completions", "messages");
        }
        String text = format.format(messages(f.get("messages")));
        if (f.boolOr("add_special_tokens", false) && served.bos() != null && !text.startsWith(served.bos())) {
            text = served.bos() + text;
        }
        if (text.isEmpty()) throw ApiException.invalid("the messages make an empty prompt", "messages");
        Integer maxTokens = f.integer("max_tokens", 0, Integer.MAX_VALUE);
        Integer maxCompletion = f.integer("max_completion_tokens", 0, Integer.MAX_VALUE);
        if (maxTokens != null && maxCompletion != null && !maxTokens.equals(maxCompletion)) {
            throw ApiException.invalid("max_tokens and max_completion_tokens differ; give one", "max_completion_tokens");
        }
        int max = maxCompletion != null ? maxCompletion : maxTokens != null ? maxTokens : DEFAULT_CHAT_MAX_TOKENS;
        Boolean logprobs = f.bool("logprobs");
        f.integer("top_logprobs", 0, MAX_LOGPROBS);   // accepted; alternatives are never returned (docs/serve.md)
        GenerationRequest g = generation(f, text, null, max);
        return new ApiRequest(true, g, Boolean.TRUE.equals(logprobs), f.boolOr("return_tokens_as_token_ids", false));
    }

    /** The fields both endpoints share. */
    private GenerationRequest generation(Fields f, String text, List<Integer> ids, int maxTokens) {
        if (Boolean.TRUE.equals(f.bool("stream"))) throw ApiException.invalid("streaming is not supported", "stream");
        double temperature = f.numberOr("temperature", 1.0);
        if (temperature < 0) throw ApiException.invalid("'temperature' must be >= 0, got " + temperature, "temperature");
        double topP = f.numberOr("top_p", 1.0);
        if (!(topP > 0 && topP <= 1)) throw ApiException.invalid("'top_p' must be in (0, 1], got " + topP, "top_p");
        int topK = f.integerOr("top_k", -1, Integer.MAX_VALUE, -1);
        JsonNode nNode = f.get("n");
        int n = 1;
        if (nNode != null && !nNode.isNull()) {
            if (!nNode.isIntegralNumber()) throw Fields.wrongType("n", "an integer", nNode);
            if (!nNode.canConvertToInt() || nNode.intValue() < 1 || nNode.intValue() > maxBatchRows) {
                // a request's candidates share one engine batch, so n is bounded by the batch
                throw ApiException.invalid("'n' must be in 1.." + maxBatchRows + " (the server's --max-batch-rows), got "
                        + nNode, "n");
            }
            n = nNode.intValue();
        }
        Long seed = f.longValue("seed");
        List<String> stops = stopStrings(f.get("stop"));
        Set<Integer> stopIds = f.get("stop_token_ids") == null || f.get("stop_token_ids").isNull() ? Set.of()
                : new LinkedHashSet<>(tokenIds(f.get("stop_token_ids"), "stop_token_ids"));
        f.string("user");
        for (String penalty : List.of("presence_penalty", "frequency_penalty")) {
            double p = f.numberOr(penalty, 0.0);
            if (p != 0) throw ApiException.invalid("'" + penalty + "' is not supported (only 0)", penalty);
        }
        JsonNode bias = f.get("logit_bias");
        if (bias != null && !bias.isNull() && !(bias.isObject() && bias.isEmpty())) {
            throw ApiException.invalid("'logit_bias' is not supported (only null or {})", "logit_bias");
        }
        Sampling sampling = new Sampling(temperature, topK <= 0 ? 0 : topK, topP);
        return new GenerationRequest(text, ids, maxTokens, sampling, n, seed == null ? 0 : seed, stopIds, stops);
    }

    private List<Integer> tokenIds(JsonNode array, String param) {
        if (!array.isArray()) throw ApiException.invalid("'" + param + "' must be a list of token ids", param);
        if (param.equals("prompt") && array.isEmpty()) throw ApiException.invalid("'prompt' is empty", param);
        List<Integer> ids = new ArrayList<>(array.size());
        for (JsonNode id : array) {
            if (!id.isIntegralNumber() || !id.canConvertToInt() || id.intValue() < 0) {
                throw ApiException.invalid("'" + param + "' must hold token ids (integers >= 0), got " + id, param);
            }
            if (served.vocabSize() > 0 && id.intValue() >= served.vocabSize()) {
                throw ApiException.invalid("'" + param + "': token id " + id.intValue() + " is outside the vocabulary (0.."
                        + (served.vocabSize() - 1) + ")", param);
            }
            ids.add(id.intValue());
        }
        return ids;
    }

    private static List<String> stopStrings(JsonNode stop) {
        if (stop == null || stop.isNull()) return List.of();
        List<String> out = new ArrayList<>();
        if (stop.isTextual()) {
            out.add(stop.textValue());
        } else if (stop.isArray()) {
            for (JsonNode s : stop) {
                if (!s.isTextual()) throw ApiException.invalid("'stop' must be a string or a list of strings", "stop");
                out.add(s.textValue());
            }
        } else {
            throw ApiException.invalid("'stop' must be a string or a list of strings", "stop");
        }
        if (out.size() > MAX_STOP_STRINGS) {
            throw ApiException.invalid("at most " + MAX_STOP_STRINGS + " stop strings, got " + out.size(), "stop");
        }
        if (out.contains("")) throw ApiException.invalid("'stop' strings must not be empty", "stop");
        return out;
    }

    private static List<ChatMessage> messages(JsonNode node) {
        if (node == null || node.isNull()) throw ApiException.invalid("'messages' is required", "messages");
        if (!node.isArray() || node.isEmpty()) throw ApiException.invalid("'messages' must be a non-empty list", "messages");
        List<ChatMessage> out = new ArrayList<>();
        for (JsonNode m : node) {
            if (!m.isObject()) throw ApiException.invalid("each message must be an object {role, content}", "messages");
            for (Iterator<String> it = m.fieldNames(); it.hasNext(); ) {
                String name = it.next();
                if (!name.equals("role") && !name.equals("content")) {
                    throw ApiException.invalid("unknown message field '" + name + "' (only role and content)", "messages");
                }
            }
            JsonNode role = m.get("role");
            JsonNode content = m.get("content");
            if (role == null || !role.isTextual()) throw ApiException.invalid("each message needs a 'role' string", "messages");
            if (content == null || !content.isTextual()) {
                throw ApiException.invalid("each message needs a 'content' string (content parts are not supported)", "messages");
            }
            ChatMessage.Role r = switch (role.textValue()) {
                case "system" -> ChatMessage.Role.SYSTEM;
                case "user" -> ChatMessage.Role.USER;
                case "assistant" -> ChatMessage.Role.ASSISTANT;
                default -> throw ApiException.invalid("role must be system, user or assistant, got '" + role.textValue() + "'",
                        "messages");
            };
            out.add(new ChatMessage(r, content.textValue()));
        }
        return out;
    }

    /** The fields of one body, read with their types checked. */
    private static final class Fields {
        private final ObjectNode node;

        Fields(JsonNode root, Set<String> endpointOnly) {
            if (root == null || !root.isObject()) throw ApiException.invalid("the request body must be a JSON object", null);
            node = (ObjectNode) root;
            for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
                String name = it.next();
                if (!SHARED.contains(name) && !endpointOnly.contains(name)) {
                    throw ApiException.invalid("unknown field '" + name + "'", name);
                }
            }
        }

        JsonNode get(String name) {
            return node.get(name);
        }

        void model(String served) {
            JsonNode m = node.get("model");
            if (m == null || m.isNull()) throw ApiException.invalid("'model' is required", "model");
            if (!m.isTextual()) throw ApiException.invalid("'model' must be a string", "model");
            if (!m.textValue().equals(served)) throw ApiException.modelNotFound(m.textValue());
        }

        String string(String name) {
            JsonNode v = node.get(name);
            if (v == null || v.isNull()) return null;
            if (!v.isTextual()) throw wrongType(name, "a string", v);
            return v.textValue();
        }

        Boolean bool(String name) {
            JsonNode v = node.get(name);
            if (v == null || v.isNull()) return null;
            if (!v.isBoolean()) throw wrongType(name, "true or false", v);
            return v.booleanValue();
        }

        boolean boolOr(String name, boolean absent) {
            Boolean b = bool(name);
            return b == null ? absent : b;
        }

        /** An integer in {@code [min, max]}, or null when absent or null. */
        Integer integer(String name, int min, int max) {
            JsonNode v = node.get(name);
            if (v == null || v.isNull()) return null;
            if (!v.isIntegralNumber()) throw wrongType(name, "an integer", v);
            if (!v.canConvertToInt() || v.intValue() < min || v.intValue() > max) {
                throw ApiException.invalid("'" + name + "' must be in " + range(min, max) + ", got " + v, name);
            }
            return v.intValue();
        }

        int integerOr(String name, int min, int max, int absent) {
            Integer i = integer(name, min, max);
            return i == null ? absent : i;
        }

        Long longValue(String name) {
            JsonNode v = node.get(name);
            if (v == null || v.isNull()) return null;
            if (!v.isIntegralNumber()) throw wrongType(name, "an integer", v);
            if (!v.canConvertToLong()) throw ApiException.invalid("'" + name + "' does not fit in 64 bits: " + v, name);
            return v.longValue();
        }

        double numberOr(String name, double absent) {
            JsonNode v = node.get(name);
            if (v == null || v.isNull()) return absent;
            if (!v.isNumber()) throw wrongType(name, "a number", v);
            double d = v.doubleValue();
            if (!Double.isFinite(d)) throw ApiException.invalid("'" + name + "' must be finite, got " + v, name);
            return d;
        }

        static ApiException wrongType(String name, String what, JsonNode v) {
            return ApiException.invalid("'" + name + "' must be " + what + ", got " + kind(v), name);
        }

        private static String range(int min, int max) {
            return max == Integer.MAX_VALUE ? min + ".." : min + ".." + max;
        }

        private static String kind(JsonNode v) {
            return switch (v.getNodeType()) {
                case STRING -> "a string";
                case NUMBER -> v.isIntegralNumber() ? "an integer" : "a number";
                case BOOLEAN -> "a boolean";
                case ARRAY -> "a list";
                case OBJECT -> "an object";
                default -> v.getNodeType().name().toLowerCase(Locale.ROOT);
            };
        }
    }
}
