package dev.ladder.pipeline.strategy;

import dev.ladder.pipeline.oracle.OracleTeacher;
import java.util.List;
import java.util.Map;

/**
 * A pipeline as a plugin: everything the platform needs to know about one package of strategies. A pipeline
 * registers with one line in {@code META-INF/services/dev.ladder.pipeline.strategy.Pipeline}; {@code ladder run},
 * {@code ask}, {@code report} and {@code view} then know its strategies, its settings block, its factor in rung
 * comparisons, its diagnosis vocabulary and how the oracle engine answers its calls, with no other edit
 * (docs/extending.md). Implementations have a public no-argument constructor and keep no state.
 */
public interface Pipeline {

    /** The pipeline's name in messages and listings, e.g. {@code gsr}. */
    String name();

    /** Its strategies, in the order experiment files and {@code ladder ask --help} list them. */
    List<Strategy> strategies();

    /**
     * Its block under {@code settings:} (a rung's {@code settings:} may override it key by key), or null when its
     * strategies read only the shared knobs of {@link Settings}.
     */
    default SettingsBlock<?> settings() {
        return null;
    }

    /** How the oracle engine answers the calls its strategies make that no other teacher answers. */
    default List<OracleTeacher> oracleTeachers() {
        return List.of();
    }

    /**
     * Whether an answer whose trace chose {@code chosen} comes from one of the pipeline's later mechanisms (a repair,
     * an alternative branch, a refinement) rather than its first candidate: how often a mechanism acted and won.
     */
    default boolean laterStageChose(String chosen) {
        return false;
    }

    /**
     * The categories its error analysis gives the answers it did not accept (the summary of a trace's
     * {@code error-analysis} stage), in the order a report lists them.
     */
    default List<String> diagnosisCategories() {
        return List.of();
    }

    /**
     * The rung factors its mechanisms contribute to report comparisons (which factors two rungs differ in), for a rung
     * of any strategy, name to value as it takes effect, in report order; {@code settings} null when unknown ("?"). A
     * pipeline whose mechanisms stack into an ablation ladder names them for every rung, off where the rung is not
     * its own, so that a comparison across pipelines names them too; other pipelines name nothing here (the
     * settings block's factor line stands for them on their own rungs).
     */
    default Map<String, String> factors(String strategy, Settings settings) {
        return Map.of();
    }

    /** The names {@link #factors} may give, in report order (comparisons list differing factors in this order). */
    default List<String> factorNames() {
        return List.of();
    }

    /** Whether a rung of {@code strategy} samples with these settings (its temperature is then a factor). */
    default boolean samples(String strategy, Settings settings) {
        return false;
    }

    /** Where its strategies come in the list of every strategy: lower first (the ladder is 0). */
    default int order() {
        return 100;
    }
}
