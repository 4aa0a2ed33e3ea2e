package dev.ladder.adapters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.adapters.TestAdapters.Spec;
import dev.ladder.inference.Candidate;
import dev.ladder.inference.FinishReason;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.llm.DjlLanguageModel;
import dev.ladder.inference.llm.LlamaModel;
import dev.ladder.inference.llm.WeightSource;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.inference.model.Weights;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class AdapterMergeTest {

    static final int[] PROMPT = {1, 17, 250, 3, 99, 411, 7, 42};
    static final List<String> ALL = List.of("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj");

    @TempDir Path tmp;

    @BeforeAll
    static void offline() {
        System.setProperty("ai.djl.offline", "true");
    }

    private Path base(TinyModels.Shape shape) {
        Path dir = tmp.resolve("base-" + shape.name().toLowerCase());
        TinyModels.write(dir, shape, 7, DType.F32);
        return dir;
    }

    private static AdapterMerger.Options f32() {
        return new AdapterMerger.Options(DType.F32, 0, MergeBase.FULL, false, "test");
    }

    private static float[][] logits(ModelConfig config, WeightSource source) {
        try (LlamaModel m = LlamaModel.load(config, source, Device.cpu(), LlamaModel.Options.DEFAULT)) {
            return TestAdapters.prefillLogits(m, PROMPT);
        }
    }

    private static float[][] logits(Path modelDir) {
        try (Weights w = Weights.open(modelDir)) {
            return logits(ModelConfig.read(modelDir), WeightSource.of(w));
        }
    }

    @ParameterizedTest
    @EnumSource(value = TinyModels.Shape.class, names = {"TINY", "QWEN2_TINY"})
    void mergedLogitsEqualIndependentlyMergedWeights(TinyModels.Shape shape) {
        Path base = base(shape);
        Path adapter = tmp.resolve("adapter");
        TestAdapters.write(adapter, base, Spec.of(3, ALL, 8, 16));
        Path out = tmp.resolve("merged");
        AdapterMerger.Result r = AdapterMerger.merge(base, adapter, out, f32());
        assertThat(r.adapted()).isEqualTo(7 * 2);

        Map<String, long[]> shapes = new HashMap<>();
        Map<String, float[]> expected = TestAdapters.expected(base, adapter, m -> 16.0 / 8, shapes);
        ModelConfig config = ModelConfig.read(base);
        float[][] want = logits(config, WeightSource.inMemory(expected, shapes));
        float[][] got = logits(out);
        float[][] plain = logits(base);
        assertThat(TestAdapters.maxDiff(got, want)).isLessThan(1e-4);
        assertThat(TestAdapters.maxDiff(plain, want)).as("the adapter changes the logits").isGreaterThan(1e-2);
    }

    @Test
    void rsloraAndRankAlphaPatternsApplyPerModule() {
        Path base = base(TinyModels.Shape.TINY);
        Path adapter = tmp.resolve("adapter");
        Map<String, Integer> ranks = new LinkedHashMap<>();
        ranks.put("q_proj", 4);                                   // suffix after a dot
        ranks.put("model.layers.1.mlp.down_proj", 2);              // the full name
        Map<String, Double> alphas = new LinkedHashMap<>();
        alphas.put("layers\\.0\\.self_attn\\.v_proj", 3.0);       // a regex
        alphas.put("down_proj", 5.0);
        TestAdapters.write(adapter, base, Spec.of(5, List.of("q_proj", "v_proj", "down_proj"), 8, 16).withRslora()
                .patterns(ranks, alphas));
        Path out = tmp.resolve("merged");
        AdapterMerger.merge(base, adapter, out, f32());

        Map<String, Double> scales = new HashMap<>();
        for (int l = 0; l < 2; l++) {
            String p = "model.layers." + l + ".";
            scales.put(p + "self_attn.q_proj", 16 / Math.sqrt(4));
            scales.put(p + "self_attn.v_proj", (l == 0 ? 3.0 : 16.0) / Math.sqrt(8));
            scales.put(p + "mlp.down_proj", 5.0 / Math.sqrt(l == 1 ? 2 : 8));
        }
        Map<String, float[]> expected = TestAdapters.expected(base, adapter, scales::get, new HashMap<>());
        try (Weights merged = Weights.open(out); Weights ad = Weights.open(adapter.resolve(PeftAdapter.WEIGHTS_FILE))) {
            assertThat(ad.info(PeftAdapter.PREFIX + "model.layers.0.self_attn.q_proj.lora_A.weight").dim(0)).isEqualTo(4);
            assertThat(ad.info(PeftAdapter.PREFIX + "model.layers.1.mlp.down_proj.lora_A.weight").dim(0)).isEqualTo(2);
            for (String name : merged.names()) {
                assertThat(TestAdapters.maxDiff(merged.floats(name), expected.get(name))).as(name).isLessThan(1e-5);
            }
        }
        try (PeftAdapter a = PeftAdapter.read(adapter)) {
            for (PeftAdapter.LoraModule m : a.modules()) {
                assertThat(m.scale()).as(m.module()).isCloseTo(scales.get(m.module()), org.assertj.core.data.Offset.offset(1e-12));
            }
        }
    }

    @Test
    void patternKeysFollowPeft() {
        List<String> keys = List.of("q_proj", "layers\\.1\\..*", "model.layers.0.mlp.up_proj");
        assertThat(PeftAdapter.patternKey(keys, "model.layers.0.self_attn.q_proj")).isEqualTo("q_proj");
        assertThat(PeftAdapter.patternKey(keys, "model.layers.0.self_attn.xq_proj")).isNull();
        assertThat(PeftAdapter.patternKey(keys, "model.layers.1.self_attn.q_proj")).isEqualTo("q_proj"); // first wins
        assertThat(PeftAdapter.patternKey(keys, "model.layers.1.mlp.up_proj")).isEqualTo("layers\\.1\\..*");
        assertThat(PeftAdapter.patternKey(keys, "model.layers.0.mlp.up_proj")).isEqualTo("model.layers.0.mlp.up_proj");
        assertThat(PeftAdapter.patternKey(keys, "model.layers.0.mlp.up_proj_x")).isNull();
    }

    @Test
    void loadTimeMergeEqualsMergedDirectoryAndGenerates() {
        Path base = base(TinyModels.Shape.TINY);
        Path adapter = tmp.resolve("adapter");
        TestAdapters.write(adapter, base, Spec.of(11, List.of("q_proj", "o_proj", "up_proj"), 4, 8)
                .save(List.of("lm_head.weight")));
        Path out = tmp.resolve("merged");
        AdapterMerger.Result r = AdapterMerger.merge(base, adapter, out, f32());
        assertThat(r.replaced()).isEqualTo(1);
        try (DjlLanguageModel loaded = AdaptedModels.load(base, adapter, Device.cpu(), DjlLanguageModel.Options.DEFAULT);
             DjlLanguageModel merged = DjlLanguageModel.load(out, Device.cpu(), DjlLanguageModel.Options.DEFAULT)) {
            float[][] a = TestAdapters.prefillLogits(loaded.model(), PROMPT);
            float[][] b = TestAdapters.prefillLogits(merged.model(), PROMPT);
            assertThat(TestAdapters.maxDiff(a, b)).isLessThan(1e-5);
            assertThat(merged.promptFormat().name()).isEqualTo(loaded.promptFormat().name());

            Candidate c1 = merged.generate(List.of(GenerationRequest.greedy("select name from", 4))).get(0).candidates().get(0);
            Candidate c2 = loaded.generate(List.of(GenerationRequest.greedy("select name from", 4))).get(0).candidates().get(0);
            assertThat(c1.tokenIds()).isNotEmpty().isEqualTo(c2.tokenIds());
            if (c1.finishReason() == FinishReason.LENGTH) assertThat(c1.tokenIds()).hasSize(4);
        }
        try (Weights merged = Weights.open(out); Weights ad = Weights.open(adapter.resolve(PeftAdapter.WEIGHTS_FILE))) {
            assertThat(merged.floats("lm_head.weight")).containsExactly(ad.floats(PeftAdapter.PREFIX + "lm_head.weight"));
        }
    }

    @Test
    void loadTimeMergeUsesRowSlicesAndFloat16() {
        Path base = base(TinyModels.Shape.TINY);
        Path adapter = tmp.resolve("adapter");
        TestAdapters.write(adapter, base, Spec.of(2, List.of("gate_proj", "down_proj"), 8, 16));
        Map<String, float[]> expected = TestAdapters.expected(base, adapter, m -> 2.0, new HashMap<>());
        try (PeftAdapter a = PeftAdapter.read(adapter); Weights w = Weights.open(base)) {
            for (MergeBase mb : MergeBase.values()) {
                AdaptedWeightSource s = new AdaptedWeightSource(WeightSource.of(w), a, mb);
                String name = "model.layers.1.mlp.down_proj.weight";
                float[] whole = s.rows(name, 0, 64);
                float[] joined = new float[whole.length];
                int cols = 172;
                for (int first = 0; first < 64; first += 5) {          // unaligned slices of 5 rows
                    int n = Math.min(5, 64 - first);
                    s.float32Rows(name, first, n).asFloatBuffer().get(joined, first * cols, n * cols);
                }
                assertThat(joined).as(mb.name()).containsExactly(whole);
                if (mb == MergeBase.FULL) {
                    assertThat(TestAdapters.maxDiff(whole, expected.get(name))).isLessThan(1e-5);
                    java.nio.ByteBuffer h = s.float16(name);
                    for (int i = 0; i < whole.length; i += 97) {
                        assertThat(dev.ladder.inference.model.HalfFloats.f16ToFloat(h.getShort(i * 2)))
                                .isCloseTo(whole[i], org.assertj.core.data.Offset.offset(Math.abs(whole[i]) * 1e-3f + 1e-4f));
                    }
                }
            }
        }
    }

    @Test
    void embeddingLoraIsTransposedAsPeftDoes() throws Exception {
        Path base = base(TinyModels.Shape.TINY);
        Path adapter = tmp.resolve("adapter");
        TestAdapters.write(adapter, base, Spec.of(1, List.of("q_proj"), 4, 8)
                .config(c -> c.putArray("target_modules").add("embed_tokens")));
        Random rnd = new Random(9);
        float[] a = TestAdapters.gaussian(rnd, 4 * 512, 0.1);   // lora_embedding_A [r, vocab]
        float[] b = TestAdapters.gaussian(rnd, 64 * 4, 0.1);    // lora_embedding_B [dim, r]
        new dev.ladder.inference.model.SafetensorsWriter()
                .add(PeftAdapter.PREFIX + "model.embed_tokens.lora_embedding_A", DType.F32, new long[] {4, 512}, a)
                .add(PeftAdapter.PREFIX + "model.embed_tokens.lora_embedding_B", DType.F32, new long[] {64, 4}, b)
                .write(adapter.resolve(PeftAdapter.WEIGHTS_FILE));
        Path out = tmp.resolve("merged");
        AdapterMerger.merge(base, adapter, out, f32());
        try (Weights m = Weights.open(out); Weights w = Weights.open(base)) {
            float[] got = m.floats("model.embed_tokens.weight");
            float[] orig = w.floats("model.embed_tokens.weight");
            for (int v = 0; v < 512; v++) {
                for (int h = 0; h < 64; h++) {
                    double acc = 0;
                    for (int k = 0; k < 4; k++) acc += (double) b[h * 4 + k] * a[k * 512 + v];
                    assertThat((double) got[v * 64 + h]).isCloseTo(orig[v * 64 + h] + 2.0 * acc,
                            org.assertj.core.data.Offset.offset(1e-5));
                }
            }
        }
    }

    @Test
    void mergeRecordDescribesTheMerge() throws Exception {
        Path base = base(TinyModels.Shape.TINY);
        Path adapter = tmp.resolve("adapter");
        TestAdapters.write(adapter, base, Spec.of(3, List.of("q_proj", "v_proj"), 8, 16)
                .patterns(Map.of("v_proj", 4), Map.of()));
        Path out = tmp.resolve("merged");
        AdapterMerger.Result r = AdapterMerger.merge(base, adapter, out,
                new AdapterMerger.Options(DType.BF16, 2, MergeBase.NF4, false, "9.9.9"));
        assertThat(r.weightFiles()).hasSize(2);
        assertThat(out.resolve(Weights.INDEX_FILE)).exists();
        for (String f : List.of("config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json")) {
            assertThat(out.resolve(f)).exists();
        }
        assertThat(ModelConfig.read(out).torchDtype()).isEqualTo("bfloat16");
        assertThat(Files.list(tmp).map(p -> p.getFileName().toString())).noneMatch(n -> n.contains(".tmp-"));

        JsonNode j = new ObjectMapper().readTree(out.resolve(AdapterMerger.RECORD_FILE).toFile());
        assertThat(j.path("ladder_version").asText()).isEqualTo("9.9.9");
        assertThat(j.path("base").path("dir").asText()).isEqualTo(base.toAbsolutePath().normalize().toString());
        assertThat(j.path("base").path("files").get(0).path("name").asText()).isEqualTo("model.safetensors");
        assertThat(j.path("base").path("files").get(0).path("sha256").asText())
                .isEqualTo(AdapterMerger.sha256(base.resolve("model.safetensors")));
        assertThat(j.path("adapter").path("sha256").path("adapter_model.safetensors").asText())
                .isEqualTo(AdapterMerger.sha256(adapter.resolve("adapter_model.safetensors")));
        assertThat(j.path("adapter").path("sha256").path("adapter_config.json").asText()).hasSize(64);
        assertThat(j.path("adapter").path("peft_type").asText()).isEqualTo("LORA");
        assertThat(j.path("merge_base").asText()).isEqualTo("nf4");
        assertThat(j.path("nf4").path("block_size").asInt()).isEqualTo(64);
        assertThat(j.path("dtype").asText()).isEqualTo("BF16");
        assertThat(j.path("r").asInt()).isEqualTo(8);
        assertThat(j.path("lora_alpha").asDouble()).isEqualTo(16.0);
        assertThat(j.path("use_rslora").asBoolean()).isFalse();
        assertThat(j.path("scale").asDouble()).isEqualTo(2.0);
        assertThat(j.path("rank_pattern").path("v_proj").asInt()).isEqualTo(4);
        assertThat(j.path("modules")).hasSize(4);
        JsonNode v = null;
        for (JsonNode m : j.path("modules")) {
            if (m.path("tensor").asText().equals("model.layers.0.self_attn.v_proj.weight")) v = m;
        }
        assertThat(v).isNotNull();
        assertThat(v.path("r").asInt()).isEqualTo(4);
        assertThat(v.path("scale").asDouble()).isEqualTo(4.0);
        assertThat(j.path("tensors").asInt()).isEqualTo(Weights.open(out).names().size());
        assertThat(j.path("files")).hasSize(2);
    }

    @Test
    void nf4RoundTripUsesCodePointsAndBoundedError() {
        Random rnd = new Random(1);
        float[] v = TestAdapters.gaussian(rnd, 64 * 10 + 17, 0.02);
        v[5] = 0;
        float[] copy = v.clone();
        Nf4.Quantized q = Nf4.quantize(v);
        float[] d = Nf4.dequantize(q);
        Nf4.roundTrip(copy, 0, copy.length);
        assertThat(copy).containsExactly(d);
        assertThat(q.absmax()).hasSize(11);
        float half = Nf4.largestGap() / 2;
        for (int i = 0; i < v.length; i++) {
            float absmax = q.absmax()[i / 64];
            float code = d[i] / absmax;
            int idx = q.indices()[i];
            assertThat(d[i]).isEqualTo(Nf4.CODES[idx] * absmax);
            assertThat(Math.abs(code - Nf4.CODES[idx])).isLessThan(1e-6f);
            assertThat(Math.abs(d[i] - v[i])).isLessThanOrEqualTo(half * absmax * 1.0001f);
            // the nearest code: no other code is closer
            for (float c : Nf4.CODES) {
                assertThat(Math.abs(v[i] / absmax - Nf4.CODES[idx])).isLessThanOrEqualTo(Math.abs(v[i] / absmax - c) + 1e-7f);
            }
        }
        // each block's largest value is exact (code ±1), an exact zero stays zero
        for (int b = 0; b < 11; b++) {
            float m = q.absmax()[b];
            boolean exact = false;
            for (int i = b * 64; i < Math.min(v.length, b * 64 + 64); i++) exact |= Math.abs(d[i]) == m && Math.abs(v[i]) == m;
            assertThat(exact).isTrue();
        }
        assertThat(d[5]).isZero();
        assertThat(Nf4.CODES).hasSize(16).startsWith(-1f).endsWith(1f).contains(0f);
    }

    @Test
    void nf4MergeBaseDiffersFromFullByABoundedAmount() {
        Path base = base(TinyModels.Shape.TINY);
        Path adapter = tmp.resolve("adapter");
        TestAdapters.write(adapter, base, Spec.of(3, List.of("q_proj", "down_proj"), 8, 16));
        Path full = tmp.resolve("full");
        Path nf4 = tmp.resolve("nf4");
        AdapterMerger.merge(base, adapter, full, f32());
        AdapterMerger.merge(base, adapter, nf4, new AdapterMerger.Options(DType.F32, 0, MergeBase.NF4, false, "t"));
        try (Weights f = Weights.open(full); Weights n = Weights.open(nf4); Weights b = Weights.open(base)) {
            for (String name : f.names()) {
                float[] a = f.floats(name);
                float[] c = n.floats(name);
                boolean layerMatrix = name.startsWith("model.layers.") && f.info(name).rank() == 2;
                if (!layerMatrix) {
                    assertThat(c).as(name).containsExactly(a);
                    continue;
                }
                float[] w = b.floats(name);
                float[] rounded = w.clone();
                Nf4.roundTrip(rounded, 0, rounded.length);
                double bound = 0;
                for (int i = 0; i < w.length; i += 64) {
                    float m = 0;
                    for (int k = i; k < Math.min(w.length, i + 64); k++) m = Math.max(m, Math.abs(w[k]));
                    bound = Math.max(bound, m * Nf4.largestGap() / 2);
                }
                double diff = TestAdapters.maxDiff(a, c);
                assertThat(diff).as(name).isGreaterThan(0).isLessThanOrEqualTo(bound * 1.001 + 1e-6);
                // nf4 merged = nf4(W) + (full merged - W)
                for (int i = 0; i < w.length; i++) {
                    assertThat((double) c[i]).isCloseTo(rounded[i] + (a[i] - w[i]), org.assertj.core.data.Offset.offset(1e-5));
                }
            }
        }
    }

    @Test
    void errorsAreOneClearLine() throws Exception {
        Path base = base(TinyModels.Shape.TINY);
        // wrong shapes: lora_A [4, 32] for a q_proj whose input width is 64
        Path wrong = tmp.resolve("wrong");
        writeRaw(wrong, base, Map.of("model.layers.0.self_attn.q_proj.lora_A.weight", new long[] {4, 32},
                "model.layers.0.self_attn.q_proj.lora_B.weight", new long[] {64, 4}));
        assertOneLine(() -> AdapterMerger.merge(base, wrong, tmp.resolve("o1"), f32()), "do not fit base");
        assertThat(tmp.resolve("o1")).doesNotExist();

        // a module missing in the base: layer 5 of a 2-layer model
        Path missing = tmp.resolve("missing");
        writeRaw(missing, base, Map.of("model.layers.5.self_attn.q_proj.lora_A.weight", new long[] {4, 64},
                "model.layers.5.self_attn.q_proj.lora_B.weight", new long[] {64, 4}));
        try (PeftAdapter a = PeftAdapter.read(missing)) {
            assertOneLine(() -> a.validate(base), "does not have");
        }

        Path dora = tmp.resolve("dora");
        TestAdapters.write(dora, base, Spec.of(1, List.of("q_proj"), 4, 8).config(c -> c.put("use_dora", true)));
        assertOneLine(() -> PeftAdapter.read(dora), "use_dora: true");

        Path ia3 = tmp.resolve("ia3");
        TestAdapters.write(ia3, base, Spec.of(1, List.of("q_proj"), 4, 8).config(c -> c.put("peft_type", "IA3")));
        assertOneLine(() -> PeftAdapter.read(ia3), "peft_type 'IA3'");

        Path bin = tmp.resolve("bin");
        TestAdapters.write(bin, base, Spec.of(1, List.of("q_proj"), 4, 8));
        Files.move(bin.resolve(PeftAdapter.WEIGHTS_FILE), bin.resolve(PeftAdapter.PICKLE_FILE));
        assertOneLine(() -> PeftAdapter.read(bin), "convert it to safetensors");

        Path rank = tmp.resolve("rank");
        TestAdapters.write(rank, base, Spec.of(1, List.of("q_proj"), 4, 8).config(c -> c.put("r", 16)));
        assertOneLine(() -> PeftAdapter.read(rank), "r=16");

        Path megatron = tmp.resolve("megatron");
        TestAdapters.write(megatron, base, Spec.of(1, List.of("q_proj"), 4, 8)
                .config(c -> c.putObject("megatron_config").put("x", 1)));
        assertOneLine(() -> PeftAdapter.read(megatron), "megatron_config");

        Path layers = tmp.resolve("layers");
        TestAdapters.write(layers, base, Spec.of(1, List.of("q_proj"), 4, 8)
                .config(c -> c.putArray("layers_to_transform").add(0)));
        assertOneLine(() -> PeftAdapter.read(layers), "layers_to_transform [0] excludes");

        Path untargeted = tmp.resolve("untargeted");
        TestAdapters.write(untargeted, base, Spec.of(1, List.of("q_proj"), 4, 8)
                .config(c -> c.putArray("target_modules").add("v_proj")));
        assertOneLine(() -> PeftAdapter.read(untargeted), "does not select it");

        // lora_A without lora_B
        Path half = tmp.resolve("half");
        Files.createDirectories(half);
        Files.copy(dora.resolve(PeftAdapter.CONFIG_FILE), half.resolve(PeftAdapter.CONFIG_FILE));
        Files.writeString(half.resolve(PeftAdapter.CONFIG_FILE),
                Files.readString(half.resolve(PeftAdapter.CONFIG_FILE)).replace("\"use_dora\" : true", "\"use_dora\" : false"));
        new dev.ladder.inference.model.SafetensorsWriter()
                .add(PeftAdapter.PREFIX + "model.layers.0.self_attn.q_proj.lora_A.weight", DType.F32, new long[] {4, 64}, new float[256])
                .write(half.resolve(PeftAdapter.WEIGHTS_FILE));
        assertOneLine(() -> PeftAdapter.read(half), "lora_A but no lora_B");

        assertOneLine(() -> PeftAdapter.read(tmp.resolve("nowhere")), "adapter directory not found");

        // a non-empty --out is refused without --force, and --out may not be the base
        Path good = tmp.resolve("good");
        TestAdapters.write(good, base, Spec.of(1, List.of("q_proj"), 4, 8));
        Path out = tmp.resolve("out");
        Files.createDirectories(out);
        Files.writeString(out.resolve("keep.txt"), "x");
        assertOneLine(() -> AdapterMerger.merge(base, good, out, f32()), "is not empty");
        assertOneLine(() -> AdapterMerger.merge(base, good, base, new AdapterMerger.Options(null, 0, MergeBase.FULL, true, "t")),
                "must not be");
        AdapterMerger.merge(base, good, out, new AdapterMerger.Options(null, 0, MergeBase.FULL, true, "t"));
        assertThat(out.resolve("keep.txt")).exists();
        assertThat(out.resolve(Weights.SINGLE_FILE)).exists();
    }

    /** An adapter for q_proj (r=4, alpha 8) with the given zero tensors (names without the PEFT prefix). */
    private static void writeRaw(Path dir, Path base, Map<String, long[]> tensors) throws Exception {
        TestAdapters.write(dir, base, Spec.of(1, List.of("q_proj"), 4, 8));
        dev.ladder.inference.model.SafetensorsWriter w = new dev.ladder.inference.model.SafetensorsWriter();
        tensors.forEach((n, shape) -> w.add(PeftAdapter.PREFIX + n, DType.F32, shape, new float[(int) (shape[0] * shape[1])]));
        w.write(dir.resolve(PeftAdapter.WEIGHTS_FILE));
    }

    private static void assertOneLine(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String contains) {
        assertThatThrownBy(call).isInstanceOf(AdapterException.class)
                .hasMessageContaining(contains)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
}
