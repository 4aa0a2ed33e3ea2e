package dev.ladder.pipeline.search;

import dev.ladder.pipeline.strategy.Bounded;
import dev.ladder.pipeline.strategy.Follows;
import dev.ladder.pipeline.strategy.SettingBounds;
import dev.ladder.pipeline.strategy.SettingsBlock;
import java.util.ArrayList;
import java.util.List;

/**
 * The knobs of the structured-search pipeline ({@code settings.structured_search} in an experiment file). Every
 * stage after the sketches can be switched off on its own, so that its effect can be measured.
 *
 * @param sketches         K: SQL candidates the one sketch call asks for (default 3)
 * @param tokensPerSketch  token budget per candidate of the JSON calls: the sketch call (and its fix) gets K times this,
 *                         so that K candidates with their entity lists fit; each repair call, one candidate, gets it
 *                         once; null (the default, {@code max_new_tokens}): the rung's
 * @param tableK           phase 1: tables recalled for each candidate (default 4)
 * @param columnK          phase 2: columns aligned within the recalled tables (default 8)
 * @param rounds           R: most repair rounds (default 3; 0 turns the loop off)
 * @param threshold        a schema-valid candidate scoring at least this stops the search (default 0.75, the method's
 *                         0.75-0.8)
 * @param tableWeight      weight of the tables' average evidence in the score (default 0.4)
 * @param columnWeight     weight of the columns' average evidence (default 0.4)
 * @param joinWeight       weight of the joins' average evidence (default 0.2)
 * @param warningPenalty   subtracted per disagreement between the two entity channels (default 0.05)
 * @param violationPenalty subtracted per violation a validation level finds (default 0.1)
 * @param entityCheck      the second entity channel: the model's declared entities compared with what its SQL uses
 *                         (off: no warnings, no penalties)
 * @param executionCheck   validation level L1: EXPLAIN, then execution under the limits (off: L0's verdict only)
 * @param semanticChecks   validation level L2: the candidate's shape against the question's intent
 * @param sampledRecheck   validation level L3: COUNT(*) over joins recomputed against the first table's distinct
 *                         keys, to catch rows multiplied by a join (default off)
 * @param indexValues      schema index texts add row counts and a few sample values of text columns (default off;
 *                         queries the database once per index build)
 * @param sketchRecall     phase 1 recalls, for each candidate, the schema tables nearest to the tables its sketch
 *                         predicts, then fills up with the question's (the method; off: the question's tables only)
 */
public record SearchSettings(@Bounded(min = 1, max = SettingBounds.CANDIDATES) int sketches,
                             @Follows("max_new_tokens") @Bounded(min = 1, max = SettingBounds.TOKENS) Integer tokensPerSketch,
                             @Bounded(min = 1, max = SettingBounds.SCHEMA_ITEMS) int tableK,
                             @Bounded(min = 1, max = SettingBounds.SCHEMA_ITEMS) int columnK,
                             @Bounded(min = 0, max = SettingBounds.LOOPS) int rounds,
                             @Bounded(min = 0, max = SettingBounds.SCORE) double threshold,
                             @Bounded(min = 0, max = SettingBounds.SCORE) double tableWeight,
                             @Bounded(min = 0, max = SettingBounds.SCORE) double columnWeight,
                             @Bounded(min = 0, max = SettingBounds.SCORE) double joinWeight,
                             @Bounded(min = 0, max = SettingBounds.SCORE) double warningPenalty,
                             @Bounded(min = 0, max = SettingBounds.SCORE) double violationPenalty,
                             boolean entityCheck, boolean executionCheck,
                             boolean semanticChecks, boolean sampledRecheck, boolean indexValues,
                             boolean sketchRecall) {

    public static final SearchSettings DEFAULT = new SearchSettings(3, null, 4, 8, 3, 0.75, 0.4, 0.4, 0.2, 0.05, 0.1,
            true, true, true, false, false, true);

    /** The {@code structured_search} block of experiment files; its factor says what changes what it does. */
    public static final SettingsBlock<SearchSettings> BLOCK = SettingsBlock.of("structured_search", SearchSettings.class, DEFAULT)
            .withFactor("structured search", SearchSettings::factor);

    public SearchSettings withRounds(int r) {
        return new SearchSettings(sketches, tokensPerSketch, tableK, columnK, r, threshold, tableWeight, columnWeight,
                joinWeight, warningPenalty, violationPenalty, entityCheck, executionCheck, semanticChecks,
                sampledRecheck, indexValues, sketchRecall);
    }

    public SearchSettings withSketches(int k) {
        return new SearchSettings(k, tokensPerSketch, tableK, columnK, rounds, threshold, tableWeight, columnWeight,
                joinWeight, warningPenalty, violationPenalty, entityCheck, executionCheck, semanticChecks,
                sampledRecheck, indexValues, sketchRecall);
    }

    public SearchSettings withChecks(boolean entities, boolean execution, boolean semantic, boolean recheck) {
        return new SearchSettings(sketches, tokensPerSketch, tableK, columnK, rounds, threshold, tableWeight,
                columnWeight, joinWeight, warningPenalty, violationPenalty, entities, execution, semantic, recheck,
                indexValues, sketchRecall);
    }

    public SearchSettings withThreshold(double t) {
        return new SearchSettings(sketches, tokensPerSketch, tableK, columnK, rounds, t, tableWeight, columnWeight,
                joinWeight, warningPenalty, violationPenalty, entityCheck, executionCheck, semanticChecks,
                sampledRecheck, indexValues, sketchRecall);
    }

    /** The sketch call's budget: K candidates of {@link #tokensPerSketch} each (of settings the rung resolved). */
    public int sketchCallTokens() {
        return Math.multiplyExact(sketches, tokensPerSketch);
    }

    public SearchSettings withSketchRecall(boolean on) {
        return new SearchSettings(sketches, tokensPerSketch, tableK, columnK, rounds, threshold, tableWeight, columnWeight,
                joinWeight, warningPenalty, violationPenalty, entityCheck, executionCheck, semanticChecks,
                sampledRecheck, indexValues, on);
    }

    /** The knobs that change what the search does, in one line. */
    static String factor(SearchSettings q) {
        List<String> levels = new ArrayList<>(List.of("L0"));
        if (q.executionCheck()) levels.add("L1");
        if (q.semanticChecks()) levels.add("L2");
        if (q.sampledRecheck()) levels.add("L3");
        return "K=" + q.sketches() + " R=" + q.rounds() + " tables=" + q.tableK() + " columns=" + q.columnK()
                + " threshold=" + num(q.threshold()) + " weights=" + num(q.tableWeight()) + "/" + num(q.columnWeight())
                + "/" + num(q.joinWeight()) + " penalties=" + num(q.warningPenalty()) + "/" + num(q.violationPenalty())
                + " levels=" + String.join("+", levels) + " entities=" + (q.entityCheck() ? "on" : "off")
                + " values=" + (q.indexValues() ? "on" : "off") + " recall=" + (q.sketchRecall() ? "sketch" : "question")
                + " tokens_per_sketch=" + q.tokensPerSketch();
    }

    private static String num(double d) {
        return SettingsBlock.plain(d).toPlainString();
    }
}
