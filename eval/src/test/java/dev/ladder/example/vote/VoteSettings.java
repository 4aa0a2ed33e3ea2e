package dev.ladder.example.vote;

import dev.ladder.pipeline.strategy.Bounded;
import dev.ladder.pipeline.strategy.SettingBounds;
import dev.ladder.pipeline.strategy.SettingsBlock;

/**
 * The execution vote's knobs: the {@code execution_vote} block of experiment files. Each number carries its range
 * ({@link Bounded}, checked where the file is read); the constructor checks the rest, and a message that starts with a
 * key is reported at that key.
 *
 * @param samples     sampled candidates drawn besides the greedy one (one request, one prefill); 0 leaves only the
 *                    greedy candidate
 * @param temperature their temperature
 * @param vote        on: the answer is the largest group of candidates whose results agree; off: the first candidate
 *                    that executes (the ablation of the vote itself)
 */
public record VoteSettings(@Bounded(min = 0, max = SettingBounds.CANDIDATES) int samples,
                           @Bounded(min = 0, max = SettingBounds.TEMPERATURE) double temperature, boolean vote) {

    public static final VoteSettings DEFAULT = new VoteSettings(4, 0.7, true);

    /** The block with its defaults; a rung comparison names it {@code execution vote} and lists every key. */
    public static final SettingsBlock<VoteSettings> BLOCK = SettingsBlock.of("execution_vote", VoteSettings.class, DEFAULT);

    /** Each value's range is its {@link Bounded}, checked where the file is read; 0 is no sampling temperature. */
    public VoteSettings {
        if (temperature == 0) throw new IllegalArgumentException("temperature must be > 0, got 0");
    }

    public VoteSettings withVote(boolean on) {
        return new VoteSettings(samples, temperature, on);
    }
}
