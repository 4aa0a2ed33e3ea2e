package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.eval.report.RunLoader;
import dev.ladder.inference.Completion;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.sql.db.InfrastructureError;
import dev.ladder.sql.db.TestData;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Items answered together on the real djl engine (a tiny random-weight model): the same run twice writes the same
 * predictions and traces byte for byte but for timings, its engine calls hold several items' requests (counted by a
 * wrapper around the real engine), width 1 answers one item at a time on the runner's own thread, and a run whose
 * engine dies keeps the rows of the items it finished and resumes to exactly the run never stopped.
 */
@Timeout(600)
class ItemBatchingRunTest {

    private static final Set<String> TIMINGS = Set.of("millis", "prefillMillis", "decodeMillis", "cachedMillis");

    @TempDir static Path tmp;
    static Path model;

    @BeforeAll
    static void tinyModel() throws IOException {
        System.setProperty("ai.djl.offline", "true");
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
        model = tmp.resolve("tiny");
        TinyModels.write(model, TinyModels.Shape.TINY, 3, DType.F32);
    }

    private static Experiment experiment(String name, int width) throws IOException {
        Path yaml = tmp.resolve(name + ".yaml");
        // agent-2 samples a pool and the gate draws seeded samples: seeds must not depend on a row's place in a batch
        Files.writeString(yaml, """
                name: %s
                benchmark: classicmodels
                split: train
                limit: 6
                output: %s
                models:
                  base: {path: %s, batch_width: %d}
                strategies: [prompt-k0, agent-2]
                settings:
                  max_new_tokens: 6
                  candidates: 2
                  gate_budget: 1
                scorers: {ts: none}
                """.formatted(name, tmp.resolve("run-" + name), model, width));
        return ExperimentLoader.load(yaml);
    }

    /** Each engine call as the engine got it: the items its requests answer, and the thread that made it. */
    record Call(List<String> items, String thread) {}

    /** Loads the real model, wrapped to record its calls; from call {@code dieAt} on (1-based; 0: never) it throws. */
    private static ExperimentRunner.ModelSource recording(List<Call> calls, int dieAt) {
        return (dir, adapter, spec, log) -> {
            ModelLoader.Loaded real = ModelLoader.load(dir, adapter, spec, log);
            AtomicInteger n = new AtomicInteger();
            LanguageModel wrapped = new LanguageModel() {
                @Override
                public List<Completion> generate(List<GenerationRequest> requests) {
                    calls.add(new Call(requests.stream().map(r -> r.tag().item()).toList(), Thread.currentThread().getName()));
                    if (dieAt > 0 && n.incrementAndGet() >= dieAt) throw new InfrastructureError("the engine died", null);
                    return real.model().generate(requests);
                }

                @Override
                public String name() {
                    return real.model().name();
                }

                @Override
                public PromptFormat promptFormat() {
                    return real.model().promptFormat();
                }

                @Override
                public void close() {
                    real.model().close();
                }
            };
            return new ModelLoader.Loaded(wrapped, real.device(), real.dtype(), real.plan(), real.report(), real.engine());
        };
    }

    private static ExperimentRunner.Outcome run(Experiment e, Path out, ExperimentRunner.ModelSource source) {
        return run(e, out, source, null);
    }

    /** @param cache the generation cache file, or null for none */
    private static ExperimentRunner.Outcome run(Experiment e, Path out, ExperimentRunner.ModelSource source, Path cache) {
        ExperimentRunner.Options o = new ExperimentRunner.Options(cache, null, new PrintWriter(new StringWriter(), true),
                Optional.empty(), tmp, source);
        return new ExperimentRunner(e, o, null, out).run();
    }

    @Test
    void theSameRunTwiceAtWidthFourIsByteIdenticalAndItsEngineCallsHoldSeveralItems() throws Exception {
        Experiment e = experiment("four", 4);
        List<Call> calls = Collections.synchronizedList(new ArrayList<>());
        Path first = tmp.resolve("four-a");
        Path second = tmp.resolve("four-b");
        run(e, first, recording(calls, 0));
        int firstCalls = calls.size();
        run(e, second, recording(new ArrayList<>(), 0));

        assertSameOutputs(first, second);
        assertThat(RunLoader.environment(first)).containsEntry("models.base.batch_width", "4");
        // rounds: the first call of the cell holds the first four items' requests, in item order
        List<Call> mine = calls.subList(0, firstCalls);
        assertThat(mine).anySatisfy(c -> assertThat(Set.copyOf(c.items())).hasSizeGreaterThanOrEqualTo(2));
        assertThat(mine.get(0).items()).hasSize(4).doesNotHaveDuplicates();
        assertThat(mine).allSatisfy(c -> assertThat(c.thread()).contains("-item-"));
        // four items together need fewer engine calls than the items' calls one at a time
        int requests = mine.stream().mapToInt(c -> c.items().size()).sum();
        assertThat(firstCalls).isLessThan(requests);
    }

    @Test
    void widthOneAnswersOneItemAtATimeOnTheRunnersThread() throws Exception {
        Experiment e = experiment("one", 1);
        List<Call> calls = Collections.synchronizedList(new ArrayList<>());
        run(e, tmp.resolve("one-a"), recording(calls, 0));
        String runner = Thread.currentThread().getName();
        assertThat(calls).isNotEmpty().allSatisfy(c -> {
            assertThat(Set.copyOf(c.items())).hasSize(1);
            assertThat(c.thread()).isEqualTo(runner);
        });
        // items in order, each finished before the next starts
        List<String> order = new ArrayList<>();
        for (Call c : calls) if (order.isEmpty() || !order.get(order.size() - 1).equals(c.items().get(0))) order.add(c.items().get(0));
        assertThat(order).hasSize(12);   // six items, two cells
        assertThat(RunLoader.environment(tmp.resolve("one-a"))).containsEntry("models.base.batch_width", "1");
    }

    @Test
    void aRunWhoseEngineDiesResumesToTheRowsOfARunNeverStopped() throws Exception {
        Experiment e = experiment("dies", 4);
        Path whole = tmp.resolve("whole");
        run(e, whole, recording(Collections.synchronizedList(new ArrayList<>()), 0), tmp.resolve("whole-cache.sqlite"));
        Path out = tmp.resolve("dies");
        Path cache = tmp.resolve("dies-cache.sqlite");
        assertThatThrownBy(() -> run(e, out, recording(Collections.synchronizedList(new ArrayList<>()), 6), cache))
                .isInstanceOf(InfrastructureError.class).hasMessageContaining("the engine died");
        int kept;
        try (ResultsStore store = ResultsStore.openReadOnly(out.resolve(RunDirectory.RESULTS))) {
            kept = store.results().size();
        }
        // prompt-k0's six rows and agent-2's first items: the replay below has stored items to go through
        assertThat(kept).isGreaterThan(6).isLessThan(12);
        // the resumed run replays the stored items from the cache, so the items left meet the neighbours they would
        // have met: every prediction and trace as in the run never stopped
        ExperimentRunner.Outcome resumed = run(e, out, recording(Collections.synchronizedList(new ArrayList<>()), 0), cache);
        assertThat(resumed.resumed()).isEqualTo(kept);
        assertThat(resumed.answered()).isEqualTo(12 - kept);
        assertSameOutputs(whole, out);
    }

    /** The same predictions, byte for byte, and the same traces but for their timings. */
    private static void assertSameOutputs(Path first, Path second) throws IOException {
        for (Path f : files(first.resolve(RunDirectory.PREDICTIONS))) {
            Path other = second.resolve(RunDirectory.PREDICTIONS).resolve(f.getFileName());
            assertThat(Files.readString(other, StandardCharsets.UTF_8)).as(f.toString())
                    .isEqualTo(Files.readString(f, StandardCharsets.UTF_8));
        }
        List<Path> traces = files(first.resolve(RunDirectory.TRACES));
        assertThat(traces).hasSize(2);
        for (Path f : traces) {
            Path other = second.resolve(RunDirectory.TRACES).resolve(f.getFileName());
            assertThat(untimed(other)).as(f.toString()).containsExactlyElementsOf(untimed(f));
        }
    }

    private static List<Path> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }

    /** Each line of a trace file with its timing fields removed at any depth (key order kept). */
    private static List<String> untimed(Path file) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            JsonNode node = json.readTree(line);
            strip(node);
            out.add(json.writeValueAsString(node));
        }
        return out;
    }

    private static void strip(JsonNode node) {
        if (node instanceof ObjectNode o) o.remove(TIMINGS);
        node.forEach(ItemBatchingRunTest::strip);
    }
}
