package dev.ladder.pipeline.strategy;

import java.util.List;

/**
 * Every strategy by name, from the registered pipelines ({@link Pipelines#registry()}): the rungs of the ablation
 * ladder, bottom rung first, then each published pipeline's.
 */
public final class Strategies {

    private Strategies() {}

    /** {@code prompt-k0, prompt-k3, agent-0, agent-1, agent-2, agent-3, prompt-k1, structured-search, gsr,
     * soft-attention, progressive}, then any other registered pipeline's. */
    public static List<String> names() {
        return Pipelines.registry().strategyNames();
    }

    /** Every strategy, in {@link #names()} order. */
    public static List<Strategy> all() {
        return Pipelines.registry().strategies();
    }

    /**
     * @param name a registered name (surrounding space and case ignored)
     * @throws IllegalArgumentException naming the known names
     */
    public static Strategy byName(String name) {
        return Pipelines.registry().strategy(name);
    }
}
