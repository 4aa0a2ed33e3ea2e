package dev.ladder.pipeline.progressive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.pipeline.judge.SqlJudge;
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

/** Progressive execution's control flow with a scripted model (and a scripted judge) on ClassicModels. */
class ProgressiveTest {

    static final String QUESTION = "List the cities of the offices in Japan, in alphabetical order.";
    static final String SUBTASKS = "Break the SQL query that answers the question";
    static final String FIX = "but it cannot be read";
    static final String RESCORE = "how confident are you now";
    static final String JUDGE = "Does this SQL answer the question correctly?";
    static final String READ = "SELECT city FROM offices";
    static final String FILTERED = "SELECT city FROM offices WHERE country = 'Japan'";
    static final String ORDERED = "SELECT city FROM offices WHERE country = 'Japan' ORDER BY city";
    static final String PLAN = "{\"subtasks\": ["
            + "{\"id\": \"t1\", \"description\": \"read the offices\", \"fragment\": \"SELECT city FROM offices\", \"confidence\": 0.9, \"depends_on\": []},"
            + "{\"id\": \"t2\", \"description\": \"keep Japan\", \"fragment\": \"WHERE country = 'Japan'\", \"confidence\": 0.6, \"depends_on\": [\"t1\"]},"
            + "{\"id\": \"t3\", \"description\": \"sort by city\", \"fragment\": \"ORDER BY city\", \"confidence\": 0.7, \"depends_on\": [\"t1\"]}]}";

    static Database db;

    @BeforeAll
    static void open() {
        db = TestData.classicModels();
    }

    static Answer ask(ScriptedLanguageModel model, ProgressiveSettings s) {
        return ask(model, s, null);
    }

    static Answer ask(ScriptedLanguageModel model, ProgressiveSettings s, ScriptedLanguageModel judge) {
        StrategyContext ctx = StrategyContext.of(model, db, new FixedExemplars(List.of(), List.of()),
                Settings.DEFAULT.with(ProgressiveSettings.BLOCK, s)).withJudge(judge);
        Answer a = Strategies.byName("progressive").answer(new Question("q", QUESTION), ctx);
        assertThat(Trace.fromJson(a.trace().toJson())).isEqualTo(a.trace());
        return a;
    }

    static String fence(String sql) {
        return "```sql\n" + sql + "\n```";
    }

    static String task(String description) {
        return "Next sub-task: " + description;
    }

    static List<String> sources(Answer a) {
        return a.trace().steps(TraceStep.Generate.class).stream().map(TraceStep.Generate::source).toList();
    }

    static TraceStep.Stage stage(Answer a, String name) {
        return a.trace().steps(TraceStep.Stage.class).stream().filter(s -> s.stage().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void theMostConfidentReadySubTaskGoesNextAndConfidencesAreRecalculated() {
        ScriptedLanguageModel model = new ScriptedLanguageModel()
                .when(SUBTASKS, PLAN)
                .when(task("read the offices"), fence(READ))
                .when(task("keep Japan"), fence(FILTERED))
                .when(task("sort by city"), fence(ORDERED))
                .when(RESCORE, "{\"confidences\": {\"t2\": 0.95, \"t3\": 0.2}}", "{\"confidences\": {\"t3\": 0.5}}")
                .when(JUDGE, "CORRECT: YES\nREASONING: the cities of the Japanese offices, sorted.");
        Answer a = ask(model, ProgressiveSettings.DEFAULT);
        assertThat(a.sql()).isEqualTo(ORDERED);
        assertThat(a.trace().chosen()).isEqualTo("b1");
        assertThat(a.trace().decision()).startsWith("accepted (reward 1.0, the judge says CORRECT)");
        // t3 (0.7) would go before t2 (0.6); the re-scoring after t1 puts t2 first
        assertThat(sources(a)).containsExactly("subtasks", "b1-step-1", "b1-rescore-1", "b1-step-2", "b1-rescore-2",
                "b1-step-3", "b1-judge");
        var progress = stage(a, "progress").detail();
        assertThat(progress.get("done").toString()).isEqualTo("[\"t1\",\"t2\",\"t3\"]");
        assertThat(progress.get("confidences").get("t2").toString()).isEqualTo("[0.6,0.95]");
        assertThat(progress.get("confidences").get("t3").toString()).isEqualTo("[0.7,0.2,0.5]");
        assertThat(progress.get("confidences").get("t1").toString()).isEqualTo("[0.9]");
        // the context reaches the later steps
        String third = model.requests().get(5).prompt();
        assertThat(third).contains(FILTERED).contains("tables: offices").contains("offices.country = Japan").contains("t2: 1 row");

        ScriptedLanguageModel fixed = new ScriptedLanguageModel().when(SUBTASKS, PLAN)
                .when(task("read the offices"), fence(READ)).when(task("sort by city"), fence(READ + " ORDER BY city"))
                .when(task("keep Japan"), fence(ORDERED)).when(JUDGE, "CORRECT: YES");
        Answer b = ask(fixed, ProgressiveSettings.DEFAULT.withSwitches(true, false, false));
        assertThat(sources(b)).containsExactly("subtasks", "b1-step-1", "b1-step-2", "b1-step-3", "b1-judge");
        assertThat(fixed.requests().get(2).prompt()).contains(task("sort by city"));
    }

    @Test
    void thePlansDependenciesDecideWhatMayRunFirst() {
        String plan = "{\"subtasks\": [{\"id\": \"t1\", \"description\": \"read the offices\", \"confidence\": 0.5},"
                + "{\"id\": \"t2\", \"description\": \"keep Japan\", \"confidence\": 0.99, \"depends_on\": [\"t1\", \"t9\"]}]}";
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(SUBTASKS, plan)
                .when(task("read the offices"), fence(READ)).when(task("keep Japan"), fence(FILTERED))
                .when(JUDGE, "CORRECT: YES");
        Answer a = ask(model, ProgressiveSettings.DEFAULT.withSwitches(true, false, false));
        assertThat(model.requests().get(1).prompt()).contains(task("read the offices"));
        assertThat(stage(a, "plan").summary()).startsWith("t1 -> t2");
        assertThat(stage(a, "subtasks").summary()).contains("t2: dependency t9 dropped");

        ScriptedLanguageModel free = new ScriptedLanguageModel().when(SUBTASKS, plan)
                .when(task("read the offices"), fence(FILTERED)).when(task("keep Japan"), fence(FILTERED))
                .when(JUDGE, "CORRECT: YES");
        ask(free, ProgressiveSettings.DEFAULT.withSwitches(false, false, false));
        assertThat(free.requests().get(1).prompt()).contains(task("keep Japan"));
    }

    @Test
    void aFailingStepIsRetriedWithItsErrorThenGivenUp() {
        String plan = "{\"subtasks\": [{\"id\": \"t1\", \"description\": \"read the offices\", \"confidence\": 0.9},"
                + "{\"id\": \"t2\", \"description\": \"keep Japan\", \"confidence\": 0.9, \"depends_on\": [\"t1\"]}]}";
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(SUBTASKS, plan)
                .when(task("read the offices"), fence("SELECT town FROM offices"), fence(READ))
                .when(task("keep Japan"), fence("SELECT city FROM offices WHERE land = 'Japan'"), "no sql", fence("SELECT city FROM offices WHERE nation = 'Japan'"))
                .when(JUDGE, "CORRECT: NO\nREASONING: it returns every office; the filter on Japan is missing.");
        Answer a = ask(model, ProgressiveSettings.DEFAULT);
        assertThat(sources(a)).containsExactly("subtasks", "b1-step-1", "b1-step-1-retry-1", "b1-step-2",
                "b1-step-2-retry-1", "b1-step-2-retry-2", "b1-judge");
        assertThat(model.requests().get(2).prompt()).contains("The last try failed: UNKNOWN_COLUMN");
        assertThat(a.sql()).isEqualTo(READ);
        assertThat(stage(a, "progress").summary()).contains("given up: t2");
        assertThat(a.trace().decision()).startsWith("not accepted (reward 0.0, the judge says NOT CORRECT)");
        assertThat(stage(a, "error-analysis").summary()).isEqualTo("wrong-filter");
    }

    @Test
    void multiBranchTriesOtherFirstStepsAndKeepsTheBestReward() {
        String plan = "{\"subtasks\": [{\"id\": \"a\", \"description\": \"start from the offices\", \"confidence\": 0.9},"
                + "{\"id\": \"b\", \"description\": \"start from Japan's offices\", \"confidence\": 0.8}]}";
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(SUBTASKS, plan)
                .when(task("start from the offices"), fence(READ), fence(FILTERED))
                .when(task("start from Japan's offices"), fence(READ + " ORDER BY city"), fence(FILTERED));
        ScriptedLanguageModel judge = new ScriptedLanguageModel()
                .when("WHERE country = 'Japan'", "CORRECT: YES\nREASONING: right.")
                .when(JUDGE, "CORRECT: NO\nREASONING: every office, not only Japan's.");
        Answer a = ask(model, ProgressiveSettings.DEFAULT.withSwitches(false, false, true), judge);
        assertThat(a.trace().chosen()).isEqualTo("b2");
        assertThat(a.sql()).isEqualTo(FILTERED);
        assertThat(a.trace().decision()).contains("branch b2 of 2");
        assertThat(judge.requests()).hasSize(2);
        assertThat(model.requests()).noneMatch(r -> r.prompt().contains(JUDGE));

        ScriptedLanguageModel off = new ScriptedLanguageModel().when(SUBTASKS, plan)
                .when(task("start from the offices"), fence(READ)).when(task("start from Japan's offices"), fence(FILTERED))
                .when(JUDGE, "CORRECT: NO\nREASONING: no.");
        Answer single = ask(off, ProgressiveSettings.DEFAULT.withSwitches(false, false, false));
        assertThat(single.trace().chosen()).isEqualTo("b1");
    }

    @Test
    void subTaskJsonGetsOneFixThenTheFailureIsExplained() {
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(SUBTASKS, "first read offices, then filter")
                .when(FIX, "{\"subtasks\": []}");
        Answer a = ask(model, ProgressiveSettings.DEFAULT);
        assertThat(model.requests()).hasSize(2);
        assertThat(a.sql()).isEmpty();
        assertThat(a.trace().chosen()).isEqualTo("none");
        assertThat(a.trace().decision()).contains("no JSON object").contains("non-empty \"subtasks\" list");
    }

    @Test
    void errorCategoriesComeFromTheExecutionThenTheReasoning() {
        assertThat(ErrorAnalysis.classify(null, "It joins orders on the wrong key.")).isEqualTo("wrong-join");
        assertThat(ErrorAnalysis.classify(null, "It should count the customers, not list them.")).isEqualTo("wrong-aggregation");
        assertThat(ErrorAnalysis.classify(null, "The WHERE clause keeps the wrong year.")).isEqualTo("wrong-filter");
        assertThat(ErrorAnalysis.classify(null, "It reads the employees table instead.")).isEqualTo("wrong-table");
        assertThat(ErrorAnalysis.classify(null, "It returns the phone column instead of the city.")).isEqualTo("wrong-column");
        assertThat(ErrorAnalysis.classify(null, "Not what was asked.")).isEqualTo("other");
        assertThat(ErrorAnalysis.classify(db.execute("SELECT nope FROM offices"), "anything")).isEqualTo("wrong-column");
        assertThat(ErrorAnalysis.classify(db.execute("SELECT city FROM nowhere"), "anything")).isEqualTo("wrong-table");
        assertThat(ErrorAnalysis.classify(db.execute("SELECT city FROM offices WHERE"), "anything")).isEqualTo("syntax");
    }

    @Test
    void theJudgesReplyIsReadLeniently() {
        assertThat(SqlJudge.read("CORRECT: YES\nREASONING: fine", "p", 0, 0).yes()).isTrue();
        assertThat(SqlJudge.read("**CORRECT:** no\nREASONING: wrong table", "p", 0, 0).correct()).isFalse();
        SqlJudge.Verdict none = SqlJudge.read("I think so.", "p", 0, 0);
        assertThat(none.correct()).isNull();
        assertThat(none.yes()).isFalse();
        assertThat(none.reasoning()).isEqualTo("I think so.");
        assertThat(SqlJudge.summary(db.execute("SELECT city FROM offices ORDER BY city"))).startsWith("7 rows:\ncity\nBoston");
    }
}
