package dev.ladder.pipeline.strategy;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Reads the one JSON object a model was asked to reply with. Strict JSON (no comments, no trailing commas, no single
 * quotes); the only courtesy is that text around the object (a Markdown fence, a sentence before it) is ignored, so
 * that the object is judged, not its wrapping.
 */
public final class JsonReply {

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    /** The object, or why there is none. */
    public record Parsed(JsonNode object, String error) {
        public boolean ok() {
            return object != null;
        }
    }

    private JsonReply() {}

    public static Parsed parse(String reply) {
        if (reply == null || reply.isBlank()) return new Parsed(null, "the reply is empty");
        int start = reply.indexOf('{');
        if (start < 0) return new Parsed(null, "the reply holds no JSON object (no '{')");
        int end = closingBrace(reply, start);
        if (end < 0) return new Parsed(null, "the JSON object is not closed (the reply may have been cut off)");
        try {
            JsonNode node = JSON.readTree(reply.substring(start, end + 1));
            if (node == null || !node.isObject()) return new Parsed(null, "the reply is not a JSON object");
            return new Parsed(node, null);
        } catch (JsonProcessingException e) {
            String msg = e.getOriginalMessage();
            return new Parsed(null, "invalid JSON: " + (msg.length() > 200 ? msg.substring(0, 200) + "..." : msg));
        }
    }

    /** The index of the brace that closes the one at {@code start}, braces inside JSON strings skipped; -1 if none. */
    private static int closingBrace(String s, int start) {
        int depth = 0;
        boolean inString = false;
        for (int i = start; i < s.length(); i++) {
            char c = s.charAt(i);
            if (inString) {
                if (c == '\\') i++;
                else if (c == '"') inString = false;
            } else if (c == '"') {
                inString = true;
            } else if (c == '{') {
                depth++;
            } else if (c == '}' && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    /** A text field, or null when absent, null or not text. */
    public static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v != null && v.isTextual() ? v.asText() : null;
    }
}
