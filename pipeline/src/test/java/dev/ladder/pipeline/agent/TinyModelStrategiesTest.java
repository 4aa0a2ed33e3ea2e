package dev.ladder.pipeline.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.inference.llm.DjlLanguageModel;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.Strategies;
import dev.ladder.pipeline.strategy.Strategy;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.pipeline.strategy.TinyModel;
import dev.ladder.pipeline.strategy.Trace;
import dev.ladder.pipeline.strategy.TraceStep;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.TestData;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every rung end to end with the real engine: a tiny random-weight model on ClassicModels. Random weights write
 * garbage, so the checks are the invariants of the control flow, not the SQL.
 */
class TinyModelStrategiesTest {

    static final String QUESTION = "How many customers are in France?";
    static final Settings SETTINGS = Settings.DEFAULT.withMaxNewTokens(6).withCandidates(2).withGateBudget(2);

    @TempDir static Path dir;
    static DjlLanguageModel model;
    static Database db;

    @BeforeAll
    static void load() {
        model = TinyModel.load(dir);
        db = TestData.classicModels();
    }

    @AfterAll
    static void close() {
        if (model != null) model.close();
    }

    /** The ladder's rungs and prompt baselines; the pipelines have their own end-to-end tests. */
    static Stream<String> rungs() {
        return Strategies.names().stream().filter(n -> !n.equals("structured-search") && !n.equals("gsr") && !n.equals("soft-attention")
                && !n.equals("progressive"));
    }

    @ParameterizedTest
    @MethodSource("rungs")
    void rungAnswersWithACompleteTrace(String name) {
        Strategy strategy = Strategies.byName(name);
        StrategyContext ctx = StrategyContext.of(model, db, StrategyControlFlowTest.EXEMPLARS, SETTINGS);
        Answer a = strategy.answer(new Question("t1", QUESTION), ctx);
        Trace t = a.trace();

        assertThat(t.strategy()).isEqualTo(name);
        assertThat(t.sql()).isEqualTo(a.sql());
        assertThat(t.promptTokens()).isPositive();
        assertThat(t.generatedTokens()).isPositive();
        List<TraceStep.Generate> generates = t.steps(TraceStep.Generate.class);
        assertThat(generates).isNotEmpty().allSatisfy(g -> {
            assertThat(g.outputs()).hasSameSizeAs(g.sources()).hasSameSizeAs(g.finishReasons());
            assertThat(g.promptTokens()).isPositive();
        });
        assertThat(t.steps(TraceStep.Clean.class)).isNotEmpty();
        assertThat(Trace.fromJson(t.toJson())).isEqualTo(t);
        String standardCleaned = t.steps(TraceStep.Clean.class).get(0).sql();

        if (name.startsWith("prompt-")) {
            assertThat(generates).hasSize(1);
            assertThat(t.steps(TraceStep.Execute.class)).isEmpty();
            assertThat(a.sql()).isEqualTo(standardCleaned == null ? "" : standardCleaned);
            return;
        }
        // an agent answers with SQL that executes, or with the baseline output (possibly empty)
        if (t.chosen().equals("fallback") || t.chosen().equals("none")) {
            assertThat(a.sql()).isEqualTo(standardCleaned == null ? "" : standardCleaned);
        } else {
            assertThat(db.execute(a.sql()).ok()).as(a.sql()).isTrue();
        }
        int stage = ((AgentStrategy) strategy).stage();
        assertThat(t.steps(TraceStep.Intent.class)).hasSize(stage >= AgentStrategy.CLAMPS ? 1 : 0);
        int pool = stage < AgentStrategy.CANDIDATES ? 1 : 3;
        if (pool == 3) {
            assertThat(generates.subList(0, 3)).extracting(TraceStep.Generate::source).containsExactly("standard", "tabular", "samples");
            assertThat(generates.get(2).outputs()).hasSize(2);
        }
        // the gate: one sample at a time while nothing executes, seeds base - 1, base - 2, at most the budget
        List<TraceStep.Keep> keeps = t.steps(TraceStep.Keep.class);
        boolean poolExecutes = keeps.stream().anyMatch(k -> !k.source().startsWith("gate-") && !k.form().equals("none"));
        List<TraceStep.Generate> gate = generates.stream().filter(g -> g.source().equals("gate")).toList();
        int expectedGate = poolExecutes ? 0 : t.chosen().startsWith("gate-") ? Integer.parseInt(t.chosen().substring(5)) : 2;
        assertThat(gate).hasSize(expectedGate);
        for (int i = 0; i < gate.size(); i++) assertThat(gate.get(i).sampling()).endsWith(" seed=" + SETTINGS.gateSeed(i + 1));
        boolean anyExecutes = keeps.stream().anyMatch(k -> !k.form().equals("none"));
        boolean repaired = stage == AgentStrategy.REPAIR && !anyExecutes;
        assertThat(generates).hasSize(pool + gate.size() + (repaired ? 1 : 0));
        assertThat(t.steps(TraceStep.Repair.class)).hasSize(repaired ? 1 : 0);
    }
}
