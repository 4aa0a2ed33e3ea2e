package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.sql.db.TestData;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a run records besides the scores, on the real tiny engine: the calls each answer made and how many the
 * generation cache answered, a seed-free rung answered once and reused for the other seeds, a skipped rung kept with
 * its reason, how the items were chosen, and EX in a second mode.
 */
class RunBookkeepingTest {

    @TempDir static Path tmp;
    static Path model;

    @BeforeAll
    static void tinyModel() throws IOException {
        System.setProperty("ai.djl.offline", "true");
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
        model = tmp.resolve("tiny");
        TinyModels.write(model, TinyModels.Shape.TINY, 3, DType.F32);
    }

    private static Experiment experiment(String name, String extra, String strategies) throws IOException {
        Path yaml = tmp.resolve(name + ".yaml");
        Files.writeString(yaml, """
                name: %s
                benchmark: classicmodels
                split: train
                limit: 3
                output: %s
                models:
                  base: {path: %s}
                  qlora: {path: %s, adapter: %s}
                strategies:
                %s
                settings:
                  max_new_tokens: 6
                  candidates: 1
                  gate_budget: 1
                scorers:
                  ts: none
                %s
                """.formatted(name, tmp.resolve("run-" + name), model, model, tmp.resolve("no-adapter-yet"), strategies,
                extra));
        return ExperimentLoader.load(yaml);
    }

    private static ResultsStore run(Experiment e, Path cache, StringWriter log) {
        ExperimentRunner.Options o = new ExperimentRunner.Options(cache, null, new PrintWriter(log, true), Optional.empty(),
                tmp);
        ExperimentRunner.Outcome out = new ExperimentRunner(e, o).run();
        return ResultsStore.openReadOnly(out.directory().dir().resolve(RunDirectory.RESULTS));
    }

    @Test
    void aSeedFreeRungRunsOnceAndItsOtherSeedsReuseItsRowsWhileASampledRungRunsPerSeed() throws IOException {
        Experiment e = experiment("seeds", "seeds: [0, 1]", """
                  - prompt-k0
                  - agent-0
                """);
        StringWriter log = new StringWriter();
        try (ResultsStore store = run(e, null, log)) {
            Map<String, List<ItemResult>> byCell = store.results().stream()
                    .collect(Collectors.groupingBy(ItemResult::cell));
            assertThat(byCell.keySet()).containsExactlyInAnyOrder("prompt-k0@0", "prompt-k0@1", "agent-0@0", "agent-0@1");
            List<ItemResult> first = byCell.get("prompt-k0@0");
            List<ItemResult> second = byCell.get("prompt-k0@1");
            assertThat(first).allSatisfy(r -> {
                assertThat(r.calls()).isEqualTo(1);   // one greedy request, no cache in this run
                assertThat(r.cachedCalls()).isZero();
            });
            for (int i = 0; i < first.size(); i++) {
                assertThat(second.get(i).predicted()).isEqualTo(first.get(i).predicted());
                assertThat(second.get(i).ex()).isEqualTo(first.get(i).ex());
                // reused: answered without the model
                assertThat(second.get(i).cachedCalls()).isEqualTo(second.get(i).calls()).isEqualTo(1);
            }
            assertThat(store.traces("prompt-k0@1")).isEqualTo(store.traces("prompt-k0@0"));
            // agent-0 samples when its greedy candidate fails, so it answers under each seed itself
            assertThat(byCell.get("agent-0@1")).allSatisfy(r -> assertThat(r.cachedCalls()).isZero());
        }
        assertThat(log.toString()).contains("prompt-k0@1: 3 items reused from prompt-k0@0");
    }

    @Test
    void callsAnsweredByTheGenerationCacheAreCountedPerItem() throws IOException {
        Path cache = tmp.resolve("cache.sqlite");
        Experiment e = experiment("cached", "", "  - prompt-k0\n");
        try (ResultsStore store = run(e, cache, new StringWriter())) {
            assertThat(store.results()).allSatisfy(r -> assertThat(r.cachedCalls()).isZero());
        }
        try (ResultsStore store = run(e.withOutput(tmp.resolve("run-cached-again")), cache, new StringWriter())) {
            assertThat(store.results()).hasSize(3).allSatisfy(r -> {
                assertThat(r.calls()).isEqualTo(1);
                assertThat(r.cachedCalls()).isEqualTo(1);
            });
        }
    }

    @Test
    void aSkippedRungStaysInTheStoreWithItsReasonAndTheRunSaysHowItemsWereChosenAndScored() throws IOException {
        Experiment e = experiment("skipped", "  ex_mode: [spider, bird]", """
                  - prompt-k0
                  - {name: qlora-k0, strategy: prompt-k0, model: qlora}
                """);
        try (ResultsStore store = run(e, null, new StringWriter())) {
            assertThat(store.cells()).extracting(Cell::name).containsExactly("prompt-k0", "qlora-k0");
            assertThat(store.results("qlora-k0")).isEmpty();
            assertThat(store.meta("skipped.qlora-k0")).startsWith("no PEFT adapter at ").contains("no-adapter-yet");
            assertThat(store.meta("skipped.prompt-k0")).isNull();
            assertThat(store.meta("items.selection"))
                    .isEqualTo("3 of 200 items, stratified by category and difficulty (proportional allocation, seed 0)");
            assertThat(store.meta("scorers.ex_modes")).isEqualTo("spider,bird");
            assertThat(store.meta("ts.missing")).isEqualTo("TS is off (scorers.ts: none)");
            assertThat(store.results("prompt-k0")).hasSize(3).allSatisfy(r -> assertThat(r.exAlt()).isNotNull());
        }
        assertThat(Files.readString(tmp.resolve("run-skipped").resolve(RunDirectory.ENVIRONMENT)))
                .containsPattern("\"run.started\" ?: ?\"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\"");
    }
}
