package dev.ladder.inference.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.ladder.inference.ChatMessage;
import dev.ladder.inference.PromptFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The prompt format of a model behind a chat endpoint: the server applies its own chat template, so the "prompt" a
 * strategy formats is the conversation itself, written as a JSON array of {@code {"role", "content"}} objects, which
 * {@link OpenAiLanguageModel} reads back into the request's {@code messages}. Strategies stay unaware of the engine,
 * and the generation cache keys on exactly what the server is sent.
 */
public final class ServerChatFormat implements PromptFormat {

    public static final String NAME = "server-chat";

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String format(List<ChatMessage> messages) {
        ArrayNode out = JSON.createArrayNode();
        for (ChatMessage m : messages) {
            out.addObject().put("role", m.role().name().toLowerCase(Locale.ROOT)).put("content", m.content());
        }
        return out.toString();
    }

    /**
     * The messages of a prompt this format wrote.
     *
     * @throws IllegalArgumentException for text that is not such a conversation (a prompt formatted for another
     *                                  model, or raw text)
     */
    public static List<ChatMessage> parse(String prompt) {
        JsonNode root;
        try {
            root = JSON.readTree(prompt);
        } catch (JsonProcessingException e) {
            root = null;
        }
        if (root == null || !root.isArray()) {
            throw new IllegalArgumentException("a chat endpoint needs the conversation, and this prompt is plain text"
                    + " (format prompts with the model's own prompt format, " + NAME + ")");
        }
        List<ChatMessage> out = new ArrayList<>();
        for (JsonNode m : root) {
            JsonNode role = m.get("role");
            JsonNode content = m.get("content");
            if (role == null || content == null || !role.isTextual() || !content.isTextual()) {
                throw new IllegalArgumentException("not a " + NAME + " message: " + m);
            }
            out.add(new ChatMessage(ChatMessage.Role.valueOf(role.asText().toUpperCase(Locale.ROOT)), content.asText()));
        }
        return out;
    }

    @Override
    public boolean writesBos() {
        return false;
    }

    @Override
    public String toString() {
        return NAME;
    }
}
