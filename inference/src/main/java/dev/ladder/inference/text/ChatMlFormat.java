package dev.ladder.inference.text;

import dev.ladder.inference.ChatMessage;
import dev.ladder.inference.PromptFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * ChatML, the chat format of Qwen2 / Qwen2.5 and SmolLM2-Instruct: every message as
 * {@code <|im_start|>{role}\n{content}<|im_end|>\n}, then {@code <|im_start|>assistant\n} for the answer.
 * No BOS (these tokenizers add none). Contents are kept as they are, as those models' templates do. Model-specific
 * default system prompts (Qwen's "You are a helpful assistant.") are not inserted: pass a system message.
 */
public final class ChatMlFormat implements PromptFormat {

    public static final String NAME = "chatml";
    public static final String IM_START = "<|im_start|>";
    public static final String IM_END = "<|im_end|>";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String format(List<ChatMessage> messages) {
        Objects.requireNonNull(messages, "messages");
        StringBuilder out = new StringBuilder();
        for (ChatMessage m : messages) {
            out.append(IM_START).append(m.role().name().toLowerCase(Locale.ROOT)).append('\n')
                    .append(m.content()).append(IM_END).append('\n');
        }
        return out.append(IM_START).append("assistant\n").toString();
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
