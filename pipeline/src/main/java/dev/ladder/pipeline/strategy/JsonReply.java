package dev.ladder.pipeline.strategy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the one JSON object a model was asked to reply with. Strict JSON (no comments, no trailing commas, no single
 * quotes) with two courtesies where the meaning is unambiguous: text around the object (a Markdown fence, a sentence
 * before it) is ignored, and a raw line break or tab inside a string (a model writing multi-line SQL) reads as the
 * character it is. A reply cut off at the token budget can still give the complete elements of a list
 * ({@link #completeElements}).
 */
public final class JsonReply {

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS)
            .build();

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

    /**
     * For a reply cut off before its object closes: the elements of the list under {@code key} that were written
     * whole (each a complete object that parses), in order; empty when there is no such list or none is whole.
     */
    public static List<JsonNode> completeElements(String reply, String key) {
        List<JsonNode> out = new ArrayList<>();
        if (reply == null) return out;
        Matcher m = Pattern.compile("\"" + Pattern.quote(key) + "\"\\s*:\\s*\\[").matcher(reply);
        if (!m.find()) return out;
        int i = m.end();
        while (i < reply.length()) {
            char c = reply.charAt(i);
            if (c == '{') {
                int end = closingBrace(reply, i);
                if (end < 0) break; // the element the reply was cut in
                try {
                    JsonNode node = JSON.readTree(reply.substring(i, end + 1));
                    if (node != null && node.isObject()) out.add(node);
                } catch (JsonProcessingException e) {
                    break;
                }
                i = end + 1;
            } else if (c == ']') {
                break;
            } else if (c == '"') {
                int close = i + 1; // a string element: skipped whole, braces inside it are text
                while (close < reply.length() && reply.charAt(close) != '"') close += reply.charAt(close) == '\\' ? 2 : 1;
                i = close + 1;
            } else {
                i++;
            }
        }
        return out;
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
