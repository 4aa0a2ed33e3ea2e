package dev.ladder.pipeline.strategy;

import java.util.Objects;

/**
 * One natural-language question to answer.
 *
 * @param id   an identifier for traces and result rows (a benchmark item id, or anything unique in a run)
 * @param text the question as asked
 * @param hint external knowledge that comes with the question (BIRD's evidence); {@code ""} when none. Only the
 *             strategies whose method reads a hint use it (GSR); the ladder's prompts do not.
 */
public record Question(String id, String text, String hint) {
    public Question {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(text, "text");
        hint = hint == null ? "" : hint;
    }

    /** A question without a hint. */
    public Question(String id, String text) {
        this(id, text, "");
    }
}
