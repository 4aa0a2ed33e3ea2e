package dev.ladder.inference.llm;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.Device;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.Sampling;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.inference.model.Weights;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An int8 model decoded with the native extension's product and with the Java path: the random-weight model of
 * {@code ladder model make-tiny}, the same greedy tokens for several prompts decoded together (so the kernels see
 * several rows), and decode logits within float32's parity bound (1e-4 of the largest logit). Runs where the
 * extension is loaded ({@code -Ptorch-bridge} with a build, as CI runs it).
 */
class NativeDecodeParityTest {

    @TempDir
    Path dir;

    @Test
    void nativeInt8DecodesTheJavaPathsTokens() {
        NativeLinearParityTest.requireOrSkip();
        TinyModels.write(dir, TinyModels.Shape.TINY, 3, DType.F32);
        ModelConfig config = ModelConfig.read(dir);
        LlamaModel.Options int8 = new LlamaModel.Options(LlamaModel.Precision.FLOAT32, true, 0);
        LlamaModel on;
        LlamaModel off;
        try (Weights w = Weights.open(dir)) {
            on = LlamaModel.load(config, WeightSource.of(w), Device.cpu(), int8);
            off = LlamaModel.load(config, WeightSource.of(w), Device.cpu(), int8.withNativeKernels(false));
        }
        try (DjlLanguageModel a = new DjlLanguageModel(on, null, "native", null, DjlLanguageModel.Options.DEFAULT);
             DjlLanguageModel b = new DjlLanguageModel(off, null, "java", null, DjlLanguageModel.Options.DEFAULT)) {
            assertThat(on.nativeKernelsActive()).isTrue();
            assertThat(off.nativeKernelsActive()).isFalse();
            List<GenerationRequest> requests = new ArrayList<>();
            for (int seed = 1; seed <= 5; seed++) {
                List<Integer> prompt = new ArrayList<>();
                for (int id : LlamaModelTest.tokens(3 + 2 * seed, seed)) prompt.add(id);
                requests.add(new GenerationRequest(null, prompt, 24, Sampling.GREEDY, 1, 0, Set.of(), List.of()));
            }
            List<List<Integer>> nat = tokens(a, requests);
            assertThat(nat).isEqualTo(tokens(b, requests));

            // the logits behind those tokens, one sequence through the KV cache
            int[] seq = LlamaModelTest.tokens(20, 9);
            float[][] x = LlamaModelTest.decodeLogits(on, seq);
            float[][] y = LlamaModelTest.decodeLogits(off, seq);
            double scale = 0;
            for (float[] row : y) for (float v : row) scale = Math.max(scale, Math.abs(v));
            assertThat(LlamaModelTest.maxDiff(x, y)).isLessThanOrEqualTo(1e-4 * scale);
        }
    }

    private static List<List<Integer>> tokens(DjlLanguageModel lm, List<GenerationRequest> requests) {
        return lm.generate(requests).stream().map(c -> c.candidates().get(0).tokenIds()).toList();
    }
}
