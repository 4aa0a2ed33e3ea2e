package dev.ladder.pipeline.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.inference.GenerationRequest;
import dev.ladder.pipeline.kit.Intent;
import dev.ladder.pipeline.prompt.Example;
import dev.ladder.pipeline.prompt.ExemplarSelector;
import dev.ladder.pipeline.prompt.FixedExemplars;
import dev.ladder.pipeline.prompt.SqlPrompt;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.ScriptedLanguageModel;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.Strategies;
import dev.ladder.pipeline.strategy.Strategy;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.pipeline.strategy.Trace;
import dev.ladder.pipeline.strategy.TraceStep;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.DatabaseKind;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionError;
import dev.ladder.sql.db.ExecutionLimits;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.schema.Schema;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The control flow of every rung, with a scripted model on the real ClassicModels database: which requests go to
 * the model, what is executed, which form and which candidate win, when a repair is tried, what the trace holds.
 */
class StrategyControlFlowTest {

    static final List<Example> POOL = List.of(
            new Example("e1", "How many offices are there?", "SELECT COUNT(*) FROM offices"),
            new Example("e2", "List the product lines.", "SELECT productLine FROM productlines"),
            new Example("e3", "What is the phone number of the office in Paris?", "SELECT phone FROM offices WHERE city = 'Paris'"),
            new Example("e4", "Which employees report to employee 1002?",
                    "SELECT firstName, lastName FROM employees WHERE reportsTo = 1002"));
    static final ExemplarSelector EXEMPLARS = new FixedExemplars(List.of("e1", "e2", "e3", "e4"), POOL);
    static final String HOW_MANY = "How many customers are in France?";
    static final String REPAIR_CUE = "This SQL was written for the question";
    static final String TABULAR_CUE = "Tables relevant to the question";
    /** The agent without the gate's retries: the stage's own mechanisms alone (AgentGateTest covers the gate). */
    static final Settings NO_GATE = Settings.DEFAULT.withGateBudget(0);

    static Database classicModels;

    @BeforeAll
    static void open() {
        classicModels = TestData.classicModels();
    }

    // ---------------------------------------------------------------- prompt rungs

    @Test
    void promptK0AsksOnceGreedilyWithoutExemplarsAndExecutesNothing() {
        ScriptedLanguageModel model = new ScriptedLanguageModel().then("SELECT COUNT(*) FROM customers WHERE country = 'France'");
        RecordingDatabase db = new RecordingDatabase(sql -> false);
        Answer a = Strategies.byName("prompt-k0").answer(q(HOW_MANY), ctx(model, db, Settings.DEFAULT));

        assertThat(model.calls()).containsExactly(1);
        GenerationRequest r = model.requests().get(0);
        assertThat(r.prompt()).isEqualTo(standardPrompt(model, List.of(), HOW_MANY)).doesNotContain("Examples of questions");
        assertThat(r.sampling().greedy()).isTrue();
        assertThat(r.n()).isEqualTo(1);
        assertThat(r.maxNewTokens()).isEqualTo(256);
        assertThat(r.stopStrings()).containsExactly("\nQuestion:", ";");
        assertThat(a.sql()).isEqualTo("SELECT COUNT(*) FROM customers WHERE country = 'France'");
        assertThat(a.trace().chosen()).isEqualTo("standard");
        assertThat(a.trace().steps()).extracting(s -> s.getClass().getSimpleName()).containsExactly("Generate", "Clean");
        assertThat(db.executed).isEmpty();
    }

    @Test
    void promptK3ShowsTheFirstThreeExemplarsWhateverSettingsSaysAndARejectedOutputIsNoAnswer() {
        ScriptedLanguageModel model = new ScriptedLanguageModel().then("I am sorry, I cannot answer that.");
        RecordingDatabase db = new RecordingDatabase(sql -> false);
        Answer a = Strategies.byName("prompt-k3").answer(q(HOW_MANY), ctx(model, db, Settings.DEFAULT.withK(1)));

        String prompt = model.requests().get(0).prompt();
        assertThat(prompt).isEqualTo(standardPrompt(model, POOL.subList(0, 3), HOW_MANY))
                .contains("Question: How many offices are there?", "Question: List the product lines.")
                .doesNotContain("employee 1002");
        assertThat(a.sql()).isEmpty();
        assertThat(a.trace().chosen()).isEqualTo("none");
        assertThat(a.trace().steps(TraceStep.Clean.class).get(0).rejection()).isNotBlank();
        assertThat(db.executed).isEmpty();
    }

    // ---------------------------------------------------------------- agent-0: the execution gate

    @Test
    void agent0KeepsTheCandidateThatExecutesAndFallsBackToTheSameSqlWhenItDoesNot() {
        String good = "SELECT COUNT(*) FROM customers WHERE country = 'France'";
        String bad = "SELECT nickname FROM customers WHERE country = 'France'";
        ScriptedLanguageModel model = new ScriptedLanguageModel().then(good, bad, "no SQL here", good);
        RecordingDatabase db = new RecordingDatabase(sql -> false);
        Strategy agent0 = Strategies.byName("agent-0");
        StrategyContext ctx = ctx(model, db, NO_GATE);

        Answer ok = agent0.answer(q(HOW_MANY), ctx);
        assertThat(ok.sql()).isEqualTo(good);
        assertThat(ok.trace().chosen()).isEqualTo("standard");
        assertThat(ok.trace().steps(TraceStep.Execute.class)).singleElement()
                .satisfies(e -> assertThat(e.ok()).isTrue())
                .satisfies(e -> assertThat(e.rows()).isEqualTo(1));
        assertThat(ok.trace().steps(TraceStep.Intent.class)).isEmpty();
        assertThat(ok.trace().steps(TraceStep.Clamp.class)).isEmpty();

        Answer failed = agent0.answer(q(HOW_MANY), ctx);
        assertThat(failed.sql()).isEqualTo(bad);
        assertThat(failed.trace().chosen()).isEqualTo("fallback");
        assertThat(failed.trace().decision()).contains("does not execute");
        assertThat(failed.trace().steps(TraceStep.Execute.class)).singleElement()
                .satisfies(e -> assertThat(e.errorKind()).isEqualTo("UNKNOWN_COLUMN"));

        Answer rejected = agent0.answer(q(HOW_MANY), ctx);
        assertThat(rejected.sql()).isEmpty();
        assertThat(rejected.trace().chosen()).isEqualTo("none");
        assertThat(rejected.trace().steps(TraceStep.Execute.class)).isEmpty();

        // the agent chain starts from prompt-k3: same prompt, same answer
        Answer k3 = Strategies.byName("prompt-k3").answer(q(HOW_MANY), ctx);
        assertThat(k3.sql()).isEqualTo(ok.sql());
        List<GenerationRequest> rs = model.requests();
        assertThat(rs.get(0).prompt()).isEqualTo(rs.get(3).prompt()).isEqualTo(standardPrompt(model, POOL.subList(0, 3), HOW_MANY));
        assertThat(model.unused()).isZero();
    }

    @Test
    void agentPromptsUseSettingsK() {
        ScriptedLanguageModel model = new ScriptedLanguageModel().then("SELECT 1");
        Strategies.byName("agent-0").answer(q(HOW_MANY), ctx(model, new RecordingDatabase(s -> false), NO_GATE.withK(2)));
        assertThat(model.requests().get(0).prompt()).isEqualTo(standardPrompt(model, POOL.subList(0, 2), HOW_MANY));
    }

    // ---------------------------------------------------------------- agent-1: clamps

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "Give the name of every customer located in France.|SELECT customerName FROM customers WHERE country = 'France' ORDER BY customerName|ORDER BY",
        "Give the name of every customer located in France.|SELECT customerName FROM customers WHERE country = 'France' LIMIT 5|LIMIT",
        "How many of our customers are based in the USA?|SELECT COUNT(*) FROM customers GROUP BY country|GROUP BY",
        "List the city of every office.|SELECT DISTINCT city FROM offices|DISTINCT"
    })
    void agent1ExecutesTheClampedSql(String question, String sql, String clause) {
        ScriptedLanguageModel model = new ScriptedLanguageModel().then(sql);
        RecordingDatabase db = new RecordingDatabase(s -> false);
        Answer a = Strategies.byName("agent-1").answer(q(question), ctx(model, db, NO_GATE));

        Trace t = a.trace();
        assertThat(t.steps(TraceStep.Intent.class)).hasSize(1);
        TraceStep.Clamp clamp = t.steps(TraceStep.Clamp.class).get(0);
        assertThat(clamp.before()).isEqualTo(sql);
        assertThat(clamp.applied()).isNotEmpty();
        assertThat(clamp.after()).doesNotContain(clause);
        assertThat(a.sql()).isEqualTo(clamp.after());
        assertThat(t.chosen()).isEqualTo("standard");
        assertThat(t.steps(TraceStep.Keep.class).get(0).form()).isEqualTo("clamped");
        assertThat(db.executed).containsExactly(clamp.after());
        assertThat(t.steps(TraceStep.Project.class)).isEmpty();
    }

    @Test
    void agent1GivesWayToTheUnclampedSqlWhenTheClampedFailsAndFallsBackWhenBothFail() {
        String sql = "SELECT customerName FROM customers WHERE country = 'France' ORDER BY customerName";
        // the database refuses whatever lost its ORDER BY: the clamped text fails, the cleaned one executes
        RecordingDatabase db = new RecordingDatabase(s -> !s.contains("ORDER BY"));
        ScriptedLanguageModel model = new ScriptedLanguageModel().then(sql);
        Answer a = Strategies.byName("agent-1").answer(q("Give the name of every customer located in France."), ctx(model, db, NO_GATE));
        assertThat(a.sql()).isEqualTo(sql);
        assertThat(a.trace().chosen()).isEqualTo("standard");
        assertThat(a.trace().steps(TraceStep.Execute.class)).extracting(TraceStep.Execute::ok).containsExactly(false, true);
        TraceStep.Keep keep = a.trace().steps(TraceStep.Keep.class).get(0);
        assertThat(keep.form()).isEqualTo("cleaned");
        assertThat(keep.reason()).contains("clamped fails");

        RecordingDatabase refuses = new RecordingDatabase(s -> true);
        Answer none = Strategies.byName("agent-1").answer(q("Give the name of every customer located in France."),
                ctx(new ScriptedLanguageModel().then(sql), refuses, NO_GATE));
        assertThat(none.sql()).isEqualTo(sql); // the baseline: cleaned, not clamped
        assertThat(none.trace().chosen()).isEqualTo("fallback");
        assertThat(none.trace().steps(TraceStep.Keep.class).get(0).form()).isEqualTo("none");
        assertThat(refuses.executed).hasSize(2);
    }

    @Test
    void aClampThatChangesNothingIsNotExecutedTwice() {
        String sql = "SELECT COUNT(*) FROM customers WHERE country = 'France'";
        RecordingDatabase db = new RecordingDatabase(s -> true);
        Answer a = Strategies.byName("agent-1").answer(q(HOW_MANY), ctx(new ScriptedLanguageModel().then(sql), db, NO_GATE));
        assertThat(a.trace().steps(TraceStep.Clamp.class).get(0).applied()).isEmpty();
        assertThat(db.executed).containsExactly(sql);
        assertThat(a.trace().chosen()).isEqualTo("fallback");
    }

    // ---------------------------------------------------------------- agent-2: candidates, projection, scoring

    @Test
    void agent2SendsStandardTabularAndSamplesInOneCall() {
        String sql = "SELECT COUNT(*) FROM customers WHERE country = 'France'";
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(TABULAR_CUE, sql).then(sql, sql, sql, sql, sql);
        Settings settings = NO_GATE.withSampling(0.3, 7);
        StrategyContext ctx = ctx(model, new RecordingDatabase(s -> false), settings);
        Answer a = Strategies.byName("agent-2").answer(q(HOW_MANY), ctx);

        assertThat(model.calls()).containsExactly(3);
        List<GenerationRequest> rs = model.requests();
        String standard = standardPrompt(model, POOL.subList(0, 3), HOW_MANY);
        SchemaSubset.Subset subset = SchemaSubset.select(HOW_MANY, ctx.schema());
        assertThat(rs.get(0).prompt()).isEqualTo(standard);
        assertThat(rs.get(1).prompt()).isEqualTo(AgentPrompts.tabular(model.promptFormat(), ctx.schema(), subset.tables(),
                subset.joinHints(), POOL.subList(0, 3), HOW_MANY));
        assertThat(rs.get(0).sampling().greedy()).isTrue();
        assertThat(rs.get(1).sampling().greedy()).isTrue();
        assertThat(rs.get(0).n()).isEqualTo(1);
        assertThat(rs.get(1).n()).isEqualTo(1);
        GenerationRequest samples = rs.get(2);
        // the schema subset is on by default: the samples see the standard prompt over the subset only
        String overSubset = SqlPrompt.of(model.promptFormat()).prompt(
                dev.ladder.sql.db.SchemaRenderer.summary(SchemaSubset.restrict(ctx.schema(), subset)),
                POOL.subList(0, 3), HOW_MANY);
        assertThat(samples.prompt()).isEqualTo(overSubset).isNotEqualTo(standard);
        assertThat(samples.n()).isEqualTo(4);
        assertThat(samples.seed()).isEqualTo(settings.poolSeed());
        assertThat(samples.sampling().temperature()).isEqualTo(0.3);
        assertThat(samples.sampling().topK()).isZero();
        assertThat(samples.sampling().topP()).isEqualTo(1.0);
        assertThat(rs).allSatisfy(r -> assertThat(r.stopStrings()).containsExactly("\nQuestion:", ";"));

        Trace t = a.trace();
        assertThat(t.steps(TraceStep.Subset.class)).containsExactly(new TraceStep.Subset(null, subset.tables(), subset.joinHints()));
        assertThat(t.steps(TraceStep.Generate.class)).extracting(TraceStep.Generate::sources).containsExactly(
                List.of("standard"), List.of("tabular"), List.of("sample-1", "sample-2", "sample-3", "sample-4"));
        assertThat(t.steps(TraceStep.Generate.class).get(2).sampling()).isEqualTo("t=0.3 seed=" + settings.poolSeed());
        assertThat(t.steps(TraceStep.Clean.class)).extracting(TraceStep.Clean::source)
                .containsExactly("standard", "tabular", "sample-1", "sample-2", "sample-3", "sample-4");
        // six equal texts: executed once, scored alike, the tie goes to the first
        assertThat(t.steps(TraceStep.Execute.class)).extracting(TraceStep.Execute::cached)
                .containsExactly(false, true, true, true, true, true);
        assertThat(t.steps(TraceStep.Score.class)).hasSize(6);
        assertThat(t.chosen()).isEqualTo("standard");
        assertThat(t.decision()).contains("tie");
        assertThat(a.sql()).isEqualTo(sql);

        ScriptedLanguageModel alone = new ScriptedLanguageModel().then(sql);
        Strategies.byName("agent-2").answer(q(HOW_MANY), ctx(alone, new RecordingDatabase(s -> false),
                NO_GATE.withCandidates(0).withTabularPrompt(false)));
        assertThat(alone.calls()).containsExactly(1);
    }

    @Test
    void agent2PrefersCandidatesThatPassTheIntentGateThenTheHighestScore() {
        String names = "SELECT customerName FROM customers WHERE country = 'France'";
        String count = "SELECT COUNT(*) FROM customers WHERE country = 'France'";
        ScriptedLanguageModel model = new ScriptedLanguageModel()
                .when(TABULAR_CUE, "SELECT COUNT(*) FROM customerz WHERE country = 'France'")
                .then(names, "not sql at all", count, names, "SELECT COUNT(customerNumber) FROM customers WHERE country = 'France'");
        Answer a = Strategies.byName("agent-2").answer(q(HOW_MANY), ctx(model, new RecordingDatabase(s -> false), NO_GATE));

        Trace t = a.trace();
        List<TraceStep.Score> scores = t.steps(TraceStep.Score.class);
        assertThat(scores).extracting(TraceStep.Score::source).containsExactly("standard", "sample-2", "sample-3", "sample-4");
        assertThat(scores.get(0).passesIntentGate()).as("a list of names for 'how many'").isFalse();
        assertThat(scores.get(1).passesIntentGate()).as("a count for 'how many'").isTrue();
        TraceStep.Score expected = best(scores);
        assertThat(t.chosen()).isEqualTo(expected.source()).startsWith("sample-");
        assertThat(a.sql()).isEqualTo(expected.sql());
        assertThat(t.decision()).contains("that pass the intent gate");
        assertThat(t.steps(TraceStep.Execute.class).stream().filter(TraceStep.Execute::cached))
                .singleElement().satisfies(e -> assertThat(e.source()).isEqualTo("sample-3"));
    }

    @Test
    void agent2TakesTheHighestScoreOfAllWhenNoneIsThroughTheGateAndTheBaselineWhenNoneExecutes() {
        String q = HOW_MANY;
        ScriptedLanguageModel model = new ScriptedLanguageModel()
                .when(TABULAR_CUE, "SELECT customerName, city FROM customers WHERE country = 'France'")
                .then("SELECT customerName FROM customers WHERE country = 'France'");
        Settings one = NO_GATE.withCandidates(0);
        Answer a = Strategies.byName("agent-2").answer(q(q), ctx(model, new RecordingDatabase(s -> false), one));
        List<TraceStep.Score> scores = a.trace().steps(TraceStep.Score.class);
        assertThat(scores).noneMatch(TraceStep.Score::passesIntentGate);
        assertThat(a.trace().chosen()).isEqualTo(best(scores).source());
        assertThat(a.trace().decision()).contains("none passes the intent gate");

        String baseline = "SELECT COUNT(*) FROM customerz";
        ScriptedLanguageModel failing = new ScriptedLanguageModel().when(TABULAR_CUE, "SELECT nope FROM customers")
                .then(baseline);
        Answer none = Strategies.byName("agent-2").answer(q(q), ctx(failing, new RecordingDatabase(s -> false), one));
        assertThat(none.sql()).isEqualTo(baseline);
        assertThat(none.trace().chosen()).isEqualTo("fallback");
        assertThat(none.trace().steps(TraceStep.Repair.class)).isEmpty();
        assertThat(failing.calls()).containsExactly(2);
    }

    @Test
    void agent2EnforcesTheProjectionContractAfterTheClampsAndFallsBackFormByForm() {
        String question = "For every office, list its city and its country.";
        String sql = "SELECT country, phone, city FROM offices ORDER BY officeCode";
        Settings one = NO_GATE.withCandidates(0).withTabularPrompt(false);
        RecordingDatabase db = new RecordingDatabase(s -> false);
        Answer a = Strategies.byName("agent-2").answer(q(question), ctx(new ScriptedLanguageModel().then(sql), db, one));

        Trace t = a.trace();
        TraceStep.Clamp clamp = t.steps(TraceStep.Clamp.class).get(0);
        TraceStep.Project project = t.steps(TraceStep.Project.class).get(0);
        assertThat(t.steps()).containsSubsequence(clamp, project);
        assertThat(project.before()).isEqualTo(clamp.after());
        assertThat(project.applied()).isNotEmpty();
        assertThat(a.sql()).isEqualTo(project.after());
        assertThat(t.steps(TraceStep.Keep.class).get(0).form()).isEqualTo("projected");
        Execution e = classicModels.execute(a.sql());
        assertThat(e).isInstanceOf(Execution.Success.class);
        assertThat(((Execution.Success) e).result().columns()).containsExactly("city", "country");

        // the projected text fails here (it lost phone): the clamped form goes on
        RecordingDatabase keepsCode = new RecordingDatabase(s -> !s.contains("phone"));
        Answer b = Strategies.byName("agent-2").answer(q(question), ctx(new ScriptedLanguageModel().then(sql), keepsCode, one));
        assertThat(b.trace().steps(TraceStep.Keep.class).get(0).form()).isEqualTo(clamp.applied().isEmpty() ? "cleaned" : "clamped");
        assertThat(b.sql()).isEqualTo(clamp.after());
        assertThat(keepsCode.executed).containsExactly(project.after(), clamp.after());
    }

    // ---------------------------------------------------------------- agent-3: repair

    @Test
    void agent3DoesNotRepairWhenACandidateExecutes() {
        String count = "SELECT COUNT(*) FROM customers WHERE country = 'France'";
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(TABULAR_CUE, "SELECT nope FROM customers").then(count);
        Answer a = Strategies.byName("agent-3").answer(q(HOW_MANY), ctx(model, new RecordingDatabase(s -> false),
                NO_GATE.withCandidates(0)));
        assertThat(model.calls()).containsExactly(2);
        assertThat(a.trace().steps(TraceStep.Repair.class)).isEmpty();
        assertThat(a.sql()).isEqualTo(count);
        assertThat(a.trace().chosen()).isEqualTo("standard");
    }

    @Test
    void agent3RepairsTheFirstPostProcessedCandidateWithItsDatabaseError() {
        String broken = "SELECT COUNT(*) FROM customerz WHERE country = 'France'";
        String fixed = "SELECT COUNT(*) FROM customers WHERE country = 'France'";
        ScriptedLanguageModel model = new ScriptedLanguageModel()
                .when(REPAIR_CUE, fixed)
                .when(TABULAR_CUE, broken)
                .then("I do not know.", "SELECT nope FROM customers");
        StrategyContext ctx = ctx(model, new RecordingDatabase(s -> false), NO_GATE.withCandidates(1));
        Answer a = Strategies.byName("agent-3").answer(q(HOW_MANY), ctx);

        assertThat(model.calls()).containsExactly(3, 1);
        GenerationRequest repair = model.requests().get(3);
        assertThat(repair.sampling().greedy()).isTrue();
        assertThat(repair.n()).isEqualTo(1);
        TraceStep.Execute failure = a.trace().steps(TraceStep.Execute.class).stream()
                .filter(e -> e.source().equals("tabular")).reduce((x, y) -> y).orElseThrow();
        assertThat(failure.errorKind()).isEqualTo("UNKNOWN_TABLE");
        String error = "UNKNOWN_TABLE: " + failure.errorMessage();
        assertThat(repair.prompt()).isEqualTo(AgentPrompts.repair(model.promptFormat(), ctx.schemaSummary(), HOW_MANY, broken, error))
                .contains(broken, error);
        assertThat(a.trace().steps(TraceStep.Repair.class)).singleElement()
                .isEqualTo(new TraceStep.Repair("tabular", broken, error));
        assertThat(a.sql()).isEqualTo(fixed);
        assertThat(a.trace().chosen()).isEqualTo("repair");
        assertThat(a.trace().steps(TraceStep.Score.class)).singleElement()
                .satisfies(s -> assertThat(s.source()).isEqualTo("repair"))
                .satisfies(s -> assertThat(s.passesIntentGate()).isTrue());
        assertThat(model.unused()).isZero();
    }

    @Test
    void agent3TakesTheBaselineWhenTheRepairFailsTheGateOrDoesNotExecuteAndNeverTriesTwice() {
        String baseline = "SELECT COUNT(*) FROM customerz";
        Settings one = NO_GATE.withCandidates(0).withTabularPrompt(false);
        for (String repairOutput : List.of("SELECT customerName FROM customers WHERE country = 'France'",
                "SELECT COUNT(*) FROM customerss WHERE country = 'France'", "no idea")) {
            ScriptedLanguageModel model = new ScriptedLanguageModel().when(REPAIR_CUE, repairOutput).then(baseline);
            Answer a = Strategies.byName("agent-3").answer(q(HOW_MANY), ctx(model, new RecordingDatabase(s -> false), one));
            assertThat(model.calls()).as(repairOutput).containsExactly(1, 1);
            assertThat(a.sql()).as(repairOutput).isEqualTo(baseline);
            assertThat(a.trace().chosen()).isEqualTo("fallback");
            assertThat(a.trace().decision()).contains("repair");
        }
    }

    @Test
    void agent3RepairsTheRawStandardOutputWhenEveryOutputWasRejected() {
        String raw = "The answer is forty-two.";
        String fixed = "SELECT COUNT(*) FROM customers WHERE country = 'France'";
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(REPAIR_CUE, fixed).when(TABULAR_CUE, "nothing")
                .then(raw, "neither", "nor this");
        Answer a = Strategies.byName("agent-3").answer(q(HOW_MANY), ctx(model, new RecordingDatabase(s -> false),
                NO_GATE.withCandidates(2)));
        TraceStep.Repair r = a.trace().steps(TraceStep.Repair.class).get(0);
        assertThat(r.source()).isEqualTo("standard");
        assertThat(r.failedSql()).isEqualTo(raw);
        assertThat(r.error()).isEqualTo(a.trace().steps(TraceStep.Clean.class).get(0).rejection());
        assertThat(model.requests().get(3).prompt()).contains(raw);
        assertThat(a.trace().chosen()).isEqualTo("repair");
        assertThat(a.sql()).isEqualTo(fixed);
    }

    // ---------------------------------------------------------------- trace

    @Test
    void theTraceRoundTripsThroughJsonAndCountsEveryToken() {
        ScriptedLanguageModel model = new ScriptedLanguageModel()
                .when(REPAIR_CUE, "SELECT COUNT(*) FROM customers WHERE country = 'France' ORDER BY 1")
                .when(TABULAR_CUE, "SELECT COUNT(*) FROM customerz WHERE country = 'France'")
                .then("SELECT nope FROM customers", "Sure! Here it is:", "SELECT 1 FROM nowhere");
        Answer a = Strategies.byName("agent-3").answer(q(HOW_MANY), ctx(model, new RecordingDatabase(s -> false),
                NO_GATE.withCandidates(2)));
        Trace t = a.trace();
        String json = t.toJson();
        assertThat(json).doesNotContain("\n");
        assertThat(Trace.fromJson(json)).isEqualTo(t);
        assertThat(t.steps()).extracting(s -> s.getClass().getSimpleName()).contains("Generate", "Clean", "Intent",
                "Clamp", "Project", "Execute", "Keep", "Score", "Repair");
        assertThat(t.questionId()).isEqualTo("q1");
        assertThat(t.strategy()).isEqualTo("agent-3");
        assertThat(t.sql()).isEqualTo(a.sql());
        assertThat(t.toText()).contains("repair", "answer (" + t.chosen());

        // ScriptedLanguageModel: prompt tokens = prompt length / 4, one generated token per word
        int prompt = model.requests().stream().mapToInt(r -> r.prompt().length() / 4).sum();
        int generated = t.steps(TraceStep.Generate.class).stream().flatMap(g -> g.outputs().stream())
                .mapToInt(o -> o.isBlank() ? 0 : o.strip().split("\\s+").length).sum();
        assertThat(t.promptTokens()).isEqualTo(prompt).isPositive();
        assertThat(t.generatedTokens()).isEqualTo(generated).isPositive();
    }

    @Test
    void registryNamesTheRungsBottomFirst() {
        assertThat(Strategies.names()).containsExactly("prompt-k0", "prompt-k3", "agent-0", "agent-1", "agent-2", "agent-3", "prompt-k1", "structured-search", "gsr", "soft-attention", "progressive");
        for (String n : Strategies.names()) assertThat(Strategies.byName(n).name()).isEqualTo(n);
        assertThat(Strategies.byName(" Agent-2 ").name()).isEqualTo("agent-2");
        assertThatThrownBy(() -> Strategies.byName("agent-4")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown strategy 'agent-4' (known: prompt-k0, prompt-k3, agent-0, agent-1, agent-2, agent-3, prompt-k1, structured-search, gsr, soft-attention, progressive)");
    }

    // ---------------------------------------------------------------- helpers

    static Question q(String text) {
        return new Question("q1", text);
    }

    static StrategyContext ctx(ScriptedLanguageModel model, Database db, Settings settings) {
        return StrategyContext.of(model, db, EXEMPLARS, settings);
    }

    static String standardPrompt(ScriptedLanguageModel model, List<Example> exemplars, String question) {
        return SqlPrompt.of(model.promptFormat()).prompt(
                dev.ladder.sql.db.SchemaRenderer.summary(classicModels.schema()), exemplars, question);
    }

    /** The selection rule, from the trace's scores: gate first, then the highest total, ties to the earlier. */
    static TraceStep.Score best(List<TraceStep.Score> scores) {
        List<TraceStep.Score> gated = scores.stream().filter(TraceStep.Score::passesIntentGate).toList();
        List<TraceStep.Score> pool = gated.isEmpty() ? scores : gated;
        return pool.stream().max(Comparator.comparingDouble(TraceStep.Score::total)
                .thenComparing(s -> -scores.indexOf(s))).orElseThrow();
    }

    /** ClassicModels that records every execution and refuses the texts a predicate names (with an OTHER error). */
    static final class RecordingDatabase implements Database {
        final List<String> executed = Collections.synchronizedList(new ArrayList<>());
        private final Predicate<String> refuse;

        RecordingDatabase(Predicate<String> refuse) {
            this.refuse = refuse;
        }

        @Override
        public Execution execute(String sql, ExecutionLimits limits) {
            executed.add(sql);
            if (refuse.test(sql)) return Execution.failure(sql, ExecutionError.Kind.OTHER, "refused by the test");
            return classicModels.execute(sql, limits);
        }

        @Override
        public String name() {
            return classicModels.name();
        }

        @Override
        public DatabaseKind kind() {
            return classicModels.kind();
        }

        @Override
        public Schema schema() {
            return classicModels.schema();
        }

        @Override
        public void close() {}
    }
}
