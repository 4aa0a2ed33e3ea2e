package dev.ladder.pipeline.soft;

import dev.ladder.pipeline.strategy.Follows;
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
public record SoftSettings(boolean inlineWeights, boolean blockWeights, int cycles, double threshold, int minRows,
                           int maxRows, boolean oneShot, boolean chainOfThought,
                           @Follows("max_new_tokens") Integer maxTokens) {

    public static final SoftSettings DEFAULT = new SoftSettings(true, true, 3, 0.5, 1, 1000, true, false, null);

    /** The {@code soft_attention} block of experiment files. */
    public static final SettingsBlock<SoftSettings> BLOCK = SettingsBlock.of("soft_attention", SoftSettings.class, DEFAULT)
            .withFactor("soft attention", SoftSettings::factor);

    public SoftSettings {
        if (cycles < 0) throw new IllegalArgumentException("cycles must be >= 0, got " + cycles);
        if (!(threshold >= 0) || Double.isInfinite(threshold)) throw new IllegalArgumentException("threshold must be >= 0, got " + threshold);
        if (minRows < 0) throw new IllegalArgumentException("min_rows must be >= 0, got " + minRows);
        if (maxRows < minRows) throw new IllegalArgumentException("max_rows must be >= min_rows (" + minRows + "), got " + maxRows);
        if (maxTokens != null && maxTokens < 1) {
            throw new IllegalArgumentException("max_tokens must be >= 1, got " + maxTokens);
        }
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
