package dev.ladder.eval.run;

import dev.ladder.scorer.score.BuiltInMetrics;
import dev.ladder.scorer.score.ItemOutcome;
import dev.ladder.scorer.score.MetricValue;
import dev.ladder.scorer.score.Metrics;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One row of a run's results store: one benchmark item answered by one cell, with every metric's value.
 *
 * @param cell            {@link Cell#name()}
 * @param itemId          the benchmark item's id
 * @param category        the item's category
 * @param difficulty      the item's difficulty (easy, medium, hard, extra)
 * @param question        the question
 * @param gold            the gold SQL
 * @param predicted       the predicted SQL ({@code ""} when the strategy had none)
 * @param error           the execution error of the prediction ({@code KIND: message}), null when it ran
 * @param errorClass      the error taxonomy class ({@code correct}, {@code not-executable}, {@code wrong-table}, ...)
 * @param chosen          which candidate the strategy chose ({@code standard}, {@code repair}, {@code fallback}, ...)
 * @param promptTokens    prompt tokens over the item's model calls
 * @param generatedTokens generated tokens over the item's model calls
 * @param millis          wall time of the answer
 * @param tables          distinct tables the gold SQL uses
 * @param joins           joins in the gold SQL
 * @param aggregates      aggregate function calls in the gold SQL
 * @param nesting         subquery nesting depth of the gold SQL (0: none)
 * @param calls           model calls ({@code generate} requests) the answer made
 * @param cachedCalls     of those, the ones the generation cache answered (no model work; their time is not the
 *                        model's)
 * @param diagnosis       a pipeline's own error category for an answer it did not accept (its error-analysis stage),
 *                        null when none
 * @param scores          every metric's value by name, in the order they were computed: {@code VA}, {@code EX},
 *                        {@code EM}, {@code TS} (absent without a suite), {@link #EX_ALT} (EX in the experiment's
 *                        second mode), {@link #JUDGE} (the LLM judge, its reasoning as the detail), then any
 *                        registered metric's
 * @param completions     the completions those calls asked for (a request for n samples asks for n); 0 when not
 *                        counted (rows stored before completions were)
 * @param cachedMillis    what the original calls of the cached calls took (their prefill and decode milliseconds, as
 *                        the generation cache stored them; 0 when none, or not recorded): the model time the cache
 *                        saved this row, for the costs of rungs whose answers the cache gave
 * @param outcome         what happened, the failures apart ({@link ItemOutcome}: {@code mismatch}, {@code
 *                        empty-result}, {@code pred-timeout}, {@code pred-error:syntax}, {@code gold-timeout}, ...)
 * @param database        the id of the database the item ran and was scored on (its {@code db_id} in a benchmark of
 *                        several databases); {@code ""} when not recorded (rows stored before it was)
 */
public record ItemResult(String cell, String itemId, String category, String difficulty, String question,
                         String gold, String predicted, String error, String errorClass, String chosen,
                         int promptTokens, int generatedTokens, long millis, int tables, int joins, int aggregates,
                         int nesting, int calls, int cachedCalls, String diagnosis, Map<String, MetricValue> scores,
                         int completions, long cachedMillis, String outcome, String database) {

    /** A row whose database is not recorded. */
    public ItemResult(String cell, String itemId, String category, String difficulty, String question,
                      String gold, String predicted, String error, String errorClass, String chosen,
                      int promptTokens, int generatedTokens, long millis, int tables, int joins, int aggregates,
                      int nesting, int calls, int cachedCalls, String diagnosis, Map<String, MetricValue> scores,
                      int completions, long cachedMillis, String outcome) {
        this(cell, itemId, category, difficulty, question, gold, predicted, error, errorClass, chosen, promptTokens,
                generatedTokens, millis, tables, joins, aggregates, nesting, calls, cachedCalls, diagnosis, scores,
                completions, cachedMillis, outcome, "");
    }

    /** A row with no cached model time recorded. */
    public ItemResult(String cell, String itemId, String category, String difficulty, String question,
                      String gold, String predicted, String error, String errorClass, String chosen,
                      int promptTokens, int generatedTokens, long millis, int tables, int joins, int aggregates,
                      int nesting, int calls, int cachedCalls, String diagnosis, Map<String, MetricValue> scores,
                      int completions, String outcome) {
        this(cell, itemId, category, difficulty, question, gold, predicted, error, errorClass, chosen, promptTokens,
                generatedTokens, millis, tables, joins, aggregates, nesting, calls, cachedCalls, diagnosis, scores,
                completions, 0, outcome);
    }

    /** A row whose outcome is what its EX, prediction and error imply ({@link ItemOutcome#derived}). */
    public ItemResult(String cell, String itemId, String category, String difficulty, String question,
                      String gold, String predicted, String error, String errorClass, String chosen,
                      int promptTokens, int generatedTokens, long millis, int tables, int joins, int aggregates,
                      int nesting, int calls, int cachedCalls, String diagnosis, Map<String, MetricValue> scores,
                      int completions) {
        this(cell, itemId, category, difficulty, question, gold, predicted, error, errorClass, chosen, promptTokens,
                generatedTokens, millis, tables, joins, aggregates, nesting, calls, cachedCalls, diagnosis, scores,
                completions, ItemOutcome.derived(predicted, error,
                        scores.getOrDefault(BuiltInMetrics.EX.name(), MetricValue.ABSENT).holds()));
    }

    /** A row whose calls asked for one completion each. */
    public ItemResult(String cell, String itemId, String category, String difficulty, String question,
                      String gold, String predicted, String error, String errorClass, String chosen,
                      int promptTokens, int generatedTokens, long millis, int tables, int joins, int aggregates,
                      int nesting, int calls, int cachedCalls, String diagnosis, Map<String, MetricValue> scores) {
        this(cell, itemId, category, difficulty, question, gold, predicted, error, errorClass, chosen, promptTokens,
                generatedTokens, millis, tables, joins, aggregates, nesting, calls, cachedCalls, diagnosis, scores, calls);
    }

    /** The metric name of EX in the experiment's second EX mode ({@code scorers.ex_mode: [spider, bird]}). */
    public static final String EX_ALT = Metrics.EX_ALT;
    /** The metric name of the LLM judge's verdict ({@code scorers.judge}); its detail is the judge's reasoning. */
    public static final String JUDGE = Metrics.JUDGE;
    /** How the detail of a judged row without a verdict starts (the judge's reply held none it could read). */
    public static final String JUDGE_UNKNOWN = "unknown: ";

    public ItemResult {
        Objects.requireNonNull(cell, "cell");
        Objects.requireNonNull(itemId, "itemId");
        Objects.requireNonNull(predicted, "predicted");
        if (calls < 0 || cachedCalls < 0 || cachedCalls > calls || completions < 0 || cachedMillis < 0) {
            throw new IllegalArgumentException("calls " + calls + ", cached " + cachedCalls + ", completions " + completions);
        }
        scores = Collections.unmodifiableMap(new LinkedHashMap<>(scores));
        Objects.requireNonNull(outcome, "outcome");
        database = database == null ? "" : database;
    }

    /** This row as scored on the database {@code id}. */
    public ItemResult onDatabase(String id) {
        return new ItemResult(cell, itemId, category, difficulty, question, gold, predicted, error, errorClass, chosen,
                promptTokens, generatedTokens, millis, tables, joins, aggregates, nesting, calls, cachedCalls,
                diagnosis, scores, completions, cachedMillis, outcome, id);
    }

    /** Whether the gold itself timed out or failed: the row cannot be scored and is left out of every metric. */
    public boolean goldFailed() {
        return ItemOutcome.goldFailed(outcome);
    }

    /**
     * A row with the built-in metrics' values.
     *
     * @param ts    null when the run has no suite
     * @param exAlt null when the experiment asks for one EX mode
     * @param judge null when not judged
     */
    public ItemResult(String cell, String itemId, String category, String difficulty, String question,
                      String gold, String predicted, boolean va, boolean ex, boolean em, Boolean ts, String error,
                      String errorClass, String chosen, int promptTokens, int generatedTokens, long millis,
                      int tables, int joins, int aggregates, int nesting, int calls, int cachedCalls,
                      Boolean exAlt, Boolean judge, String judgeReason, String diagnosis) {
        this(cell, itemId, category, difficulty, question, gold, predicted, error, errorClass, chosen, promptTokens,
                generatedTokens, millis, tables, joins, aggregates, nesting, calls, cachedCalls, diagnosis,
                builtIn(va, ex, em, ts, exAlt, judge, judgeReason));
    }

    private static Map<String, MetricValue> builtIn(boolean va, boolean ex, boolean em, Boolean ts, Boolean exAlt,
                                                    Boolean judge, String judgeReason) {
        Map<String, MetricValue> m = new LinkedHashMap<>();
        m.put(BuiltInMetrics.VA.name(), MetricValue.of(va, null));
        m.put(BuiltInMetrics.EX.name(), MetricValue.of(ex, null));
        m.put(BuiltInMetrics.EM.name(), MetricValue.of(em, null));
        if (ts != null) m.put(BuiltInMetrics.TS.name(), MetricValue.of(ts, null));
        if (exAlt != null) m.put(EX_ALT, MetricValue.of(exAlt, null));
        if (judge != null) m.put(JUDGE, MetricValue.ofNullable(judge, judgeReason));
        return m;
    }

    /** The value of a metric, or {@link MetricValue#ABSENT}. */
    public MetricValue score(String metric) {
        return scores.getOrDefault(metric, MetricValue.ABSENT);
    }

    /** The prediction executes. */
    public boolean va() {
        return score(BuiltInMetrics.VA.name()).holds();
    }

    /** Execution accuracy. */
    public boolean ex() {
        return score(BuiltInMetrics.EX.name()).holds();
    }

    /** Exact set match. */
    public boolean em() {
        return score(BuiltInMetrics.EM.name()).holds();
    }

    /** Test-suite accuracy; null when the run has no suite. */
    public Boolean ts() {
        return score(BuiltInMetrics.TS.name()).asBoolean();
    }

    /** EX in the experiment's second EX mode, null when it asks for one. */
    public Boolean exAlt() {
        return score(EX_ALT).asBoolean();
    }

    /** The LLM judge's verdict, null when not judged or when its reply held no verdict ({@link #judgeUnknown()}). */
    public Boolean judge() {
        return score(JUDGE).asBoolean();
    }

    /** Whether the judge pass reached this row (with a verdict or without one). */
    public boolean judged() {
        return scores.containsKey(JUDGE);
    }

    /** Whether the judge replied on this row with no verdict it could read: counted apart, never as NO. */
    public boolean judgeUnknown() {
        return judged() && !scores.get(JUDGE).present();
    }

    /** The judge's reasoning, null when not judged. */
    public String judgeReason() {
        MetricValue v = scores.get(JUDGE);
        return v == null ? null : v.detail();
    }

    /** This row with one more metric's value (or a new value for one it has). */
    public ItemResult withScore(String metric, MetricValue value) {
        Map<String, MetricValue> m = new LinkedHashMap<>(scores);
        m.put(metric, value);
        return new ItemResult(cell, itemId, category, difficulty, question, gold, predicted, error, errorClass, chosen,
                promptTokens, generatedTokens, millis, tables, joins, aggregates, nesting, calls, cachedCalls,
                diagnosis, m, completions, cachedMillis, outcome, database);
    }

    /** This row without a metric's value (absent, as if never scored). */
    public ItemResult withoutScore(String metric) {
        Map<String, MetricValue> m = new LinkedHashMap<>(scores);
        m.remove(metric);
        return new ItemResult(cell, itemId, category, difficulty, question, gold, predicted, error, errorClass, chosen,
                promptTokens, generatedTokens, millis, tables, joins, aggregates, nesting, calls, cachedCalls,
                diagnosis, m, completions, cachedMillis, outcome, database);
    }

    /** A row not judged, without a diagnosis. */
    public ItemResult(String cell, String itemId, String category, String difficulty, String question,
                      String gold, String predicted, boolean va, boolean ex, boolean em, Boolean ts, String error,
                      String errorClass, String chosen, int promptTokens, int generatedTokens, long millis,
                      int tables, int joins, int aggregates, int nesting, int calls, int cachedCalls, Boolean exAlt) {
        this(cell, itemId, category, difficulty, question, gold, predicted, va, ex, em, ts, error, errorClass, chosen,
                promptTokens, generatedTokens, millis, tables, joins, aggregates, nesting, calls, cachedCalls, exAlt,
                null, null, null);
    }

    /**
     * This row as the answer of another cell of the same rung (a seed-free rung's later seeds): every call counts as
     * cached, since no model work was done for it.
     */
    public ItemResult reusedIn(String otherCell) {
        return new ItemResult(otherCell, itemId, category, difficulty, question, gold, predicted, error, errorClass,
                chosen, promptTokens, generatedTokens, millis, tables, joins, aggregates, nesting, calls, calls,
                diagnosis, scores, completions, cachedMillis, outcome, database);
    }

    /** This row with the judge's verdict. */
    public ItemResult withJudge(Boolean verdict, String reason) {
        if (verdict != null) return withScore(JUDGE, MetricValue.ofNullable(verdict, reason));
        Map<String, MetricValue> m = new LinkedHashMap<>(scores);
        m.remove(JUDGE);
        return new ItemResult(cell, itemId, category, difficulty, question, gold, predicted, error, errorClass, chosen,
                promptTokens, generatedTokens, millis, tables, joins, aggregates, nesting, calls, cachedCalls,
                diagnosis, m, completions, cachedMillis, outcome, database);
    }

    /** A row without call counts and with one EX mode. */
    public ItemResult(String cell, String itemId, String category, String difficulty, String question,
                      String gold, String predicted, boolean va, boolean ex, boolean em, Boolean ts, String error,
                      String errorClass, String chosen, int promptTokens, int generatedTokens, long millis,
                      int tables, int joins, int aggregates, int nesting) {
        this(cell, itemId, category, difficulty, question, gold, predicted, va, ex, em, ts, error, errorClass, chosen,
                promptTokens, generatedTokens, millis, tables, joins, aggregates, nesting, 0, 0, null);
    }
}
