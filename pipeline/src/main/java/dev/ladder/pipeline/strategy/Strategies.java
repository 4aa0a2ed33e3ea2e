package dev.ladder.pipeline.strategy;

import java.util.List;
import java.util.Locale;

/**
 * Every strategy by name: the rungs of the ablation ladder, bottom rung first, then the published pipelines with
 * their own baselines ({@code prompt-k1}: the direct one-shot prompt structured search is compared with).
 */
public final class Strategies {

    private static final List<Strategy> ALL = List.of(
            new PromptStrategy("prompt-k0", 0),
            new PromptStrategy("prompt-k3", 3),
            new AgentStrategy(AgentStrategy.GATE),
            new AgentStrategy(AgentStrategy.CLAMPS),
            new AgentStrategy(AgentStrategy.CANDIDATES),
            new AgentStrategy(AgentStrategy.REPAIR),
            new PromptStrategy("prompt-k1", 1),
            new dev.ladder.pipeline.search.StructuredSearchStrategy(),
            new dev.ladder.pipeline.gsr.GsrStrategy(),
            new dev.ladder.pipeline.soft.SoftAttentionStrategy(),
            new dev.ladder.pipeline.progressive.ProgressiveStrategy());

    private Strategies() {}

    /** {@code prompt-k0, prompt-k3, agent-0, agent-1, agent-2, agent-3, prompt-k1, structured-search, gsr,
     * soft-attention, progressive}. */
    public static List<String> names() {
        return ALL.stream().map(Strategy::name).toList();
    }

    /** Every strategy, in {@link #names()} order. */
    public static List<Strategy> all() {
        return ALL;
    }

    /**
     * @param name a registered name (surrounding space and case ignored)
     * @throws IllegalArgumentException naming the known names
     */
    public static Strategy byName(String name) {
        String n = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
        for (Strategy s : ALL) {
            if (s.name().equals(n)) return s;
        }
        throw new IllegalArgumentException("unknown strategy '" + name + "' (known: " + String.join(", ", names()) + ")");
    }
}
