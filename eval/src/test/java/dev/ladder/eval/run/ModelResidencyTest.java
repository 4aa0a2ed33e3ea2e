package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.adapters.TinyAdapters;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.sql.db.TestData;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One model resident at a time: a ladder whose rungs alternate between the base and the QLoRA model (base, QLoRA,
 * base) loads each model exactly once and never holds two, and its rows equal those of running each rung on its own.
 * The models are the real tiny engine; only the loading is wrapped, to count.
 */
class ModelResidencyTest {

    @TempDir static Path tmp;
    static Path model;
    static Path adapter;

    @BeforeAll
    static void tinyModels() throws IOException {
        System.setProperty("ai.djl.offline", "true");
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
        model = tmp.resolve("tiny");
        TinyModels.write(model, TinyModels.Shape.TINY, 5, DType.F32);
        adapter = tmp.resolve("lora");
        TinyAdapters.write(model, adapter, 2, 7);
    }

    /** Counts loads, closes and the most models open at once. */
    static final class Counting implements ExperimentRunner.ModelSource {
        final List<String> loads = new ArrayList<>();
        final AtomicInteger open = new AtomicInteger();
        int mostOpen;

        @Override
        public ModelLoader.Loaded load(Path dir, Path adapterDir, ModelLoader.LoadSpec spec, PrintWriter log) {
            ModelLoader.Loaded real = ModelLoader.load(dir, adapterDir, spec, log);
            loads.add(adapterDir == null ? "base" : "qlora");
            mostOpen = Math.max(mostOpen, open.incrementAndGet());
            LanguageModel counted = new WrappedModel(real.model(), () -> { }, open::decrementAndGet);
            return new ModelLoader.Loaded(counted, real.device(), real.dtype(), real.plan(), real.report(), real.engine());
        }
    }

    private static Experiment experiment(String name, String strategies) throws IOException {
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
                  max_new_tokens: 8
                  candidates: 2
                scorers:
                  ts: none
                """.formatted(name, tmp.resolve("run-" + name), model, model, adapter, strategies));
        return ExperimentLoader.load(yaml);
    }

    private static List<ItemResult> run(Experiment e, ExperimentRunner.ModelSource source) {
        StringWriter log = new StringWriter();
        ExperimentRunner.Options o = new ExperimentRunner.Options(null, null, new PrintWriter(log, true), Optional.empty(),
                tmp, source);
        ExperimentRunner.Outcome out = new ExperimentRunner(e, o).run();
        try (ResultsStore store = ResultsStore.openReadOnly(out.directory().dir().resolve(RunDirectory.RESULTS))) {
            return store.results().stream().map(ModelResidencyTest::withoutTime)
                    .sorted(Comparator.comparing(ItemResult::cell).thenComparing(ItemResult::itemId)).toList();
        }
    }

    private static ItemResult withoutTime(ItemResult r) {
        return new ItemResult(r.cell(), r.itemId(), r.category(), r.difficulty(), r.question(), r.gold(), r.predicted(),
                r.va(), r.ex(), r.em(), r.ts(), r.error(), r.errorClass(), r.chosen(), r.promptTokens(),
                r.generatedTokens(), 0, r.tables(), r.joins(), r.aggregates(), r.nesting());
    }

    @Test
    void eachModelLoadsOnceAndAloneWithTheSameRowsAsRungsRunOnTheirOwn() throws IOException {
        Counting counting = new Counting();
        List<ItemResult> together = run(experiment("interleaved", """
                  - prompt-k0
                  - {name: qlora-k0, strategy: prompt-k0, model: qlora}
                  - agent-1
                """), counting);
        assertThat(counting.loads).containsExactly("base", "qlora");
        assertThat(counting.mostOpen).isEqualTo(1);
        assertThat(counting.open.get()).isZero();
        assertThat(together).hasSize(9);

        List<ItemResult> alone = new ArrayList<>();
        alone.addAll(run(experiment("k0", "  - prompt-k0\n"), ModelLoader::load));
        alone.addAll(run(experiment("qlora", "  - {name: qlora-k0, strategy: prompt-k0, model: qlora}\n"), ModelLoader::load));
        alone.addAll(run(experiment("agent", "  - agent-1\n"), ModelLoader::load));
        alone.sort(Comparator.comparing(ItemResult::cell).thenComparing(ItemResult::itemId));
        assertThat(together).isEqualTo(alone);
    }

    @Test
    void aResumedRunLoadsOnlyTheModelsWithWorkLeft() throws IOException {
        Experiment e = experiment("resume", """
                  - prompt-k0
                  - {name: qlora-k0, strategy: prompt-k0, model: qlora}
                """);
        run(e, ModelLoader::load);
        Counting again = new Counting();
        run(e, again);
        assertThat(again.loads).isEmpty();
    }
}
