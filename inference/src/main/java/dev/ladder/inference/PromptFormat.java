package dev.ladder.inference;

import java.util.List;

/** Turns messages into the exact prompt text a model was trained on. Formats are looked up by name. */
public interface PromptFormat {

    /** e.g. {@code llama3-chat}, {@code completion} */
    String name();

    /**
     * The prompt that asks the model for the next assistant turn: for chat formats every message
     * with its role headers and then the opening of the assistant turn; for the completion format
     * the message contents joined, the model continues the text.
     */
    String format(List<ChatMessage> messages);

    /** Whether the formatted text starts with the tokenizer's BOS itself (then encode without adding one). */
    boolean writesBos();
}
