package dev.ladder.inference.llm;

import ai.djl.Device;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.inference.Candidate;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.Sampling;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.inference.model.Weights;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Logits and greedy continuations against the plain-PyTorch reference ({@code scripts/reference/llama_reference.py},
 * run in float64) stored in {@code src/test/resources/fixtures/}.
 */
class ReferenceParityTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"tiny-seed1", "qwen2-tiny-seed2", "llama3-rope-scaled-tiny-seed3"})
    void logitsAndGreedyMatchTheReference(String fixture) throws IOException {
        JsonNode header;
        try (InputStream in = getClass().getResourceAsStream("/fixtures/" + fixture + ".json")) {
            assertThat(in).as(fixture).isNotNull();
            header = new ObjectMapper().readTree(in);
        }
        TinyModels.write(dir, TinyModels.Shape.valueOf(header.get("shape").asText()), header.get("seed").asLong(),
                DType.valueOf(header.get("dtype").asText()));
        int[] ids = toInts(header.get("ids"));
        int positions = header.get("logits_shape").get(0).asInt();
        int vocab = header.get("logits_shape").get(1).asInt();
        float[] expected = readFloats("/fixtures/" + header.get("logits_file").asText(), positions * vocab);

        ModelConfig config = ModelConfig.read(dir);
        LlamaModel model;
        try (Weights w = Weights.open(dir)) {
            model = LlamaModel.load(config, WeightSource.of(w), Device.cpu(), LlamaModel.Options.DEFAULT);
        }
        try (DjlLanguageModel lm = new DjlLanguageModel(model, null, fixture, null, DjlLanguageModel.Options.DEFAULT)) {
            float[][] logits = LlamaModelTest.prefillLogits(model, ids);
            double maxDiff = 0;
            for (int p = 0; p < positions; p++) {
                for (int v = 0; v < vocab; v++) maxDiff = Math.max(maxDiff, Math.abs(logits[p][v] - expected[p * vocab + v]));
            }
            assertThat(maxDiff).as("max |logit - reference| for %s", fixture).isLessThan(1e-4);
            float[][] decoded = LlamaModelTest.decodeLogits(model, ids);
            assertThat(LlamaModelTest.maxDiff(decoded, logits)).as("decode vs prefill").isLessThan(1e-4);

            int steps = header.get("generate_steps").asInt();
            List<Integer> greedy = new ArrayList<>();
            for (JsonNode n : header.get("greedy")) greedy.add(n.asInt());
            // the reference does not stop at end-of-sequence ids; the engine does
            int stop = greedy.size();
            for (int i = 0; i < greedy.size(); i++) {
                if (config.eosTokenIds().contains(greedy.get(i))) {
                    stop = i;
                    break;
                }
            }
            List<Integer> prompt = new ArrayList<>();
            for (int id : ids) prompt.add(id);
            Candidate c = lm.generate(List.of(new GenerationRequest(null, prompt, steps, Sampling.GREEDY, 1, 0, Set.of(),
                    List.of()))).get(0).candidates().get(0);
            assertThat(c.tokenIds()).isEqualTo(greedy.subList(0, stop));
        }
    }

    /** Tensors over 2 GiB (Llama-3-8B's f32 embedding) are read in row blocks; the result must not change. */
    @org.junit.jupiter.api.Test
    void tensorsReadInRowBlocksGiveTheSameLogits() {
        TinyModels.write(dir, TinyModels.Shape.TINY, 1, DType.F32);
        ModelConfig config = ModelConfig.read(dir);
        int[] ids = {3, 17, 256, 40, 99, 7};
        float[][] whole;
        float[][] parts;
        long saved = WeightLoader.partBytes;
        try (Weights w = Weights.open(dir)) {
            LlamaModel a = LlamaModel.load(config, WeightSource.of(w), Device.cpu(), LlamaModel.Options.DEFAULT);
            whole = LlamaModelTest.prefillLogits(a, ids);
            a.close();
            WeightLoader.partBytes = 3000; // every matrix of the tiny model is larger: all read in blocks
            LlamaModel b = LlamaModel.load(config, WeightSource.of(w), Device.cpu(), LlamaModel.Options.DEFAULT);
            parts = LlamaModelTest.prefillLogits(b, ids);
            b.close();
        } finally {
            WeightLoader.partBytes = saved;
        }
        assertThat(LlamaModelTest.maxDiff(parts, whole)).isZero();
    }

    @org.junit.jupiter.api.Test
    void loadsAModelDirectoryWithItsTokenizer() {
        TinyModels.write(dir, TinyModels.Shape.TINY, 1, DType.F32);
        try (DjlLanguageModel lm = DjlLanguageModel.load(dir, Device.cpu(), DjlLanguageModel.Options.DEFAULT)) {
            assertThat(lm.name()).isEqualTo(dir.getFileName().toString());
            assertThat(lm.promptFormat()).isNotNull();
            var c = lm.generate(List.of(GenerationRequest.greedy("select name from", 5))).get(0);
            assertThat(c.promptTokens()).isPositive();
            assertThat(c.candidates().get(0).tokenIds()).isNotEmpty();
            assertThat(c.text()).isNotNull();
        }
    }

    private static int[] toInts(JsonNode array) {
        int[] out = new int[array.size()];
        for (int i = 0; i < out.length; i++) out[i] = array.get(i).asInt();
        return out;
    }

    private float[] readFloats(String resource, int count) throws IOException {
        try (InputStream in = getClass().getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            byte[] bytes = in.readAllBytes();
            assertThat(bytes).hasSize(count * 4);
            float[] out = new float[count];
            ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
            return out;
        }
    }
}
