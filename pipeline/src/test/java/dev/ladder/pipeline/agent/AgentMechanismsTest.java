package dev.ladder.pipeline.agent;

import static dev.ladder.pipeline.agent.StrategyControlFlowTest.HOW_MANY;
import static dev.ladder.pipeline.agent.StrategyControlFlowTest.POOL;
import static dev.ladder.pipeline.agent.StrategyControlFlowTest.REPAIR_CUE;
import static dev.ladder.pipeline.agent.StrategyControlFlowTest.TABULAR_CUE;
import static dev.ladder.pipeline.agent.StrategyControlFlowTest.ctx;
import static dev.ladder.pipeline.agent.StrategyControlFlowTest.q;
import static dev.ladder.pipeline.agent.StrategyControlFlowTest.standardPrompt;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.inference.GenerationRequest;
import dev.ladder.pipeline.agent.StrategyControlFlowTest.RecordingDatabase;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.ScriptedLanguageModel;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.Strategies;
import dev.ladder.pipeline.strategy.Strategy;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.pipeline.strategy.Trace;
import dev.ladder.pipeline.strategy.TraceStep;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The execution gate of every agent stage and the one-switch-per-mechanism settings of agent-2, with the scripted
 * model of {@link StrategyControlFlowTest} on the real ClassicModels database.
 */
class AgentMechanismsTest {

    static final String COUNT = "SELECT COUNT(*) FROM customers WHERE country = 'France'";
    static final String NAMES = "SELECT customerName FROM customers WHERE country = 'France'";
    static final String UNKNOWN_COLUMN = "SELECT nickname FROM customers WHERE country = 'France'";
    static final String UNKNOWN_TABLE = "SELECT COUNT(*) FROM customerz WHERE country = 'France'";
    /** Sampling seed 10: the pool draws with base, base + 1, ...; gate-i with base - i (base = samplerBase()). */
    static final Settings SEEDED = Settings.DEFAULT.withSampling(0.3, 10);
    /** agent-2 with every mechanism of its own off. */
    static final Settings AGENT2_OFF = SEEDED.withCandidates(0).withTabularPrompt(false).withMechanisms(false, false, false);

    @BeforeAll
    static void open() {
        StrategyControlFlowTest.open();
    }

    // ---------------------------------------------------------------- the gate loop

    @Test
    void aGreedyCandidateThatExecutesDrawsNoSample() {
        ScriptedLanguageModel model = new ScriptedLanguageModel().then(COUNT);
        Answer a = run("agent-0", SEEDED, model);
        assertThat(model.calls()).containsExactly(1);
        assertThat(a.trace().chosen()).isEqualTo("standard");
    }

    @Test
    void theGateDrawsOneSampleAtATimeAndStopsAtTheFirstThatExecutes() {
        ScriptedLanguageModel model = new ScriptedLanguageModel().then(UNKNOWN_COLUMN, UNKNOWN_TABLE, COUNT, NAMES);
        Answer a = run("agent-0", SEEDED, model);

        assertThat(a.sql()).isEqualTo(COUNT);
        assertThat(a.trace().chosen()).isEqualTo("gate-2");
        assertThat(a.trace().decision()).contains("gate-2 executes");
        assertThat(model.calls()).containsExactly(1, 1, 1);
        assertThat(model.unused()).as("gate-3 is never asked for").isEqualTo(1);
        List<GenerationRequest> gate = model.requests().subList(1, 3);
        String standard = standardPrompt(model, POOL.subList(0, 3), HOW_MANY);
        assertThat(gate).allSatisfy(r -> {
            assertThat(r.prompt()).isEqualTo(standard);
            assertThat(r.n()).isEqualTo(1);
            assertThat(r.sampling().temperature()).isEqualTo(0.3);
        });
        assertThat(gate).extracting(GenerationRequest::seed).containsExactly(SEEDED.gateSeed(1), SEEDED.gateSeed(2));

        Trace t = a.trace();
        assertThat(t.steps(TraceStep.Generate.class)).extracting(TraceStep.Generate::sources)
                .containsExactly(List.of("standard"), List.of("gate-1"), List.of("gate-2"));
        assertThat(t.steps(TraceStep.Generate.class)).extracting(TraceStep.Generate::sampling)
                .containsExactly("greedy", "t=0.3 seed=" + SEEDED.gateSeed(1), "t=0.3 seed=" + SEEDED.gateSeed(2));
        for (Class<? extends TraceStep> kind : List.of(TraceStep.Clean.class, TraceStep.Execute.class, TraceStep.Keep.class)) {
            assertThat(t.steps(kind)).extracting(TraceStep::source).containsExactly("standard", "gate-1", "gate-2");
        }
    }

    @Test
    void aSpentBudgetFallsBackToTheBaselineAndBudgetZeroIsTheOldGate() {
        ScriptedLanguageModel model = new ScriptedLanguageModel().then(UNKNOWN_COLUMN, UNKNOWN_TABLE, NAMES + " AND nope = 1", "no SQL");
        Answer a = run("agent-0", SEEDED.withGateBudget(3), model);
        assertThat(model.calls()).containsExactly(1, 1, 1, 1);
        assertThat(model.requests()).extracting(GenerationRequest::seed).containsExactly(0L, SEEDED.gateSeed(1), SEEDED.gateSeed(2), SEEDED.gateSeed(3));
        assertThat(a.sql()).isEqualTo(UNKNOWN_COLUMN);
        assertThat(a.trace().chosen()).isEqualTo("fallback");
        assertThat(a.trace().decision()).isEqualTo(
                "the candidate does not execute; the gate's budget of 3 samples ran out; the baseline output");

        ScriptedLanguageModel once = new ScriptedLanguageModel().then(UNKNOWN_COLUMN);
        Answer old = run("agent-0", SEEDED.withGateBudget(0), once);
        assertThat(once.calls()).containsExactly(1);
        assertThat(old.sql()).isEqualTo(UNKNOWN_COLUMN);
        assertThat(old.trace().decision()).isEqualTo("the candidate does not execute; the baseline output");
    }

    @Test
    void agent1ClampsTheGateCandidates() {
        String question = "Give the name of every customer located in France.";
        ScriptedLanguageModel model = new ScriptedLanguageModel().then(UNKNOWN_COLUMN, NAMES + " LIMIT 5");
        Answer a = Strategies.byName("agent-1").answer(q(question), ctx(model, new RecordingDatabase(s -> false), SEEDED));
        assertThat(a.trace().chosen()).isEqualTo("gate-1");
        assertThat(a.trace().steps(TraceStep.Clamp.class)).extracting(TraceStep::source).containsExactly("standard", "gate-1");
        assertThat(a.sql()).isEqualTo(NAMES);
    }

    @Test
    void atAgent2And3TheGateRunsWhenNoPoolCandidateExecutesBeforeTheFallbackOrTheRepair() {
        Settings one = SEEDED.withCandidates(1).withGateBudget(1);
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(TABULAR_CUE, UNKNOWN_TABLE)
                .then(UNKNOWN_COLUMN, UNKNOWN_COLUMN, COUNT);
        Answer a = run("agent-2", one, model);
        assertThat(model.calls()).containsExactly(3, 1);
        // the pool's one sample draws with the base seed, the gate's with the one below it
        assertThat(model.requests()).extracting(GenerationRequest::seed)
                .containsExactly(0L, 0L, SEEDED.poolSeed(), SEEDED.gateSeed(1));
        assertThat(a.trace().chosen()).isEqualTo("gate-1");
        assertThat(a.trace().decision()).startsWith("no candidate executes; gate-1 executes");
        assertThat(a.trace().steps(TraceStep.Project.class)).extracting(TraceStep::source).contains("gate-1");

        ScriptedLanguageModel repaired = new ScriptedLanguageModel().when(REPAIR_CUE, COUNT).when(TABULAR_CUE, UNKNOWN_TABLE)
                .then(UNKNOWN_COLUMN, UNKNOWN_COLUMN, UNKNOWN_COLUMN);
        Answer r = run("agent-3", one, repaired);
        assertThat(repaired.calls()).containsExactly(3, 1, 1);
        assertThat(repaired.requests().get(3).seed()).isEqualTo(SEEDED.gateSeed(1));
        assertThat(r.trace().chosen()).isEqualTo("repair");
        assertThat(r.trace().decision()).contains("the gate's budget of 1 sample ran out", "the repair executes");
    }

    // ---------------------------------------------------------------- agent-2's switches

    @Test
    void rerankOffTakesTheFirstExecutingCandidateEvenWhenALaterOneScoresHigher() {
        Settings pool = SEEDED.withCandidates(1).withTabularPrompt(false);
        Answer ranked = run("agent-2", pool, new ScriptedLanguageModel().then(NAMES, COUNT));
        assertThat(ranked.trace().chosen()).as("a count for 'how many' passes the intent gate").isEqualTo("sample-1");

        Answer first = run("agent-2", pool.withMechanisms(true, true, false), new ScriptedLanguageModel().then(NAMES, COUNT));
        assertThat(first.trace().chosen()).isEqualTo("standard");
        assertThat(first.sql()).isEqualTo(NAMES);
        assertThat(first.trace().steps(TraceStep.Score.class)).isEmpty();
        assertThat(first.trace().decision()).contains("first executing candidate in call order");
    }

    @Test
    void projectionOffLeavesTheSelectListAlone() {
        String question = "For every office, list its city and its country.";
        String sql = "SELECT country, phone, city FROM offices";
        Settings alone = SEEDED.withCandidates(0).withTabularPrompt(false);
        Answer on = Strategies.byName("agent-2").answer(q(question),
                ctx(new ScriptedLanguageModel().then(sql), new RecordingDatabase(s -> false), alone));
        assertThat(on.trace().steps(TraceStep.Project.class)).singleElement()
                .satisfies(p -> assertThat(p.applied()).isNotEmpty());
        Answer off = Strategies.byName("agent-2").answer(q(question), ctx(new ScriptedLanguageModel().then(sql),
                new RecordingDatabase(s -> false), alone.withMechanisms(true, false, true)));
        assertThat(off.trace().steps(TraceStep.Project.class)).isEmpty();
        assertThat(off.sql()).isEqualTo(sql);
    }

    @Test
    void tabularOffAndCandidatesZeroDropTheirRequests() {
        ScriptedLanguageModel noTabular = new ScriptedLanguageModel().then(COUNT, COUNT, COUNT, COUNT, COUNT);
        run("agent-2", SEEDED.withTabularPrompt(false), noTabular);
        assertThat(noTabular.calls()).containsExactly(2);
        assertThat(noTabular.requests()).noneMatch(r -> r.prompt().contains(TABULAR_CUE));

        ScriptedLanguageModel noSamples = new ScriptedLanguageModel().then(COUNT, COUNT);
        run("agent-2", SEEDED.withCandidates(0), noSamples);
        assertThat(noSamples.calls()).containsExactly(2);
        assertThat(noSamples.requests()).allSatisfy(r -> assertThat(r.sampling().greedy()).isTrue());
    }

    @Test
    void schemaSubsetOffShowsEveryTableToTheExtraCandidatesAndOnShowsOnlyTheSubset() {
        ScriptedLanguageModel off = new ScriptedLanguageModel().then(COUNT, COUNT, COUNT);
        StrategyContext ctx = ctx(off, new RecordingDatabase(s -> false), SEEDED.withCandidates(1).withMechanisms(false, true, true));
        Answer a = Strategies.byName("agent-2").answer(q(HOW_MANY), ctx);
        Schema schema = ctx.schema();
        SchemaSubset.Subset whole = SchemaSubset.whole(schema);
        String standard = standardPrompt(off, POOL.subList(0, 3), HOW_MANY);
        String tabular = off.requests().get(1).prompt();
        assertThat(tabular).isEqualTo(AgentPrompts.tabular(off.promptFormat(), schema, whole.tables(), whole.joinHints(),
                POOL.subList(0, 3), HOW_MANY));
        for (Table t : schema.tables()) assertThat(tabular).contains(t.name() + " (");
        assertThat(tabular).contains("orders.customerNumber = customers.customerNumber");
        assertThat(off.requests().get(2).prompt()).isEqualTo(standard);
        assertThat(a.trace().steps(TraceStep.Subset.class)).isEmpty();

        ScriptedLanguageModel on = new ScriptedLanguageModel().then(COUNT, COUNT, COUNT);
        Answer b = run("agent-2", SEEDED.withCandidates(1), on);
        List<String> chosen = b.trace().steps(TraceStep.Subset.class).get(0).tables();
        assertThat(chosen).contains("customers").doesNotContain("productlines");
        assertThat(on.requests().get(0).prompt()).isEqualTo(standard).contains("productlines(");
        assertThat(on.requests().get(1).prompt()).doesNotContain("productlines (");
        assertThat(on.requests().get(2).prompt()).contains("customers(").doesNotContain("productlines(");
    }

    @ParameterizedTest
    @ValueSource(strings = {"executes", "clamped", "gate", "nothing"})
    void agent2WithEverySwitchOffAnswersAndAsksAsAgent1(String scenario) {
        String question = "Give the name of every customer located in France.";
        String[] outputs = switch (scenario) {
            case "executes" -> new String[] {NAMES};
            case "clamped" -> new String[] {NAMES + " ORDER BY customerName LIMIT 3"};
            case "gate" -> new String[] {UNKNOWN_COLUMN, UNKNOWN_TABLE, NAMES + " LIMIT 2"};
            default -> new String[] {UNKNOWN_COLUMN, UNKNOWN_TABLE, UNKNOWN_TABLE, "no SQL", UNKNOWN_COLUMN};
        };
        ScriptedLanguageModel m1 = new ScriptedLanguageModel().then(outputs);
        ScriptedLanguageModel m2 = new ScriptedLanguageModel().then(outputs);
        Answer a1 = Strategies.byName("agent-1").answer(q(question), ctx(m1, new RecordingDatabase(s -> false), AGENT2_OFF));
        Answer a2 = Strategies.byName("agent-2").answer(q(question), ctx(m2, new RecordingDatabase(s -> false), AGENT2_OFF));
        assertThat(a2.sql()).isEqualTo(a1.sql());
        assertThat(a2.trace().chosen()).isEqualTo(a1.trace().chosen());
        assertThat(m2.requests()).isEqualTo(m1.requests());
        assertThat(m2.unused()).isZero();
    }

    @Test
    void theSeedMattersWheneverTheGateOrThePoolCanSample() {
        Strategy agent0 = Strategies.byName("agent-0");
        Strategy agent2 = Strategies.byName("agent-2");
        assertThat(agent0.usesSeed(Settings.DEFAULT)).isTrue();
        assertThat(agent0.usesSeed(Settings.DEFAULT.withGateBudget(0))).isFalse();
        assertThat(agent2.usesSeed(Settings.DEFAULT.withGateBudget(0))).isTrue();
        assertThat(agent2.usesSeed(Settings.DEFAULT.withGateBudget(0).withCandidates(0))).isFalse();
    }

    private static Answer run(String strategy, Settings settings, ScriptedLanguageModel model) {
        return Strategies.byName(strategy).answer(q(HOW_MANY), ctx(model, new RecordingDatabase(s -> false), settings));
    }

    @Test
    void neighbouringExperimentSeedsDrawFromDisjointSamplerSeeds() {
        // seeds 0, 1, 2 of an experiment must be three draws, not shifted copies sharing most of their samples
        java.util.Set<Long> used = new java.util.HashSet<>();
        for (long seed = 0; seed < 3; seed++) {
            Settings s = SEEDED.withSampling(0.3, seed);
            for (int i = 1; i <= s.gateBudget(); i++) assertThat(used.add(s.gateSeed(i))).isTrue();
            for (int j = 0; j < s.candidates(); j++) assertThat(used.add(s.poolSeed() + j)).isTrue();
        }
        assertThat(used).hasSize(3 * (SEEDED.gateBudget() + SEEDED.candidates()));
    }
}
