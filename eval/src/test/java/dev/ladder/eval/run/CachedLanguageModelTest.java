package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.inference.Candidate;
import dev.ladder.inference.Completion;
import dev.ladder.inference.FinishReason;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.Sampling;
import dev.ladder.inference.text.CompletionFormat;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CachedLanguageModelTest {

    @TempDir Path tmp;

    /**
     * A test double that never answers the same way twice (its answers carry a call counter), so a cache hit is
     * told apart from a second generation; it records every batch it is sent.
     */
    static final class CountingModel implements LanguageModel {
        final List<List<GenerationRequest>> batches = new ArrayList<>();
        int generated;

        @Override
        public List<Completion> generate(List<GenerationRequest> requests) {
            batches.add(List.copyOf(requests));
            List<Completion> out = new ArrayList<>();
            for (GenerationRequest r : requests) {
                int call = ++generated;
                List<Candidate> candidates = new ArrayList<>();
                for (int i = 0; i < r.n(); i++) {
                    // an emoji, a lone surrogate and a tab: the text must come back byte for byte
                    String text = "SELECT " + call + " -- \uD83D\uDE00 \uD800\t" + r.prompt() + " #" + i;
                    candidates.add(new Candidate(text, List.of(call, 7, i), List.of(-0.1f * call, Float.NEGATIVE_INFINITY,
                            Float.MIN_VALUE), i == 0 ? FinishReason.STOP_TOKEN : FinishReason.LENGTH));
                }
                out.add(new Completion(candidates, 10 + call, 3L * call, 11L * call));
            }
            return out;
        }

        @Override
        public String name() {
            return "counting";
        }

        @Override
        public PromptFormat promptFormat() {
            return new CompletionFormat();
        }

        @Override
        public void close() {}
    }

    static GenerationRequest req(String prompt) {
        return GenerationRequest.greedy(prompt, 32);
    }

    @Test
    void missesGoToTheModelInOneBatchAndHitsComeBackIdentical() {
        CountingModel inner = new CountingModel();
        Path file = tmp.resolve("generation-cache.sqlite");
        List<Completion> first;
        try (GenerationCache cache = GenerationCache.open(file)) {
            CachedLanguageModel m = new CachedLanguageModel(inner, "model-fp", "", cache);
            first = m.generate(List.of(req("a"), req("b")));
            assertThat(inner.batches).hasSize(1);
            assertThat(m.misses()).isEqualTo(2);
            assertThat(m.hits()).isZero();

            assertThat(m.generate(List.of(req("b"), req("a")))).containsExactly(first.get(1), first.get(0));
            assertThat(inner.batches).hasSize(1);
            assertThat(m.hits()).isEqualTo(2);

            // mixed: only c and d are sent, together, in batch order; answers come back in request order
            List<Completion> mixed = m.generate(List.of(req("c"), req("a"), req("d"), req("b")));
            assertThat(inner.batches).hasSize(2);
            assertThat(inner.batches.get(1)).containsExactly(req("c"), req("d"));
            assertThat(mixed.get(1)).isEqualTo(first.get(0));
            assertThat(mixed.get(3)).isEqualTo(first.get(1));
            assertThat(mixed.get(0).text()).startsWith("SELECT 3 ");
            assertThat(mixed.get(2).text()).startsWith("SELECT 4 ");
            assertThat(m.misses()).isEqualTo(4);
            assertThat(m.hits()).isEqualTo(4);

            // a request repeated within one batch is generated once
            List<Completion> twice = m.generate(List.of(req("e"), req("e")));
            assertThat(inner.batches.get(2)).containsExactly(req("e"));
            assertThat(twice.get(1)).isEqualTo(twice.get(0));
            assertThat(m.generate(List.of())).isEmpty();
            assertThat(inner.batches).hasSize(3);
            assertThat(cache.size()).isEqualTo(5);
        }

        // another process, later: the stored completions, exactly
        CountingModel other = new CountingModel();
        try (GenerationCache cache = GenerationCache.open(file)) {
            CachedLanguageModel m = new CachedLanguageModel(other, "model-fp", "", cache);
            List<Completion> again = m.generate(List.of(req("a"), req("b")));
            assertThat(other.batches).isEmpty();
            assertThat(again).isEqualTo(first);
            for (int i = 0; i < 2; i++) {
                Candidate want = first.get(i).candidates().get(0);
                Candidate got = again.get(i).candidates().get(0);
                assertThat(got.text().toCharArray()).isEqualTo(want.text().toCharArray());
                assertThat(got.tokenIds()).isEqualTo(want.tokenIds());
                assertThat(got.logProbs()).isEqualTo(want.logProbs());
            }
            // the fingerprints are part of the key: another adapter is a miss
            CachedLanguageModel adapted = new CachedLanguageModel(other, "model-fp", "adapter-fp", cache);
            adapted.generate(List.of(req("a")));
            assertThat(adapted.misses()).isEqualTo(1);
        }
    }

    @Test
    void aHitCarriesWhatItsOriginalCallTookAndABatchCountsOnce() {
        CountingModel inner = new CountingModel();
        try (GenerationCache cache = GenerationCache.open(tmp.resolve("timed.sqlite"))) {
            CachedLanguageModel m = new CachedLanguageModel(inner, "model-fp", "", cache);
            // call 1 took 3 + 11 ms, call 2 took 6 + 22 ms
            m.generate(List.of(req("a")));
            m.generate(List.of(req("b")));
            assertThat(m.hitMillisOnThisThread()).isZero();
            m.generate(List.of(req("a")));
            assertThat(m.hitMillisOnThisThread()).isEqualTo(14);
            // two hits answered together count as one call: the longer of the two
            m.generate(List.of(req("a"), req("b")));
            assertThat(m.hitMillisOnThisThread()).isEqualTo(14 + 28);
            // a miss adds nothing: its time is measured where it is spent
            m.generate(List.of(req("c")));
            assertThat(m.hitMillisOnThisThread()).isEqualTo(42);
        }
    }

    @Test
    void keyDependsOnEveryDecodingParameterAndFingerprint() {
        GenerationRequest base = new GenerationRequest("prompt", null, 64, new Sampling(0.7, 40, 0.9), 2, 11,
                Set.of(2, 5), List.of(";", "\n\n"));
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("base", GenerationCache.key("m", "a", base));
        keys.put("prompt", GenerationCache.key("m", "a", new GenerationRequest("prompt ", null, 64,
                base.sampling(), 2, 11, base.stopTokenIds(), base.stopStrings())));
        keys.put("promptIds", GenerationCache.key("m", "a", new GenerationRequest("prompt", List.of(1, 2), 64,
                base.sampling(), 2, 11, base.stopTokenIds(), base.stopStrings())));
        keys.put("maxNewTokens", GenerationCache.key("m", "a", new GenerationRequest("prompt", null, 65,
                base.sampling(), 2, 11, base.stopTokenIds(), base.stopStrings())));
        keys.put("temperature", GenerationCache.key("m", "a", base.withSampling(new Sampling(0.8, 40, 0.9), 11)));
        keys.put("topK", GenerationCache.key("m", "a", base.withSampling(new Sampling(0.7, 41, 0.9), 11)));
        keys.put("topP", GenerationCache.key("m", "a", base.withSampling(new Sampling(0.7, 40, 0.95), 11)));
        keys.put("seed", GenerationCache.key("m", "a", base.withSampling(base.sampling(), 12)));
        keys.put("n", GenerationCache.key("m", "a", base.withN(3)));
        keys.put("stopIds", GenerationCache.key("m", "a", base.withStops(Set.of(2), base.stopStrings())));
        keys.put("stopStrings", GenerationCache.key("m", "a", base.withStops(base.stopTokenIds(), List.of(";"))));
        keys.put("stopOrder", GenerationCache.key("m", "a", base.withStops(base.stopTokenIds(), List.of("\n\n", ";"))));
        keys.put("model", GenerationCache.key("m2", "a", base));
        keys.put("adapter", GenerationCache.key("m", "", base));
        assertThat(new HashSet<>(keys.values())).as(keys.toString()).hasSize(keys.size());
        assertThat(keys.values()).allMatch(k -> k.matches("[0-9a-f]{64}"));

        // the same request built again, stop ids in another order: the same key
        GenerationRequest same = new GenerationRequest("prompt", null, 64, new Sampling(0.7, 40, 0.9), 2, 11,
                Set.of(5, 2), List.of(";", "\n\n"));
        assertThat(GenerationCache.key("m", "a", same)).isEqualTo(keys.get("base"));
        // with prompt ids the text is ignored by the model, so by the key too
        GenerationRequest ids1 = new GenerationRequest("one", List.of(1, 2), 8, Sampling.GREEDY, 1, 0, null, null);
        GenerationRequest ids2 = new GenerationRequest("two", List.of(1, 2), 8, Sampling.GREEDY, 1, 0, null, null);
        assertThat(GenerationCache.key("m", "", ids1)).isEqualTo(GenerationCache.key("m", "", ids2));
        assertThat(GenerationCache.keyText("m", "", ids1)).contains("\"promptIds\":[1,2]");
    }

    @Test
    void logProbsSurviveTheStoreBitForBit() {
        SplittableRandom rnd = new SplittableRandom(3);
        List<Float> values = new ArrayList<>(List.of(Float.NaN, Float.NEGATIVE_INFINITY, -0.0f, 0.0f, Float.MIN_VALUE,
                -Float.MAX_VALUE));
        for (int i = 0; i < 20_000; i++) values.add(Float.intBitsToFloat(rnd.nextInt()));
        List<Integer> ids = values.stream().map(v -> 0).toList();
        Completion c = new Completion(List.of(new Candidate("x", ids, values, FinishReason.LENGTH)), 1, 0, 0);
        Completion back = GenerationCache.fromJson(GenerationCache.toJson(c));
        List<Float> got = back.candidates().get(0).logProbs();
        for (int i = 0; i < values.size(); i++) {
            assertThat(Float.floatToIntBits(got.get(i))).as("value %s", values.get(i))
                    .isEqualTo(Float.floatToIntBits(values.get(i)));
        }
    }
}
