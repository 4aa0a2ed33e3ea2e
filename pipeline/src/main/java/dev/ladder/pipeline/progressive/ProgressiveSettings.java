package dev.ladder.pipeline.progressive;

import dev.ladder.pipeline.strategy.Bounded;
import dev.ladder.pipeline.strategy.Follows;
import dev.ladder.pipeline.strategy.Knob;
import dev.ladder.pipeline.strategy.SettingBounds;
import dev.ladder.pipeline.strategy.SettingsBlock;

/**
 * The knobs of progressive execution ({@code settings.progressive} in an experiment file).
 *
 * @param highConfidence      sub-tasks at or above this confidence are executed at once, together in one step, and
 *                            not re-scored (default 0.85)
 * @param maxIterations       most extension steps (default 10)
 * @param retries             further tries of a step whose SQL fails (default 2)
 * @param acceptance          reward that accepts an answer (default 1.0: executes and the judge says CORRECT)
 * @param usePlan             the plan: the model's three steps (tables, operations, columns) are asked for and shown
 *                            when each step is written, and the dependency order constrains which sub-task may run
 *                            next (off: no plan call, confidence alone)
 * @param recalculate         remaining sub-tasks below {@code highConfidence} are re-scored after every step
 * @param multiBranch         when the reward is below {@code acceptance}, alternative decompositions run as further
 *                            branches and the best cumulative reward wins (the method; default on; off: the first
 *                            branch's answer whatever its reward)
 * @param beamWidth           branches at most, the first one included (default 3)
 * @param maxTokens           token budget of the sub-task, extension and re-scoring calls; null (the default,
 *                            {@code max_new_tokens}): the rung's (the judge has its own 512)
 */
public record ProgressiveSettings(@Knob("high_confidence_threshold") @Bounded(min = 0, max = SettingBounds.SCORE) double highConfidence,
                                  @Bounded(min = 1, max = SettingBounds.LOOPS) int maxIterations,
                                  @Bounded(min = 0, max = SettingBounds.LOOPS) int retries,
                                  @Knob("acceptance_threshold") @Bounded(min = 0, max = SettingBounds.SCORE) double acceptance,
                                  boolean usePlan, boolean recalculate, boolean multiBranch,
                                  @Bounded(min = 1, max = SettingBounds.LOOPS) int beamWidth,
                                  @Follows("max_new_tokens") @Bounded(min = 1, max = SettingBounds.TOKENS) Integer maxTokens) {

    public static final ProgressiveSettings DEFAULT = new ProgressiveSettings(0.85, 10, 2, 1.0, true, true, true, 3,
            null);

    /** The {@code progressive} block of experiment files. */
    public static final SettingsBlock<ProgressiveSettings> BLOCK = SettingsBlock.of("progressive", ProgressiveSettings.class, DEFAULT)
            .withFactor("progressive", ProgressiveSettings::factor);

    public ProgressiveSettings withSwitches(boolean plan, boolean rescore, boolean branches) {
        return new ProgressiveSettings(highConfidence, maxIterations, retries, acceptance, plan, rescore, branches,
                beamWidth, maxTokens);
    }

    public ProgressiveSettings withLimits(int iterations, int retryCount, int beam) {
        return new ProgressiveSettings(highConfidence, iterations, retryCount, acceptance, usePlan, recalculate,
                multiBranch, beam, maxTokens);
    }

    /** The thresholds, limits and switches, in one line. */
    static String factor(ProgressiveSettings p) {
        return "high_confidence=" + num(p.highConfidence()) + " max_iterations=" + p.maxIterations() + " retries="
                + p.retries() + " acceptance=" + num(p.acceptance()) + " use_plan=" + onOff(p.usePlan())
                + " recalculate=" + onOff(p.recalculate()) + " multi_branch="
                + (p.multiBranch() ? "on (beam " + p.beamWidth() + ")" : "off") + " max_tokens=" + p.maxTokens();
    }

    private static String num(double d) {
        return SettingsBlock.plain(d).toPlainString();
    }

    private static String onOff(boolean on) {
        return on ? "on" : "off";
    }
}
