package dev.ladder.inference.text;

import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.model.ModelException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/** The prompt formats Ladder knows, by name or as fits a model directory. */
public final class PromptFormats {

    /** Known names, in the order error messages list them. */
    public static final List<String> NAMES = List.of(Llama3ChatFormat.NAME, CompletionFormat.NAME);

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
            case CompletionFormat.NAME -> new CompletionFormat();
            default -> throw new IllegalArgumentException(
                    "unknown prompt format '" + name + "'; known formats: " + String.join(", ", NAMES));
        };
    }

    /**
     * The format a model directory asks for: {@code llama3-chat} when its {@code tokenizer_config.json} has a
     * {@code chat_template} (a Llama 3 one: it must use {@code <|start_header_id|>}), else {@code completion} with
     * the model's {@code bos_token} ({@code <|begin_of_text|>} when none is named).
     *
     * @throws ModelException for a missing directory, a malformed {@code tokenizer_config.json}, or a chat template
     *                        of another model family (name a format with {@link #byName} instead)
     */
    public static PromptFormat forModel(Path modelDir) {
        Objects.requireNonNull(modelDir, "modelDir");
        if (!Files.isDirectory(modelDir)) {
            throw new ModelException("no such model directory: " + modelDir);
        }
        HfTokenizerConfig config = HfTokenizerConfig.read(modelDir);
        if (config.hasChatTemplate()) {
            if (config.chatTemplate().contains(Llama3ChatFormat.START_HEADER)) {
                return new Llama3ChatFormat();
            }
            throw new ModelException("the chat_template in " + modelDir.resolve(HfTokenizerConfig.TOKENIZER_CONFIG)
                    + " is not a Llama 3 template; name a prompt format instead (known formats: "
                    + String.join(", ", NAMES) + ")");
        }
        String bos = config.bosToken() != null ? config.bosToken() : Llama3ChatFormat.BEGIN_OF_TEXT;
        return new CompletionFormat(bos);
    }
}
