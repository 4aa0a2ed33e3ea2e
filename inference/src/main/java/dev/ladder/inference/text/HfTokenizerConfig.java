package dev.ladder.inference.text;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.inference.model.ModelException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What Ladder reads from a model directory's {@code tokenizer_config.json} (optional) and
 * {@code generation_config.json} (optional): BOS/EOS token strings, the chat template, EOS ids.
 *
 * @param bosToken     {@code bos_token} (a string or an {@code AddedToken} object's content), or null
 * @param eosToken     {@code eos_token}, or null
 * @param chatTemplate {@code chat_template}: the template text, or for the list form the templates joined; null if none
 * @param generationEosIds {@code eos_token_id} of {@code generation_config.json} (an int or a list), empty if none
 */
record HfTokenizerConfig(String bosToken, String eosToken, String chatTemplate, List<Integer> generationEosIds) {

    static final String TOKENIZER_CONFIG = "tokenizer_config.json";
    static final String GENERATION_CONFIG = "generation_config.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    static HfTokenizerConfig read(Path modelDir) {
        String bos = null;
        String eos = null;
        String template = null;
        JsonNode config = readOptional(modelDir.resolve(TOKENIZER_CONFIG));
        if (config != null) {
            bos = tokenText(config.get("bos_token"));
            eos = tokenText(config.get("eos_token"));
            template = chatTemplate(config.get("chat_template"));
        }
        List<Integer> genEos = new ArrayList<>();
        JsonNode generation = readOptional(modelDir.resolve(GENERATION_CONFIG));
        if (generation != null) {
            JsonNode ids = generation.get("eos_token_id");
            if (ids != null && ids.isInt()) {
                genEos.add(ids.intValue());
            } else if (ids != null && ids.isArray()) {
                ids.forEach(n -> {
                    if (n.isInt()) {
                        genEos.add(n.intValue());
                    }
                });
            }
        }
        return new HfTokenizerConfig(bos, eos, template, List.copyOf(genEos));
    }

    boolean hasChatTemplate() {
        return chatTemplate != null && !chatTemplate.isBlank();
    }

    private static JsonNode readOptional(Path file) {
        if (!Files.isRegularFile(file)) {
            return null;
        }
        try {
            JsonNode node = JSON.readTree(file.toFile());
            if (node == null || !node.isObject()) {
                throw new ModelException("malformed " + file.getFileName() + " at " + file + ": not a JSON object");
            }
            return node;
        } catch (JacksonException e) {
            throw new ModelException("malformed " + file.getFileName() + " at " + file + ": "
                    + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new ModelException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** A special token as HF writes it: {@code "<s>"} or {@code {"content": "<s>", "__type": "AddedToken", ...}}. */
    private static String tokenText(JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (node.isTextual()) {
            return node.textValue();
        }
        if (node.isObject() && node.path("content").isTextual()) {
            return node.path("content").textValue();
        }
        return null;
    }

    /** {@code chat_template} is a string, or a list of {@code {"name": ..., "template": ...}} (newer HF). */
    private static String chatTemplate(JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (node.isTextual()) {
            return node.textValue();
        }
        if (node.isArray()) {
            StringBuilder all = new StringBuilder();
            for (JsonNode t : node) {
                if (t.path("template").isTextual()) {
                    all.append(t.path("template").textValue()).append('\n');
                }
            }
            return all.length() == 0 ? null : all.toString();
        }
        return null;
    }
}
