package dev.ladder.pipeline.gsr;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.pipeline.prompt.FixedExemplars;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.ScriptedLanguageModel;
import dev.ladder.pipeline.strategy.RunCaches;
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

/** GSR's control flow with a scripted model on ClassicModels: each stage, each switch, each round and fallback. */
class GsrTest {

    static final String DECOMPOSE = "Split the question below into short";
    static final String PRE_SQL = "covering every clause";
    static final String EXPLORE = "might the question also need";
    static final String CORRECT = "Correct the draft so that";
    static final String REFINE = "Is this result a reasonable answer";
    static final String FORMAT = "no statement could be read from it";
    static final String GOOD = "SELECT customerName FROM customers WHERE country = 'Norway'";
    static final String MISSPELT = "SELECT customerName FROM customers WHERE country = 'Norwegia'";

    static Database db;

    @BeforeAll
    static void open() {
        db = TestData.classicModels();
    }

    static Answer ask(ScriptedLanguageModel model, GsrSettings g, String question, String hint) {
        return ask(model, g, question, hint, new RunCaches());
    }

    static Answer ask(ScriptedLanguageModel model, GsrSettings g, String question, String hint, RunCaches run) {
        StrategyContext ctx = StrategyContext.of(model, db, new FixedExemplars(List.of(), List.of()),
                Settings.DEFAULT.with(GsrSettings.BLOCK, g)).withCaches(run);
        Answer a = Strategies.byName("gsr").answer(new Question("q", question, hint), ctx);
        assertThat(Trace.fromJson(a.trace().toJson())).isEqualTo(a.trace());
        return a;
    }

    static String fence(String sql) {
        return "```sql\n" + sql + "\n```";
    }

    static List<String> sources(ScriptedLanguageModel m, Answer a) {
        return a.trace().steps(TraceStep.Generate.class).stream().map(TraceStep.Generate::source).toList();
    }

    @Test
    void everyStageRunsInOrderAndTheCorrectionSeesValuesAndErrors() {
        ScriptedLanguageModel model = new ScriptedLanguageModel()
                .when(DECOMPOSE, "- customers\n- located in Norway\n- their names")
                .when(PRE_SQL, fence(MISSPELT))
                .when(EXPLORE, "- customers.city\n- offices")
                .when(CORRECT, fence(GOOD))
                .when(REFINE, fence(GOOD));
        Answer a = ask(model, GsrSettings.DEFAULT, "Name the clients located in Norway.", "");
        assertThat(a.sql()).isEqualTo(GOOD);
        assertThat(a.trace().chosen()).isEqualTo("second-sql");
        assertThat(sources(model, a)).containsExactly("decompose", "pre-sql", "explore", "second-sql-1", "final-sql");
        String pre = model.requests().get(1).prompt();
        assertThat(pre).contains("- located in Norway").contains("Hint: (none)");
        String explore = model.requests().get(2).prompt();
        assertThat(explore).contains("customers [in the draft]");
        String correct = model.requests().get(3).prompt();
        assertThat(correct).contains(MISSPELT).contains("no row of customers.country equals 'Norwegia'")
                .contains("customers.country (the draft: = 'Norwegia'): 'Norway'")
                .contains("Other tables and columns that may be needed: customers.city, offices")
                .contains("- customers.customerName: ");
        String refine = model.requests().get(4).prompt();
        assertThat(refine).contains("| customerName |").contains(" rows");
        assertThat(a.trace().steps(TraceStep.Stage.class)).extracting(TraceStep.Stage::stage)
                .containsSubsequence("clauses", "linking", "second-sql", "refine");
    }

    @Test
    void correctionRoundsGoOnWhileErrorsRemainUpToTheLimit() {
        ScriptedLanguageModel model = new ScriptedLanguageModel()
                .when(DECOMPOSE, "- x")
                .when(PRE_SQL, fence("SELECT name FROM clients"))
                .when(EXPLORE, "none")
                .when(CORRECT, fence(MISSPELT), fence("SELECT customerName FROM customers WHERE country = 'Norwy'"),
                        fence(MISSPELT), fence(GOOD));
        Answer a = ask(model, GsrSettings.DEFAULT.withStages(true, true, false).withLinkingRounds(3),
                "Which clients are located in Norway?", "");
        assertThat(sources(model, a)).containsExactly("decompose", "pre-sql", "explore", "second-sql-1", "second-sql-2",
                "second-sql-3");
        assertThat(model.unused()).isEqualTo(1);
        assertThat(a.sql()).isEqualTo(MISSPELT);
        assertThat(a.trace().decision()).contains("execution refinement is off");
        assertThat(a.trace().steps(TraceStep.Stage.class)).anySatisfy(s -> {
            assertThat(s.stage()).isEqualTo("second-sql");
            assertThat(s.summary()).contains("1 error left after 3 rounds");
        });

        ScriptedLanguageModel fixedEarly = new ScriptedLanguageModel()
                .when(DECOMPOSE, "- x").when(PRE_SQL, fence("SELECT name FROM clients")).when(EXPLORE, "none")
                .when(CORRECT, fence(GOOD), fence(MISSPELT));
        Answer b = ask(fixedEarly, GsrSettings.DEFAULT.withStages(true, true, false), "Which clients live in Norway?", "");
        assertThat(sources(fixedEarly, b)).containsExactly("decompose", "pre-sql", "explore", "second-sql-1");
        assertThat(b.sql()).isEqualTo(GOOD);
    }

    @Test
    void byDefaultSchemaLinkingCorrectsOnceAsTheMethodDoes() {
        // the method makes one correction round; errors left after it stay (more rounds are a setting)
        ScriptedLanguageModel model = new ScriptedLanguageModel()
                .when(DECOMPOSE, "- x")
                .when(PRE_SQL, fence("SELECT name FROM clients"))
                .when(EXPLORE, "none")
                .when(CORRECT, fence(MISSPELT), fence(GOOD));
        Answer a = ask(model, GsrSettings.DEFAULT.withStages(true, true, false), "Which clients are located in Norway?", "");
        assertThat(GsrSettings.DEFAULT.linkingRounds()).isEqualTo(1);
        assertThat(sources(model, a)).containsExactly("decompose", "pre-sql", "explore", "second-sql-1");
        assertThat(a.sql()).isEqualTo(MISSPELT);
        assertThat(a.trace().steps(TraceStep.Stage.class)).anySatisfy(s -> {
            assertThat(s.stage()).isEqualTo("second-sql");
            assertThat(s.summary()).contains("1 error left after 1 round");
        });
    }

    @Test
    void eachStageCanBeSwitchedOff() {
        ScriptedLanguageModel only = new ScriptedLanguageModel().when(PRE_SQL, fence(MISSPELT));
        Answer a = ask(only, GsrSettings.DEFAULT.withStages(false, false, false), "Name the clients located in Norway.", "");
        assertThat(sources(only, a)).containsExactly("pre-sql");
        assertThat(only.requests().get(0).prompt()).contains("(not decomposed)");
        assertThat(a.sql()).isEqualTo(MISSPELT);
        assertThat(a.trace().chosen()).isEqualTo("pre-sql");

        ScriptedLanguageModel refineOnly = new ScriptedLanguageModel().when(PRE_SQL, fence(MISSPELT))
                .when(REFINE, fence(GOOD));
        Answer b = ask(refineOnly, GsrSettings.DEFAULT.withStages(false, false, true), "Name the clients located in Norway.", "");
        assertThat(sources(refineOnly, b)).containsExactly("pre-sql", "final-sql");
        assertThat(refineOnly.requests().get(1).prompt()).contains("0 rows");
        assertThat(b.sql()).isEqualTo(GOOD);
        assertThat(b.trace().chosen()).isEqualTo("final-sql");
    }

    @Test
    void anOutputThatIsNotSqlGetsOneFormatFixThenThePreviousSqlStays() {
        ScriptedLanguageModel model = new ScriptedLanguageModel()
                .when(FORMAT, fence(GOOD), "still no statement")
                .when(PRE_SQL, "I would look at the customers table.")
                .when(REFINE, "Looks fine to me.");
        Answer a = ask(model, GsrSettings.DEFAULT.withStages(false, false, true), "Name the clients located in Norway.", "");
        assertThat(sources(model, a)).containsExactly("pre-sql", "pre-sql-format", "final-sql", "final-sql-format");
        assertThat(a.sql()).isEqualTo(GOOD);
        assertThat(a.trace().chosen()).isEqualTo("pre-sql");

        ScriptedLanguageModel nothing = new ScriptedLanguageModel().when(PRE_SQL, "no idea").when(FORMAT, "none");
        Answer b = ask(nothing, GsrSettings.DEFAULT.withStages(false, true, true), "Name the clients located in Norway.", "");
        assertThat(b.sql()).isEmpty();
        assertThat(b.trace().chosen()).isEqualTo("none");
        assertThat(nothing.requests()).hasSize(2);
    }

    @Test
    void theDecompositionIsReusedByTheSameModelInOneRunAndTheHintReachesThePrompts() {
        String question = "Name the clients located in the country of fjords.";
        String hint = "the country of fjords refers to country = 'Norway'";
        RunCaches run = new RunCaches();
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(DECOMPOSE, "- clients\n- in Norway", "- clients\n- in Norway")
                .when(PRE_SQL, fence(GOOD), fence(GOOD), fence(GOOD));
        ask(model, GsrSettings.DEFAULT.withStages(true, false, false), question, hint, run);
        assertThat(model.requests()).hasSize(2);
        assertThat(model.requests().get(0).prompt()).contains("Hint: " + hint);
        assertThat(model.requests().get(1).prompt()).contains("Hint: " + hint).contains("- in Norway");

        // another ablation of the same run, on the same model: the greedy decomposition is not asked again
        Answer again = ask(model, GsrSettings.DEFAULT.withStages(true, false, false), question, hint, run);
        assertThat(model.requests()).hasSize(3);
        assertThat(model.requests().get(2).prompt()).contains("- in Norway");
        assertThat(again.trace().steps(TraceStep.Stage.class)).anySatisfy(s -> assertThat(s.summary()).contains("reused"));

        // another model of the same name, or another run, asks for its own
        ScriptedLanguageModel other = new ScriptedLanguageModel().when(DECOMPOSE, "- clients\n- in Norway")
                .when(PRE_SQL, fence(GOOD));
        assertThat(other.name()).isEqualTo(model.name());
        ask(other, GsrSettings.DEFAULT.withStages(true, false, false), question, hint, run);
        assertThat(other.requests()).hasSize(2);
        ask(model, GsrSettings.DEFAULT.withStages(true, false, false), question, hint);
        assertThat(model.requests()).hasSize(5);
    }

    @Test
    void sampledCallsUseTheSettingsTemperatureAndDistinctSeeds() {
        ScriptedLanguageModel model = new ScriptedLanguageModel().when(DECOMPOSE, "- a").when(PRE_SQL, fence(GOOD));
        GsrSettings sampled = GsrSettings.DEFAULT.withStages(true, false, false).withTemperature(0.7);
        ask(model, sampled, "Name every client located in Norway.", "");
        assertThat(model.requests()).allSatisfy(r -> assertThat(r.sampling().temperature()).isEqualTo(0.7));
        assertThat(model.requests().get(0).seed()).isNotEqualTo(model.requests().get(1).seed());
        assertThat(Strategies.byName("gsr").usesSeed(Settings.DEFAULT.with(GsrSettings.BLOCK, sampled))).isTrue();
        assertThat(Strategies.byName("gsr").usesSeed(Settings.DEFAULT)).isFalse();
    }
}
