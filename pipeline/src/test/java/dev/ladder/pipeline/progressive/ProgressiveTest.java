package dev.ladder.pipeline.progressive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.pipeline.judge.SqlJudge;
import dev.ladder.pipeline.kit.IntentClassifier;
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
    static final String JUDGE = "Is this result the answer to the question";
    static final String PLAN_CUE = "Write a three-step plan";
    static final String ALTERNATIVE = "An earlier attempt was judged wrong";
    static final String THREE_STEPS = "{\"tables\": [\"offices\"], \"operations\": [\"keep Japan\", \"sort by city\"], "
            + "\"columns\": [\"offices.city\"]}";
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
                .when(PLAN_CUE, THREE_STEPS)
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
        assertThat(sources(a)).containsExactly("subtasks", "plan", "b1-step-1", "b1-rescore-1", "b1-step-2",
                "b1-rescore-2", "b1-step-3", "b1-judge");
        var progress = stage(a, "progress").detail();
        assertThat(progress.get("done").toString()).isEqualTo("[\"t1\",\"t2\",\"t3\"]");
        assertThat(progress.get("confidences").get("t2").toString()).isEqualTo("[0.6,0.95]");
        assertThat(progress.get("confidences").get("t3").toString()).isEqualTo("[0.7,0.2,0.5]");
        assertThat(progress.get("confidences").get("t1").toString()).isEqualTo("[0.9]");
        // the model's three-step plan reaches every step, and the context the later ones
        assertThat(model.requests().get(2).prompt()).contains("The plan for the query:\n1. tables: offices")
                .contains("3. columns to return: offices.city");
        String third = model.requests().get(6).prompt();
        assertThat(third).contains("2. operations: keep Japan; sort by city").contains(FILTERED).contains("tables: offices").contains("offices.country = Japan").contains("t2: 1 row");

        ScriptedLanguageModel fixed = new ScriptedLanguageModel().when(SUBTASKS, PLAN).when(PLAN_CUE, THREE_STEPS)
                .when(task("read the offices"), fence(READ)).when(task("sort by city"), fence(READ + " ORDER BY city"))
                .when(task("keep Japan"), fence(ORDERED)).when(JUDGE, "CORRECT: YES");
        Answer b = ask(fixed, ProgressiveSettings.DEFAULT.withSwitches(true, false, false));
        assertThat(sources(b)).containsExactly("subtasks", "plan", "b1-step-1", "b1-step-2", "b1-step-3", "b1-judge");
        assertThat(fixed.requests().get(3).prompt()).contains(task("sort by city"));
    }

    @Test
    void thePlansDependenciesDecideWhatMayRunFirst() {
        String plan = "{\"subtasks\": [{\"id\": \"t1\", \"description\": \"read the offices\", \"confidence\": 0.5},"
                + "{\"id\": \"t2\", \"description\": \"keep Japan\", \"confidence\": 0.99, \"depends_on\": [\"t1\", \"t9\"]}]}";
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(SUBTASKS, plan).when(PLAN_CUE, THREE_STEPS)
                .when(task("read the offices"), fence(READ)).when(task("keep Japan"), fence(FILTERED))
                .when(JUDGE, "CORRECT: YES");
        Answer a = ask(model, ProgressiveSettings.DEFAULT.withSwitches(true, false, false));
        assertThat(model.requests().get(2).prompt()).contains(task("read the offices"));
        assertThat(stage(a, "plan").summary()).startsWith("t1 -> t2");
        assertThat(stage(a, "subtasks").summary()).contains("t2: dependency t9 dropped");

        ScriptedLanguageModel free = new ScriptedLanguageModel().when(SUBTASKS, plan)
                .when(task("read the offices"), fence(FILTERED)).when(task("keep Japan"), fence(FILTERED))
                .when(JUDGE, "CORRECT: YES");
        ask(free, ProgressiveSettings.DEFAULT.withSwitches(false, false, false));
        // no plan: no plan call, and the most confident sub-task goes first
        assertThat(free.requests().get(1).prompt()).contains(task("keep Japan")).doesNotContain("The plan for the query");
    }

    @Test
    void aFailingStepIsRetriedWithItsErrorThenGivenUp() {
        String plan = "{\"subtasks\": [{\"id\": \"t1\", \"description\": \"read the offices\", \"confidence\": 0.9},"
                + "{\"id\": \"t2\", \"description\": \"keep Japan\", \"confidence\": 0.9, \"depends_on\": [\"t1\"]}]}";
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(SUBTASKS, plan).when(PLAN_CUE, THREE_STEPS)
                .when(task("read the offices"), fence("SELECT town FROM offices"), fence(READ))
                .when(task("keep Japan"), fence("SELECT city FROM offices WHERE land = 'Japan'"), "no sql", fence("SELECT city FROM offices WHERE nation = 'Japan'"))
                .when(JUDGE, "CORRECT: NO\nREASONING: it returns every office; the filter on Japan is missing.");
        Answer a = ask(model, ProgressiveSettings.DEFAULT.withSwitches(true, true, false));
        // t1 and t2 are both confident, but t2 waits for t1: one step each
        assertThat(sources(a)).containsExactly("subtasks", "plan", "b1-step-1", "b1-step-1-retry-1", "b1-step-2",
                "b1-step-2-retry-1", "b1-step-2-retry-2", "b1-judge");
        assertThat(model.requests().get(3).prompt()).contains("The last try failed: UNKNOWN_COLUMN");
        assertThat(a.sql()).isEqualTo(READ);
        assertThat(stage(a, "progress").summary()).contains("given up: t2");
        // a given-up sub-task is in the answer's decision, not only in the progress stage
        assertThat(a.trace().decision()).startsWith("not accepted (reward 0.0, the judge says NOT CORRECT)")
                .contains("given up: t2");
        assertThat(stage(a, "error-analysis").summary()).isEqualTo("wrong-filter");
    }

    @Test
    void belowAcceptanceAnAlternativeDecompositionRunsAsTheNextBranchWithThePlanOn() {
        String other = "{\"subtasks\": [{\"id\": \"t1\", \"description\": \"read Japan's offices\", "
                + "\"fragment\": \"FROM offices WHERE country = 'Japan'\", \"confidence\": 0.9},"
                + "{\"id\": \"t2\", \"description\": \"return the cities\", \"fragment\": \"SELECT city\", \"confidence\": 0.9}]}";
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(ALTERNATIVE, other).when(SUBTASKS, PLAN)
                .when(PLAN_CUE, THREE_STEPS, THREE_STEPS)
                .when(task("read the offices"), fence(READ)).when(task("sort by city"), fence(READ + " ORDER BY city"))
                .when(task("keep Japan"), fence(READ + " ORDER BY city"))
                .when(task("read Japan's offices"), fence(FILTERED));
        ScriptedLanguageModel judge = new ScriptedLanguageModel()
                .when("WHERE country = 'Japan'", "CORRECT: YES\nREASONING: right.")
                .when(JUDGE, "CORRECT: NO\nREASONING: every office, not only Japan's.");
        Answer a = ask(model, ProgressiveSettings.DEFAULT.withSwitches(true, false, true), judge);
        assertThat(a.trace().chosen()).isEqualTo("b2");
        assertThat(a.sql()).isEqualTo(FILTERED);
        assertThat(a.trace().decision()).startsWith("accepted").contains("branch b2 of 2");
        // the alternative is told what was rejected and why; both confident sub-tasks of b2 run in one step
        String alternative = model.requests().stream().filter(r -> r.prompt().contains(ALTERNATIVE)).findFirst()
                .orElseThrow().prompt();
        assertThat(alternative).contains(READ + " ORDER BY city").contains("every office, not only Japan's")
                .contains("- t2: keep Japan");
        assertThat(sources(a)).containsSubsequence("b1-judge", "b2-subtasks", "b2-plan", "b2-step-1", "b2-judge")
                .doesNotContain("b2-step-2");
        assertThat(judge.requests()).hasSize(2);
        assertThat(model.requests()).noneMatch(r -> r.prompt().contains(JUDGE));

        // off: the first branch's answer, whatever its reward
        ScriptedLanguageModel off = new ScriptedLanguageModel().when(SUBTASKS, PLAN).when(PLAN_CUE, THREE_STEPS)
                .when(task("read the offices"), fence(READ)).when(task("keep Japan"), fence(READ))
                .when(task("sort by city"), fence(READ));
        Answer single = ask(off, ProgressiveSettings.DEFAULT.withSwitches(true, false, false),
                new ScriptedLanguageModel().when(JUDGE, "CORRECT: NO\nREASONING: no."));
        assertThat(single.trace().chosen()).isEqualTo("b1");
        assertThat(off.requests()).noneMatch(r -> r.prompt().contains(ALTERNATIVE));
    }

    @Test
    void theRewardAsksWithThePipelinesOwnPromptNeverTheJudgeMetricsRequest() {
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(SUBTASKS, PLAN).when(PLAN_CUE, THREE_STEPS)
                .when(task("read the offices"), fence(READ)).when(task("keep Japan"), fence(FILTERED))
                .when(task("sort by city"), fence(ORDERED));
        ScriptedLanguageModel judge = new ScriptedLanguageModel().when(JUDGE, "CORRECT: YES\nREASONING: right.");
        Answer a = ask(model, ProgressiveSettings.DEFAULT.withSwitches(true, false, true), judge);
        assertThat(a.trace().decision()).startsWith("accepted");
        String reward = judge.requests().get(0).prompt();
        // the judge metric's request for the same answer (what scorers.judge sends) is another text, so a generation
        // cache keyed by the request cannot hand the metric the pipeline's own verdict
        String metric = SqlJudge.prompt(judge, db.dialect(), db.schema(), QUESTION, a.sql(), db.execute(a.sql()));
        assertThat(reward).isNotEqualTo(metric).contains(a.sql());
        assertThat(metric).doesNotContain(JUDGE);
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

    static String category(String question, String sql, String reasoning) {
        return ErrorAnalysis.classify(new ErrorAnalysis.Inputs(db.schema(), db.dialect(), question,
                IntentClassifier.classify(question, db.schema()), sql, sql == null ? null : db.execute(sql), reasoning)).category();
    }

    @Test
    void errorCategoriesComeFromTheDatabaseThenTheStructureThenTheReasoningInTheMethodsOrder() {
        // the database's error kind first
        assertThat(category("Which offices are there?", "SELECT nope FROM offices", "anything")).isEqualTo("wrong-column");
        assertThat(category("Which offices are there?", "SELECT city FROM nowhere", "anything")).isEqualTo("wrong-table");
        assertThat(category("Which offices are there?", "SELECT city FROM offices WHERE", "anything")).isEqualTo("syntax");
        // then the structure, before whatever words the reasoning uses
        assertThat(category("Which offices are in Japan?", "SELECT lastName FROM employees WHERE officeCode = '5'",
                "the count and the filter are wrong")).isEqualTo("wrong-table");
        assertThat(category("How many customers have payments?", "SELECT COUNT(*) FROM customers c, payments p",
                "it should count distinct customers")).isEqualTo("wrong-join");
        assertThat(category("How many payments were made in 2005?", "SELECT COUNT(*) FROM payments WHERE YEAR(paymentDate) = 2004",
                "it counts the payments")).isEqualTo("wrong-filter");
        assertThat(category("How many customers are there?", "SELECT customerName FROM customers", "no"))
                .isEqualTo("wrong-aggregation");
        // "in alphabetical order" names no table of orders
        assertThat(category("List the cities of the offices, in alphabetical order.", "SELECT city FROM offices",
                "Not what was asked.")).isEqualTo("unclear");
        // the reasoning last, in the method's order: a table before a join before an aggregate
        assertThat(category("q", null, "It joins the wrong table and counts twice.")).isEqualTo("wrong-table");
        assertThat(category("q", null, "It joins orders on the wrong key.")).isEqualTo("wrong-join");
        assertThat(category("q", null, "It should count the customers, not list them.")).isEqualTo("wrong-aggregation");
        assertThat(category("q", null, "The WHERE clause keeps the wrong year.")).isEqualTo("wrong-filter");
        assertThat(category("q", null, "It returns the phone column instead of the city.")).isEqualTo("wrong-column");
        assertThat(category("q", null, "Not what was asked.")).isEqualTo("unclear");
        assertThat(ErrorAnalysis.CATEGORIES).endsWith("syntax", "unclear");
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
