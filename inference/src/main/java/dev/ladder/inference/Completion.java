package dev.ladder.inference;

import java.util.List;

/**
 * The answer to one {@link GenerationRequest}: its {@code n} candidates, in order.
 *
 * @param promptTokens  prompt length in tokens
 * @param prefillMillis time to run the prompt
 * @param decodeMillis  time spent generating (shared with the other rows of its batch)
 */
public record Completion(List<Candidate> candidates, int promptTokens, long prefillMillis, long decodeMillis) {
    public Completion {
        candidates = List.copyOf(candidates);
    }

    /** The first candidate's text. */
    public String text() {
        return candidates.get(0).text();
    }
}
