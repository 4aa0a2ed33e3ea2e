package dev.ladder.pipeline.strategy;

import java.util.List;
import java.util.Locale;

/** The rungs of the ablation ladder by name, bottom rung first. */
public final class Strategies {

    private static final List<Strategy> ALL = List.of(
            new PromptStrategy("prompt-k0", 0),
            new PromptStrategy("prompt-k3", 3),
            new AgentStrategy(AgentStrategy.GATE),
            new AgentStrategy(AgentStrategy.CLAMPS),
            new AgentStrategy(AgentStrategy.CANDIDATES),
            new AgentStrategy(AgentStrategy.REPAIR));

    private Strategies() {}

    /** {@code prompt-k0, prompt-k3, agent-0, agent-1, agent-2, agent-3}. */
    public static List<String> names() {
        return ALL.stream().map(Strategy::name).toList();
    }

    /** Every rung, bottom first. */
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
