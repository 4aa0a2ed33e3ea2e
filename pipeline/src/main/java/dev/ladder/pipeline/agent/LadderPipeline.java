package dev.ladder.pipeline.agent;

import dev.ladder.pipeline.strategy.Pipeline;
import dev.ladder.pipeline.strategy.Strategy;
import java.util.List;

/**
 * The ablation ladder's rungs as a plugin: prompt-only k=0 and k=3, the agent stages 0-3, and prompt-k1 (the direct
 * one-shot prompt the structured search is compared with). Their knobs are the shared ones of {@link Settings}; the
 * oracle answers their calls with the platform's SQL teacher.
 */
public final class LadderPipeline implements Pipeline {

    @Override
    public String name() {
        return "ladder";
    }

    @Override
    public List<Strategy> strategies() {
        return List.of(new PromptStrategy("prompt-k0", 0), new PromptStrategy("prompt-k3", 3),
                new AgentStrategy(AgentStrategy.GATE), new AgentStrategy(AgentStrategy.CLAMPS),
                new AgentStrategy(AgentStrategy.CANDIDATES), new AgentStrategy(AgentStrategy.REPAIR),
                new PromptStrategy("prompt-k1", 1));
    }

    @Override
    public int order() {
        return 0;
    }
}
