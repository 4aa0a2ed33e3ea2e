package dev.ladder.pipeline.soft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.pipeline.prompt.Example;
import dev.ladder.pipeline.prompt.FixedExemplars;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.ScriptedLanguageModel;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.Strategies;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.pipeline.strategy.Trace;
import dev.ladder.pipeline.strategy.TraceStep;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.TestData;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The cycles' control flow with a scripted model on ClassicModels. */
class SoftAttentionTest {

    static final String QUESTION = "Which offices are in Japan?";
    static final String GOOD = "SELECT officeCode, city FROM offices WHERE country = 'Japan'";
    static final String EMPTY = "SELECT officeCode FROM offices WHERE country = 'Atlantis'";
    static final String BROKEN = "SELECT office_code FROM offices";
    static final String REFINE_CUE = "Earlier attempts";

    /**
     * The method's threshold (0.5) accepts any attempt that runs without a row-range penalty, an empty result
     * included (0.55); the refinement tests ask for more, as the setting allows.
     */
    static final SoftSettings STRICT = SoftSettings.DEFAULT.withThreshold(0.8);

    static Database db;

    @BeforeAll
    static void open() {
        db = TestData.classicModels();
    }

    static Answer ask(ScriptedLanguageModel model, SoftSettings s) {
        FixedExemplars one = new FixedExemplars(List.of("e1"),
                List.of(new Example("e1", "How many product lines are there?", "SELECT COUNT(*) FROM productlines")));
        StrategyContext ctx = StrategyContext.of(model, db, one, Settings.DEFAULT.with(SoftSettings.BLOCK, s));
        Answer a = Strategies.byName("soft-attention").answer(new Question("q", QUESTION), ctx);
        assertThat(Trace.fromJson(a.trace().toJson())).isEqualTo(a.trace());
        return a;
    }

    static String fence(String sql) {
        return "```sql\n" + sql + "\n```";
    }

    @Test
    void aConfidentFirstAttemptEndsTheCycles() {
        ScriptedLanguageModel model = new ScriptedLanguageModel().then(fence(GOOD));
        Answer a = ask(model, SoftSettings.DEFAULT);
        assertThat(model.requests()).hasSize(1);
        assertThat(a.sql()).isEqualTo(GOOD);
        assertThat(a.trace().chosen()).isEqualTo("attempt-1");
        String prompt = model.requests().get(0).prompt();
        // the method's one-shot exemplar is on by default
        assertThat(prompt).contains("-- attention: ").contains("### Schema attention weights")
                .contains("Example question: How many product lines are there?");
        assertThat(a.trace().steps(TraceStep.Stage.class)).extracting(TraceStep.Stage::stage)
                .containsExactly("mining", "weights", "confidence");
    }

    @Test
    void lowConfidenceIsRefinedWithTheFeedbackAndTheWholeHistory() {
        ScriptedLanguageModel model = new ScriptedLanguageModel().then(fence(BROKEN)).when(REFINE_CUE, fence(EMPTY), fence(GOOD));
        Answer a = ask(model, STRICT);
        assertThat(model.requests()).hasSize(3);
        assertThat(a.sql()).isEqualTo(GOOD);
        assertThat(a.trace().chosen()).isEqualTo("attempt-3");
        String second = model.requests().get(1).prompt();
        assertThat(second).contains("1. " + BROKEN).contains("it does not run");
        String third = model.requests().get(2).prompt();
        assertThat(third).contains("1. " + BROKEN).contains("2. " + EMPTY).contains("What to fix in the last attempt: the result is empty");
    }

    @Test
    void theCyclesStopAtTheirLimitAndTheMostConfidentAttemptWins() {
        ScriptedLanguageModel model = new ScriptedLanguageModel().then(fence(EMPTY))
                .when(REFINE_CUE, fence(BROKEN), "no sql here", fence(EMPTY + " OR 1 = 0"));
        Answer a = ask(model, STRICT);
        assertThat(model.requests()).hasSize(4);
        assertThat(a.sql()).isEqualTo(EMPTY);
        assertThat(a.trace().chosen()).isEqualTo("attempt-1");
        assertThat(a.trace().decision()).contains("no attempt reaches the threshold in 3 cycles");

        ScriptedLanguageModel once = new ScriptedLanguageModel().then(fence(EMPTY));
        Answer b = ask(once, STRICT.withCycles(0));
        assertThat(once.requests()).hasSize(1);
        assertThat(b.sql()).isEqualTo(EMPTY);
    }

    @Test
    void weightsOffIsThePlainPromptAndReasoningIsStrippedFromTheAnswer() {
        ScriptedLanguageModel model = new ScriptedLanguageModel()
                .then("The question needs the offices table, filtered by country.\n" + fence(GOOD) + "\nThat is all.");
        Answer a = ask(model, SoftSettings.DEFAULT.withWeights(false, false).withPrompting(true, true));
        assertThat(a.sql()).isEqualTo(GOOD);
        String prompt = model.requests().get(0).prompt();
        assertThat(prompt).doesNotContain("attention").contains("reason briefly")
                .contains("Example question: How many product lines are there?");
        assertThat(a.trace().steps(TraceStep.Stage.class)).extracting(TraceStep.Stage::stage).containsExactly("confidence");
    }

    @Test
    void atTheMethodsThresholdAnAttemptThatRunsInRangeEndsTheCyclesAndOneAboveTheRangeToo() {
        ScriptedLanguageModel model = new ScriptedLanguageModel().then(fence("SELECT city FROM offices"));
        SoftSettings upToThree = new SoftSettings(true, true, 3, 0.5, 1, 3, true, false, 512);
        Answer a = ask(model, upToThree);
        // 0.6 + (-0.1) + 0.2 = 0.7: penalised against an in-range result (1.0), still above the method's 0.5
        assertThat(model.requests()).hasSize(1);
        assertThat(a.trace().steps(TraceStep.Stage.class).stream().filter(s -> s.stage().equals("confidence"))
                .findFirst().orElseThrow().summary()).contains("0.70");
    }

    @Test
    void nothingReadableAnswersEmpty() {
        ScriptedLanguageModel model = new ScriptedLanguageModel().then("I do not know.").when(REFINE_CUE, "Still no idea.");
        Answer a = ask(model, SoftSettings.DEFAULT.withCycles(1));
        assertThat(a.sql()).isEmpty();
        assertThat(a.trace().chosen()).isEqualTo("none");
    }
}
