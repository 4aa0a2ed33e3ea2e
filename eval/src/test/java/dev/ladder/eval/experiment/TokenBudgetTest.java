package dev.ladder.eval.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.eval.run.ModelLoader;
import dev.ladder.inference.Candidate;
import dev.ladder.inference.Completion;
import dev.ladder.inference.FinishReason;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.text.CompletionFormat;
import dev.ladder.pipeline.gsr.GsrSettings;
import dev.ladder.pipeline.judge.SqlJudge;
import dev.ladder.pipeline.prompt.FixedExemplars;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.Strategies;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.TestData;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One home per setting: a rung's {@code max_new_tokens} is the token budget of every pipeline's calls unless the
 * pipeline's block overrides it on purpose, the resolved config says which applies, and the memory plan counts the
 * largest budget any call of a rung asks for. Each pipeline's rung is read from an experiment file and run on one
 * question with a model that records what each call asks for.
 */
class TokenBudgetTest {

    private static final String QUESTION = "How many customers are there in each country?";
    private static final String REPLY = "```sql\nSELECT country, COUNT(*) FROM customers GROUP BY country\n```";

    private static Database db;

    @BeforeAll
    static void open() {
        db = TestData.classicModels();
    }

    /** A model double: one fixed reply to every candidate; every request recorded. */
    private static final class RecordingModel implements LanguageModel {
        final List<GenerationRequest> requests = Collections.synchronizedList(new ArrayList<>());

        @Override
        public List<Completion> generate(List<GenerationRequest> batch) {
            List<Completion> out = new ArrayList<>();
            for (GenerationRequest r : batch) {
                requests.add(r);
                List<Candidate> candidates = new ArrayList<>();
                for (int i = 0; i < r.n(); i++) {
                    candidates.add(new Candidate(REPLY, List.of(1, 2, 3), List.of(-0.5f, -0.5f, -0.5f),
                            FinishReason.STOP_TOKEN));
                }
                out.add(new Completion(candidates, r.prompt().length() / 4, 1, 1));
            }
            return out;
        }

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public PromptFormat promptFormat() {
            return new CompletionFormat("<|begin_of_text|>");
        }

        @Override
        public void close() {}
    }

    /** An experiment of one rung of {@code strategy} whose own settings are {@code rungSettings}. */
    private static Experiment experiment(String strategy, String rungSettings) {
        return ExperimentLoader.parse("""
                benchmark: classicmodels
                models: {base: {engine: oracle}}
                strategies:
                  - {name: rung, strategy: %s, settings: %s}
                settings: {max_new_tokens: 256}
                """.formatted(strategy, rungSettings), "budget.yaml");
    }

    /** The requests the experiment's one rung makes for the question. */
    private static List<GenerationRequest> requests(Experiment e) {
        RungSpec rung = e.rungs().get(0);
        Settings settings = e.settingsOf(rung);
        RecordingModel model = new RecordingModel();
        StrategyContext ctx = StrategyContext.of(model, db, new FixedExemplars(List.of(), List.of()), settings);
        Strategies.byName(rung.strategy()).answer(new Question("q", QUESTION), ctx);
        assertThat(model.requests).as("the rung calls the model").isNotEmpty();
        return List.copyOf(model.requests);
    }

    /** The token budgets the rung's calls ask for, the reward judge's left out (it has its own). */
    private static Set<Integer> budgets(String strategy, String rungSettings) {
        Set<Integer> out = new TreeSet<>();
        for (GenerationRequest r : requests(experiment(strategy, rungSettings))) {
            if (!r.tag().kind().equals(SqlJudge.KIND)) out.add(r.maxNewTokens());
        }
        return out;
    }

    @Test
    void theLaddersRungsAskForTheRungsMaxNewTokens() {
        for (String strategy : List.of("prompt-k0", "agent-3")) {
            assertThat(budgets(strategy, "{max_new_tokens: 77}")).as(strategy).containsExactly(77);
            assertThat(budgets(strategy, "{max_new_tokens: 91}")).as(strategy).containsExactly(91);
        }
    }

    @Test
    void structuredSearchAsksForTheRungsMaxNewTokensPerSketch() {
        // the sketch call (and its fix) asks for K = 3 candidates of the rung's budget each
        assertThat(budgets("structured-search", "{max_new_tokens: 77}")).containsExactly(3 * 77);
        assertThat(budgets("structured-search", "{max_new_tokens: 91}")).containsExactly(3 * 91);
        assertThat(budgets("structured-search", "{max_new_tokens: 91, structured_search: {tokens_per_sketch: 40}}"))
                .containsExactly(3 * 40);
    }

    @Test
    void gsrAsksForTheRungsMaxNewTokensUnlessItsBlockOverridesIt() {
        assertThat(budgets("gsr", "{max_new_tokens: 77}")).containsExactly(77);
        assertThat(budgets("gsr", "{max_new_tokens: 91}")).containsExactly(91);
        assertThat(budgets("gsr", "{max_new_tokens: 91, gsr: {max_tokens: 300}}")).containsExactly(300);
    }

    @Test
    void gsrIsGreedyOnPurposeAndSamplesAtTheRungsTemperatureWhenToldTo() {
        assertThat(requests(experiment("gsr", "{max_new_tokens: 77}")))
                .allSatisfy(r -> assertThat(r.sampling().temperature()).isZero());
        Experiment follows = experiment("gsr", "{sample_temperature: 0.6, gsr: {temperature: sample_temperature}}");
        assertThat(requests(follows)).allSatisfy(r -> assertThat(r.sampling().temperature()).isEqualTo(0.6));
        assertThat(Strategies.byName("gsr").usesSeed(follows.settingsOf(follows.rungs().get(0)))).isTrue();
    }

    @Test
    void softAttentionAsksForTheRungsMaxNewTokens() {
        assertThat(budgets("soft-attention", "{max_new_tokens: 77}")).containsExactly(77);
        assertThat(budgets("soft-attention", "{max_new_tokens: 91}")).containsExactly(91);
        assertThat(budgets("soft-attention", "{max_new_tokens: 91, soft_attention: {max_tokens: 300}}"))
                .containsExactly(300);
    }

    @Test
    void progressiveAsksForTheRungsMaxNewTokens() {
        assertThat(budgets("progressive", "{max_new_tokens: 77}")).containsExactly(77);
        assertThat(budgets("progressive", "{max_new_tokens: 91}")).containsExactly(91);
        assertThat(budgets("progressive", "{max_new_tokens: 91, progressive: {max_tokens: 300}}")).containsExactly(300);
    }

    @Test
    void theResolvedConfigSaysWhichBudgetApplies() {
        Experiment e = experiment("gsr", "{gsr: {max_tokens: 300}}");
        String yaml = e.toResolvedYaml();
        // the experiment's block leaves the budgets to the rung; the rung's block overrides gsr's
        assertThat(yaml).contains("  gsr:\n").contains("    max_tokens: max_new_tokens\n")
                .contains("    tokens_per_sketch: max_new_tokens\n").contains("    temperature: 0\n")
                .contains("      gsr:\n").contains("        max_tokens: 300\n");
        assertThat(ExperimentLoader.parse(yaml, "config.yaml")).isEqualTo(e);
        Settings rung = e.settingsOf(e.rungs().get(0));
        assertThat(rung.declared(GsrSettings.BLOCK).maxTokens()).isEqualTo(300);
        assertThat(e.settings().declared(GsrSettings.BLOCK).maxTokens()).isNull();
        assertThat(e.settings().of(GsrSettings.BLOCK).maxTokens()).isEqualTo(256);
    }

    @Test
    void aBudgetIsANumberOrTheKnobItFollows() {
        assertThatThrownBy(() -> experiment("gsr", "{gsr: {max_tokens: lots}}"))
                .hasMessageContaining("settings.gsr.max_tokens")
                .hasMessageContaining("expected a number, or max_new_tokens for the rung's, got 'lots'");
        assertThatThrownBy(() -> experiment("gsr", "{gsr: {max_tokens: 0}}"))
                .hasMessageContaining("settings.gsr.max_tokens").hasMessageContaining("must be >= 1, got 0");
        Experiment named = experiment("gsr", "{max_new_tokens: 64, gsr: {max_tokens: max_new_tokens}}");
        Settings rung = named.settingsOf(named.rungs().get(0));
        assertThat(rung.declared(GsrSettings.BLOCK).maxTokens()).isNull();
        assertThat(rung.of(GsrSettings.BLOCK).maxTokens()).isEqualTo(64);
    }

    @Test
    void theMemoryPlanCountsEveryBudgetARungAsksFor() {
        int prompt = ModelLoader.PROMPT_BUDGET;
        assertThat(workload("prompt-k0", "{max_new_tokens: 77}").context()).isEqualTo(prompt + 77);
        assertThat(workload("gsr", "{max_new_tokens: 77}").context()).isEqualTo(prompt + 77);
        assertThat(workload("gsr", "{max_new_tokens: 77, gsr: {max_tokens: 300}}").context()).isEqualTo(prompt + 300);
        assertThat(workload("soft-attention", "{soft_attention: {max_tokens: 700}}").context()).isEqualTo(prompt + 700);
        assertThat(workload("structured-search", "{max_new_tokens: 77}").context()).isEqualTo(prompt + 3 * 77);
        // progressive's reward judge asks for its own 512
        assertThat(workload("progressive", "{max_new_tokens: 77}").context()).isEqualTo(prompt + SqlJudge.MAX_TOKENS);
        assertThat(workload("progressive", "{progressive: {max_tokens: 900}}").context()).isEqualTo(prompt + 900);
    }

    private static ModelLoader.Workload workload(String strategy, String rungSettings) {
        Experiment e = experiment(strategy, rungSettings);
        return ModelLoader.Workload.of(e, e.rungs());
    }
}
