package dev.ladder.scorer.score;

import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionError;
import dev.ladder.sql.db.ExecutionLimits;
import dev.ladder.sql.db.QueryResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Scores predictions against gold SQL on one database and, for TS, on its test suite.
 * Gold results are computed once per (database, query) and kept for the life of this object,
 * so scoring many prediction files (or many rungs) runs each gold once per database.
 */
public final class Scoring {

    private final Database original;
    private final Optional<List<Database>> suite;
    private final String whyNoSuite;
    private final ExOptions options;
    private final ExactMatch exactMatch;
    private final Map<String, Execution> goldResults = new ConcurrentHashMap<>();
    private final Map<String, Optional<TiedOrder>> tiedOrders = new ConcurrentHashMap<>();

    /**
     * @param suite the generated databases of the test suite (the original is always part of TS);
     *              empty when there is no suite, and TS is then reported as missing
     */
    public Scoring(Database original, Optional<List<Database>> suite, ExOptions options, ExactMatch exactMatch) {
        this(original, suite, options, exactMatch, null);
    }

    /**
     * As {@link #Scoring(Database, Optional, ExOptions, ExactMatch)}, saying why there is no suite.
     *
     * @param whyNoSuite why TS is missing (one line), or null: none given, or there is a suite
     */
    public Scoring(Database original, Optional<List<Database>> suite, ExOptions options, ExactMatch exactMatch,
                   String whyNoSuite) {
        this.original = original;
        // a suite without a database is the original alone: TS would be EX under another name, so it is missing
        boolean empty = suite.isPresent() && suite.get().isEmpty();
        this.suite = empty ? Optional.empty() : suite.map(List::copyOf);
        this.whyNoSuite = this.suite.isPresent() ? null
                : empty && whyNoSuite == null ? "the test suite has no database beyond the original, so TS would be EX"
                : whyNoSuite;
        this.options = options;
        this.exactMatch = exactMatch;
    }

    public ExOptions options() {
        return options;
    }

    /** The name of the original database (a SQLite file's stem, a server database's name). */
    public String databaseName() {
        return original.name();
    }

    /**
     * Why EM cannot read one of {@code golds} (the first that fails, as one line), or empty when it reads them all.
     * Callers use it to name a bad gold before scoring; {@link #score} itself only flags one ({@code gold-unreadable}).
     */
    public Optional<String> unreadableGold(List<String> golds) {
        for (String gold : golds) {
            try {
                exactMatch.analyse(gold);
            } catch (IllegalArgumentException e) {
                return Optional.of(String.valueOf(e.getMessage()).lines().findFirst().orElse("").strip());
            }
        }
        return Optional.empty();
    }

    public boolean hasSuite() {
        return suite.isPresent();
    }

    /** Why TS is missing (one line), when there is no suite and the reason is known. */
    public Optional<String> whyNoSuite() {
        return Optional.ofNullable(whyNoSuite);
    }

    /**
     * VA, EX, EM and TS of one prediction, each by its metric ({@link BuiltInMetrics}), with their flags.
     *
     * @param golds the gold SQL first, then any alternatives accepted as equivalent
     */
    public ItemScore score(String id, String category, List<String> golds, String predicted) {
        return score(new MetricItem(id, category, golds), new Prediction(predicted));
    }

    /** As {@link #score(String, String, List, String)} for a prediction other metrics share (its runs are kept). */
    public ItemScore score(MetricItem item, Prediction prediction) {
        return ItemScore.of(item, values(item, prediction), options.label());
    }

    /** Each built-in metric's value of the prediction, by name, in {@link BuiltInMetrics#ALL} order (TS: with a suite). */
    public Map<String, MetricValue> values(MetricItem item, Prediction prediction) {
        Map<String, MetricValue> out = new LinkedHashMap<>();
        for (Metric m : BuiltInMetrics.ALL) {
            MetricValue v = m.score(item, prediction, this);
            if (v.present()) out.put(m.name(), v);
        }
        return out;
    }

    /** The database the predictions are scored on. */
    public Database original() {
        return original;
    }

    /** The test suite's databases (empty when there is none). */
    public Optional<List<Database>> suite() {
        return suite;
    }

    /** Exact set match against this database's schema. */
    public ExactMatch exactMatch() {
        return exactMatch;
    }

    /** The prediction as EX runs it on the original database (DISTINCT removed in Spider mode, ...). */
    String prepared(Prediction prediction) {
        return ExecutionMatch.prepare(prediction.sql(), options, original.dialect());
    }

    /** Whether the prediction returns on {@code db} what {@code gold} returns there (EX on one database). */
    boolean sameAnswer(Database db, String gold, Prediction prediction, List<String> flags) {
        String run = prepared(prediction);
        Execution pred = db == original ? prediction.run(db, run, db::execute)
                : prediction.run(db, run, sql -> rerunOnTimeout(db, sql, flags));
        return sameAnswer(db, gold, pred, flags);
    }

    /** Whether the prediction holds for {@code gold} on every suite database on which the gold itself runs. */
    boolean holdsOnSuite(String gold, Prediction prediction, List<String> flags) {
        for (Database db : suite.get()) {
            // a database on which the gold itself fails cannot judge the prediction: skip it, say so
            if (!goldResult(db, gold).ok()) {
                addOnce(flags, "gold-failed:" + db.name());
                continue;
            }
            if (!sameAnswer(db, gold, prediction, flags)) return false;
        }
        return true;
    }

    /** EX alone (no EM, no test suite): whether {@code predicted} returns what one of the golds returns. */
    public boolean ex(List<String> golds, String predicted) {
        if (golds.isEmpty()) return false;
        return BuiltInMetrics.EX.score(new MetricItem("ex", null, golds), new Prediction(predicted), this).holds();
    }

    /**
     * A prediction's run on a suite database. A timeout there says how busy the machine was, not what the query
     * returns: it is run once more with {@link #SUITE_RETRY_LIMITS}, and a second timeout is flagged
     * ({@code timeout:<db>}) so that a TS of 0 from it is never silent.
     */
    static Execution rerunOnTimeout(Database db, String sql, List<String> flags) {
        Execution e = db.execute(sql);
        if (!(e instanceof Execution.Failure f) || f.error().kind() != ExecutionError.Kind.TIMEOUT) return e;
        Execution again = db.execute(sql, SUITE_RETRY_LIMITS);
        if (again instanceof Execution.Failure g && g.error().kind() == ExecutionError.Kind.TIMEOUT) {
            addOnce(flags, "timeout:" + db.name());
        }
        return again;
    }

    /** The limits of the second try of a prediction that timed out on a suite database. */
    static final ExecutionLimits SUITE_RETRY_LIMITS = new ExecutionLimits(Duration.ofSeconds(60),
            ExecutionLimits.DEFAULT.rowCap());

    /** EX of an already-run prediction against one gold on one database. */
    private boolean sameAnswer(Database db, String gold, Execution pred, List<String> flags) {
        if (!(pred instanceof Execution.Success p)) return false;
        Execution g = goldResult(db, gold);
        if (!(g instanceof Execution.Success gs)) {
            addOnce(flags, "gold-failed:" + db.name());
            return false;
        }
        QueryResult gr = gs.result();
        if (gr.truncated() || p.result().truncated()) addOnce(flags, "truncated");
        if (options.mode() == ExMode.SPIDER && !gr.truncated() && ExecutionMatch.goldOrdered(gold, db.dialect())) {
            Optional<TiedOrder> tied = tiedOrder(db, gold);
            if (tied.isPresent()) return ResultComparison.equalTied(tied.get(), p.result(), options);
        }
        return ExecutionMatch.equal(gold, gr, p.result(), options, db.dialect());
    }

    /** The runs of equal sort keys of an ordered gold on {@code db}, found once. */
    private Optional<TiedOrder> tiedOrder(Database db, String gold) {
        String run = ExecutionMatch.prepare(gold, options, db.dialect());
        return tiedOrders.computeIfAbsent(db.name() + '\u0000' + run, k -> TiedOrder.of(db, run));
    }

    /**
     * What happened to the prediction ({@link ItemOutcome}), from the runs VA and EX made: the prediction as written
     * on the scoring database, and each of the item's golds there.
     */
    public String outcome(MetricItem item, Prediction prediction, boolean ex) {
        Execution run = prediction.isEmpty() ? null : prediction.run(original, prediction.sql(), original::execute);
        return ItemOutcome.of(prediction.sql(), run, goldRuns(item.golds()), ex);
    }

    /** Each gold's result on the scoring database, in order, each run once. */
    public List<Execution> goldRuns(List<String> golds) {
        return golds.stream().map(g -> goldResult(original, g)).toList();
    }

    /** The gold's result on {@code db}, run once. */
    public Execution goldResult(Database db, String gold) {
        String run = ExecutionMatch.prepare(gold, options, db.dialect());
        // a gold that timed out once is run again with more time: a busy machine must not drop a suite database
        return goldResults.computeIfAbsent(db.name() + '\u0000' + run, k -> rerunOnTimeout(db, run, new ArrayList<>()));
    }

    static void addOnce(List<String> flags, String flag) {
        if (!flags.contains(flag)) flags.add(flag);
    }
}
