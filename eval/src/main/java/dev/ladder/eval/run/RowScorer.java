package dev.ladder.eval.run;

import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.GoldFeatures;
import dev.ladder.eval.experiment.Cell;
import dev.ladder.scorer.score.BuiltInMetrics;
import dev.ladder.scorer.score.ErrorTaxonomy;
import dev.ladder.scorer.score.MetricItem;
import dev.ladder.scorer.score.MetricValue;
import dev.ladder.scorer.score.Metrics;
import dev.ladder.scorer.score.Prediction;
import dev.ladder.scorer.score.Scoring;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Trace;
import dev.ladder.pipeline.strategy.TraceStep;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Turns one answer into its results-store row: every metric's value (the built-in ones, EX in the second mode, every
 * registered metric, all on one {@link Prediction} so that each execution runs once), the error class, the outcome
 * (the model's failures and the gold's apart), the gold's features and the pipeline's own diagnosis.
 *
 * @param main     the scorer of the experiment's EX mode, with its test suite
 * @param alsoEx   the scorer of the second EX mode, or null
 * @param taxonomy the error taxonomy of the database
 * @param database the id of the database the rows are scored on (recorded in each row)
 */
public record RowScorer(Scoring main, Scoring alsoEx, ErrorTaxonomy taxonomy, String database) {

    /** A scorer whose rows name the database of {@code main}. */
    public RowScorer(Scoring main, Scoring alsoEx, ErrorTaxonomy taxonomy) {
        this(main, alsoEx, taxonomy, main.databaseName());
    }

    /** The row of {@code answer} to {@code item} in {@code cell}, with the model calls it made. */
    public ItemResult row(Cell cell, BenchmarkItem item, Answer answer, CallCounter.Snapshot calls) {
        MetricItem metricItem = new MetricItem(item.id(), item.category(), item.allGold());
        Prediction prediction = new Prediction(answer.sql());
        Map<String, MetricValue> scores = new LinkedHashMap<>(main.values(metricItem, prediction));
        MetricValue va = scores.get(BuiltInMetrics.VA.name());
        // the row keeps the error in its own column; VA's value is enough
        scores.put(BuiltInMetrics.VA.name(), new MetricValue(va.value(), null));
        if (alsoEx != null) scores.put(ItemResult.EX_ALT, BuiltInMetrics.EX.score(metricItem, prediction, alsoEx));
        scores.putAll(Metrics.scoreRegistered(metricItem, prediction, main));
        boolean ex = scores.get(BuiltInMetrics.EX.name()).holds();
        String errorClass = taxonomy.classify(item.sql(), answer.sql(), va.holds(), ex).label();
        String outcome = main.outcome(metricItem, prediction, ex);
        GoldFeatures gold = GoldFeatures.of(item.sql());
        Trace t = answer.trace();
        return new ItemResult(cell.name(), item.id(), item.category(), item.difficulty(), item.question(), item.sql(),
                answer.sql(), va.detail(), errorClass, t.chosen(), t.promptTokens(), t.generatedTokens(), t.millis(),
                gold.tables(), gold.joins(), gold.aggregates(), gold.nesting(), calls.calls(), calls.cached(),
                diagnosis(t), scores, calls.completions(), calls.cachedMillis(), outcome, database);
    }

    /** A pipeline's own error category for the answer (its {@code error-analysis} stage), or null. */
    static String diagnosis(Trace t) {
        return t.steps(TraceStep.Stage.class).stream()
                .filter(s -> s.stage().equals("error-analysis")).map(TraceStep.Stage::summary)
                .reduce((a, b) -> b).orElse(null);
    }
}
