package dev.ladder.scorer.score;

import dev.ladder.sql.db.Execution;
import java.util.ArrayList;
import java.util.List;

/**
 * The four measures every run reports, each a {@link Metric}: VA (the prediction executes), EX (it returns what the
 * gold returns, under the experiment's EX mode), EM (exact set match of the query's components) and TS (EX on the
 * database and on every database of its test suite). An item with alternative golds holds when one of them does.
 */
public final class BuiltInMetrics {

    private BuiltInMetrics() {}

    /** VA: the prediction, as written, executes on the run's database; the detail is its error. */
    public static final Metric VA = new Metric() {
        @Override
        public String name() {
            return "VA";
        }

        @Override
        public String description() {
            return "the prediction executes";
        }

        @Override
        public MetricValue score(MetricItem item, Prediction prediction, Scoring databases) {
            if (prediction.isEmpty()) return new MetricValue(0.0, "no prediction");
            Execution raw = prediction.run(databases.original(), prediction.sql(), databases.original()::execute);
            return new MetricValue(raw.ok() ? 1.0 : 0.0, raw instanceof Execution.Failure f ? f.error().toString() : null);
        }
    };

    /** EM: exact set match with one of the golds ({@code gold-unreadable} when EM cannot read a gold). */
    public static final Metric EM = new Metric() {
        @Override
        public String name() {
            return "EM";
        }

        @Override
        public String description() {
            return "the query's components match the gold's (Spider's exact set match)";
        }

        @Override
        public MetricValue score(MetricItem item, Prediction prediction, Scoring databases) {
            List<String> flags = new ArrayList<>();
            if (prediction.isEmpty()) return MetricValue.of(false, List.of("no-prediction"));
            boolean em = false;
            for (int g = 0; g < item.golds().size() && !em; g++) {
                try {
                    em = databases.exactMatch().score(item.golds().get(g), prediction.sql()).match();
                } catch (IllegalArgumentException e) {
                    // the gold is the benchmark's fault, not the prediction's: EM cannot hold, and the row says why
                    Scoring.addOnce(flags, "gold-unreadable");
                    continue;
                }
                if (em && g > 0) flags.add("alternative");
            }
            return MetricValue.of(em, flags);
        }
    };

    /** EX: the prediction returns on the run's database what one of the golds returns. */
    public static final Metric EX = new Metric() {
        @Override
        public String name() {
            return "EX";
        }

        @Override
        public String description() {
            return "the prediction returns what the gold returns";
        }

        @Override
        public MetricValue score(MetricItem item, Prediction prediction, Scoring databases) {
            List<String> flags = new ArrayList<>();
            if (prediction.isEmpty()) return MetricValue.of(false, List.of("no-prediction"));
            for (int g = 0; g < item.golds().size(); g++) {
                if (databases.sameAnswer(databases.original(), item.golds().get(g), prediction, flags)) {
                    if (g > 0) Scoring.addOnce(flags, "alternative");
                    return MetricValue.of(true, flags);
                }
            }
            return MetricValue.of(false, flags);
        }
    };

    /** TS: EX on the run's database and on every suite database, for one gold; absent without a suite. */
    public static final Metric TS = new Metric() {
        @Override
        public String name() {
            return "TS";
        }

        @Override
        public String description() {
            return "the prediction returns what the gold returns on the database and on every database of its test suite";
        }

        @Override
        public MetricValue score(MetricItem item, Prediction prediction, Scoring databases) {
            if (databases.suite().isEmpty()) return MetricValue.ABSENT;
            List<String> flags = new ArrayList<>();
            if (prediction.isEmpty()) return MetricValue.of(false, List.of("no-prediction"));
            for (String gold : item.golds()) {
                if (databases.sameAnswer(databases.original(), gold, prediction, flags)
                        && databases.holdsOnSuite(gold, prediction, flags)) {
                    return MetricValue.of(true, flags);
                }
            }
            return MetricValue.of(false, flags);
        }
    };

    /** VA, EX, EM, TS: the order reports list them in. */
    public static final List<Metric> ALL = List.of(VA, EX, EM, TS);
}
