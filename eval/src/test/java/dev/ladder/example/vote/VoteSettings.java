package dev.ladder.example.vote;

import dev.ladder.pipeline.strategy.SettingsBlock;

/**
 * The execution vote's knobs: the {@code execution_vote} block of experiment files. The record's constructor is the
 * one place its values are checked; a message that starts with a key is reported at that key.
 *
 * @param samples     sampled candidates drawn besides the greedy one (one request, one prefill); 0 leaves only the
 *                    greedy candidate
 * @param temperature their temperature
 * @param vote        on: the answer is the largest group of candidates whose results agree; off: the first candidate
 *                    that executes (the ablation of the vote itself)
 */
public record VoteSettings(int samples, double temperature, boolean vote) {

    public static final VoteSettings DEFAULT = new VoteSettings(4, 0.7, true);

    /** The block with its defaults; a rung comparison names it {@code execution vote} and lists every key. */
    public static final SettingsBlock<VoteSettings> BLOCK = SettingsBlock.of("execution_vote", VoteSettings.class, DEFAULT);

    public VoteSettings {
        if (samples < 0) throw new IllegalArgumentException("samples must be >= 0, got " + samples);
        if (!(temperature > 0) || Double.isInfinite(temperature)) {
            throw new IllegalArgumentException("temperature must be a finite number > 0, got " + temperature);
        }
    }

    public VoteSettings withVote(boolean on) {
        return new VoteSettings(samples, temperature, on);
    }
}
