package dev.ladder.inference.device;

import dev.ladder.inference.model.ModelConfig;

/**
 * The djl engine's limits, which both the engine ({@code inference.llm}) and its memory plan ({@link MemoryPlan}) obey:
 * one definition below both, so the plan never has to ask the engine (and the two packages do not depend on each
 * other in a cycle).
 */
public final class EngineLimits {

    /** Candidate rows decoded together by default ({@code DjlLanguageModel.Options.maxBatchRows}). */
    public static final int MAX_BATCH_ROWS = 16;
    /** Most padded prompt tokens prefilled in one pass by default ({@code DjlLanguageModel.Options.prefillTokens}). */
    public static final int PREFILL_TOKENS = 4096;
    /** The context window cap when none is asked for. */
    public static final int MAX_CONTEXT = 8192;
    /** Bytes of attention scores one query block may hold (12 per score: scores, mask sum, softmax, probabilities). */
    public static final long ATTENTION_BLOCK_BYTES = 256L << 20;

    private EngineLimits() {}

    /** The context window used when none is asked for: min(config max positions, {@link #MAX_CONTEXT}). */
    public static int defaultContext(ModelConfig config) {
        return Math.min(config.maxPositions(), MAX_CONTEXT);
    }

    /**
     * Queries per attention block for {@code b} rows of {@code t} new tokens over {@code l} keys with {@code heads}
     * query heads: all of them when their scores fit {@code blockBytes}, else as many as fit (at least 1).
     */
    public static long queryBlock(long b, long heads, long t, long l, long blockBytes) {
        long perQuery = b * heads * l * 12;
        return Math.max(1, Math.min(t, blockBytes / Math.max(1, perQuery)));
    }
}
