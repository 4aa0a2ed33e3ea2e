package dev.ladder.pipeline.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.inference.GenerationRequest;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.ScriptedLanguageModel;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.Strategies;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.pipeline.strategy.Trace;
import dev.ladder.pipeline.strategy.TraceStep;
import dev.ladder.sql.Dialect;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.post.SqlPostProcessor;
import dev.ladder.sql.post.SqlPostProcessor.Cleaned;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code Settings.stopAtSemicolon}: every request stops at {@code ;}, and a completion cut there ends in the same
 * answer as the whole completion, with fewer tokens. The model is scripted and cuts at stop strings as an engine does.
 */
class StopAtSemicolonTest {

    static final String FRANCE = "SELECT COUNT(*) FROM customers WHERE country = 'France'";
    static final String BROKEN = "SELECT nickname FROM customers WHERE country = 'France'";
    static final String REPAIR_CUE = StrategyControlFlowTest.REPAIR_CUE;

    /** Whole outputs that go on after the query's {@code ;}, as models write them. */
    static final List<String> WHOLE = List.of(
            FRANCE + ";",
            FRANCE + ";\nSELECT COUNT(*) FROM customers;",
            "```sql\n" + FRANCE + ";\n```\nThis counts the customers whose country is France.",
            "Here is the query:\nSELECT COUNT(*)\nFROM customers\nWHERE country = 'France'; -- the French ones\n\nQuestion: next",
            " select count(*) from Customers where country = 'France' ;  \n\nExplanation: it counts rows.");

    static Database classicModels;

    @BeforeAll
    static void open() {
        classicModels = TestData.classicModels();
    }

    @ParameterizedTest
    @MethodSource("whole")
    void thePostProcessorGivesTheSameSqlForTheOutputCutBeforeItsFirstSemicolon(String whole) {
        String cut = whole.substring(0, whole.indexOf(';'));
        Cleaned fromWhole = SqlPostProcessor.clean(whole, classicModels.schema(), Dialect.MYSQL);
        Cleaned fromCut = SqlPostProcessor.clean(cut, classicModels.schema(), Dialect.MYSQL);
        assertThat(fromWhole.ok()).as(fromWhole.rejection()).isTrue();
        assertThat(fromCut.ok()).as(fromCut.rejection()).isTrue();
        assertThat(fromCut.sql()).isEqualTo(fromWhole.sql());
        // nothing to cut off: the semicolon and trailing-text steps only ever concern the whole output
        assertThat(fromCut.steps()).doesNotContain("semicolon", "trailing-text");
    }

    static List<String> whole() {
        return WHOLE;
    }

    @ParameterizedTest
    @ValueSource(strings = {"prompt-k0", "prompt-k3", "agent-0", "agent-1", "agent-2", "agent-3"})
    void everyRungAsksForTheStopAndItsCutCompletionsGiveTheSameAnswerWithFewerTokens(String rung) {
        for (String whole : WHOLE) {
            ScriptedLanguageModel stopped = scripted(whole).honouringStops();
            ScriptedLanguageModel uncut = scripted(whole).honouringStops();
            Answer withStop = Strategies.byName(rung).answer(q(), ctx(stopped, Settings.DEFAULT));
            Answer without = Strategies.byName(rung).answer(q(), ctx(uncut, Settings.DEFAULT.withStopAtSemicolon(false)));

            assertThat(stopped.requests()).allSatisfy(r -> assertThat(r.stopStrings()).containsExactly("\nQuestion:", ";"));
            assertThat(uncut.requests()).allSatisfy(r -> assertThat(r.stopStrings()).containsExactly("\nQuestion:"));
            assertThat(withStop.sql()).as(rung + " on " + whole).isEqualTo(without.sql()).isNotEmpty();
            assertThat(withStop.trace().chosen()).isEqualTo(without.trace().chosen());
            // an output that ends at its ';' costs the same either way; one that goes on costs less with the stop
            if (whole.strip().indexOf(";") == whole.strip().length() - 1) {
                assertThat(withStop.trace().generatedTokens()).isEqualTo(without.trace().generatedTokens());
            } else {
                assertThat(withStop.trace().generatedTokens()).isLessThan(without.trace().generatedTokens());
            }

            TraceStep.Generate g = withStop.trace().steps(TraceStep.Generate.class).get(0);
            assertThat(g.stopStrings()).containsExactly("\nQuestion:", ";");
            assertThat(g.outputs().get(0)).isEqualTo(whole.substring(0, whole.indexOf(';')));
            assertThat(g.finishReasons().get(0)).isEqualTo("stop_string");
            assertThat(without.trace().steps(TraceStep.Generate.class).get(0).stopStrings()).containsExactly("\nQuestion:");
        }
    }

    @Test
    void theRepairRequestStopsAtTheSemicolonToo() {
        ScriptedLanguageModel model = new ScriptedLanguageModel()
                .when(REPAIR_CUE, FRANCE + ";\n-- fixed: nickname is not a column")
                .then(Collections.nCopies(6 + 4, BROKEN + ";").toArray(String[]::new))
                .honouringStops();
        Answer a = Strategies.byName("agent-3").answer(q(), ctx(model, Settings.DEFAULT));

        // the pool, the gate's 4 samples, then the repair
        assertThat(model.calls()).containsExactly(3, 1, 1, 1, 1, 1);
        GenerationRequest repair = model.requests().get(7);
        assertThat(repair.prompt()).contains(REPAIR_CUE);
        assertThat(model.requests()).allSatisfy(r -> assertThat(r.stopStrings()).containsExactly("\nQuestion:", ";"));
        assertThat(a.trace().chosen()).isEqualTo("repair");
        assertThat(a.sql()).isEqualTo(FRANCE);
    }

    @Test
    void aSemicolonAlreadyAmongTheStopStringsIsNotAddedTwice() {
        Settings s = Settings.DEFAULT.withStopStrings(List.of(";", "\n\n"));
        assertThat(s.requestStops()).containsExactly(";", "\n\n");
        assertThat(s.withStopAtSemicolon(false).requestStops()).containsExactly(";", "\n\n");
        assertThat(Settings.DEFAULT.requestStops()).containsExactly("\nQuestion:", ";");
    }

    /**
     * The price of the stop: a {@code ;} inside a string literal ends the generation inside the literal, and the cut
     * output is rejected (never executed as a different query). ClassicModels' train gold SQL has no {@code ;} at all.
     */
    @Test
    void aSemicolonInsideALiteralCutsTheQueryAndThePostProcessorRejectsIt() {
        String whole = "SELECT productName FROM products WHERE productDescription LIKE '%front wheels; steering%';";
        ScriptedLanguageModel stopped = scripted(whole).honouringStops();
        Answer a = Strategies.byName("agent-0").answer(q(), ctx(stopped, Settings.DEFAULT));
        assertThat(a.sql()).isEmpty();
        assertThat(a.trace().steps(TraceStep.Clean.class).get(0).rejection()).contains("unterminated");

        ScriptedLanguageModel uncut = scripted(whole).honouringStops();
        Answer off = Strategies.byName("agent-0").answer(q(), ctx(uncut, Settings.DEFAULT.withStopAtSemicolon(false)));
        assertThat(off.sql()).isEqualTo(whole.substring(0, whole.length() - 1));
    }

    @Test
    void theStopStringsRoundTripThroughTheTraceJsonAndShowInItsText() {
        Answer a = Strategies.byName("prompt-k3").answer(q(), ctx(scripted(FRANCE + ";").honouringStops(), Settings.DEFAULT));
        String json = a.trace().toJson();
        assertThat(json).contains("\"stopStrings\":[\"\\nQuestion:\",\";\"]");
        assertThat(Trace.fromJson(json)).isEqualTo(a.trace());
        assertThat(a.trace().toText()).contains("stops \"\\nQuestion:\" \";\"");

        // a trace written before stop strings were recorded reads with none
        String old = json.replace(",\"stopStrings\":[\"\\nQuestion:\",\";\"]", "");
        assertThat(old).doesNotContain("stopStrings");
        assertThat(Trace.fromJson(old).steps(TraceStep.Generate.class).get(0).stopStrings()).isEmpty();
    }

    static ScriptedLanguageModel scripted(String text) {
        // enough for the most any rung asks: agent-2/3's six candidates
        return new ScriptedLanguageModel().then(Collections.nCopies(6, text).toArray(String[]::new));
    }

    static Question q() {
        return new Question("q1", "How many customers are in France?");
    }

    static StrategyContext ctx(ScriptedLanguageModel model, Settings settings) {
        return StrategyContext.of(model, classicModels, StrategyControlFlowTest.EXEMPLARS, settings);
    }
}
