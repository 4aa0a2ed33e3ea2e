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
public record SharedKnobs(@Bounded(min = 1, max = SettingBounds.TOKENS) int maxNewTokens,
                          @Bounded(min = 0, max = SettingBounds.CANDIDATES) int candidates,
                          @Bounded(min = 0, max = SettingBounds.TEMPERATURE) double sampleTemperature,
                          boolean tabularPrompt,
                          @Bounded(min = 0, max = SettingBounds.LOOPS) int gateBudget,
                          boolean schemaSubset, boolean projection, boolean rerank,
                          @Knob("agent_k") @Bounded(min = 0, max = SettingBounds.EXEMPLARS) int k,
                          List<String> stopStrings, boolean stopAtSemicolon,
                          @Bounded(min = 0.001, max = SettingBounds.STATEMENT_SECONDS) double timeoutSeconds,
                          @Bounded(min = 1, max = SettingBounds.ROWS) int rowCap) {

    /** The keys of the ladder's mechanisms: rung comparisons show them as the ladder's own factors. */
    public static final Set<String> LADDER_MECHANISMS = Set.of("candidates", "tabular_prompt", "gate_budget",
            "schema_subset", "projection", "rerank", "agent_k");

    /** The shared knobs of a settings mapping (the key only names them in messages). */
    public static final SettingsBlock<SharedKnobs> BLOCK = SettingsBlock.of("settings", SharedKnobs.class,
            Settings.DEFAULT.knobs());

    /** The ranges are the components' {@link Bounded}; a sample temperature of 0 is no sampling. */
    public SharedKnobs {
        if (sampleTemperature == 0) {
            throw new IllegalArgumentException("sample_temperature must be > 0, got " + sampleTemperature
                    + " (set candidates: 0 to turn sampling off)");
        }
        stopStrings = List.copyOf(stopStrings);
    }
}
