package dev.ladder.eval.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.scorer.score.ExMode;
import dev.ladder.scorer.score.em.EmMode;
import dev.ladder.pipeline.gsr.GsrSettings;
import dev.ladder.pipeline.progressive.ProgressiveSettings;
import dev.ladder.pipeline.search.SearchSettings;
import dev.ladder.pipeline.soft.SoftSettings;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.sql.db.ExecutionLimits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ExperimentLoaderTest {

    /** Tests run in the eval module's folder; the shipped files are one level up. */
    private static final Path EXPERIMENTS = Path.of("..", "experiments");

    private static final String VALID = """
            name: t
            benchmark: classicmodels
            models:
              base:
                path: Qwen/Qwen2.5-0.5B-Instruct
              qlora:
                path: Qwen/Qwen2.5-0.5B-Instruct
                adapter: no/such/adapter
            strategies:
              - prompt-k0
              - {name: qlora-k0, strategy: prompt-k0, model: qlora}
              - agent-1
            """;

    @Test
    void loadsTheShippedLadder() {
        Experiment e = ExperimentLoader.load(EXPERIMENTS.resolve("classicmodels-ladder.yaml"));
        assertThat(e.name()).isEqualTo("classicmodels-ladder");
        assertThat(e.split()).isEqualTo("test");
        assertThat(e.database()).isEqualTo("classicmodels");
        assertThat(e.limit()).isNull();
        assertThat(e.rungs()).extracting(RungSpec::name).containsExactly(
                "prompt-k0", "prompt-k3", "qlora-k0", "qlora-k3", "agent-0", "agent-1", "agent-2", "agent-3");
        // one adapter per QLoRA rung, trained on that rung's prompts (k = 0 or 3), on the base model
        assertThat(e.rungs().get(2)).isEqualTo(new RungSpec("qlora-k0", "prompt-k0", "qlora-k0"));
        assertThat(e.rungs().get(3)).isEqualTo(new RungSpec("qlora-k3", "prompt-k3", "qlora-k3"));
        assertThat(e.models().get("qlora-k0").adapter()).isEqualTo("models/classicmodels-qlora-k0");
        assertThat(e.models().get("qlora-k3").adapter()).isEqualTo("models/classicmodels-qlora-k3");
        assertThat(e.models().get("qlora-k0").path()).isEqualTo(e.models().get("base").path());
        assertThat(e.models().get("qlora-k3").path()).isEqualTo(e.models().get("base").path());
        assertThat(e.scorers().exOptions().label()).isEqualTo("spider");
        // no adapters next to the tests: the QLoRA rungs are announced as skipped, not an error
        assertThat(e.warnings()).hasSize(2);
        assertThat(e.warnings().get(0)).asString().startsWith("models.qlora-k0.adapter:").contains("qlora-k0");
        assertThat(e.warnings().get(1)).asString().startsWith("models.qlora-k3.adapter:").contains("qlora-k3");
    }

    @Test
    void loadsTheSmokeCheck() {
        Experiment e = ExperimentLoader.load(EXPERIMENTS.resolve("smoke.yaml"));
        assertThat(e.limit()).isEqualTo(5);
        assertThat(e.cells()).extracting(Cell::name).containsExactly("prompt-k0", "agent-1");
        assertThat(e.settings()).isEqualTo(Settings.DEFAULT);
        assertThat(e.scorers()).isEqualTo(ScorerSpec.DEFAULT);
        assertThat(e.output()).isEqualTo(Path.of("runs/smoke"));
        assertThat(e.warnings()).isEmpty();
    }

    @Test
    void plainStringsRunOnTheFirstModelAndDefaultsFillIn() {
        Experiment e = ExperimentLoader.parse(VALID, "dir/t.yaml");
        assertThat(e.rungs()).containsExactly(new RungSpec("prompt-k0", "prompt-k0", "base"),
                new RungSpec("qlora-k0", "prompt-k0", "qlora"), new RungSpec("agent-1", "agent-1", "base"));
        assertThat(e.models().get("base")).isEqualTo(new ModelSpec("Qwen/Qwen2.5-0.5B-Instruct", null, "djl", "auto"));
        assertThat(e.seeds()).containsExactly(0L);
        assertThat(e.output()).isEqualTo(Path.of("runs", "t"));
        assertThat(e.settings().withSeed(9).seed()).isEqualTo(9);
        assertThat(ExperimentLoader.parse(VALID.replace("name: t\n", ""), "dir/other.yaml").name()).isEqualTo("other");
    }

    @Test
    void loadsTheAttributionLadder() {
        Experiment e = ExperimentLoader.load(EXPERIMENTS.resolve("agent-attribution.yaml"));
        assertThat(e.rungs()).extracting(RungSpec::name).containsExactly(
                "agent-1", "a1-samples", "a1-rerank", "a1-tabular", "a1-subset", "agent-2", "agent-3");
        assertThat(e.rungs()).extracting(RungSpec::strategy).containsOnly("agent-2", "agent-3");
        Settings agent1 = e.settingsOf(e.rungs().get(0));
        assertThat(List.of(agent1.candidates() > 0, agent1.rerank(), agent1.tabularPrompt(), agent1.schemaSubset(),
                agent1.projection())).containsOnly(false);
        assertThat(e.settingsOf(e.rungs().get(5))).isEqualTo(e.settings());
        assertThat(e.settings().gateBudget()).isPositive();
        assertThat(e.warnings()).isEmpty();
    }

    @Test
    void loadsThePipelinesExperimentWithItsStructuredSearchBlock() {
        Experiment e = ExperimentLoader.load(EXPERIMENTS.resolve("pipelines.yaml"));
        assertThat(e.rungs()).extracting(RungSpec::name).containsExactly("prompt-k0", "prompt-k3", "agent-3", "prompt-k1",
                "structured-search", "ss-no-repair", "ss-no-entities", "ss-no-semantic", "gsr", "gsr-no-decomposition",
                "gsr-no-linking", "gsr-no-refinement", "sa-plain", "sa-inline", "sa-block", "sa-no-refinement",
                "sa-zero-shot", "sa-cot", "soft-attention", "progressive", "progressive-single", "progressive-no-plan",
                "progressive-no-recalc");
        // every pipeline runs with the method's defaults, and each ablation is one setting apart from it
        // (with the file's own 512-token budget, an override of the rungs' max_new_tokens: 256)
        assertThat(e.settingsOf(e.rungs().get(19)).declared(ProgressiveSettings.BLOCK))
                .isEqualTo(new ProgressiveSettings(0.85, 10, 2, 1.0, true, true, true, 3, 512));
        assertThat(e.settingsOf(e.rungs().get(20)).of(ProgressiveSettings.BLOCK).multiBranch()).isFalse();
        assertThat(e.settingsOf(e.rungs().get(21)).of(ProgressiveSettings.BLOCK).usePlan()).isFalse();
        assertThat(e.settingsOf(e.rungs().get(22)).of(ProgressiveSettings.BLOCK).recalculate()).isFalse();
        for (int i = 20; i <= 22; i++) {
            assertThat(RungFactors.differing(RungFactors.of(e, e.rungs().get(19)), RungFactors.of(e, e.rungs().get(i))))
                    .containsExactly("progressive");
        }
        // the file's pipeline blocks keep 512-token budgets, an override of the rungs' max_new_tokens (256)
        SoftSettings soft = new SoftSettings(true, true, 3, 0.5, 1, 1000, true, false, 512);
        assertThat(e.settingsOf(e.rungs().get(18)).of(SoftSettings.BLOCK)).isEqualTo(soft);
        assertThat(e.settingsOf(e.rungs().get(12)).of(SoftSettings.BLOCK)).isEqualTo(soft.withWeights(false, false));
        assertThat(e.settingsOf(e.rungs().get(16)).of(SoftSettings.BLOCK).oneShot()).isFalse();
        assertThat(e.settingsOf(e.rungs().get(17)).of(SoftSettings.BLOCK).chainOfThought()).isTrue();
        for (int i = 12; i <= 17; i++) {
            assertThat(RungFactors.differing(RungFactors.of(e, e.rungs().get(i)), RungFactors.of(e, e.rungs().get(18))))
                    .containsExactly("soft attention");
        }
        GsrSettings gsr = GsrSettings.DEFAULT.withMaxTokens(512);
        assertThat(e.settingsOf(e.rungs().get(8)).of(GsrSettings.BLOCK)).isEqualTo(gsr);
        for (int i = 9; i <= 11; i++) {
            assertThat(RungFactors.differing(RungFactors.of(e, e.rungs().get(i)), RungFactors.of(e, e.rungs().get(8))))
                    .containsExactly("gsr");
        }
        assertThat(e.settingsOf(e.rungs().get(10)).of(GsrSettings.BLOCK)).isEqualTo(gsr.withStages(true, false, true));
        SearchSettings search = new SearchSettings(3, 512, 4, 8, 3, 0.75, 0.4, 0.4, 0.2, 0.05, 0.1, true, true, true,
                false, false, true);
        SearchSettings full = e.settingsOf(e.rungs().get(4)).of(SearchSettings.BLOCK);
        assertThat(full).isEqualTo(search);
        SearchSettings noRepair = e.settingsOf(e.rungs().get(5)).of(SearchSettings.BLOCK);
        assertThat(noRepair).isEqualTo(search.withRounds(0));
        assertThat(e.settingsOf(e.rungs().get(5)).of(SearchSettings.BLOCK).rounds()).isZero();
        assertThat(e.settingsOf(e.rungs().get(6)).of(SearchSettings.BLOCK).entityCheck()).isFalse();
        assertThat(e.settingsOf(e.rungs().get(7)).of(SearchSettings.BLOCK).semanticChecks()).isFalse();
        // one factor apart: the comparison of the two is attributable
        for (int i = 5; i <= 7; i++) {
            assertThat(RungFactors.differing(RungFactors.of(e, e.rungs().get(i)), RungFactors.of(e, e.rungs().get(4))))
                    .containsExactly("structured search");
        }
        // the resolved file reads back to the same experiment
        Experiment again = ExperimentLoader.parse(e.toResolvedYaml(), "resolved.yaml");
        assertThat(again.settingsOf(again.rungs().get(5))).isEqualTo(e.settingsOf(e.rungs().get(5)));
        assertThat(again.settings()).isEqualTo(e.settings());
        assertThat(e.warnings()).isEmpty();
    }

    @Test
    void aRungsSettingsApplyOnTopOfTheExperimentsAndRoundTrip() {
        Experiment e = ExperimentLoader.parse(VALID + """
                  - {name: no-rerank, strategy: agent-2, settings: {rerank: false, candidates: 2}}
                  - {name: same, strategy: agent-2, settings: {}}
                settings: {candidates: 6, max_new_tokens: 64}
                """, "t.yaml");
        Settings top = Settings.DEFAULT.withCandidates(6).withMaxNewTokens(64);
        assertThat(e.settings()).isEqualTo(top);
        assertThat(e.rungs().get(0).settings()).isNull();
        assertThat(e.settingsOf(e.rungs().get(0))).isEqualTo(top);
        assertThat(e.rungs().get(3).settings()).isEqualTo(top.withCandidates(2).withMechanisms(true, true, false));
        assertThat(e.rungs().get(4).settings()).isEqualTo(top);
        String resolved = e.toResolvedYaml();
        // a rung's own settings hold only what differs from the experiment's block
        assertThat(resolved).contains("""
                  - name: no-rerank
                    strategy: agent-2
                    model: base
                    settings:
                      candidates: 2
                      rerank: false
                """, """
                  - name: same
                    strategy: agent-2
                    model: base
                    settings: {}
                """);
        assertThat(ExperimentLoader.parse(resolved, "resolved.yaml")).isEqualTo(e);
    }

    @Test
    void severalSeedsNameCellsWithTheSeed() {
        Experiment e = ExperimentLoader.parse(VALID + "seeds: [3, 7]\n", "t.yaml");
        assertThat(e.cells()).extracting(Cell::name).containsExactly(
                "prompt-k0@3", "prompt-k0@7", "qlora-k0@3", "qlora-k0@7", "agent-1@3", "agent-1@7");
        Cell c = e.cells().get(3);
        assertThat(c).isEqualTo(new Cell(3, "qlora-k0@7", "Qwen/Qwen2.5-0.5B-Instruct", "no/such/adapter", "prompt-k0", 7));
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
            "'strategy: [agent-1]\n'                                   | strategy                 | did you mean 'strategies'",
            "'settings: {max_new_token: 64}\n'                         | settings.max_new_token   | did you mean 'max_new_tokens'",
            "'scorers: {em_keep_distinct: true}\n'                     | scorers.em_keep_distinct | did you mean 'keep_distinct'",
            "'limit: ten\n'                                            | limit                    | expected an integer",
            "'limit: -1\n'                                             | limit                    | must be >= 1",
            "'settings: {tabular_prompt: \"true\"}\n'                  | settings.tabular_prompt  | expected true or false",
            "'settings: {stop_at_semicolon: 1}\n'                     | settings.stop_at_semicolon | expected true or false",
            "'settings: {stop_at_semicolons: false}\n'                | settings.stop_at_semicolons | did you mean 'stop_at_semicolon'",
            "'settings: {sample_temperature: 0}\n'                     | settings.sample_temperature | must be > 0",
            "'seeds: [1, 1]\n'                                         | seeds[1]                 | listed twice",
            "'seeds: 1\n'                                              | seeds                    | expected a list",
            "'split: dev\n'                                            | split                    | benchmark classicmodels has: test, train",
            "'scorers: {ex_mode: Bird}\n'                              | scorers.ex_mode          | did you mean 'bird'",
            "'scorers: {ts: none, suite: /tmp}\n'                      | scorers.suite            | 'ts: none'",
            "'scorers: {tolerance: -0.1}\n'                            | scorers.tolerance        | must be >= 0",
            "'scorers: {em_mode: strict}\n'                            | scorers.em_mode          | spider-strict",
    })
    void rejectsBadFieldsNamingThem(String extra, String field, String problem) {
        String text = VALID + extra.replace("\\n", "\n");
        assertThatThrownBy(() -> ExperimentLoader.parse(text, "t.yaml"))
                .isInstanceOf(ExperimentException.class)
                .hasMessageStartingWith("t.yaml: " + field + ": ")
                .hasMessageContaining(problem)
                .satisfies(ex -> assertThat(((ExperimentException) ex).field()).isEqualTo(field));
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
            "'  - {name: x, strategy: agent-9}'          | strategies[3].strategy | unknown strategy 'agent-9'; known: prompt-k0",
            "'  - agent-7'                               | strategies[3]          | known: prompt-k0, prompt-k3, agent-0",
            "'  - {strategy: prompt-k3, model: qlor}'    | strategies[3].model    | unknown model 'qlor' (did you mean 'qlora'?)",
            "'  - {strategy: agent-1}'                   | strategies[3].name     | duplicate rung name 'agent-1' (also strategies[2])",
            "'  - {name: a b, strategy: agent-1}'        | strategies[3].name     | not a valid name",
            "'  - {name: x, strategy: agent-1, modle: base}' | strategies[3].modle | did you mean 'model'",
            "'  - [agent-1]'                             | strategies[3]          | expected a strategy name or a mapping",
            "'  - {name: x, strategy: agent-2, settings: {rerank: 1}}'      | strategies[3].settings.rerank    | expected true or false",
            "'  - {name: x, strategy: agent-2, settings: {re_rank: false}}' | strategies[3].settings.re_rank   | did you mean 'rerank'",
            "'  - {name: x, strategy: agent-2, settings: {gate_budget: -1}}' | strategies[3].settings.gate_budget | must be >= 0",
            "'  - {name: x, strategy: agent-2, settings: off}'              | strategies[3].settings           | expected a mapping",
            "'  - {name: x, strategy: structured-search, settings: {structured_search: {rounds: -1}}}' | strategies[3].settings.structured_search.rounds | must be >= 0",
            "'  - {name: x, strategy: structured-search, settings: {structured_search: {round: 2}}}' | strategies[3].settings.structured_search.round | did you mean 'rounds'",
            "'  - {name: x, strategy: structured-search, settings: {structured_search: {threshold: -0.5}}}' | strategies[3].settings.structured_search.threshold | must be >= 0, got -0.5",
            "'  - {name: x, strategy: structured-search, settings: {structured_search: {sampled_recheck: 1}}}' | strategies[3].settings.structured_search.sampled_recheck | expected true or false",
            "'  - {name: x, strategy: structured-search, settings: {structured_search: [1]}}' | strategies[3].settings.structured_search | expected a mapping",
            "'  - {name: x, strategy: gsr, settings: {gsr: {linking_rounds: 0}}}' | strategies[3].settings.gsr.linking_rounds | must be >= 1",
            "'  - {name: x, strategy: soft-attention, settings: {soft_attention: {cycles: -1}}}' | strategies[3].settings.soft_attention.cycles | must be >= 0",
            "'  - {name: x, strategy: progressive, settings: {progressive: {high_confidence_threshold: 1.5}}}' | strategies[3].settings.progressive.high_confidence_threshold | must be <= 1, got 1.5",
            "'  - {name: x, strategy: progressive, settings: {progressive: {beam_width: 0}}}' | strategies[3].settings.progressive.beam_width | must be >= 1",
            "'  - {name: x, strategy: soft-attention, settings: {soft_attention: {min_rows: 5, max_rows: 2}}}' | strategies[3].settings.soft_attention.max_rows | must be >= min_rows",
            "'  - {name: x, strategy: gsr, settings: {gsr: {temperature: -1}}}'   | strategies[3].settings.gsr.temperature    | must be >= 0",
            "'  - {name: x, strategy: gsr, settings: {gsr: {decompositon: false}}}' | strategies[3].settings.gsr.decompositon  | did you mean 'decomposition'",
    })
    void rejectsBadRungs(String rung, String field, String problem) {
        String text = VALID + rung + "\n";
        assertThatThrownBy(() -> ExperimentLoader.parse(text, "t.yaml"))
                .isInstanceOf(ExperimentException.class)
                .hasMessageStartingWith("t.yaml: " + field + ": ")
                .hasMessageContaining(problem);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "dtype: bf16      | models.base.dtype  | unknown dtype 'bf16'",
            "engine: tflite   | models.base.engine | unknown engine 'tflite'",
            "dtyp: f16        | models.base.dtyp   | did you mean 'dtype'",
            "adapter: \"\"      | models.base.adapter | is empty",
            "device: tpu      | models.base.device | unknown device 'tpu'; use auto, cpu, cuda or cuda:N",
            "merge_base: nf4  | models.base.merge_base | merge_base nf4 applies to an adapter; this model has none",
            "merge_base: q4   | models.base.merge_base | unknown merge base 'q4'",
    })
    void rejectsBadModelFields(String line, String field, String problem) {
        String text = VALID.replace("    path: Qwen/Qwen2.5-0.5B-Instruct\n  qlora:",
                "    path: Qwen/Qwen2.5-0.5B-Instruct\n    " + line + "\n  qlora:");
        assertThatThrownBy(() -> ExperimentLoader.parse(text, "t.yaml"))
                .hasMessageStartingWith("t.yaml: " + field + ": ")
                .hasMessageContaining(problem);
    }

    @Test
    void anUnknownEngineIsNamedWithTheKnownOnesWhateverFieldsTheModelHas() {
        // the engine is read first: its name decides which fields the model may have (an oracle's noise, a server's
        // base_url), so an unknown one is never reported as an unknown field of another engine
        String known = "; known: " + String.join(", ", ExperimentLoader.KNOWN_ENGINES);
        for (String model : List.of("{engine: quantum}", "{engine: quantum, noise: low}", "{noise: low, engine: quantum}",
                "{engine: quantum, path: Qwen/Qwen2.5-0.5B-Instruct}", "{base_url: 'http://h:8000/v1', engine: quantum}")) {
            String text = "benchmark: classicmodels\nmodels:\n  base: " + model + "\nstrategies: [prompt-k0]\n";
            assertThatThrownBy(() -> ExperimentLoader.parse(text, "t.yaml")).as(model)
                    .isInstanceOf(ExperimentException.class)
                    .hasMessage("t.yaml: models.base.engine: unknown engine 'quantum'" + known);
        }
        assertThat(ExperimentLoader.KNOWN_ENGINES).contains("djl", "onnx", "auto", "openai", "oracle");
    }

    @Test
    void everyShippedExperimentLoads() throws Exception {
        List<Path> files;
        try (var listing = Files.list(EXPERIMENTS)) {
            files = listing.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        }
        assertThat(files).hasSizeGreaterThanOrEqualTo(7);
        for (Path f : files) {
            try {
                ExperimentLoader.load(f);
            } catch (ExperimentException e) {
                // a fetched benchmark or suite not fetched on this machine (spider-dev.yaml): every field before it,
                // the settings and their bounds included, was read
                assertThat(e.field()).as(f + ": " + e.getMessage()).isIn("benchmark", "scorers.suite");
                assertThat(e.getMessage()).as(f.toString()).contains("not fetched");
            }
        }
    }

    @Test
    void rejectsMissingAndEmptyParts() {
        assertError(VALID.replace("benchmark: classicmodels\n", ""), "benchmark", "missing");
        assertError(VALID.replace("benchmark: classicmodels", "benchmark: no-such-bench"), "benchmark", "unknown benchmark 'no-such-bench'");
        assertError(VALID.substring(0, VALID.indexOf("strategies:")) + "strategies: []\n", "strategies", "is empty");
        assertError(VALID.substring(0, VALID.indexOf("strategies:")), "strategies", "missing");
        assertError("name: t\nbenchmark: classicmodels\nstrategies: [agent-1]\n", "models", "missing");
        assertError("", "file", "is empty");
        assertError("- a\n- b\n", "top level", "expected a mapping");
    }

    @Test
    void reportsMalformedYamlWithItsLine() {
        assertError(VALID + "settings: {candidates: 2\n", "line 14", "that starts on line 13");
        assertError(VALID + "limit: 3\nlimit: 4\n", "line 14", "duplicate key 'limit'");
        assertError(VALID + "  - {strategy: agent-0}\n - agent-2\n", "line 14", "malformed YAML");
    }

    @Test
    void modelPathsAreDirectoriesOrHubIds(@TempDir Path dir) throws Exception {
        Path model = Files.createDirectories(dir.resolve("m"));
        Files.writeString(model.resolve("config.json"), "{}");
        Path noConfig = Files.createDirectories(dir.resolve("empty"));
        assertThat(ExperimentLoader.modelPathProblem(model.toString())).isNull();
        assertThat(ExperimentLoader.modelPathProblem("Qwen/Qwen2.5-0.5B-Instruct@main")).isNull();
        assertThat(ExperimentLoader.modelPathProblem(noConfig.toString())).contains("no config.json");
        assertThat(ExperimentLoader.modelPathProblem(model.resolve("config.json").toString())).contains("is a file");
        for (String p : List.of("./models/llama", "models/a/b", "~/llama", dir.resolve("gone").toString())) {
            assertThat(ExperimentLoader.modelPathProblem(p)).as(p).startsWith("model directory not found");
        }
        assertError(VALID.replace("path: Qwen/Qwen2.5-0.5B-Instruct\n  qlora", "path: ./models/llama3\n  qlora"),
                "models.base.path", "model directory not found: './models/llama3'");

    }

    @Test
    void adapterPresenceDecidesTheWarning(@TempDir Path dir) throws Exception {
        Path adapter = Files.createDirectories(dir.resolve("a"));
        Experiment missing = ExperimentLoader.parse(VALID.replace("no/such/adapter", adapter.toString()), "t.yaml");
        assertThat(missing.warnings()).singleElement().asString().contains("skipping qlora-k0");
        Files.writeString(adapter.resolve("adapter_config.json"), "{}");
        assertThat(missing.warnings()).isEmpty();
        Experiment unused = ExperimentLoader.parse(VALID.replace("model: qlora", "model: base"), "t.yaml");
        assertThat(unused.warnings()).singleElement().asString().isEqualTo("models.qlora: no strategy uses this model");
        // the training notebook records the k of its prompts: a rung prompting with another k is named
        Files.writeString(adapter.resolve("ladder-training.json"), "{\"base_model\": \"x\", \"k\": 3}");
        assertThat(missing.warnings()).singleElement().asString()
                .isEqualTo("models.qlora.adapter: " + adapter + " was trained on k = 3 prompts (ladder-training.json), but "
                        + "rung qlora-k0 prompts with k = 0; train one adapter per k (notebooks/qlora_train.ipynb)");
        Files.writeString(adapter.resolve("ladder-training.json"), "{\"base_model\": \"x\", \"k\": 0}");
        assertThat(missing.warnings()).isEmpty();
    }

    @Test
    void overridesReplaceWhatTheySay() {
        Experiment e = ExperimentLoader.parse(VALID + "limit: 20\n", "t.yaml");
        Experiment m = e.withModelOverride("org/other-model");
        assertThat(m.models().values()).extracting(ModelSpec::path).containsOnly("org/other-model");
        assertThat(m.models().get("qlora").adapter()).isEqualTo("no/such/adapter");
        assertThat(m.models().get("base").adapter()).isNull();
        assertThatThrownBy(() -> e.withModelOverride("./nowhere")).isInstanceOf(ExperimentException.class)
                .hasMessageContaining("model directory not found");

        Experiment a = e.withAdapterOverride("adapters/v2");
        assertThat(a.models().get("qlora").adapter()).isEqualTo("adapters/v2");
        assertThat(a.models().get("base").adapter()).isNull();
        Experiment smoke = ExperimentLoader.load(EXPERIMENTS.resolve("smoke.yaml"));
        assertThatThrownBy(() -> smoke.withAdapterOverride("adapters/v2")).hasMessageContaining("no model of experiment smoke has an adapter");

        Experiment d = e.withDeviceOverride("cuda:1").withDtypeOverride("int8");
        assertThat(d.models().values()).extracting(ModelSpec::device).containsOnly("cuda:1");
        assertThat(d.models().values()).extracting(ModelSpec::dtype).containsOnly("int8");
        assertThat(e.models().get("base").device()).isEqualTo("auto");
        assertThat(e.models().get("qlora").mergeBase()).isEqualTo("full");
        assertThatThrownBy(() -> e.withDeviceOverride("metal")).isInstanceOf(ExperimentException.class)
                .hasMessageContaining("unknown device 'metal'");
        assertThatThrownBy(() -> e.withDtypeOverride("bf16")).isInstanceOf(ExperimentException.class)
                .hasMessageContaining("unknown dtype 'bf16'");
        Experiment onnx = e.withEngineOverride("onnx");
        assertThat(onnx.models().values()).extracting(ModelSpec::engine).containsOnly("onnx");
        assertThat(onnx.models().get("qlora").adapter()).isEqualTo("no/such/adapter");
        assertThat(e.withEngineOverride("auto").models().values()).extracting(ModelSpec::engine).containsOnly("auto");
        // an oracle stays an oracle: --engine is for models that run in this process
        Experiment oracle = e.withModelOverride("oracle").withEngineOverride("djl");
        assertThat(oracle.models().values()).allMatch(ModelSpec::oracle);
        assertThatThrownBy(() -> e.withEngineOverride("openai")).isInstanceOf(ExperimentException.class)
                .hasMessageContaining("unknown engine 'openai' for --engine; use auto, djl, onnx");

        assertThat(e.withLimit(3).limit()).isEqualTo(3);
        assertThatThrownBy(() -> e.withLimit(0)).hasMessageContaining("limit: must be >= 1");
        assertThat(e.withOutput(Path.of("/tmp/x")).output()).isEqualTo(Path.of("/tmp/x"));
        assertThat(e.withOutput(Path.of("/tmp/x")).withLimit(20)).isNotEqualTo(e).isEqualTo(e.withOutput(Path.of("/tmp/x")));
    }

    @Test
    void resolvedYamlLoadsBackEqual(@TempDir Path dir) throws Exception {
        Experiment ladder = ExperimentLoader.load(EXPERIMENTS.resolve("classicmodels-ladder.yaml"));
        assertThat(ExperimentLoader.parse(ladder.toResolvedYaml(), "resolved.yaml")).isEqualTo(ladder);
        // one rung: an empty family of comparisons, which the file format cannot spell as an empty list
        Experiment single = ExperimentLoader.parse("""
                benchmark: classicmodels
                models: {base: {path: Qwen/Qwen2.5-0.5B-Instruct}}
                strategies: [prompt-k0]
                """, "single.yaml");
        assertThat(single.comparisons()).isEmpty();
        assertThat(ExperimentLoader.parse(single.toResolvedYaml(), "resolved.yaml")).isEqualTo(single);

        Path suite = Files.createDirectories(dir.resolve("suite"));
        String unusual = VALID.replace("name: t", "name: '2024'").replace("{name: qlora-k0", "{name: '007'")
                .replace("    adapter: no/such/adapter\n", "    adapter: no/such/adapter\n    device: cuda:1\n    merge_base: nf4\n") + """
                database: 'true'
                sql_mode: mysql8
                seeds: [5, -2]
                limit: 12
                output: out/x y
                settings:
                  max_new_tokens: 64
                  candidates: 0
                  sample_temperature: 1
                  tabular_prompt: false
                  agent_k: 1
                  stop_strings: ["\\n\\n", ";", "null"]
                  stop_at_semicolon: false
                  timeout_seconds: 2.5
                  row_cap: 50
                scorers: {ex_mode: bird, keep_distinct: true, tolerance: 1e-6, suite: '%s', em_mode: spider-strict}
                """.formatted(suite);
        Experiment e = ExperimentLoader.parse(unusual, "u.yaml");
        assertThat(e.sqlMode()).isEqualTo(dev.ladder.sql.db.SqlMode.MYSQL8);
        assertThat(ExperimentLoader.parse(VALID, "t.yaml").sqlMode()).isEqualTo(dev.ladder.sql.db.SqlMode.SERVER);
        assertThatThrownBy(() -> ExperimentLoader.parse(VALID + "sql_mode: ansi\n", "t.yaml"))
                .hasMessageStartingWith("t.yaml: sql_mode: ").hasMessageContaining("unknown SQL mode 'ansi'");
        assertThat(e.models().get("qlora")).isEqualTo(new ModelSpec("Qwen/Qwen2.5-0.5B-Instruct", "no/such/adapter", "djl",
                "auto", "cuda:1", "nf4"));
        assertThat(e.settings()).isEqualTo(new Settings(64, 0, 1.0, 0, false, 4, true, true, true, 1, List.of("\n\n", ";", "null"),
                false, new ExecutionLimits(Duration.ofMillis(2500), 50), Map.of()));
        assertThat(e.scorers()).isEqualTo(new ScorerSpec(ExMode.BIRD, true, 1e-6, ScorerSpec.Ts.SUITE, suite,
                EmMode.SPIDER_STRICT));
        assertThat(e.scorers().exOptions().emMode()).isEqualTo(EmMode.SPIDER_STRICT);
        String resolved = e.toResolvedYaml();
        assertThat(ExperimentLoader.parse(resolved, "resolved.yaml")).isEqualTo(e);
        // fixed key order, every field present (the empty lines are the "\n\n" stop string's literal block)
        assertThat(resolved.lines().filter(l -> !l.isEmpty() && !l.startsWith(" ") && !l.startsWith("#"))
                .map(l -> l.substring(0, l.indexOf(':'))))
                .containsExactlyElementsOf(ExperimentLoader.TOP_FIELDS);
        assertThat(e.toResolvedYaml()).isEqualTo(resolved);
    }

    @Test
    void benchmarkFoldersGiveTheirSplitsAndDatabase(@TempDir Path dir) throws Exception {
        Path bench = Files.createDirectories(dir.resolve("shop"));
        Files.writeString(bench.resolve("dev.jsonl"), """
                {"id": "s1", "question": "How many orders?", "sql": "SELECT COUNT(*) FROM orders", "category": "aggregate", "difficulty": "easy"}
                """);
        Files.writeString(bench.resolve("database.txt"), "jdbc:sqlite:shop.db\n");
        String text = VALID.replace("benchmark: classicmodels", "benchmark: " + bench);
        Experiment e = ExperimentLoader.parse(text + "split: dev\n", "t.yaml");
        assertThat(e.database()).isEqualTo("jdbc:sqlite:shop.db");
        assertError(text, "split", "unknown split 'test'");
    }

    private static void assertError(String text, String field, String problem) {
        assertThatThrownBy(() -> ExperimentLoader.parse(text, "t.yaml"))
                .isInstanceOf(ExperimentException.class)
                .hasMessageStartingWith("t.yaml: " + field + ": ")
                .hasMessageContaining(problem);
    }

    @Test
    void nonFiniteNumbersAreRefusedWithTheirField() {
        String base = VALID.replace("name: t\n", "");
        record Case(String yaml, String message) {}
        List<Case> cases = List.of(
                new Case("settings:\n  sample_temperature: .nan\n",
                        "t.yaml: settings.sample_temperature: expected a finite number, got .nan (NaN and infinity are not allowed)"),
                new Case("settings:\n  timeout_seconds: -.Inf\n",
                        "t.yaml: settings.timeout_seconds: expected a finite number, got -.Inf (NaN and infinity are not allowed)"),
                new Case("scorers:\n  tolerance: .INF\n",
                        "t.yaml: scorers.tolerance: expected a finite number, got .INF (NaN and infinity are not allowed)"),
                new Case("limit: .nan\n", "t.yaml: limit: expected a finite number, got .nan (NaN and infinity are not allowed)"),
                new Case("scorers:\n  tolerance: 1e999\n", "t.yaml: scorers.tolerance: expected a finite number, got Infinity"));
        for (Case c : cases) {
            assertThatThrownBy(() -> ExperimentLoader.parse(base + c.yaml(), "t.yaml")).as(c.yaml())
                    .isInstanceOf(ExperimentException.class).hasMessage(c.message());
        }
    }

    @Test
    void theSubsetAndASecondExModeAreReadValidatedAndWrittenBack() {
        Experiment d = ExperimentLoader.parse(VALID, "t.yaml");
        assertThat(d.subset()).isEqualTo(dev.ladder.scorer.bench.ItemSubset.DEFAULT);
        assertThat(d.scorers().alsoExMode()).isNull();
        Experiment e = ExperimentLoader.parse(VALID + "limit: 10\nsubset: first\nsubset_seed: 7\n"
                + "scorers: {ex_mode: [bird, spider]}\n", "t.yaml");
        assertThat(e.subset()).isEqualTo(new dev.ladder.scorer.bench.ItemSubset(dev.ladder.scorer.bench.ItemSubset.Method.FIRST, 7));
        assertThat(e.scorers().exMode()).isEqualTo(ExMode.BIRD);
        assertThat(e.scorers().alsoExMode()).isEqualTo(ExMode.SPIDER);
        assertThat(e.scorers().exModesLabel()).isEqualTo("bird,spider");
        assertThat(ExperimentLoader.parse(e.toResolvedYaml(), "r.yaml")).isEqualTo(e);
        assertThatThrownBy(() -> ExperimentLoader.parse(VALID + "subset: random\n", "t.yaml"))
                .hasMessageStartingWith("t.yaml: subset: unknown subset 'random'");
        assertThatThrownBy(() -> ExperimentLoader.parse(VALID + "scorers: {ex_mode: [spider, spider]}\n", "t.yaml"))
                .hasMessageStartingWith("t.yaml: scorers.ex_mode: lists spider twice");
        assertThatThrownBy(() -> ExperimentLoader.parse(VALID + "scorers: {ex_mode: [spider, exact]}\n", "t.yaml"))
                .hasMessageStartingWith("t.yaml: scorers.ex_mode[1]: unknown EX mode 'exact'");
    }

    private static final String SERVED = """
            name: served
            benchmark: classicmodels
            models:
              base:
                engine: openai
                base_url: http://gpu-node-7:8000/v1/
                model: meta-llama/Meta-Llama-3-8B-Instruct
                api_key_env: VLLM_API_KEY
              qlora:
                engine: openai
                base_url: http://gpu-node-7:8000/v1
                model: classicmodels-qlora
                endpoint: chat
                max_concurrent: 16
            strategies:
              - prompt-k0
              - {name: qlora-k0, strategy: prompt-k0, model: qlora}
            """;

    @Test
    void servedModelsReadWithDefaultsAndSurviveTheResolvedYaml() {
        Experiment e = ExperimentLoader.parse(SERVED, "served.yaml");
        ModelSpec base = e.models().get("base");
        assertThat(base.served()).isTrue();
        assertThat(base.path()).isEqualTo("meta-llama/Meta-Llama-3-8B-Instruct");
        assertThat(base.server()).isEqualTo(new ServerSpec("http://gpu-node-7:8000/v1/", "meta-llama/Meta-Llama-3-8B-Instruct",
                "VLLM_API_KEY", "completions", null, 600, 8, 6, true));
        assertThat(e.models().get("qlora").server().endpoint()).isEqualTo("chat");
        assertThat(e.models().get("qlora").server().maxConcurrent()).isEqualTo(16);
        String resolved = e.toResolvedYaml();
        assertThat(resolved).contains("api_key_env: VLLM_API_KEY").doesNotContain("path:");
        assertThat(ExperimentLoader.parse(resolved, "resolved.yaml")).isEqualTo(e);
        // --model, --dtype, --device are for in-process models
        assertThatThrownBy(() -> e.withModelOverride("Qwen/Qwen2.5-0.5B-Instruct")).hasMessageContaining("served (engine openai)");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "adapter: /tmp/lora|serve it on the server",
            "dtype: f16|takes no dtype",
            "api_key_env: sk-abc123|NAME of an environment variable",
            "endpoint: responses|unknown endpoint",
            "prompt_format: llama2|unknown prompt format",
            "max_concurrent: 0|must be >= 1",
            "stream: true|unknown field"})
    void servedModelMistakesAreOneLineNamingTheField(String line, String message) {
        String yaml = SERVED.replace("    api_key_env: VLLM_API_KEY\n", "    api_key_env: VLLM_API_KEY\n    " + line + "\n");
        if (line.startsWith("api_key_env")) yaml = SERVED.replace("api_key_env: VLLM_API_KEY", line);
        String y = yaml;
        assertThatThrownBy(() -> ExperimentLoader.parse(y, "served.yaml")).hasMessageContaining(message)
                .hasMessageContaining("models.base");
    }

    @Test
    void aServedModelNeedsAnHttpUrlWithoutCredentials() {
        assertThatThrownBy(() -> ExperimentLoader.parse(SERVED.replace("http://gpu-node-7:8000/v1/", "gpu-node-7:8000"), "s.yaml"))
                .hasMessageContaining("http://");
        assertThatThrownBy(() -> ExperimentLoader.parse(SERVED.replace("http://gpu-node-7", "http://me:pw@gpu-node-7"), "s.yaml"))
                .hasMessageContaining("api_key_env");
        assertThatThrownBy(() -> ExperimentLoader.parse(SERVED.replace("    model: meta-llama/Meta-Llama-3-8B-Instruct\n", ""), "s.yaml"))
                .hasMessageContaining("model").hasMessageContaining("missing");
    }
}
