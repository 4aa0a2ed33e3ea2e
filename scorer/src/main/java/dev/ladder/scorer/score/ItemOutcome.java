package dev.ladder.scorer.score;

import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionError;
import java.util.List;
import java.util.Locale;

/**
 * What happened to one item's answer, the failures apart: the model's (no SQL, its query timed out, failed with an
 * error of some kind, ran and returned nothing, ran and returned something else) and the benchmark's (the gold itself
 * timed out or failed: the item cannot be scored, and is never counted as the model's error).
 *
 * <p>An outcome is a label: {@code correct}, {@code mismatch}, {@code empty-result}, {@code no-sql},
 * {@code pred-timeout}, {@code pred-error:<kind>} (the database's error kind, e.g. {@code pred-error:syntax}),
 * {@code gold-timeout}, {@code gold-error}, or {@link #NOT_SPLIT} for a wrong answer stored before outcomes were.
 */
public final class ItemOutcome {

    private ItemOutcome() {}

    public static final String CORRECT = "correct";
    public static final String MISMATCH = "mismatch";
    public static final String EMPTY_RESULT = "empty-result";
    public static final String NO_SQL = "no-sql";
    public static final String PRED_TIMEOUT = "pred-timeout";
    public static final String PRED_ERROR = "pred-error";
    public static final String GOLD_TIMEOUT = "gold-timeout";
    public static final String GOLD_ERROR = "gold-error";
    /** A wrong answer of a row stored before outcomes were (results store before version 6): not split further. */
    public static final String NOT_SPLIT = "wrong (not split)";

    /** The report's order: right, the model's failures from the mildest, then the golds'. */
    public static final List<String> ORDER = List.of(CORRECT, MISMATCH, EMPTY_RESULT, NO_SQL, PRED_TIMEOUT,
            PRED_ERROR + ":syntax", PRED_ERROR + ":unknown-table", PRED_ERROR + ":unknown-column",
            PRED_ERROR + ":work-limit", PRED_ERROR + ":rejected", PRED_ERROR + ":other", NOT_SPLIT, GOLD_TIMEOUT,
            GOLD_ERROR);

    /**
     * The outcome of a scored answer.
     *
     * @param predicted  the predicted SQL ({@code ""} for none)
     * @param predRun    the prediction's run on the scoring database (null when there is no SQL)
     * @param goldRuns   the runs there of the item's golds, the gold first, then its alternatives
     * @param ex         whether EX holds (against any of the item's golds)
     */
    public static String of(String predicted, Execution predRun, List<Execution> goldRuns, boolean ex) {
        // an item none of whose golds runs cannot be scored, whatever the answer: the same rule for every rung
        String goldFailure = goldFailure(goldRuns);
        if (goldFailure != null) return goldFailure;
        if (ex) return CORRECT;
        if (predicted == null || predicted.isBlank() || predRun == null) return NO_SQL;
        if (predRun instanceof Execution.Failure p) return predictionFailure(p.error().kind());
        Execution.Success ran = (Execution.Success) predRun;
        Execution.Success gold = (Execution.Success) goldRuns.stream().filter(Execution::ok).findFirst().orElseThrow();
        return ran.result().rows().isEmpty() && !gold.result().rows().isEmpty() ? EMPTY_RESULT : MISMATCH;
    }

    /**
     * {@code gold-timeout} or {@code gold-error} when none of the golds runs (a timeout among them makes it a timeout),
     * else null. An item with no gold at all cannot be scored either.
     */
    public static String goldFailure(List<Execution> goldRuns) {
        if (goldRuns.stream().anyMatch(Execution::ok)) return null;
        boolean timedOut = goldRuns.stream().anyMatch(g -> g instanceof Execution.Failure f
                && f.error().kind() == ExecutionError.Kind.TIMEOUT);
        return timedOut ? GOLD_TIMEOUT : GOLD_ERROR;
    }

    /** {@code pred-timeout}, or {@code pred-error:<kind>}. */
    public static String predictionFailure(ExecutionError.Kind kind) {
        return kind == ExecutionError.Kind.TIMEOUT ? PRED_TIMEOUT
                : PRED_ERROR + ":" + kind.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * The outcome a row stored before outcomes were implies: its EX, its prediction and the prediction's error
     * ({@code KIND: message}) tell all but a wrong answer that ran, which is {@link #NOT_SPLIT}.
     */
    public static String derived(String predicted, String error, boolean ex) {
        if (ex) return CORRECT;
        if (predicted == null || predicted.isBlank()) return NO_SQL;
        if (error != null && !error.isBlank()) {
            int colon = error.indexOf(':');
            String kind = (colon < 0 ? error : error.substring(0, colon)).strip();
            try {
                return predictionFailure(ExecutionError.Kind.valueOf(kind));
            } catch (IllegalArgumentException unknownKind) {
                return PRED_ERROR + ":other";
            }
        }
        return NOT_SPLIT;
    }

    /** Whether the gold itself timed out or failed: the item cannot be scored, and is not the model's error. */
    public static boolean goldFailed(String outcome) {
        return GOLD_TIMEOUT.equals(outcome) || GOLD_ERROR.equals(outcome);
    }
}
