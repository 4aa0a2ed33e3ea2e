package dev.ladder.pipeline.strategy;

/**
 * One rung of the ablation ladder: turns a question into SQL with a language model. A strategy knows nothing about
 * metrics or gold answers; it may execute its own candidates on the context's database. Implementations are
 * stateless (one instance may answer many questions, one at a time or concurrently with separate contexts).
 */
public interface Strategy {

    /** The registered name, e.g. {@code prompt-k3} or {@code agent-2} (see {@link Strategies}). */
    String name();

    /** Answers one question; never throws for anything the model writes. */
    Answer answer(Question question, StrategyContext context);

    /**
     * Whether answers under these settings depend on {@link Settings#seed()} (some request samples). A rung that
     * does not is run once and its answers reused for every other seed of an experiment.
     */
    default boolean usesSeed(Settings settings) {
        return false;
    }

    /**
     * The largest token budget any call of this strategy may request under these settings: the memory plan checks a
     * model against it before loading. {@link Settings#maxNewTokens} unless the strategy's calls carry their own.
     */
    default int tokenBudget(Settings settings) {
        return settings.maxNewTokens();
    }
}
