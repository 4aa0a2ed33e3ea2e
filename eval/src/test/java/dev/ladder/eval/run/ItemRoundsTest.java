package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.inference.Candidate;
import dev.ladder.inference.Completion;
import dev.ladder.inference.EngineEvents;
import dev.ladder.inference.EngineFailureException;
import dev.ladder.inference.FinishReason;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.text.CompletionFormat;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Items answered together in rounds: which calls meet in one engine call depends only on the items' calls, never on
 * timing (each item's work sleeps at random to shake the threads' order); each item gets its own completions; an item's
 * failure, in the engine or in its own work, neither hangs the round nor touches another item's answer; the generation
 * cache answers inside the round and credits each item's own thread; the engine's events go to the items of its call.
 * The engine is a test double around the unit that echoes each prompt and records the calls it is sent.
 */
@Timeout(120)   // a hang fails the test instead of the build
class ItemRoundsTest {

    @TempDir Path tmp;

    /** Answers {@code echo:PROMPT}; refuses any call holding the prompt {@code boom}; records every call's prompts. */
    static final class EchoEngine implements LanguageModel {
        final List<List<String>> calls = Collections.synchronizedList(new ArrayList<>());
        final String event;

        EchoEngine(String event) {
            this.event = event;
        }

        @Override
        public synchronized List<Completion> generate(List<GenerationRequest> requests) {
            calls.add(requests.stream().map(GenerationRequest::prompt).toList());
            if (event != null) EngineEvents.record(event);
            if (requests.stream().anyMatch(r -> r.prompt().equals("boom"))) {
                throw new IllegalArgumentException("the engine refuses boom");
            }
            if (requests.stream().anyMatch(r -> r.prompt().equals("oom"))) {
                throw new EngineFailureException("CUDA out of memory", null);
            }
            List<Completion> out = new ArrayList<>();
            for (GenerationRequest r : requests) {
                out.add(new Completion(List.of(new Candidate("echo:" + r.prompt(), List.of(1), List.of(0f),
                        FinishReason.STOP_TOKEN)), 1, 5, 20));
            }
            return out;
        }

        @Override
        public String name() {
            return "echo";
        }

        @Override
        public PromptFormat promptFormat() {
            return new CompletionFormat();
        }

        @Override
        public void close() {}
    }

    private static GenerationRequest req(String prompt) {
        return GenerationRequest.greedy(prompt, 8);
    }

    private static void jitter() {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextInt(3));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Item {@code i} makes {@code i % 3 + 1} calls; item 4's second call asks two prompts at once. */
    private static List<List<String>> callsOf(int item) {
        List<List<String>> calls = new ArrayList<>();
        for (int c = 0; c < item % 3 + 1; c++) {
            calls.add(item == 4 && c == 1 ? List.of(item + "/" + c + "a", item + "/" + c + "b") : List.of(item + "/" + c));
        }
        return calls;
    }

    /**
     * The engine calls rounds must make: the first {@code width} items, each round every active item's next call in
     * item order; an item that has made its last call gives its place to the next item before the next round.
     */
    private static List<List<String>> expectedRounds(int items, int width) {
        List<List<String>> rounds = new ArrayList<>();
        List<Integer> active = new ArrayList<>();
        int next = 0;
        int[] made = new int[items];
        while (true) {
            active.removeIf(i -> made[i] == callsOf(i).size());
            while (active.size() < width && next < items) active.add(next++);
            if (active.isEmpty()) return rounds;
            Collections.sort(active);
            List<String> round = new ArrayList<>();
            for (int i : active) round.addAll(callsOf(i).get(made[i]++));
            rounds.add(round);
        }
    }

    /** Runs the items' calls through rounds, checking each item gets its own completions; returns the engine's calls. */
    private static List<List<String>> runItems(int items, int width) {
        EchoEngine engine = new EchoEngine(null);
        ItemRounds rounds = new ItemRounds(engine);
        Map<Integer, List<String>> answers = new ConcurrentHashMap<>();
        rounds.run(width, IntStream.range(0, items).boxed().toList(), "t", item -> {
            List<String> got = new ArrayList<>();
            for (List<String> call : callsOf(item)) {
                jitter();
                List<Completion> out = rounds.generate(call.stream().map(ItemRoundsTest::req).toList());
                out.forEach(c -> got.add(c.candidates().get(0).text()));
                jitter();
            }
            answers.put(item, got);
        });
        for (int i = 0; i < items; i++) {
            assertThat(answers.get(i)).as("item " + i).isEqualTo(callsOf(i).stream().flatMap(List::stream)
                    .map(p -> "echo:" + p).toList());
        }
        assertThat(rounds.rounds()).isEqualTo(engine.calls.size());
        return engine.calls;
    }

    @Test
    void callsOfDifferentItemsMeetInOneEngineCallInItemOrderTheSameWayEveryTime() {
        List<List<String>> expected = expectedRounds(8, 3);
        assertThat(expected.get(0)).containsExactly("0/0", "1/0", "2/0");
        for (int run = 0; run < 5; run++) {
            assertThat(runItems(8, 3)).as("run " + run).isEqualTo(expected);
        }
    }

    @Test
    void widthOneMakesTheCallsOneItemAtATimeMakes() {
        List<List<String>> sequential = new ArrayList<>();
        for (int i = 0; i < 6; i++) sequential.addAll(callsOf(i));
        assertThat(runItems(6, 1)).isEqualTo(sequential);
        // more threads than items: the width is what there is
        assertThat(runItems(2, 8)).isEqualTo(expectedRounds(2, 2));
    }

    @Test
    void anItemTheEngineRefusesFailsAloneAndTheOthersGetTheirAnswers() {
        EchoEngine engine = new EchoEngine(null);
        ItemRounds rounds = new ItemRounds(engine);
        Map<Integer, String> outcome = new TreeMap<>();
        rounds.run(3, List.of(0, 1, 2), "t", item -> {
            jitter();
            String prompt = item == 1 ? "boom" : "p" + item;
            String got;
            try {
                got = rounds.generate(List.of(req(prompt))).get(0).candidates().get(0).text();
            } catch (IllegalArgumentException e) {
                got = "failed: " + e.getMessage();
            }
            synchronized (outcome) {
                outcome.put(item, got);
            }
        });
        assertThat(outcome).containsExactly(Map.entry(0, "echo:p0"), Map.entry(1, "failed: the engine refuses boom"),
                Map.entry(2, "echo:p2"));
        // the merged call failed; then each item's call alone, in item order
        assertThat(engine.calls).containsExactly(List.of("p0", "boom", "p2"), List.of("p0"), List.of("boom"), List.of("p2"));
    }

    @Test
    void aFailureOfTheEngineItselfGoesToEveryItemOfTheRoundWithoutRetries() {
        EchoEngine engine = new EchoEngine(null);
        ItemRounds rounds = new ItemRounds(engine);
        Map<Integer, String> outcome = new TreeMap<>();
        rounds.run(3, List.of(0, 1, 2), "t", item -> {
            String got;
            try {
                got = rounds.generate(List.of(req(item == 1 ? "oom" : "p" + item))).get(0).candidates().get(0).text();
            } catch (EngineFailureException e) {
                got = "failed: " + e.getMessage();
            }
            synchronized (outcome) {
                outcome.put(item, got);
            }
        });
        assertThat(outcome).containsOnlyKeys(0, 1, 2).allSatisfy((item, got) -> assertThat(got)
                .isEqualTo("failed: CUDA out of memory"));
        assertThat(engine.calls).containsExactly(List.of("p0", "oom", "p2"));
    }

    @Test
    void anItemWhoseWorkThrowsStopsNewItemsWhileTheRoundGoesOnWithoutIt() {
        EchoEngine engine = new EchoEngine(null);
        ItemRounds rounds = new ItemRounds(engine);
        Set<Integer> finished = ConcurrentHashMap.newKeySet();
        List<Integer> started = Collections.synchronizedList(new ArrayList<>());
        assertThatThrownBy(() -> rounds.run(2, List.of(0, 1, 2, 3, 4, 5), "t", item -> {
            started.add(item);
            rounds.generate(List.of(req(item + "/0")));
            jitter();
            if (item == 2) throw new IllegalStateException("the database went away on item 2");
            rounds.generate(List.of(req(item + "/1")));
            finished.add(item);
        })).isInstanceOf(IllegalStateException.class).hasMessage("the database went away on item 2");
        // item 3 was in progress beside item 2: it finishes (its row is worth keeping); nothing starts after
        assertThat(started).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(finished).containsExactlyInAnyOrder(0, 1, 3);
        assertThat(engine.calls).containsExactly(List.of("0/0", "1/0"), List.of("0/1", "1/1"), List.of("2/0", "3/0"),
                List.of("3/1"));
    }

    @Test
    void theGenerationCacheAnswersInsideTheRoundAndCreditsEachItem() {
        EchoEngine engine = new EchoEngine(null);
        try (GenerationCache store = GenerationCache.open(tmp.resolve("cache.sqlite"))) {
            CachedLanguageModel cached = new CachedLanguageModel(engine, "fp", "", store);
            ItemRounds rounds = new ItemRounds(cached);
            CallCounter calls = new CallCounter(rounds);
            // from a thread that is no item's, while no items run: straight to the cache and the engine
            calls.generate(List.of(req("stored")));
            assertThat(engine.calls).containsExactly(List.of("stored"));
            Map<Integer, CallCounter.Snapshot> spent = new TreeMap<>();
            List<String> prompts = List.of("fresh", "stored", "fresh", "other");
            rounds.run(4, List.of(0, 1, 2, 3), "t", item -> {
                jitter();
                CallCounter.Snapshot before = calls.snapshot();
                String text = calls.generate(List.of(req(prompts.get(item)))).get(0).candidates().get(0).text();
                assertThat(text).isEqualTo("echo:" + prompts.get(item));
                synchronized (spent) {
                    spent.put(item, calls.snapshot().minus(before));
                }
            });
            // one engine call for the round: the hit and the repeat never reach it
            assertThat(engine.calls).containsExactly(List.of("stored"), List.of("fresh", "other"));
            assertThat(spent.get(0)).isEqualTo(new CallCounter.Snapshot(1, 0, 1, 0));
            // a stored hit costs what its original call took (5 + 20 ms); a repeat of another item's request in the
            // same round what the call that answered both took, as a hit of it would one item at a time
            assertThat(spent.get(1)).isEqualTo(new CallCounter.Snapshot(1, 1, 1, 25));
            assertThat(spent.get(2)).isEqualTo(new CallCounter.Snapshot(1, 1, 1, 25));
            assertThat(spent.get(3)).isEqualTo(new CallCounter.Snapshot(1, 0, 1, 0));
            assertThat(cached.hits()).isEqualTo(2);
            assertThat(cached.misses()).isEqualTo(3);
        }
    }

    @Test
    void theEnginesEventsGoToEveryItemOfItsCall() {
        EchoEngine engine = new EchoEngine("retried once");
        ItemRounds rounds = new ItemRounds(engine);
        Map<Integer, List<String>> events = new ConcurrentHashMap<>();
        rounds.run(2, List.of(0, 1, 2), "t", item -> {
            EngineEvents.drain();
            for (List<String> call : callsOf(item)) rounds.generate(call.stream().map(ItemRoundsTest::req).toList());
            events.put(item, EngineEvents.drain());
        });
        // item 0 and 1 share round 1, item 1 (second call) and 2 round 2, and item 2 has rounds 3 and 4 alone
        assertThat(events.get(0)).containsExactly("retried once");
        assertThat(events.get(1)).containsExactly("retried once", "retried once");
        assertThat(events.get(2)).containsExactly("retried once", "retried once", "retried once");
    }
}
