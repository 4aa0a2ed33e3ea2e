package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.pipeline.strategy.Trace;
import dev.ladder.sql.db.InfrastructureError;
import dev.ladder.sql.db.TestData;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner's two kinds of failure, on the real tiny engine with one generate call failing on purpose (the stand-in
 * wraps the real model; it is around the runner, which is the unit here): an infrastructure failure stops the run
 * with no row for its item and the rerun resumes there to the undisturbed rows; a failure of the item itself is
 * contained to that item, with the reason in its trace.
 */
class RunFaultsTest {

    @TempDir static Path tmp;
    static Path model;

    @BeforeAll
    static void tinyModel() throws IOException {
        System.setProperty("ai.djl.offline", "true");
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
        model = tmp.resolve("tiny");
        TinyModels.write(model, TinyModels.Shape.TINY, 4, DType.F32);
    }

    /** One item at a time: "the n-th engine call" is one item's (items together: {@code ItemBatchingRunTest}). */
    private static Experiment experiment(String name) throws IOException {
        Path yaml = tmp.resolve(name + ".yaml");
        Files.writeString(yaml, """
                name: %s
                benchmark: classicmodels
                split: train
                limit: 4
                output: %s
                models:
                  base: {path: %s, batch_width: 1}
                strategies: [prompt-k0]
                settings: {max_new_tokens: 6}
                scorers: {ts: none}
                """.formatted(name, tmp.resolve("run-" + name), model));
        return ExperimentLoader.load(yaml);
    }

    /** Loads the real model; its {@code n}-th generate call (1-based) throws what {@code failure} makes. */
    private static ExperimentRunner.ModelSource failingAt(int n, Supplier<RuntimeException> failure) {
        return (dir, adapter, spec, log) -> {
            ModelLoader.Loaded real = ModelLoader.load(dir, adapter, spec, log);
            AtomicInteger calls = new AtomicInteger();
            LanguageModel failing = new WrappedModel(real.model(), () -> {
                if (calls.incrementAndGet() == n) throw failure.get();
            }, () -> { });
            return new ModelLoader.Loaded(failing, real.device(), real.dtype(), real.plan(), real.report(), real.engine());
        };
    }

    private static ExperimentRunner runner(Experiment e, ExperimentRunner.ModelSource source) {
        return new ExperimentRunner(e, new ExperimentRunner.Options(null, null, new PrintWriter(new StringWriter(), true),
                Optional.empty(), tmp, source));
    }

    private static List<ItemResult> rows(Experiment e) {
        try (ResultsStore store = ResultsStore.openReadOnly(e.output().resolve(RunDirectory.RESULTS))) {
            return store.results().stream().map(r -> new ItemResult(r.cell(), r.itemId(), r.category(), r.difficulty(),
                            r.question(), r.gold(), r.predicted(), r.va(), r.ex(), r.em(), r.ts(), r.error(), r.errorClass(),
                            r.chosen(), r.promptTokens(), r.generatedTokens(), 0, r.tables(), r.joins(), r.aggregates(),
                            r.nesting()))
                    .sorted(Comparator.comparing(ItemResult::itemId)).toList();
        }
    }

    @Test
    void anInfrastructureFailureStoresNoRowAndTheRerunResumesToTheUndisturbedRows() throws IOException {
        Experiment undisturbed = experiment("undisturbed");
        runner(undisturbed, ModelLoader::load).run();

        Experiment faulty = experiment("faulty");
        assertThatThrownBy(() -> runner(faulty, failingAt(3, () -> new InfrastructureError("server gone", null))).run())
                .isInstanceOf(InfrastructureError.class).hasMessage("server gone");
        assertThat(rows(faulty)).hasSize(2);   // items 1 and 2; nothing for the third, which did not finish

        ExperimentRunner.Outcome again = runner(faulty, ModelLoader::load).run();
        assertThat(again.answered()).isEqualTo(2);
        assertThat(again.resumed()).isEqualTo(2);
        assertThat(rows(faulty)).isEqualTo(rows(undisturbed));
    }

    @Test
    void anEngineFailureIsAnInfrastructureFailure() throws IOException {
        Experiment e = experiment("engine");
        assertThatThrownBy(() -> runner(e, failingAt(2, () -> new dev.ladder.inference.EngineFailureException("CUDA out of memory", null))).run())
                .isInstanceOf(InfrastructureError.class)
                .hasMessageContaining("the inference engine failed on prompt-k0 item")
                .hasMessageContaining("CUDA out of memory");
        assertThat(rows(e)).hasSize(1);
    }

    @Test
    void aFailureOfTheItemItselfIsContainedToThatItem() throws IOException {
        Experiment undisturbed = experiment("undisturbed-2");
        runner(undisturbed, ModelLoader::load).run();
        Experiment e = experiment("contained");
        runner(e, failingAt(2, () -> new IllegalStateException("a component broke"))).run();
        List<ItemResult> got = rows(e);
        List<ItemResult> want = rows(undisturbed);
        assertThat(got).hasSize(4);
        assertThat(got.get(1).predicted()).isEmpty();
        assertThat(got.get(1).va()).isFalse();
        for (int i : new int[] {0, 2, 3}) assertThat(got.get(i)).isEqualTo(want.get(i));
        try (ResultsStore store = ResultsStore.openReadOnly(e.output().resolve(RunDirectory.RESULTS))) {
            Trace trace = Trace.fromJson(store.traces("prompt-k0").get(1));
            assertThat(trace.decision()).isEqualTo("failed: IllegalStateException: a component broke");
        }
    }
}
