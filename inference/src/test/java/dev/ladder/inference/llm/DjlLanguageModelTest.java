package dev.ladder.inference.llm;

import ai.djl.Device;
import dev.ladder.inference.Candidate;
import dev.ladder.inference.Completion;
import dev.ladder.inference.FinishReason;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.Sampling;
import dev.ladder.inference.model.ModelConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class DjlLanguageModelTest {

    static final int VOCAB = LlamaModelTest.VOCAB;

    /** Id i decodes to one character, so text positions are token positions. */
    static final TokenCodec CODEC = new TokenCodec() {
        @Override
        public int[] encode(String text) {
            return text.chars().map(ch -> ch - 32).toArray();
        }

        @Override
        public String decode(List<Integer> ids) {
            StringBuilder sb = new StringBuilder();
            for (int id : ids) sb.append((char) (32 + id));
            return sb.toString();
        }
    };

    static ModelConfig config;
    static TestModels.Tensors weights;
    static DjlLanguageModel lm;

    @BeforeAll
    static void load() {
        // no end-of-sequence id, so that every test controls its stops (configEosIdsStop checks the config's ids)
        config = configWithEos(List.of());
        weights = TestModels.random(config, 21);
        lm = new DjlLanguageModel(LlamaModel.load(config, weights.source(), Device.cpu(), LlamaModel.Options.DEFAULT),
                CODEC, "tiny", null, DjlLanguageModel.Options.DEFAULT.withMaxBatchRows(8));
    }

    static ModelConfig configWithEos(List<Integer> eos) {
        return new ModelConfig(ModelConfig.Architecture.LLAMA, 64, 128, 2, 4, 2, 16, VOCAB, 48, 1e-5, 10000.0,
                null, false, false, 1, eos, "float32");
    }

    @AfterAll
    static void close() {
        lm.close();
    }

    static GenerationRequest req(int[] prompt, int maxNew, Sampling s, long seed) {
        List<Integer> ids = new ArrayList<>();
        for (int t : prompt) ids.add(t);
        return new GenerationRequest(null, ids, maxNew, s, 1, seed, Set.of(), List.of());
    }

    static final Sampling HOT = new Sampling(1.0, 0, 1.0);
    static final Sampling NUCLEUS = new Sampling(0.8, 20, 0.9);

    @Test
    void greedyFollowsTheArgMaxOfTheFullSequenceLogits() {
        int[] prompt = LlamaModelTest.tokens(7, 1);
        Candidate c = lm.generate(List.of(req(prompt, 12, Sampling.GREEDY, 0))).get(0).candidates().get(0);
        assertThat(c.tokenIds()).isNotEmpty();
        List<Integer> seq = new ArrayList<>();
        for (int t : prompt) seq.add(t);
        for (int i = 0; i < c.tokenIds().size(); i++) {
            float[][] logits = LlamaModelTest.prefillLogits(lm.model(), seq.stream().mapToInt(Integer::intValue).toArray());
            float[] last = logits[logits.length - 1];
            int expected = LlamaModelTest.argMax(last);
            assertThat(c.tokenIds().get(i)).isEqualTo(expected);
            double lse = 0;
            for (float x : last) lse += Math.exp(x - last[expected]);
            assertThat((double) c.logProbs().get(i)).isCloseTo(-Math.log(lse), org.assertj.core.data.Offset.offset(1e-4));
            seq.add(expected);
        }
    }

    @Test
    void batchedEqualsOneAtATimeAndGreedyIsDeterministic() {
        List<GenerationRequest> reqs = List.of(
                req(LlamaModelTest.tokens(5, 2), 9, Sampling.GREEDY, 0),
                req(LlamaModelTest.tokens(13, 3), 4, HOT, 42),
                req(LlamaModelTest.tokens(1, 4), 12, NUCLEUS, 7),
                req(LlamaModelTest.tokens(9, 5), 7, Sampling.GREEDY, 0),
                req(LlamaModelTest.tokens(9, 6), 10, new Sampling(0.7, 0, 0.5), 3));
        List<Completion> batched = lm.generate(reqs);
        List<Completion> again = lm.generate(reqs);
        for (int i = 0; i < reqs.size(); i++) {
            Candidate single = lm.generate(List.of(reqs.get(i))).get(0).candidates().get(0);
            Candidate b = batched.get(i).candidates().get(0);
            assertThat(b.tokenIds()).as("request %d", i).isEqualTo(single.tokenIds());
            assertThat(b.finishReason()).isEqualTo(single.finishReason());
            assertThat(b.text()).isEqualTo(single.text());
            for (int j = 0; j < b.logProbs().size(); j++) {
                assertThat(b.logProbs().get(j)).isCloseTo(single.logProbs().get(j), org.assertj.core.data.Offset.offset(1e-4f));
            }
            assertThat(again.get(i).candidates().get(0).tokenIds()).isEqualTo(b.tokenIds());
            assertThat(batched.get(i).promptTokens()).isEqualTo(reqs.get(i).promptIds().size());
        }
    }

    @Test
    void attentionInQueryBlocksGivesTheSameCompletions() {
        List<GenerationRequest> reqs = List.of(
                req(LlamaModelTest.tokens(5, 2), 9, Sampling.GREEDY, 0),
                req(LlamaModelTest.tokens(13, 3), 6, HOT, 42),
                req(LlamaModelTest.tokens(11, 6), 10, NUCLEUS, 3).withN(3));
        List<Completion> whole = lm.generate(reqs);
        long saved = LlamaModel.attentionBlockBytes;
        try {
            // a few queries per block: the padded, forked prefill attends block by block, decode steps are one query
            LlamaModel.attentionBlockBytes = 3L * 4 * 13 * 12;
            assertThat(LlamaModel.queryBlock(3, 4, 13, 13)).isLessThan(13);
            List<Completion> blocked = lm.generate(reqs);
            for (int i = 0; i < reqs.size(); i++) {
                for (int c = 0; c < whole.get(i).candidates().size(); c++) {
                    Candidate a = whole.get(i).candidates().get(c);
                    Candidate b = blocked.get(i).candidates().get(c);
                    assertThat(b.tokenIds()).as("request %d candidate %d", i, c).isEqualTo(a.tokenIds());
                    for (int j = 0; j < a.logProbs().size(); j++) {
                        assertThat(b.logProbs().get(j)).isCloseTo(a.logProbs().get(j), org.assertj.core.data.Offset.offset(1e-5f));
                    }
                }
            }
        } finally {
            LlamaModel.attentionBlockBytes = saved;
        }
    }

    @Test
    void queryBlocksFitTheirBudget() {
        long saved = LlamaModel.attentionBlockBytes;
        try {
            LlamaModel.attentionBlockBytes = 256L << 20;
            // Llama-3-8B, 3 prompts of 1,279 tokens: 3 x 32 x 1,279 x 12 = 1,473,408 bytes per query, 182 per block
            assertThat(LlamaModel.queryBlock(3, 32, 1279, 1279)).isEqualTo(182);
            assertThat(LlamaModel.queryBlock(1, 32, 1, 4096)).isEqualTo(1);    // a decode step is never split
            assertThat(LlamaModel.queryBlock(1, 9, 40, 40)).isEqualTo(40);     // small passes stay whole
            assertThat(LlamaModel.queryBlock(64, 64, 8192, 8192)).isEqualTo(1);
        } finally {
            LlamaModel.attentionBlockBytes = saved;
        }
    }

    @Test
    void sameSeedSameSampleDifferentSeedsDiffer() {
        int[] prompt = LlamaModelTest.tokens(6, 9);
        List<GenerationRequest> reqs = new ArrayList<>();
        reqs.add(req(prompt, 16, HOT, 5));
        for (long s = 5; s < 11; s++) reqs.add(req(prompt, 16, HOT, s));
        List<Completion> out = lm.generate(reqs);
        List<Integer> a = out.get(0).candidates().get(0).tokenIds();
        assertThat(out.get(1).candidates().get(0).tokenIds()).isEqualTo(a);
        long differing = out.subList(2, out.size()).stream()
                .filter(c -> !c.candidates().get(0).tokenIds().equals(a)).count();
        assertThat(differing).isGreaterThanOrEqualTo(4);
    }

    @Test
    void candidatesOfOneRequestEqualSeparateRunsWithSeedPlusIndex() {
        int[] prompt = LlamaModelTest.tokens(8, 10);
        GenerationRequest r = req(prompt, 10, NUCLEUS, 100).withN(4);
        Completion c = lm.generate(List.of(r, req(LlamaModelTest.tokens(3, 11), 5, HOT, 1))).get(0);
        assertThat(c.candidates()).hasSize(4);
        for (int i = 0; i < 4; i++) {
            Candidate alone = lm.generate(List.of(req(prompt, 10, NUCLEUS, 100 + i))).get(0).candidates().get(0);
            assertThat(c.candidates().get(i).tokenIds()).as("candidate %d", i).isEqualTo(alone.tokenIds());
        }
    }

    @Test
    void moreCandidatesThanBatchRowsStillWork() {
        int[] prompt = LlamaModelTest.tokens(4, 12);
        Completion c = lm.generate(List.of(req(prompt, 3, HOT, 0).withN(10))).get(0);
        assertThat(c.candidates()).hasSize(10);
        assertThat(c.candidates().get(9).tokenIds())
                .isEqualTo(lm.generate(List.of(req(prompt, 3, HOT, 9))).get(0).candidates().get(0).tokenIds());
    }

    /** The greedy continuation, and the first index whose token did not occur before it. */
    private static List<Integer> greedy(int[] prompt, int n) {
        return lm.generate(List.of(req(prompt, n, Sampling.GREEDY, 0))).get(0).candidates().get(0).tokenIds();
    }

    private static int firstNew(List<Integer> ids, int from) {
        for (int k = from; k < ids.size(); k++) if (!ids.subList(0, k).contains(ids.get(k))) return k;
        throw new AssertionError("no fresh token in " + ids);
    }

    @Test
    void stopTokenIdEndsGenerationBeforeIt() {
        int[] prompt = LlamaModelTest.tokens(5, 13);
        List<Integer> full = greedy(prompt, 16);
        assertThat(full).hasSize(16);
        int k = firstNew(full, 3);
        GenerationRequest r = req(prompt, 16, Sampling.GREEDY, 0).withStops(Set.of(full.get(k)), List.of());
        Candidate c = lm.generate(List.of(r)).get(0).candidates().get(0);
        assertThat(c.tokenIds()).isEqualTo(full.subList(0, k));
        assertThat(c.logProbs()).hasSize(k);
        assertThat(c.finishReason()).isEqualTo(FinishReason.STOP_TOKEN);
        assertThat(c.text()).isEqualTo(CODEC.decode(full.subList(0, k)));
    }

    @Test
    void configEosIdsStop() {
        int[] prompt = LlamaModelTest.tokens(5, 16);
        List<Integer> full = greedy(prompt, 16);
        int k = firstNew(full, 2);
        try (DjlLanguageModel withEos = new DjlLanguageModel(
                LlamaModel.load(configWithEos(List.of(full.get(k), VOCAB - 1)), weights.source(), Device.cpu(),
                        LlamaModel.Options.DEFAULT), CODEC, "eos", null, DjlLanguageModel.Options.DEFAULT)) {
            Candidate c = withEos.generate(List.of(req(prompt, 16, Sampling.GREEDY, 0))).get(0).candidates().get(0);
            assertThat(c.tokenIds()).isEqualTo(full.subList(0, k));
            assertThat(c.finishReason()).isEqualTo(FinishReason.STOP_TOKEN);
        }
    }

    @Test
    void stopStringCutsTheTextButNotThePrompt() {
        int[] prompt = LlamaModelTest.tokens(5, 14);
        List<Integer> full = greedy(prompt, 16);
        int k = firstNew(full, 2);
        String stop = CODEC.decode(full.subList(k, k + 2));
        // the prompt containing the stop string must not stop anything
        int[] promptWithStop = new int[prompt.length + 2];
        System.arraycopy(prompt, 0, promptWithStop, 0, prompt.length);
        GenerationRequest r = req(prompt, 16, Sampling.GREEDY, 0).withStops(Set.of(), List.of(stop, "\u0001never"));
        Candidate c = lm.generate(List.of(r)).get(0).candidates().get(0);
        int at = CODEC.decode(full).indexOf(stop);
        assertThat(c.finishReason()).isEqualTo(FinishReason.STOP_STRING);
        assertThat(c.text()).isEqualTo(CODEC.decode(full.subList(0, at)));
        assertThat(c.tokenIds()).isEqualTo(full.subList(0, at + 2));   // up to the token that completed it

        // a prompt that ends with the stop string: only generated text counts
        promptWithStop[prompt.length] = full.get(k);
        promptWithStop[prompt.length + 1] = full.get(k + 1);
        List<Integer> cont = greedy(promptWithStop, 6);
        Candidate d = lm.generate(List.of(req(promptWithStop, 6, Sampling.GREEDY, 0).withStops(Set.of(), List.of(stop))))
                .get(0).candidates().get(0);
        String contText = CODEC.decode(cont);
        int cut = contText.indexOf(stop);
        assertThat(d.text()).isEqualTo(cut < 0 ? contText : contText.substring(0, cut));
        if (cut != 0) assertThat(d.tokenIds()).isNotEmpty();
    }

    @Test
    void idsPastTheTokenizersVocabularyAreNeverGenerated() {
        int small = 20;
        TokenCodec narrow = new TokenCodec() {
            @Override
            public int[] encode(String text) {
                return CODEC.encode(text);
            }

            @Override
            public String decode(List<Integer> ids) {
                for (int id : ids) assertThat(id).as("decoded id").isLessThan(small);
                return CODEC.decode(ids);
            }

            @Override
            public int vocabSize() {
                return small;
            }
        };
        try (DjlLanguageModel m = new DjlLanguageModel(
                LlamaModel.load(config, weights.source(), Device.cpu(), LlamaModel.Options.DEFAULT), narrow, "narrow",
                null, DjlLanguageModel.Options.DEFAULT)) {
            int[] prompt = LlamaModelTest.tokens(3, 10);
            for (Sampling s : List.of(Sampling.GREEDY, HOT)) {
                Candidate c = m.generate(List.of(req(prompt, 24, s, 5))).get(0).candidates().get(0);
                assertThat(c.tokenIds()).hasSize(24).allMatch(id -> id < small);
            }
        }
    }

    @Test
    void theTokenizersEosIdsStopToo() {
        int[] prompt = LlamaModelTest.tokens(5, 16);
        List<Integer> full = greedy(prompt, 16);
        int k = firstNew(full, 2);
        TokenCodec withEos = new TokenCodec() {
            @Override
            public int[] encode(String text) {
                return CODEC.encode(text);
            }

            @Override
            public String decode(List<Integer> ids) {
                return CODEC.decode(ids);
            }

            @Override
            public List<Integer> eosIds() {
                return List.of(full.get(k));
            }
        };
        try (DjlLanguageModel m = new DjlLanguageModel(
                LlamaModel.load(config, weights.source(), Device.cpu(), LlamaModel.Options.DEFAULT), withEos, "eos",
                null, DjlLanguageModel.Options.DEFAULT)) {
            Candidate c = m.generate(List.of(req(prompt, 16, Sampling.GREEDY, 0))).get(0).candidates().get(0);
            assertThat(c.tokenIds()).isEqualTo(full.subList(0, k));
            assertThat(c.finishReason()).isEqualTo(FinishReason.STOP_TOKEN);
        }
    }

    @Test
    void lengthAndContextLimits() {
        int[] prompt = LlamaModelTest.tokens(44, 15);              // context window is 48
        Candidate len = lm.generate(List.of(req(prompt, 2, Sampling.GREEDY, 0))).get(0).candidates().get(0);
        assertThat(len.finishReason()).isEqualTo(FinishReason.LENGTH);
        assertThat(len.tokenIds()).hasSize(2);
        Candidate ctx = lm.generate(List.of(req(prompt, 10, Sampling.GREEDY, 0))).get(0).candidates().get(0);
        assertThat(ctx.finishReason()).isEqualTo(FinishReason.CONTEXT);
        assertThat(ctx.tokenIds()).hasSize(4);
        Candidate over = lm.generate(List.of(req(LlamaModelTest.tokens(50, 1), 5, Sampling.GREEDY, 0))).get(0).candidates().get(0);
        assertThat(over.finishReason()).isEqualTo(FinishReason.CONTEXT);
        assertThat(over.tokenIds()).isEmpty();
        Candidate none = lm.generate(List.of(req(prompt, 0, Sampling.GREEDY, 0))).get(0).candidates().get(0);
        assertThat(none.finishReason()).isEqualTo(FinishReason.LENGTH);
        assertThat(none.tokenIds()).isEmpty();
    }

    @Test
    void textPromptsAreEncodedWithTheCodec() {
        Completion c = lm.generate(List.of(GenerationRequest.greedy("SELECT", 3))).get(0);
        assertThat(c.promptTokens()).isEqualTo(6);
        assertThat(c.candidates().get(0).tokenIds())
                .isEqualTo(greedy(CODEC.encode("SELECT"), 3));
    }

    @Test
    void manyStepsLeaveNoArraysBehind() {
        int before = lm.model().manager().getManagedArrays().size();
        List<GenerationRequest> reqs = new ArrayList<>();
        for (int i = 0; i < 6; i++) reqs.add(req(LlamaModelTest.tokens(3 + i, 30 + i), 20, i % 2 == 0 ? HOT : Sampling.GREEDY, i).withN(2));
        lm.generate(reqs);
        assertThat(lm.model().manager().getManagedArrays()).hasSize(before);
    }
}
