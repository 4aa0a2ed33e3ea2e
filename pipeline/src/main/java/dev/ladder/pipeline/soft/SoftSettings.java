package dev.ladder.pipeline.soft;

import dev.ladder.pipeline.strategy.Bounded;
import dev.ladder.pipeline.strategy.Follows;
import dev.ladder.pipeline.strategy.SettingBounds;
import dev.ladder.pipeline.strategy.SettingsBlock;

/**
 * The knobs of soft schema attention ({@code settings.soft_attention} in an experiment file).
 *
 * @param inlineWeights  each table and column of the {@code CREATE TABLE} rendering carries {@code -- attention: w}
 * @param blockWeights   a {@code ### Schema attention weights} block follows the schema
 * @param cycles         most refinement cycles after the first attempt (default 3; 0: no refinement)
 * @param threshold      an attempt with at least this confidence ends the cycles (default 0.5, the method's code)
 * @param minRows        the row-count term rewards results of at least this many rows (default 1) ...
 * @param maxRows        ... and at most this many (default 1000)
 * @param oneShot        one exemplar of the context's rule in the prompt (default on: the method's code always shows one)
 * @param chainOfThought the prompt asks for reasoning before the SQL; the reasoning is stripped from the answer
 *                       (default off)
 * @param maxTokens      token budget of each call; null (the default, {@code max_new_tokens}): the rung's (raise it
 *                       for {@code chain_of_thought}: reasoning needs room)
 */
public record SoftSettings(boolean inlineWeights, boolean blockWeights,
                           @Bounded(min = 0, max = SettingBounds.LOOPS) int cycles,
                           @Bounded(min = 0, max = SettingBounds.SCORE) double threshold,
                           @Bounded(min = 0, max = SettingBounds.ROWS) int minRows,
                           @Bounded(min = 0, max = SettingBounds.ROWS) int maxRows,
                           boolean oneShot, boolean chainOfThought,
                           @Follows("max_new_tokens") @Bounded(min = 1, max = SettingBounds.TOKENS) Integer maxTokens) {

    public static final SoftSettings DEFAULT = new SoftSettings(true, true, 3, 0.5, 1, 1000, true, false, null);

    /** The {@code soft_attention} block of experiment files. */
    public static final SettingsBlock<SoftSettings> BLOCK = SettingsBlock.of("soft_attention", SoftSettings.class, DEFAULT)
            .withFactor("soft attention", SoftSettings::factor);

    /** Each value's range is its {@link Bounded}; the rows' range must not be empty. */
    public SoftSettings {
        if (maxRows < minRows) throw new IllegalArgumentException("max_rows must be >= min_rows (" + minRows + "), got " + maxRows);
    }

    public SoftSettings withWeights(boolean inline, boolean block) {
        return new SoftSettings(inline, block, cycles, threshold, minRows, maxRows, oneShot, chainOfThought, maxTokens);
    }

    public SoftSettings withCycles(int n) {
        return new SoftSettings(inlineWeights, blockWeights, n, threshold, minRows, maxRows, oneShot, chainOfThought, maxTokens);
    }

    public SoftSettings withPrompting(boolean shot, boolean cot) {
        return new SoftSettings(inlineWeights, blockWeights, cycles, threshold, minRows, maxRows, shot, cot, maxTokens);
    }

    public SoftSettings withThreshold(double t) {
        return new SoftSettings(inlineWeights, blockWeights, cycles, t, minRows, maxRows, oneShot, chainOfThought, maxTokens);
    }

    /** The weights, cycles and prompting switches, in one line. */
    static String factor(SoftSettings a) {
        return "inline=" + onOff(a.inlineWeights()) + " block=" + onOff(a.blockWeights()) + " cycles=" + a.cycles()
                + " threshold=" + SettingsBlock.plain(a.threshold()).toPlainString() + " rows=" + a.minRows() + ".."
                + a.maxRows() + " one_shot=" + onOff(a.oneShot()) + " chain_of_thought=" + onOff(a.chainOfThought())
                + " max_tokens=" + a.maxTokens();
    }

    private static String onOff(boolean on) {
        return on ? "on" : "off";
    }
}
