package dev.ladder.pipeline.search;

import static org.assertj.core.api.Assertions.assertThat;

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

/**
 * The structured search's control flow with a scripted model on the real ClassicModels database: what is asked, when
 * the loop stops, what memory skips, what happens to malformed JSON, and what the trace holds.
 */
class StructuredSearchTest {

    static final String QUESTION = "How many customers are in France?";
    static final String SKETCH_CUE = "different MySQL SELECT statements";
    static final String FIX_CUE = "but it cannot be read";
    static final String REPAIR_CUE = "A candidate SQL statement for the question";
    static final String GOOD = "SELECT COUNT(*) FROM customers WHERE country = 'France'";
    /** Accept any schema-valid candidate: the tests of the threshold set their own. */
    static final Settings ANY_VALID = Settings.DEFAULT.with(SearchSettings.BLOCK, SearchSettings.DEFAULT.withThreshold(0));

    static Database db;

    @BeforeAll
    static void open() {
        db = TestData.classicModels();
    }

    static Answer ask(ScriptedLanguageModel model, Settings settings) {
        StrategyContext ctx = StrategyContext.of(model, db, new FixedExemplars(List.of(), List.of()), settings);
        Answer a = Strategies.byName("structured-search").answer(new Question("q1", QUESTION), ctx);
        assertThat(Trace.fromJson(a.trace().toJson())).isEqualTo(a.trace());
        return a;
    }

    /** A sketch reply: one candidate per SQL, declaring the customers table only. */
    static String sketches(String... sqls) {
        StringBuilder sb = new StringBuilder("{\"candidates\": [");
        for (int i = 0; i < sqls.length; i++) {
            if (i > 0) sb.append(", ");
            sb.append("{\"sql\": \"").append(sqls[i].replace("\"", "\\\"")).append("\", \"tables\": [\"customers\"], ")
                    .append("\"joins\": [], \"notes\": \"candidate ").append(i + 1).append("\"}");
        }
        return sb.append("]}").toString();
    }

    static String repair(String sql) {
        return "{\"sql\": \"" + sql + "\", \"confidence\": 0.8, \"changes\": [\"used the column the schema has\"]}";
    }

    static List<String> stages(Answer a, String stage) {
        return a.trace().steps(TraceStep.Stage.class).stream().filter(s -> s.stage().equals(stage))
                .map(s -> s.source() == null ? s.summary() : s.source()).toList();
    }

    @Test
    void aValidCandidateAboveTheThresholdStopsTheSearchWithoutRepair() {
        ScriptedLanguageModel model = new ScriptedLanguageModel()
                .when(SKETCH_CUE, sketches(GOOD, "SELECT COUNT(*) FROM customers WHERE nation = 'France'"));
        Answer a = ask(model, ANY_VALID);
        assertThat(a.sql()).isEqualTo(GOOD);
        assertThat(a.trace().chosen()).isEqualTo("sketch-1");
        assertThat(a.trace().decision()).contains("early stop");
        assertThat(model.requests()).hasSize(1);
        assertThat(model.requests().get(0).stopStrings()).isEmpty();
        // the sketch call's budget is sized to K candidates of the rung's max_new_tokens
        assertThat(model.requests().get(0).maxNewTokens())
                .isEqualTo(3 * ANY_VALID.of(SearchSettings.BLOCK).tokensPerSketch());
        assertThat(stages(a, "evidence")).containsExactly("sketch-1", "sketch-2");
        assertThat(stages(a, "validate-L0")).containsExactly("sketch-1", "sketch-2");
        assertThat(stages(a, "validate-L1")).containsExactly("sketch-1", "sketch-2");
        assertThat(stages(a, "validate-L2")).containsExactly("sketch-1", "sketch-2");
        assertThat(stages(a, "review")).isEmpty();
        assertThat(a.trace().toText()).contains("validate-L0 sketch-2: 1 violation");
    }

    @Test
    void aHighThresholdSendsEvenAValidCandidateOnIfAnotherHasViolations() {
        ScriptedLanguageModel model = new ScriptedLanguageModel()
                .when(SKETCH_CUE, sketches(GOOD, "SELECT COUNT(*) FROM customers WHERE nation = 'France'"))
                .when(REPAIR_CUE, repair(GOOD));
        Answer a = ask(model, Settings.DEFAULT.with(SearchSettings.BLOCK, SearchSettings.DEFAULT.withThreshold(5)));
        // the repair of sketch-2 gives sketch-1's SQL back: memory does not judge it again
        assertThat(a.sql()).isEqualTo(GOOD);
        assertThat(a.trace().chosen()).isEqualTo("sketch-1");
        assertThat(stages(a, "repair")).containsExactly("repair-1");
        assertThat(a.trace().steps(TraceStep.Stage.class).stream().filter(s -> s.stage().equals("repair")).findFirst()
                .orElseThrow().summary()).contains("repeats a statement already tried");
        assertThat(stages(a, "evidence")).containsExactly("sketch-1", "sketch-2");
        assertThat(stages(a, "search")).singleElement().asString().contains("no candidate with violations is left");
    }

    @Test
    void malformedJsonGetsOneFixAttemptThenTheReplyIsDropped() {
        ScriptedLanguageModel model = new ScriptedLanguageModel()
                .when(SKETCH_CUE, "Sure! Here are some queries: SELECT 1")
                .when(FIX_CUE, "{\"candidates\": [{\"sql\": \"SELECT 1\",}]}");
        Answer a = ask(model, ANY_VALID);
        assertThat(model.requests()).hasSize(2);
        assertThat(a.sql()).isEmpty();
        assertThat(a.trace().chosen()).isEqualTo("none");
        assertThat(a.trace().decision()).contains("no JSON object").contains("invalid JSON");
        assertThat(stages(a, "review")).hasSize(1);
    }

    @Test
    void aReplyCutOffAtTheBudgetKeepsTheCandidatesWrittenWhole() {
        // two whole candidates (the second's SQL on two lines, as a model writes it), the third cut mid-string
        String whole = sketches("SELECT COUNT(*) FROM customers WHERE nation = 'France'", GOOD);
        String cut = whole.substring(0, whole.length() - 2).replace("SELECT COUNT(*) FROM customers WHERE country",
                "SELECT COUNT(*)\nFROM customers WHERE country")
                + ", {\"sql\": \"SELECT COUNT(*) FROM custo";
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(SKETCH_CUE, cut);
        Answer a = ask(model, ANY_VALID);
        // no fix call: the whole candidates are used, the cut one is said to be lost
        assertThat(model.requests()).hasSize(1);
        // the raw line break read as one; the post-processor writes the statement on one line
        assertThat(a.sql()).isEqualTo(GOOD);
        assertThat(a.trace().chosen()).isEqualTo("sketch-2");
        TraceStep.Stage sk = a.trace().steps(TraceStep.Stage.class).stream().filter(s -> s.stage().equals("sketches"))
                .findFirst().orElseThrow();
        assertThat(sk.summary()).startsWith("2 candidates").contains("cut off: kept the 2 candidate(s) written whole");
    }

    @Test
    void aFixedReplyIsUsedAndBadCandidatesAreDroppedOneByOne() {
        String fixed = "{\"candidates\": [{\"tables\": [\"customers\"]}, {\"sql\": \"" + GOOD + "\", \"columns\": 3}, "
                + "{\"sql\": \"" + GOOD + "\"}, {\"sql\": \"" + GOOD + "  \"}]}";
        ScriptedLanguageModel model = new ScriptedLanguageModel()
                .when(SKETCH_CUE, "```json\n{\"candidates\": [\n```")
                .when(FIX_CUE, fixed);
        Answer a = ask(model, ANY_VALID);
        assertThat(a.sql()).isEqualTo(GOOD);
        assertThat(a.trace().chosen()).isEqualTo("sketch-1");
        TraceStep.Stage sk = a.trace().steps(TraceStep.Stage.class).stream().filter(s -> s.stage().equals("sketches"))
                .findFirst().orElseThrow();
        assertThat(sk.summary()).contains("not closed").contains("candidate 1: no \"sql\" text")
                .contains("candidate 2: \"columns\" is not a list");
        // the fourth repeats the third's SQL: judged once
        assertThat(stages(a, "evidence")).containsExactly("sketch-1");
    }

    @Test
    void aRepairThatFixesTheIllegalColumnIsTheAnswer() {
        String bad = "SELECT COUNT(*) FROM customers WHERE customer_country = 'France'";
        ScriptedLanguageModel model = new ScriptedLanguageModel()
                .when(SKETCH_CUE, sketches(bad))
                .when(REPAIR_CUE, repair(GOOD));
        Answer a = ask(model, ANY_VALID);
        assertThat(a.sql()).isEqualTo(GOOD);
        assertThat(a.trace().chosen()).isEqualTo("repair-1");
        String prompt = model.requests().get(1).prompt();
        assertThat(prompt).contains(bad).contains("customer_country").contains("nearest legal name")
                .contains("Statements already tried").contains("- " + bad);
        assertThat(stages(a, "evidence")).containsExactly("sketch-1", "repair-1");
    }

    @Test
    void twoRoundsWithoutImprovementStopTheLoop() {
        ScriptedLanguageModel model = new ScriptedLanguageModel()
                .when(SKETCH_CUE, sketches("SELECT COUNT(*) FROM customers WHERE nation = 'France'",
                        "SELECT COUNT(*) FROM customers WHERE land = 'France'",
                        "SELECT COUNT(*) FROM customers WHERE realm = 'France'"))
                .when(REPAIR_CUE, repair("SELECT nothing FROM nowhere"), "not json at all", repair(GOOD));
        Answer a = ask(model, ANY_VALID);
        assertThat(model.requests()).hasSize(3); // the sketch and two repairs; the third repair is never asked for
        assertThat(model.unused()).isEqualTo(1);
        assertThat(stages(a, "search")).singleElement().asString().contains("two rounds without improvement");
        // nothing validates: the best-scoring candidate, with the review package
        assertThat(a.trace().chosen()).startsWith("sketch-");
        assertThat(a.trace().decision()).contains("no candidate is schema-valid");
        TraceStep.Stage review = a.trace().steps(TraceStep.Stage.class).stream().filter(s -> s.stage().equals("review"))
                .findFirst().orElseThrow();
        assertThat(review.detail().get("candidates")).hasSize(4);
        assertThat(review.detail().get("evidence")).hasSize(4);
    }

    @Test
    void theRoundLimitAndRoundsZeroAreHonoured() {
        String[] bad = {"SELECT COUNT(*) FROM customers WHERE nation = 'France'",
                "SELECT COUNT(*) FROM customers WHERE land = 'France'", "SELECT COUNT(*) FROM customers WHERE realm = 'France'"};
        ScriptedLanguageModel none = new ScriptedLanguageModel().when(SKETCH_CUE, sketches(bad));
        Answer off = ask(none, Settings.DEFAULT.with(SearchSettings.BLOCK, SearchSettings.DEFAULT.withRounds(0)));
        assertThat(none.requests()).hasSize(1);
        assertThat(stages(off, "search")).singleElement().asString().contains("repair is off");

        // each repair improves a little (one violation fewer is not possible here, so: valid but below threshold)
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(SKETCH_CUE, sketches(bad))
                .when(REPAIR_CUE, repair("SELECT COUNT(*) FROM customers WHERE country = 'Spain'"),
                        repair("SELECT COUNT(*) FROM customers WHERE country = 'Italy'"), repair(GOOD));
        Answer limited = ask(model, Settings.DEFAULT.with(SearchSettings.BLOCK, SearchSettings.DEFAULT.withRounds(1).withThreshold(5)));
        assertThat(model.requests()).hasSize(2);
        assertThat(limited.trace().chosen()).isEqualTo("repair-1");
        assertThat(stages(limited, "search")).singleElement().asString().contains("round limit (1)");
    }

    @Test
    void placeholdersAreBoundFromTheModelsValuesOrReported() {
        String json = "{\"candidates\": [{\"sql\": \"SELECT COUNT(*) FROM customers WHERE country = :country\", "
                + "\"placeholders\": {\"country\": \"France\"}}, {\"sql\": \"SELECT COUNT(*) FROM customers WHERE city = :city\", "
                + "\"placeholders\": {\"city\": null}}]}";
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(SKETCH_CUE, json);
        Answer a = ask(model, Settings.DEFAULT.with(SearchSettings.BLOCK, SearchSettings.DEFAULT.withThreshold(0).withRounds(0)));
        assertThat(a.sql()).isEqualTo(GOOD);
        assertThat(a.trace().steps(TraceStep.Stage.class)).anySatisfy(s -> {
            assertThat(s.stage()).isEqualTo("validate-L0");
            assertThat(s.source()).isEqualTo("sketch-2");
            assertThat(s.summary()).contains("placeholder :city has no value");
        });
    }

    @Test
    void disagreementsBetweenTheEntityChannelsAreWarningsAndPenalties() {
        String json = "{\"candidates\": [{\"sql\": \"" + GOOD + "\", \"tables\": [\"customers\", \"orders\"], "
                + "\"columns\": [[\"customers\", \"country\"], [\"customers\", \"city\"]]}]}";
        Answer on = ask(new ScriptedLanguageModel().when(SKETCH_CUE, json), ANY_VALID);
        TraceStep.Stage entities = on.trace().steps(TraceStep.Stage.class).stream()
                .filter(s -> s.stage().equals("entities")).findFirst().orElseThrow();
        assertThat(entities.detail().get("warnings")).hasSize(2);
        assertThat(entities.summary()).contains("declares table orders").contains("declares column customers.city");
        double penalised = score(on);

        Answer off = ask(new ScriptedLanguageModel().when(SKETCH_CUE, json),
                ANY_VALID.with(SearchSettings.BLOCK, SearchSettings.DEFAULT.withThreshold(0).withChecks(false, true, true, false)));
        assertThat(score(off)).isEqualTo(penalised + 2 * SearchSettings.DEFAULT.warningPenalty(),
                org.assertj.core.data.Offset.offset(1e-6));
    }

    @Test
    void aRepairDeclaresItsEntitiesAndIsScoredByTheSketchesRule() {
        // the sketch reads an unknown column and declares a table it does not read: one violation, one entity warning
        String bad = "SELECT COUNT(*) FROM customers WHERE customer_country = 'France'";
        String sketch = "{\"candidates\": [{\"sql\": \"" + bad + "\", \"tables\": [\"customers\", \"orders\"]}]}";
        // the repair fixes the column but declares orders too: the same disagreement costs the same penalty
        String repaired = "{\"sql\": \"" + GOOD + "\", \"tables\": [\"customers\", \"orders\"], \"confidence\": 0.8, "
                + "\"changes\": [\"used country\"]}";
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(SKETCH_CUE, sketch).when(REPAIR_CUE, repaired);
        Answer a = ask(model, ANY_VALID);
        assertThat(a.trace().chosen()).isEqualTo("repair-1");
        String prompt = model.requests().get(1).prompt();
        // the repair prompt asks for the entities as the sketch prompt does
        assertThat(prompt).contains("\"tables\"").contains("\"columns\"").contains("\"joins\"");
        // the model's account of its own query is not a problem in the SQL: it is not handed over as one
        assertThat(prompt).contains("customer_country").doesNotContain("declares table orders");
        List<TraceStep.Stage> entities = a.trace().steps(TraceStep.Stage.class).stream()
                .filter(s -> s.stage().equals("entities")).toList();
        assertThat(entities).extracting(TraceStep.Stage::source).containsExactly("sketch-1", "repair-1");
        assertThat(entities.get(1).detail().get("warnings")).hasSize(1);
        assertThat(a.trace().steps(TraceStep.Stage.class).stream()
                .filter(s -> s.stage().equals("score") && "repair-1".equals(s.source())).findFirst().orElseThrow()
                .detail().get("penalties").toString()).contains("-0.05 entity: declares table orders");
    }

    @Test
    void aJoinOffTheForeignKeysCostsAWarningAndIsNotSentToRepair() {
        String selfJoin = "SELECT COUNT(DISTINCT a.customerNumber) FROM customers a JOIN customers b ON a.city = b.city "
                + "WHERE a.country = 'France' AND a.customerNumber <> b.customerNumber";
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(SKETCH_CUE, sketches(selfJoin))
                .when(REPAIR_CUE, repair(GOOD));
        Answer a = ask(model, Settings.DEFAULT.with(SearchSettings.BLOCK, SearchSettings.DEFAULT.withThreshold(5)));
        assertThat(a.sql()).isEqualTo(selfJoin);
        assertThat(model.requests()).hasSize(1);
        assertThat(a.trace().decision()).contains("the best schema-valid candidate");
        TraceStep.Stage score = a.trace().steps(TraceStep.Stage.class).stream().filter(s -> s.stage().equals("score"))
                .findFirst().orElseThrow();
        assertThat(score.detail().get("penalties").toString()).contains("-0.05 L0 warning: the join customers.city = customers.city");
    }

    @Test
    void theSketchBudgetGrowsWithKAndARepairGetsOneCandidatesBudget() {
        String bad = "SELECT COUNT(*) FROM customers WHERE customer_country = 'France'";
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(SKETCH_CUE, sketches(bad))
                .when(REPAIR_CUE, repair(GOOD));
        ask(model, ANY_VALID.with(SearchSettings.BLOCK, SearchSettings.DEFAULT.withThreshold(0).withSketches(5)));
        assertThat(model.requests()).extracting(r -> r.maxNewTokens())
                .containsExactly(5 * ANY_VALID.of(SearchSettings.BLOCK).tokensPerSketch(),
                        ANY_VALID.of(SearchSettings.BLOCK).tokensPerSketch());
    }

    @Test
    void theEarlyStopThresholdIsTheMethods() {
        assertThat(SearchSettings.DEFAULT.threshold()).isEqualTo(0.75);
    }

    static double score(Answer a) {
        return a.trace().steps(TraceStep.Stage.class).stream().filter(s -> s.stage().equals("score")).findFirst()
                .orElseThrow().detail().get("score").asDouble();
    }
}
