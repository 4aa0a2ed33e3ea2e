package dev.ladder.inference.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class TinyModelsTest {

    @TempDir
    Path tmp;

    private static Set<String> expectedNames(TinyModels.Shape shape) {
        ModelConfig c = shape.config(DType.F32);
        Set<String> names = new HashSet<>(Set.of("model.embed_tokens.weight", "model.norm.weight"));
        if (!c.tieWordEmbeddings()) {
            names.add("lm_head.weight");
        }
        for (int i = 0; i < c.numLayers(); i++) {
            String p = "model.layers." + i + ".";
            for (String s : new String[] {"q", "k", "v", "o"}) {
                names.add(p + "self_attn." + s + "_proj.weight");
            }
            if (c.attentionBias()) {
                names.add(p + "self_attn.q_proj.bias");
                names.add(p + "self_attn.k_proj.bias");
                names.add(p + "self_attn.v_proj.bias");
            }
            for (String s : new String[] {"gate", "up", "down"}) {
                names.add(p + "mlp." + s + "_proj.weight");
            }
            names.add(p + "input_layernorm.weight");
            names.add(p + "post_attention_layernorm.weight");
        }
        return names;
    }

    @Test
    void tinyShapesWriteHuggingFaceLayouts() {
        for (TinyModels.Shape shape : new TinyModels.Shape[] {TinyModels.Shape.TINY, TinyModels.Shape.QWEN2_TINY,
                TinyModels.Shape.LLAMA3_ROPE_SCALED_TINY}) {
            Path dir = tmp.resolve(shape.name());
            TinyModels.write(dir, shape, 5, DType.F32);
            ModelConfig c = ModelConfig.read(dir);
            assertThat(c).isEqualTo(shape.config(DType.F32));
            assertThat(c.eosTokenIds()).containsExactly(TinyTokenizer.END_OF_TEXT, TinyTokenizer.EOT);
            assertThat(c.vocabSize()).isGreaterThanOrEqualTo(TinyTokenizer.VOCAB_SIZE);
            try (Weights w = Weights.open(dir)) {
                assertThat(w.names()).containsExactlyInAnyOrderElementsOf(expectedNames(shape));
                assertThat(w.info("model.layers.0.self_attn.k_proj.weight").shape())
                        .containsExactly(c.numKvHeads() * c.headDim(), c.hiddenSize());
                assertThat(w.info("model.layers.1.mlp.down_proj.weight").shape())
                        .containsExactly(c.hiddenSize(), c.intermediateSize());
                float[] norm = w.floats("model.norm.weight");
                assertThat(mean(norm)).isCloseTo(1.0, within(0.05));
                float[] q = w.floats("model.layers.0.self_attn.q_proj.weight");
                assertThat(mean(q)).isCloseTo(0.0, within(0.01));
                assertThat(std(q)).isCloseTo(1 / Math.sqrt(c.hiddenSize()), within(0.01));
                long params = 0;
                for (String n : w.names()) {
                    params += w.info(n).numel();
                }
                assertThat(params).isEqualTo(shape.parameters());
            }
        }
        assertThat(TinyModels.Shape.SMOLLM2_135M.parameters()).isBetween(134_000_000L, 135_000_000L);
        // Meta's Llama-3.2-1B: 1,235,814,400 parameters
        assertThat(TinyModels.Shape.LLAMA3_2_1B.parameters()).isEqualTo(1_235_814_400L);
        // Qwen2.5-0.5B's model card: 0.49 B parameters, 0.36 B without the (tied) embedding of 151,936 x 896
        assertThat(TinyModels.Shape.QWEN2_5_0_5B.parameters()).isEqualTo(494_032_768L);
        assertThat(TinyModels.Shape.QWEN2_5_0_5B.parameters() - 151_936L * 896).isBetween(355_000_000L, 365_000_000L);
    }

    @Test
    void sameSeedSameBytesOtherSeedOtherWeights() throws IOException {
        TinyModels.write(tmp.resolve("a"), TinyModels.Shape.TINY, 9, DType.F32);
        TinyModels.write(tmp.resolve("b"), TinyModels.Shape.TINY, 9, DType.F32);
        TinyModels.write(tmp.resolve("c"), TinyModels.Shape.TINY, 10, DType.F32);
        for (String f : new String[] {"model.safetensors", "config.json", "tokenizer.json", "tokenizer_config.json",
                "generation_config.json"}) {
            assertThat(Files.readAllBytes(tmp.resolve("a").resolve(f))).isEqualTo(Files.readAllBytes(tmp.resolve("b").resolve(f)));
        }
        assertThat(Files.readAllBytes(tmp.resolve("a/model.safetensors")))
                .isNotEqualTo(Files.readAllBytes(tmp.resolve("c/model.safetensors")));
        // marked as random weights, which a run and its report read; a model without the key is not
        assertThat(TinyModels.randomWeights(tmp.resolve("a"))).isTrue();
        Files.writeString(tmp.resolve("a/config.json"), Files.readString(tmp.resolve("a/config.json"))
                .replace("\"" + TinyModels.RANDOM_WEIGHTS_KEY + "\"", "\"other_key\""));
        assertThat(TinyModels.randomWeights(tmp.resolve("a"))).isFalse();
        assertThat(TinyModels.randomWeights(tmp.resolve("absent"))).isFalse();
    }

    @Test
    void shardedAndBf16CopiesHoldTheSameWeights() {
        TinyModels.write(tmp.resolve("single"), TinyModels.Shape.QWEN2_TINY, 4, DType.F32);
        TinyModels.write(tmp.resolve("sharded"), TinyModels.Shape.QWEN2_TINY, 4, DType.F32, 3);
        TinyModels.write(tmp.resolve("bf16"), TinyModels.Shape.QWEN2_TINY, 4, DType.BF16);
        TinyModels.write(tmp.resolve("f16"), TinyModels.Shape.QWEN2_TINY, 4, DType.F16);
        assertThat(tmp.resolve("sharded/model.safetensors.index.json")).exists();
        assertThat(tmp.resolve("sharded/model.safetensors")).doesNotExist();
        try (Weights a = Weights.open(tmp.resolve("single")); Weights b = Weights.open(tmp.resolve("sharded"));
             Weights bf = Weights.open(tmp.resolve("bf16")); Weights h = Weights.open(tmp.resolve("f16"))) {
            assertThat(b.files()).hasSize(3);
            assertThat(b.names()).isEqualTo(a.names());
            assertThat(ModelConfig.read(tmp.resolve("bf16")).torchDtype()).isEqualTo("bfloat16");
            for (String n : a.names()) {
                float[] x = a.floats(n);
                assertThat(b.floats(n)).containsExactly(x);
                assertThat(bf.info(n).dtype()).isEqualTo(DType.BF16);
                float[] y = bf.floats(n);
                float[] z = h.floats(n);
                for (int i = 0; i < x.length; i++) {
                    assertThat(y[i]).isEqualTo(HalfFloats.bf16ToFloat(HalfFloats.floatToBf16(x[i])));
                    assertThat(z[i]).isEqualTo(HalfFloats.f16ToFloat(HalfFloats.floatToF16(x[i])));
                }
            }
        }
    }

    @Test
    void bf16WeightsReachDjlAsFloat32NeverBfloat16() {
        Path dir = tmp.resolve("bf16");
        TinyModels.write(dir, TinyModels.Shape.TINY, 3, DType.BF16);
        try (Weights w = Weights.open(dir); NDManager manager = NDManager.newBaseManager("PyTorch")) {
            for (String n : w.names()) {
                TensorInfo info = w.info(n);
                assertThat(info.dtype()).isEqualTo(DType.BF16);
                ByteBuffer f32 = w.toFloat32(n);
                NDArray a = manager.create(f32, new Shape(info.shape()), DataType.FLOAT32);
                assertThat(a.getDataType()).isEqualTo(DataType.FLOAT32);
                assertThat(a.getShape().getShape()).containsExactly(info.shape());
                assertThat(a.toFloatArray()).containsExactly(w.floats(n));
                NDArray h = manager.create(w.toFloat16(n), new Shape(info.shape()), DataType.FLOAT16);
                assertThat(h.getDataType()).isEqualTo(DataType.FLOAT16);
                assertThat(h.toType(DataType.FLOAT32, false).sub(a).abs().max().getFloat())
                        .isLessThanOrEqualTo(0.01f * Math.max(1f, a.abs().max().getFloat()));
            }
        }
    }

    private static double mean(float[] v) {
        double s = 0;
        for (float x : v) {
            s += x;
        }
        return s / v.length;
    }

    private static double std(float[] v) {
        double m = mean(v);
        double s = 0;
        for (float x : v) {
            s += (x - m) * (x - m);
        }
        return Math.sqrt(s / v.length);
    }
}
