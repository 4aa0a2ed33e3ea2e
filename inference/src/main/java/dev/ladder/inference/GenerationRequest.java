package dev.ladder.inference;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One prompt to complete.
 *
 * @param prompt        the prompt text, already formatted (see {@link PromptFormat}); ignored when
 *                      {@code promptIds} is given
 * @param promptIds     the prompt as token ids, or null to encode {@code prompt} (no BOS is added:
 *                      formats write their own)
 * @param maxNewTokens  most tokens generated per candidate
 * @param sampling      greedy or temperature / top-k / top-p
 * @param n             candidates, all sharing one prefill of the prompt
 * @param seed          seed of the sampler: the same seed gives the same candidates
 * @param stopTokenIds  generation ends after one of these ids (it is not part of the text)
 * @param stopStrings   generation ends when the generated text (never the prompt) contains one; the
 *                      text is cut before it
 * @param tag           what the call is for ({@link CallTag}), or null; engines generating from the prompt ignore it
 */
public record GenerationRequest(String prompt, List<Integer> promptIds, int maxNewTokens, Sampling sampling, int n,
                                long seed, Set<Integer> stopTokenIds, List<String> stopStrings, CallTag tag) {

    public GenerationRequest {
        if (prompt == null && promptIds == null) throw new IllegalArgumentException("a request needs a prompt or prompt ids");
        if (maxNewTokens < 0) throw new IllegalArgumentException("maxNewTokens must be >= 0, got " + maxNewTokens);
        if (n < 1) throw new IllegalArgumentException("n must be >= 1, got " + n);
        Objects.requireNonNull(sampling, "sampling");
        promptIds = promptIds == null ? null : List.copyOf(promptIds);
        stopTokenIds = stopTokenIds == null ? Set.of() : Set.copyOf(stopTokenIds);
        stopStrings = stopStrings == null ? List.of() : List.copyOf(stopStrings);
        if (stopStrings.contains("")) throw new IllegalArgumentException("an empty stop string would stop at once");
    }

    /** An untagged request. */
    public GenerationRequest(String prompt, List<Integer> promptIds, int maxNewTokens, Sampling sampling, int n,
                             long seed, Set<Integer> stopTokenIds, List<String> stopStrings) {
        this(prompt, promptIds, maxNewTokens, sampling, n, seed, stopTokenIds, stopStrings, null);
    }

    /** This request, saying what it is for. */
    public GenerationRequest withTag(CallTag t) {
        return new GenerationRequest(prompt, promptIds, maxNewTokens, sampling, n, seed, stopTokenIds, stopStrings, t);
    }

    /** Greedy, one candidate, no stop strings; the model's own end-of-sequence ids still stop it. */
    public static GenerationRequest greedy(String prompt, int maxNewTokens) {
        return new GenerationRequest(prompt, null, maxNewTokens, Sampling.GREEDY, 1, 0, Set.of(), List.of());
    }

    public GenerationRequest withSampling(Sampling s, long newSeed) {
        return new GenerationRequest(prompt, promptIds, maxNewTokens, s, n, newSeed, stopTokenIds, stopStrings, tag);
    }

    public GenerationRequest withN(int candidates) {
        return new GenerationRequest(prompt, promptIds, maxNewTokens, sampling, candidates, seed, stopTokenIds, stopStrings, tag);
    }

    public GenerationRequest withStops(Set<Integer> ids, List<String> strings) {
        return new GenerationRequest(prompt, promptIds, maxNewTokens, sampling, n, seed, ids, strings, tag);
    }
}
