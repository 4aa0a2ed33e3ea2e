package dev.ladder.eval.run;

import java.util.Objects;

/**
 * One row of a run's results store: one benchmark item answered by one cell, scored.
 *
 * @param cell            {@link Cell#name()}
 * @param itemId          the benchmark item's id
 * @param category        the item's category
 * @param difficulty      the item's difficulty (easy, medium, hard, extra)
 * @param question        the question
 * @param gold            the gold SQL
 * @param predicted       the predicted SQL ({@code ""} when the strategy had none)
 * @param va              the prediction executes
 * @param ex              execution accuracy
 * @param em              exact set match
 * @param ts              test-suite accuracy; null when the run has no suite
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
 * @param exAlt           EX in the experiment's second EX mode ({@code scorers.ex_mode: [spider, bird]}), null when
 *                        the experiment asks for one mode
 * @param judge           the LLM judge's verdict on the prediction ({@code scorers.judge}), null when not judged
 * @param judgeReason     the judge's reasoning, null when not judged
 * @param diagnosis       a pipeline's own error category for an answer it did not accept (the progressive
 *                        pipeline's error analysis), null when none
 */
public record ItemResult(String cell, String itemId, String category, String difficulty, String question,
                         String gold, String predicted, boolean va, boolean ex, boolean em, Boolean ts, String error,
                         String errorClass, String chosen, int promptTokens, int generatedTokens, long millis,
                         int tables, int joins, int aggregates, int nesting, int calls, int cachedCalls,
                         Boolean exAlt, Boolean judge, String judgeReason, String diagnosis) {
    public ItemResult {
        Objects.requireNonNull(cell, "cell");
        Objects.requireNonNull(itemId, "itemId");
        Objects.requireNonNull(predicted, "predicted");
        if (calls < 0 || cachedCalls < 0 || cachedCalls > calls) {
            throw new IllegalArgumentException("calls " + calls + ", cached " + cachedCalls);
        }
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

    /** This row with the judge's verdict. */
    public ItemResult withJudge(Boolean verdict, String reason) {
        return new ItemResult(cell, itemId, category, difficulty, question, gold, predicted, va, ex, em, ts, error,
                errorClass, chosen, promptTokens, generatedTokens, millis, tables, joins, aggregates, nesting, calls,
                cachedCalls, exAlt, verdict, reason, diagnosis);
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
