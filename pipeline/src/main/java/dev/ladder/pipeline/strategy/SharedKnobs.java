package dev.ladder.pipeline.strategy;

import java.util.List;
import java.util.Set;

/**
 * The shared knobs as a settings mapping of an experiment file writes them (the keys above the pipelines' blocks),
 * bound to files by {@link #BLOCK} exactly as a pipeline's block is bound to its record: read key by key over a base,
 * checked here, written in this order. {@link Settings} holds them with the seed, the execution limits files do not
 * set and the pipelines' blocks ({@link Settings#knobs}, {@link Settings#with(SharedKnobs)}); what each means is
 * documented there.
 *
 * @param k              {@code agent_k}: exemplars in the agent chain's prompts
 * @param timeoutSeconds the execution limits' timeout, in seconds (millisecond resolution)
 * @param rowCap         the execution limits' row cap
 */
public record SharedKnobs(int maxNewTokens, int candidates, double sampleTemperature, boolean tabularPrompt,
                          int gateBudget, boolean schemaSubset, boolean projection, boolean rerank,
                          @Knob("agent_k") int k, List<String> stopStrings, boolean stopAtSemicolon,
                          double timeoutSeconds, int rowCap) {

    /** The keys of the ladder's mechanisms: rung comparisons show them as the ladder's own factors. */
    public static final Set<String> LADDER_MECHANISMS = Set.of("candidates", "tabular_prompt", "gate_budget",
            "schema_subset", "projection", "rerank", "agent_k");

    /** The shared knobs of a settings mapping (the key only names them in messages). */
    public static final SettingsBlock<SharedKnobs> BLOCK = SettingsBlock.of("settings", SharedKnobs.class,
            Settings.DEFAULT.knobs());

    public SharedKnobs {
        if (maxNewTokens < 1) throw new IllegalArgumentException("max_new_tokens must be >= 1, got " + maxNewTokens);
        if (candidates < 0) throw new IllegalArgumentException("candidates must be >= 0, got " + candidates);
        if (!(sampleTemperature > 0) || Double.isInfinite(sampleTemperature)) {
            throw new IllegalArgumentException("sample_temperature must be > 0, got " + sampleTemperature
                    + " (set candidates: 0 to turn sampling off)");
        }
        if (gateBudget < 0) throw new IllegalArgumentException("gate_budget must be >= 0, got " + gateBudget);
        if (k < 0) throw new IllegalArgumentException("agent_k must be >= 0, got " + k);
        stopStrings = List.copyOf(stopStrings);
        if (Math.round(timeoutSeconds * 1000) < 1) {
            throw new IllegalArgumentException("timeout_seconds must be at least 0.001, got " + timeoutSeconds);
        }
        if (rowCap < 1) throw new IllegalArgumentException("row_cap must be >= 1, got " + rowCap);
    }
}
