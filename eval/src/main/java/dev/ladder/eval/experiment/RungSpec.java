package dev.ladder.eval.experiment;

import dev.ladder.pipeline.strategy.Settings;
import java.util.Objects;

/**
 * One rung of the ladder: a strategy answered by one of the experiment's models.
 *
 * @param name     unique display name in the experiment (cells are named after it)
 * @param strategy a registered strategy name ({@link ExperimentLoader#KNOWN_STRATEGIES})
 * @param model    a key of {@link Experiment#models()}
 * @param settings this rung's own settings (the experiment's with the rung's {@code settings:} overrides applied),
 *                 or null when it runs with the experiment's
 */
public record RungSpec(String name, String strategy, String model, Settings settings) {
    public RungSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(model, "model");
    }

    /** A rung with the experiment's settings. */
    public RungSpec(String name, String strategy, String model) {
        this(name, strategy, model, null);
    }
}
