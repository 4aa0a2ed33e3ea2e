package dev.ladder.inference;

import java.util.List;

/**
 * One generated continuation.
 *
 * @param text         decoded generated tokens, cut before a stop string
 * @param tokenIds     generated ids, without the stop token
 * @param logProbs     log-probability of each generated id under the model's distribution (before
 *                     temperature / top-k / top-p), one per id
 * @param finishReason why it stopped
 * @param note         what an instrument engine did to make it (the oracle's noise), or null; real engines say nothing
 */
public record Candidate(String text, List<Integer> tokenIds, List<Float> logProbs, FinishReason finishReason,
                        String note) {
    public Candidate {
        tokenIds = List.copyOf(tokenIds);
        logProbs = List.copyOf(logProbs);
    }

    public Candidate(String text, List<Integer> tokenIds, List<Float> logProbs, FinishReason finishReason) {
        this(text, tokenIds, logProbs, finishReason, null);
    }
}
