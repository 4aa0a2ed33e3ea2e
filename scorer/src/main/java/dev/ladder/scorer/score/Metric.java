package dev.ladder.scorer.score;

/**
 * One measure of a prediction: a pure function of (item, prediction, databases) to a value and a detail. The runner
 * scores every row with every metric, the results store keeps one row per (cell, item, metric), and reports and
 * {@code ladder view} list the metrics they find, so a new metric is this one class plus one registration line
 * ({@code META-INF/services/dev.ladder.scorer.score.Metric}; docs/extending.md). Implementations keep no state between
 * calls and may be called from several threads.
 */
public interface Metric {

    /**
     * The metric's name in the results store, reports and view: short, stable, unique (the built-in ones are
     * {@code VA}, {@code EX}, {@code EM}, {@code TS}).
     */
    String name();

    /** One sentence for report captions: what a value of 1 means. */
    String description();

    /**
     * The value of {@code prediction} for {@code item}: 1 or 0 for a yes/no measure, a number otherwise; absent
     * ({@link MetricValue#ABSENT}) where the metric does not apply (TS without a test suite). Never throws for
     * anything the prediction is.
     *
     * @param databases the run's database, its test suite and their gold results (computed once)
     */
    MetricValue score(MetricItem item, Prediction prediction, Scoring databases);
}
