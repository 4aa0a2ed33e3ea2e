package dev.ladder.inference.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.model.ModelException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/** The prompt formats Ladder knows, by name or as fits a model directory. */
public final class PromptFormats {

    /** Known names, in the order error messages list them. */
    public static final List<String> NAMES = List.of(Llama3ChatFormat.NAME, ChatMlFormat.NAME, CompletionFormat.NAME);

    private PromptFormats() {
    }

    /**
     * {@code llama3-chat} or {@code completion} (case and surrounding blanks ignored).
     *
     * @throws IllegalArgumentException for any other name, listing the known ones
     */
    public static PromptFormat byName(String name) {
        Objects.requireNonNull(name, "name");
        return switch (name.strip().toLowerCase(Locale.ROOT)) {
            case Llama3ChatFormat.NAME -> new Llama3ChatFormat();
            case ChatMlFormat.NAME -> new ChatMlFormat();
            case CompletionFormat.NAME -> new CompletionFormat();
            default -> throw new IllegalArgumentException(
                    "unknown prompt format '" + name + "'; known formats: " + String.join(", ", NAMES));
        };
    }

    /**
     * The format a model directory asks for: {@code llama3-chat} when its {@code tokenizer_config.json} has a Llama 3
     * {@code chat_template} (one using {@code <|start_header_id|>}), {@code chatml} for a ChatML one (Qwen2, SmolLM2
     * instruct), else {@link #completionFor} — also for chat templates of other families, which Ladder does not
     * know (name a format with {@link #byName} to override).
     *
     * @throws ModelException for a missing directory or a malformed {@code tokenizer_config.json}
     */
    public static PromptFormat forModel(Path modelDir) {
        Objects.requireNonNull(modelDir, "modelDir");
        if (!Files.isDirectory(modelDir)) {
            throw new ModelException("no such model directory: " + modelDir);
        }
        HfTokenizerConfig config = HfTokenizerConfig.read(modelDir);
        if (config.hasChatTemplate()) {
            if (config.chatTemplate().contains(Llama3ChatFormat.START_HEADER)) return new Llama3ChatFormat();
            if (config.chatTemplate().contains(ChatMlFormat.IM_START)) return new ChatMlFormat();
        }
        return completionFor(modelDir);
    }

    /** Whether {@link #forModel} finds a chat format (not the completion fallback) for this directory. */
    public static boolean hasChatFormat(Path modelDir) {
        return !(forModel(modelDir) instanceof CompletionFormat);
    }

    /**
     * The completion format for a base model: it starts with the model's {@code bos_token} only when the model's
     * own tokenizer would add it (its {@code tokenizer.json} post-processor inserts it, or
     * {@code tokenizer_config.json} says {@code add_bos_token: true}) — Llama 3 yes; Qwen2 and SmolLM2 no.
     */
    public static CompletionFormat completionFor(Path modelDir) {
        HfTokenizerConfig config = HfTokenizerConfig.read(modelDir);
        String bos = config.bosToken();
        return bos != null && addsBos(modelDir, bos) ? new CompletionFormat(bos) : new CompletionFormat("");
    }

    private static boolean addsBos(Path modelDir, String bos) {
        ObjectMapper json = new ObjectMapper();
        try {
            Path tc = modelDir.resolve(HfTokenizerConfig.TOKENIZER_CONFIG);
            if (Files.isRegularFile(tc)) {
                JsonNode add = json.readTree(tc.toFile()).get("add_bos_token");
                if (add != null && add.isBoolean()) return add.booleanValue();
            }
            Path tj = modelDir.resolve("tokenizer.json");
            if (!Files.isRegularFile(tj)) return false;
            JsonNode post = json.readTree(tj.toFile()).get("post_processor");
            // a TemplateProcessing (alone or inside a Sequence) whose single-sequence template names the BOS
            return post != null && !post.isNull() && post.toString().contains("\"id\":\"" + bos.replace("\"", "\\\"") + "\"");
        } catch (IOException e) {
            throw new ModelException("cannot read the tokenizer files in " + modelDir + ": " + e.getMessage(), e);
        }
    }
}
