package dev.ladder.inference.text;

import dev.ladder.inference.ChatMessage;
import dev.ladder.inference.PromptFormat;

import java.util.List;
import java.util.Objects;

/**
 * The prompt for a base (non-chat) model: the BOS token, then the messages' contents in order, separated by one
 * blank line ({@code "\n\n"}), with no role labels and nothing after the last one; the model continues the text.
 * So a system instruction and a question become {@code <|begin_of_text|>{system}\n\n{user}}.
 *
 * <p>Contents are taken as they are (not stripped: in a completion prompt trailing text such as {@code "SQL: "} is
 * the prompt author's choice); empty contents are left out so that no stray blank lines appear. Roles only order
 * the text, so few-shot examples can be given as user/assistant pairs.
 *
 * <p>The BOS string is {@code <|begin_of_text|>} by default (Llama 3); {@link PromptFormats#forModel} passes the
 * model's own {@code bos_token}. With an empty BOS nothing is prepended and {@link #writesBos()} is false.
 */
public final class CompletionFormat implements PromptFormat {

    public static final String NAME = "completion";

    /** Between two messages' contents. */
    public static final String SEPARATOR = "\n\n";

    private final String bos;

    /** Llama 3's BOS, {@code <|begin_of_text|>}. */
    public CompletionFormat() {
        this(Llama3ChatFormat.BEGIN_OF_TEXT);
    }

    /** @param bos the BOS token text to start with, or {@code ""} for none */
    public CompletionFormat(String bos) {
        this.bos = Objects.requireNonNull(bos, "bos");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String format(List<ChatMessage> messages) {
        Objects.requireNonNull(messages, "messages");
        StringBuilder out = new StringBuilder(bos);
        boolean first = true;
        for (ChatMessage m : messages) {
            if (m.content().isEmpty()) {
                continue;
            }
            if (!first) {
                out.append(SEPARATOR);
            }
            out.append(m.content());
            first = false;
        }
        return out.toString();
    }

    @Override
    public boolean writesBos() {
        return !bos.isEmpty();
    }

    /** The BOS text this format starts with ({@code ""} for none). */
    public String bos() {
        return bos;
    }

    @Override
    public String toString() {
        return NAME;
    }
}
