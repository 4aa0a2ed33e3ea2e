package dev.ladder.example.metric;

import dev.ladder.scorer.score.Metric;
import dev.ladder.scorer.score.MetricItem;
import dev.ladder.scorer.score.MetricValue;
import dev.ladder.scorer.score.Prediction;
import dev.ladder.scorer.score.Scoring;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Execution;

/**
 * A metric defined only in test sources, plugged in the way every metric is: this class and one line in
 * {@code META-INF/services/dev.ladder.scorer.score.Metric}. It asks a coarser question than EX: does the prediction
 * return as many rows as the gold (one of the golds) on the run's database? Absent when the prediction does not
 * execute or no gold does, so that it measures the shape of answers that run. docs/extending.md walks through it.
 */
public final class RowCountMatch implements Metric {

    public static final String NAME = "row-count";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "the prediction returns as many rows as the gold";
    }

    @Override
    public MetricValue score(MetricItem item, Prediction prediction, Scoring databases) {
        if (prediction.isEmpty()) return MetricValue.ABSENT;
        Database db = databases.original();
        // the same run VA made of the prediction: a metric shares the prediction's executions
        if (!(prediction.run(db, prediction.sql(), db::execute) instanceof Execution.Success predicted)) {
            return MetricValue.ABSENT;
        }
        int rows = predicted.result().rowCount();
        Integer goldRows = null;
        for (String gold : item.golds()) {
            // the gold as written (EX's gold results are prepared for its mode: DISTINCT dropped in Spider's)
            if (db.execute(gold) instanceof Execution.Success g) {
                goldRows = g.result().rowCount();
                if (goldRows == rows) return new MetricValue(1.0, rows + " rows");
            }
        }
        return goldRows == null ? MetricValue.ABSENT : new MetricValue(0.0, rows + " rows, the gold " + goldRows);
    }
}
