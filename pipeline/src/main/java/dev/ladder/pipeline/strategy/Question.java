package dev.ladder.pipeline.strategy;

import java.util.Objects;

/**
 * One natural-language question to answer.
 *
 * @param id   an identifier for traces and result rows (a benchmark item id, or anything unique in a run)
 * @param text the question as asked
 */
public record Question(String id, String text) {
    public Question {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(text, "text");
    }
}
