package dev.ladder.pipeline.gsr;

import dev.ladder.pipeline.strategy.Bounded;
import dev.ladder.pipeline.strategy.Follows;
import dev.ladder.pipeline.strategy.SettingBounds;
import dev.ladder.pipeline.strategy.SettingsBlock;

/**
 * The knobs of Gradual SQL Refinement ({@code settings.gsr} in an experiment file). Each of the three refining stages
 * has its own switch, as in the method's ablation.
 *
 * @param decomposition       stage 1: the question split into clauses before the Pre-SQL (off: no clause list)
 * @param schemaLinking       stage 3: SQL-driven schema linking and the corrected Second-SQL (off: the Pre-SQL goes on)
 * @param executionRefinement stage 4: the result shown to the model for a Final-SQL (off: the Second-SQL is the answer)
 * @param linkingRounds       most correction rounds of stage 3 while errors remain (default 1, the method's one round;
 *                            more is a departure to measure)
 * @param valueExamples       stored values shown per filtered column, most similar to the question first (default 3)
 * @param maxIndexedValues    distinct values indexed per text column (default 2000; a column with more is indexed by
 *                            its first values in sort order, and the limit is said in the trace)
 * @param resultRows          rows of the result shown in stage 4 (default 5)
 * @param exploreLimit        most extra tables and columns the masked-schema prompt may name (default 8)
 * @param temperature         0: every call greedy (the default, deterministic: the method states no temperature, so
 *                            Ladder overrides the rung's on purpose); above 0: every call sampled at this temperature
 *                            with the cell's seed; null ({@code sample_temperature}): the rung's sample temperature
 * @param maxTokens           token budget of each call; null (the default, {@code max_new_tokens}): the rung's
 */
public record GsrSettings(boolean decomposition, boolean schemaLinking, boolean executionRefinement,
                          @Bounded(min = 1, max = SettingBounds.LOOPS) int linkingRounds,
                          @Bounded(min = 1, max = SettingBounds.PROMPT_ITEMS) int valueExamples,
                          @Bounded(min = 1, max = SettingBounds.INDEXED_VALUES) int maxIndexedValues,
                          @Bounded(min = 1, max = SettingBounds.PROMPT_ITEMS) int resultRows,
                          @Bounded(min = 1, max = SettingBounds.SCHEMA_ITEMS) int exploreLimit,
                          @Follows("sample_temperature") @Bounded(min = 0, max = SettingBounds.TEMPERATURE) Double temperature,
                          @Follows("max_new_tokens") @Bounded(min = 1, max = SettingBounds.TOKENS) Integer maxTokens) {

    public static final GsrSettings DEFAULT = new GsrSettings(true, true, true, 1, 3, 2000, 5, 8, 0.0, null);

    /** The {@code gsr} block of experiment files; its factor lists the stage switches and knobs. */
    public static final SettingsBlock<GsrSettings> BLOCK = SettingsBlock.of("gsr", GsrSettings.class, DEFAULT)
            .withFactor("gsr", GsrSettings::factor);

    /** The three stage switches. */
    public GsrSettings withStages(boolean decompose, boolean link, boolean refine) {
        return new GsrSettings(decompose, link, refine, linkingRounds, valueExamples, maxIndexedValues, resultRows,
                exploreLimit, temperature, maxTokens);
    }

    public GsrSettings withTemperature(Double t) {
        return new GsrSettings(decomposition, schemaLinking, executionRefinement, linkingRounds, valueExamples,
                maxIndexedValues, resultRows, exploreLimit, t, maxTokens);
    }

    public GsrSettings withLinkingRounds(int n) {
        return new GsrSettings(decomposition, schemaLinking, executionRefinement, n, valueExamples, maxIndexedValues,
                resultRows, exploreLimit, temperature, maxTokens);
    }

    public GsrSettings withMaxTokens(Integer n) {
        return new GsrSettings(decomposition, schemaLinking, executionRefinement, linkingRounds, valueExamples,
                maxIndexedValues, resultRows, exploreLimit, temperature, n);
    }

    /** The stage switches and knobs, in one line. */
    static String factor(GsrSettings g) {
        return "decomposition=" + onOff(g.decomposition()) + " schema_linking=" + onOff(g.schemaLinking())
                + " execution_refinement=" + onOff(g.executionRefinement()) + " rounds=" + g.linkingRounds()
                + " value_examples=" + g.valueExamples() + " max_indexed_values=" + g.maxIndexedValues()
                + " result_rows=" + g.resultRows() + " explore_limit=" + g.exploreLimit()
                + " temperature=" + SettingsBlock.plain(g.temperature()).toPlainString() + " max_tokens=" + g.maxTokens();
    }

    private static String onOff(boolean on) {
        return on ? "on" : "off";
    }
}
