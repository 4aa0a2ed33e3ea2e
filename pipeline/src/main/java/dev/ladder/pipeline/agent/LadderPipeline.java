package dev.ladder.pipeline.agent;

import dev.ladder.pipeline.strategy.Pipeline;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.Strategies;
import dev.ladder.pipeline.strategy.Strategy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

    private static final Pattern AGENT = Pattern.compile("agent-(\\d+)");
    private static final Pattern PROMPT = Pattern.compile("prompt-k(\\d+)");
    private static final String ON = "on";
    private static final String OFF = "off";

    /** The ladder's mechanisms as rung factors, in the order the rungs add them. */
    public static final List<String> FACTORS = List.of("exemplars k", "execution gate", "clamps", "sampled candidates",
            "tabular prompt", "schema subset", "projection", "rerank", "repair");

    /**
     * How many exemplars a rung's prompt carries: the k of {@code prompt-k<N>}, an agent rung's {@code agent_k}; empty
     * for other strategies, or an agent rung whose settings are unknown.
     */
    public static OptionalInt exemplarsK(String strategy, Settings settings) {
        Matcher prompt = PROMPT.matcher(strategy);
        if (prompt.matches()) return OptionalInt.of(Integer.parseInt(prompt.group(1)));
        if (AGENT.matcher(strategy).matches() && settings != null) return OptionalInt.of(settings.k());
        return OptionalInt.empty();
    }

    /**
     * Every rung shows the ladder's mechanisms, as they take effect: a prompt rung has no execution gate whatever
     * {@code gate_budget} is, and {@code candidates: 4} means nothing below agent-2; a rung of another pipeline has
     * them all off and names its strategy as its exemplars.
     */
    @Override
    public Map<String, String> factors(String strategy, Settings settings) {
        Map<String, String> f = new LinkedHashMap<>();
        int stage = stage(strategy);
        OptionalInt k = exemplarsK(strategy, settings);
        if (k.isPresent()) f.put("exemplars k", Integer.toString(k.getAsInt()));
        else if (stage >= 0) f.put("exemplars k", "?");
        else f.put("exemplars k", "strategy " + strategy);
        if (stage >= 0 && settings != null) f.put("execution gate", "on (budget " + settings.gateBudget() + ")");
        else f.put("execution gate", stage >= 0 ? ON : OFF);
        f.put("clamps", stage >= 1 ? ON : OFF);
        boolean candidates = stage >= 2 && settings != null;
        boolean unknown = stage >= 2 && settings == null;
        int n = candidates ? settings.candidates() : 0;
        f.put("sampled candidates", n > 0 ? Integer.toString(n) : unknown ? "?" : OFF);
        f.put("tabular prompt", onOff(candidates && settings.tabularPrompt(), unknown));
        f.put("schema subset", onOff(candidates && settings.schemaSubset(), unknown));
        f.put("projection", onOff(candidates && settings.projection(), unknown));
        f.put("rerank", onOff(candidates && settings.rerank(), unknown));
        f.put("repair", stage >= 3 ? ON : OFF);
        return f;
    }

    @Override
    public List<String> factorNames() {
        return FACTORS;
    }

    /** A rung of the ladder samples exactly when its answers depend on the seed ({@link AgentStrategy#usesSeed}). */
    @Override
    public boolean samples(String strategy, Settings settings) {
        return settings != null && stage(strategy) >= 0 && Strategies.byName(strategy).usesSeed(settings);
    }

    /** The agent stage of a strategy, or -1 for any other. */
    private static int stage(String strategy) {
        Matcher agent = AGENT.matcher(strategy);
        return agent.matches() ? Integer.parseInt(agent.group(1)) : -1;
    }

    private static String onOff(boolean on, boolean unknown) {
        return unknown ? "?" : on ? ON : OFF;
    }
}
