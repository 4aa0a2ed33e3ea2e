package dev.ladder.inference.onnx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import dev.ladder.inference.Candidate;
import dev.ladder.inference.Completion;
import dev.ladder.inference.FinishReason;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.Sampling;
import dev.ladder.inference.llm.DjlLanguageModel;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.ModelException;
import dev.ladder.inference.model.TinyModels;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The onnx engine on the tiny random model TINY seed 1, exported by scripts/reference/export_onnx.py (fixtures in
 * src/test/resources/onnx, made by scripts/reference/make_onnx_fixtures.sh), against the djl engine on the same
 * weights written again by TinyModels.
 */
class OnnxEngineTest {

    /** Chosen tokens' log-probs of the two engines agree to this (float32 in both, different kernels). */
    static final double LOG_PROB_TOLERANCE = 1e-3;

    @TempDir static Path tmp;
    static DjlLanguageModel djl;
    static OnnxLanguageModel onnx;
    static OnnxLanguageModel int4;

    static Path fixture(String name) {
        try {
            return Path.of(OnnxEngineTest.class.getResource("/onnx/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @BeforeAll
    static void load() {
        System.setProperty("ai.djl.offline", "true");
        TinyModels.write(tmp.resolve("tiny"), TinyModels.Shape.TINY, 1, DType.F32);
        djl = DjlLanguageModel.load(tmp.resolve("tiny"), Device.cpu(), DjlLanguageModel.Options.DEFAULT);
        onnx = OnnxLanguageModel.load(fixture("tiny-optimum"), OnnxLanguageModel.Options.DEFAULT);
        int4 = OnnxLanguageModel.load(fixture("tiny-genai-int4"), OnnxLanguageModel.Options.DEFAULT);
    }

    @AfterAll
    static void close() {
        if (djl != null) djl.close();
        if (onnx != null) onnx.close();
        if (int4 != null) int4.close();
    }

    static GenerationRequest greedy(List<Integer> ids, int max) {
        return new GenerationRequest(null, ids, max, Sampling.GREEDY, 1, 0, Set.of(), List.of());
    }

    @Test
    void bothLayoutsAreRecognised() {
        assertThat(onnx.layout()).isEqualTo("optimum");
        assertThat(int4.layout()).isEqualTo("onnxruntime-genai");
        assertThat(onnx.promptFormat().name()).isEqualTo(djl.promptFormat().name());
    }

    @Test
    void greedyGenerationEqualsTheDjlEngineTokenForTokenInOneBatch() {
        // prompts of different lengths in one call: left padding and the cache copy to candidates are exercised
        List<GenerationRequest> requests = List.of(
                greedy(List.of(507, 83, 69, 76, 300), 12),
                greedy(List.of(507, 1, 2), 12),
                greedy(List.of(507, 10, 20, 256, 480, 511, 400, 301), 12),
                new GenerationRequest(null, List.of(507, 5, 6, 7), 12, Sampling.GREEDY, 2, 0, Set.of(), List.of()));
        List<Completion> a = djl.generate(requests);
        List<Completion> b = onnx.generate(requests);
        for (int i = 0; i < requests.size(); i++) {
            assertThat(b.get(i).promptTokens()).isEqualTo(a.get(i).promptTokens());
            for (int c = 0; c < requests.get(i).n(); c++) {
                Candidate x = a.get(i).candidates().get(c);
                Candidate y = b.get(i).candidates().get(c);
                assertThat(y.tokenIds()).as("request %d candidate %d", i, c).isEqualTo(x.tokenIds());
                assertThat(y.finishReason()).isEqualTo(x.finishReason());
                assertThat(y.text()).isEqualTo(x.text());
                for (int t = 0; t < x.logProbs().size(); t++) {
                    assertThat((double) y.logProbs().get(t)).isCloseTo(x.logProbs().get(t),
                            org.assertj.core.data.Offset.offset(LOG_PROB_TOLERANCE));
                }
            }
        }
    }

    @Test
    void seededCandidatesShareOnePrefillAndEqualSingleRequestsOfTheirSeeds() {
        Sampling warm = new Sampling(0.9, 0, 1.0);
        List<Integer> prompt = List.of(507, 40, 41, 42);
        Completion both = onnx.generate(List.of(new GenerationRequest(null, prompt, 10, warm, 2, 7, Set.of(), List.of()))).get(0);
        Completion first = onnx.generate(List.of(new GenerationRequest(null, prompt, 10, warm, 1, 7, Set.of(), List.of()))).get(0);
        Completion second = onnx.generate(List.of(new GenerationRequest(null, prompt, 10, warm, 1, 8, Set.of(), List.of()))).get(0);
        assertThat(both.candidates().get(0).tokenIds()).isEqualTo(first.candidates().get(0).tokenIds());
        assertThat(both.candidates().get(1).tokenIds()).isEqualTo(second.candidates().get(0).tokenIds());
    }

    @Test
    void stopsAndTheContextWindowEndCandidatesAsTheDjlEngineDoes() {
        List<Integer> prompt = List.of(507, 83, 69);
        Candidate free = onnx.generate(List.of(greedy(prompt, 6))).get(0).candidates().get(0);
        int second = free.tokenIds().get(1);
        GenerationRequest stopId = new GenerationRequest(null, prompt, 6, Sampling.GREEDY, 1, 0, Set.of(second), List.of());
        Candidate stopped = onnx.generate(List.of(stopId)).get(0).candidates().get(0);
        assertThat(stopped.finishReason()).isEqualTo(FinishReason.STOP_TOKEN);
        assertThat(stopped.tokenIds()).containsExactly(free.tokenIds().get(0));
        assertThat(free.finishReason()).isEqualTo(FinishReason.LENGTH);
        Candidate none = onnx.generate(List.of(greedy(prompt, 0))).get(0).candidates().get(0);
        assertThat(none.tokenIds()).isEmpty();
        assertThat(none.finishReason()).isEqualTo(FinishReason.LENGTH);
    }

    /**
     * int4 logits' relative L2 error against float32, at most: 4-bit symmetric blocks of 16 add about 10% noise per
     * matrix product on random Gaussian weights, and the tiny model chains 15 of them (measured: 0.20 to 0.27 on
     * these prompts; a wrong nibble order or scale layout gives well over 1).
     */
    static final double INT4_RELATIVE_ERROR = 0.35;

    @Test
    void int4WeightsDecodeWithinAStatedToleranceOfTheFloatModel() {
        for (int[] prompt : List.of(new int[] {507, 83, 69, 76, 300, 301}, new int[] {507, 1, 2}, new int[] {507, 400, 10, 20})) {
            float[] f = onnx.promptLogits(prompt);
            float[] q = int4.promptLogits(prompt);
            double err = 0, norm = 0;
            for (int i = 0; i < f.length; i++) {
                err += (q[i] - f[i]) * (q[i] - f[i]);
                norm += f[i] * f[i];
            }
            assertThat(Math.sqrt(err / norm)).as("relative L2 error of the int4 logits").isLessThan(INT4_RELATIVE_ERROR);
        }
        Candidate q = int4.generate(List.of(greedy(List.of(507, 83, 69), 8))).get(0).candidates().get(0);
        // it decodes: tokens until the budget or an end-of-sequence id
        assertThat(q.tokenIds()).isNotEmpty().hasSizeLessThanOrEqualTo(8);
        assertThat(q.finishReason()).isIn(FinishReason.LENGTH, FinishReason.STOP_TOKEN);
    }

    @Test
    void foldersInNeitherLayoutAreOneClearLine() throws Exception {
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        assertThatThrownBy(() -> OnnxLanguageModel.load(empty, OnnxLanguageModel.Options.DEFAULT))
                .isInstanceOf(ModelException.class).hasMessageContaining("no ONNX decoder here");
        Path wrong = Files.createDirectories(tmp.resolve("wrong-names"));
        for (String f : List.of("model.onnx", "tokenizer.json", "tokenizer_config.json", "generation_config.json")) {
            Files.copy(fixture("tiny-genai-int4").resolve(f), wrong.resolve(f));
        }
        Files.writeString(wrong.resolve("genai_config.json"), """
                {"model": {"context_length": 64, "eos_token_id": 508, "decoder": {"filename": "model.onnx",
                 "inputs": {"past_key_names": "past.%d.k", "past_value_names": "past.%d.v"}}}}
                """);
        assertThatThrownBy(() -> OnnxLanguageModel.load(wrong, OnnxLanguageModel.Options.DEFAULT))
                .isInstanceOf(ModelException.class)
                .hasMessageContaining("missing inputs past.0.k ... (the key/value cache)")
                .hasMessageContaining("found inputs [attention_mask, input_ids, past_key_values.0.key");
        Path broken = Files.createDirectories(tmp.resolve("broken"));
        Files.writeString(broken.resolve("model.onnx"), "not a model");
        Files.copy(fixture("tiny-optimum").resolve("config.json"), broken.resolve("config.json"));
        assertThatThrownBy(() -> OnnxLanguageModel.load(broken, OnnxLanguageModel.Options.DEFAULT))
                .isInstanceOf(ModelException.class).hasMessageContaining("ONNX Runtime cannot load it");
    }
}
