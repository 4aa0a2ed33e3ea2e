package dev.ladder.eval.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.eval.experiment.Comparisons.Pair;
import dev.ladder.pipeline.strategy.Settings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ComparisonsTest {

    private static final Path EXPERIMENTS = Path.of("..", "experiments");
    private static final Experiment LADDER = ExperimentLoader.load(EXPERIMENTS.resolve("classicmodels-ladder.yaml"));

    private static final String TWO_MODELS = """
            name: t
            benchmark: classicmodels
            models:
              base: {path: Qwen/Qwen2.5-0.5B-Instruct}
              qlora: {path: Qwen/Qwen2.5-0.5B-Instruct, adapter: no/such/adapter}
            strategies:
              - prompt-k0
              - prompt-k3
              - {name: qlora-k0, strategy: prompt-k0, model: qlora}
              - agent-1
              - agent-2
            """;

    @Test
    void eachPipelineIsItsOwnHolmFamilyByDefault() {
        Experiment e = ExperimentLoader.load(EXPERIMENTS.resolve("pipelines.yaml"));
        Map<String, String> familyByTo = new java.util.LinkedHashMap<>();
        for (Pair p : e.comparisons()) familyByTo.put(p.to(), e.familyOf(p));
        assertThat(familyByTo).containsEntry("structured-search", "structured-search").containsEntry("gsr", "gsr")
                .containsEntry("soft-attention", "soft-attention").containsEntry("progressive", "progressive");
        Experiment ladder = ExperimentLoader.parse("""
                name: t
                benchmark: classicmodels
                models: {base: {path: Qwen/Qwen2.5-0.5B-Instruct}}
                strategies: [prompt-k0, prompt-k3, agent-0, gsr]
                comparisons: [[prompt-k0, prompt-k3], [agent-0, prompt-k3], [prompt-k0, gsr, baselines]]
                """, "t.yaml");
        assertThat(ladder.comparisons()).extracting(ladder::familyOf).containsExactly("ladder", "ladder", "baselines");
        assertThatThrownBy(() -> ExperimentLoader.parse("""
                name: t
                benchmark: classicmodels
                models: {base: {path: Qwen/Qwen2.5-0.5B-Instruct}}
                strategies: [prompt-k0, prompt-k3]
                comparisons: [[prompt-k0, prompt-k3, ""]]
                """, "t.yaml")).hasMessageContaining("comparisons[0]").hasMessageContaining("family");
    }

    @Test
    void theDefaultFamilyOfTheStandardLadderIsTheResearchQuestionsPairs() {
        assertThat(LADDER.comparisons()).containsExactly(
                new Pair("prompt-k0", "prompt-k3"),
                new Pair("prompt-k0", "qlora-k0"), new Pair("prompt-k3", "qlora-k3"),
                new Pair("prompt-k3", "agent-0"), new Pair("agent-0", "agent-1"), new Pair("agent-1", "agent-2"),
                new Pair("agent-2", "agent-3"));
        assertThat(LADDER.comparisons()).extracting(LADDER::labelOf)
                .containsExactly("H1", "H2", "H2", "H3", "H3", "H3", "H3");
        // the resolved file spells the family out and reads back equal
        assertThat(LADDER.toResolvedYaml()).contains("""
                comparisons:
                  -   - prompt-k0
                      - prompt-k3
                  -   - prompt-k0
                      - qlora-k0
                """);
        assertThat(ExperimentLoader.parse(LADDER.toResolvedYaml(), "r.yaml")).isEqualTo(LADDER);
    }

    @Test
    void onlyThePairsWhoseRungsArePresentAndConsecutiveRungsWhenNoneIs() {
        Experiment e = ExperimentLoader.parse(TWO_MODELS, "t.yaml");
        // no qlora-k3, no agent-0: H3 starts where the chain is unbroken
        assertThat(e.comparisons()).containsExactly(new Pair("prompt-k0", "prompt-k3"),
                new Pair("prompt-k0", "qlora-k0"), new Pair("agent-1", "agent-2"));
        Experiment smoke = ExperimentLoader.load(EXPERIMENTS.resolve("smoke.yaml"));
        assertThat(smoke.comparisons()).containsExactly(new Pair("prompt-k0", "agent-1"));
        assertThat(smoke.labelOf(smoke.comparisons().get(0))).isEqualTo(Comparisons.DECLARED);
    }

    @Test
    void declaredComparisonsAreCheckedAndKeepTheirResearchLabel() {
        Experiment e = ExperimentLoader.parse(TWO_MODELS + "comparisons:\n  - [prompt-k3, qlora-k0]\n  - [prompt-k0, prompt-k3]\n", "t.yaml");
        assertThat(e.comparisons()).containsExactly(new Pair("prompt-k3", "qlora-k0"), new Pair("prompt-k0", "prompt-k3"));
        assertThat(e.comparisons()).extracting(e::labelOf).containsExactly("declared", "H1");
        assertThat(ExperimentLoader.parse(e.toResolvedYaml(), "r.yaml")).isEqualTo(e);
        assertThat(e.withLimit(3).comparisons()).isEqualTo(e.comparisons());

        assertError("comparisons:\n  - [prompt-k0, agent-1]\n  - [prompt-k0, agent-9]\n", "comparisons[1]",
                "no rung named 'agent-9'");
        assertError("comparisons:\n  - [agent-1, agent-1]\n", "comparisons[0]", "with itself");
        assertError("comparisons:\n  - [agent-1, agent-2]\n  - [agent-2, agent-1]\n", "comparisons[1]",
                "also comparisons[0]");
        assertError("comparisons:\n  - [agent-1]\n", "comparisons[0]", "expected a pair of rung names [from, to]");
        assertError("comparisons: agent-1\n", "comparisons", "expected a list of [from, to] rung pairs");
        assertError("comparisons: []\n", "comparisons", "is empty");
    }

    @Test
    void factorsNameWhatTwoRungsDifferIn() {
        Map<String, String> k3 = factors(LADDER, "prompt-k3");
        assertThat(RungFactors.differing(factors(LADDER, "prompt-k0"), k3)).containsExactly("exemplars k");
        assertThat(RungFactors.differing(k3, factors(LADDER, "qlora-k3"))).containsExactly("adapter");
        assertThat(factors(LADDER, "qlora-k3").get("adapter")).isEqualTo("models/classicmodels-qlora-k3 (nf4)");
        // confounded: the adapter and the exemplars change together
        assertThat(RungFactors.differing(k3, factors(LADDER, "qlora-k0"))).containsExactly("adapter", "exemplars k");
        assertThat(RungFactors.differing(k3, factors(LADDER, "agent-0"))).containsExactly("execution gate");
        assertThat(RungFactors.differing(factors(LADDER, "agent-0"), factors(LADDER, "agent-1"))).containsExactly("clamps");
        assertThat(RungFactors.differing(factors(LADDER, "agent-1"), factors(LADDER, "agent-2"))).containsExactly(
                "sampled candidates", "tabular prompt", "schema subset", "projection", "rerank");
        assertThat(RungFactors.differing(factors(LADDER, "agent-2"), factors(LADDER, "agent-3"))).containsExactly("repair");
        assertThat(RungFactors.change("sampled candidates", factors(LADDER, "agent-1"), factors(LADDER, "agent-2")))
                .isEqualTo("off -> 4");
    }

    @Test
    void aRungWithItsOwnSettingsDiffersInThoseAndIsComparedOnlyWhenDeclared() {
        Settings d = LADDER.settings();
        Settings noRerank = d.withMechanisms(d.schemaSubset(), d.projection(), false);
        Settings longer = d.withMaxNewTokens(512);
        List<RungSpec> rungs = new ArrayList<>(LADDER.rungs());
        rungs.add(new RungSpec("agent-2-no-rerank", "agent-2", "base", noRerank));
        rungs.add(new RungSpec("agent-1-long", "agent-1", "base", longer));
        Experiment e = new Experiment(LADDER.name(), LADDER.benchmark(), LADDER.split(), LADDER.database(),
                LADDER.sqlMode(), LADDER.limit(), LADDER.seeds(), LADDER.output(), LADDER.models(), rungs,
                LADDER.settings(), LADDER.scorers());
        assertThat(e.comparisons()).isEqualTo(LADDER.comparisons());
        assertThat(RungFactors.differing(factors(e, "agent-2-no-rerank"), factors(e, "agent-2"))).containsExactly("rerank");
        assertThat(RungFactors.differing(factors(e, "agent-1"), factors(e, "agent-1-long")))
                .containsExactly("max_new_tokens");
        // a prompt rung has no gate and does not sample, whatever the settings say
        assertThat(factors(e, "prompt-k0")).containsEntry("execution gate", "off").doesNotContainKey("sample_temperature");
        // stop strings as JSON string literals: the newline is shown escaped, not as a line break
        assertThat(factors(e, "prompt-k0")).containsEntry("stop_strings", "\"\\nQuestion:\"");
    }

    private static Map<String, String> factors(Experiment e, String rung) {
        return RungFactors.of(e, e.rung(rung).orElseThrow());
    }

    private static void assertError(String extra, String field, String problem) {
        assertThatThrownBy(() -> ExperimentLoader.parse(TWO_MODELS + extra, "t.yaml"))
                .isInstanceOf(ExperimentException.class)
                .hasMessageStartingWith("t.yaml: " + field + ": ")
                .hasMessageContaining(problem);
    }
}
