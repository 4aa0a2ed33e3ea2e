package dev.ladder.inference.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Random-weight models in Hugging Face layout ({@code config.json}, {@code generation_config.json},
 * {@code model.safetensors} or shards, {@code tokenizer.json}, {@code tokenizer_config.json}) for tests and
 * benchmarks. The same (shape, seed, dtype) writes byte-identical files on every machine: each tensor draws from its
 * own {@link SplittableRandom} seeded from the seed and the tensor's name, through a Box-Muller transform on
 * {@link StrictMath}.
 *
 * <p>Weights: linear layers N(0, 1/fan_in), embeddings N(0, 0.1²), biases N(0, 0.1²), norm weights 1 + N(0, 0.05²).
 * These are larger than a trained model's 0.02 so that attention is far from uniform and the greedy choice is
 * well separated: a wrong RoPE or mask changes the logits visibly.
 *
 * <p>Command line: {@code TinyModels DIR SHAPE SEED [DTYPE] [SHARDS]}.
 */
public final class TinyModels {

    /** Model shapes. All use {@link TinyTokenizer} (512 ids); the model vocabulary covers every id. */
    public enum Shape {
        /** Llama 3 architecture, 2 layers, width 64, grouped-query attention (4 heads, 2 kv heads). */
        TINY(ModelConfig.Architecture.LLAMA, 64, 172, 2, 4, 2, 512, 2048, 500_000.0, 1e-5, false, false, null),
        /** SmolLM2-135M's shape (30 layers, width 576, 9 heads, 3 kv heads, tied), for benchmarks only. */
        SMOLLM2_135M(ModelConfig.Architecture.LLAMA, 576, 1536, 30, 9, 3, 49152, 8192, 100_000.0, 1e-5, true, false,
                null),
        /**
         * Llama-3.2-1B's shape (16 layers, width 2048, MLP 8192, 32 heads, 8 kv heads, vocabulary 128,256, tied,
         * Llama 3 rope scaling factor 32): 1.24 B parameters, 4.94 GB in float32. Benchmarks only (load memory).
         */
        LLAMA3_2_1B(ModelConfig.Architecture.LLAMA, 2048, 8192, 16, 32, 8, 128_256, 131_072, 500_000.0, 1e-5, true,
                false, new ModelConfig.RopeScaling(32.0, 1.0, 4.0, 8192)),
        /**
         * Qwen2.5-0.5B's shape (24 layers, width 896, MLP 4864, 14 heads, 2 kv heads, vocabulary 151,936, tied, q/k/v
         * biases, rope_theta 1e6): 494 M parameters, 1.98 GB in float32; the README's default model, for benchmarks
         * and time estimates only (its tokenizer still covers 512 ids).
         */
        QWEN2_5_0_5B(ModelConfig.Architecture.QWEN2, 896, 4864, 24, 14, 2, 151_936, 32_768, 1_000_000.0, 1e-6, true, true,
                null),
        /** TINY as Qwen2: q/k/v biases, tied embeddings, rope_theta 1e6. */
        QWEN2_TINY(ModelConfig.Architecture.QWEN2, 64, 172, 2, 4, 2, 512, 2048, 1_000_000.0, 1e-6, true, true, null),
        /**
         * TINY with Llama 3 rope scaling (factor 8, low 1, high 4, original 64 positions). With head dim 16 and
         * theta 500000 the 8 frequencies have wavelengths 6.3, 32.4, 167, 862, ...: the first is kept (below 16),
         * the second interpolated (between 16 and 64), the other six divided by 8.
         */
        LLAMA3_ROPE_SCALED_TINY(ModelConfig.Architecture.LLAMA, 64, 172, 2, 4, 2, 512, 2048, 500_000.0, 1e-5, false,
                false, new ModelConfig.RopeScaling(8.0, 1.0, 4.0, 64));

        final ModelConfig.Architecture architecture;
        final int hidden;
        final int intermediate;
        final int layers;
        final int heads;
        final int kvHeads;
        final int vocab;
        final int maxPositions;
        final double ropeTheta;
        final double rmsNormEps;
        final boolean tied;
        final boolean bias;
        final ModelConfig.RopeScaling ropeScaling;

        Shape(ModelConfig.Architecture architecture, int hidden, int intermediate, int layers, int heads, int kvHeads,
              int vocab, int maxPositions, double ropeTheta, double rmsNormEps, boolean tied, boolean bias,
              ModelConfig.RopeScaling ropeScaling) {
            this.architecture = architecture;
            this.hidden = hidden;
            this.intermediate = intermediate;
            this.layers = layers;
            this.heads = heads;
            this.kvHeads = kvHeads;
            this.vocab = vocab;
            this.maxPositions = maxPositions;
            this.ropeTheta = ropeTheta;
            this.rmsNormEps = rmsNormEps;
            this.tied = tied;
            this.bias = bias;
            this.ropeScaling = ropeScaling;
        }

        /** The config {@link #write} puts in {@code config.json} (as {@link ModelConfig#read} reads it back). */
        public ModelConfig config(DType dtype) {
            return new ModelConfig(architecture, hidden, intermediate, layers, heads, kvHeads, hidden / heads, vocab,
                    maxPositions, rmsNormEps, ropeTheta, ropeScaling, tied, bias, TinyTokenizer.BEGIN_OF_TEXT,
                    List.of(TinyTokenizer.END_OF_TEXT, TinyTokenizer.EOT), dtype.torchName());
        }

        /** Number of parameters (tied embeddings counted once). */
        public long parameters() {
            long headDim = hidden / heads;
            long attn = (long) hidden * heads * headDim * 2 + (long) hidden * kvHeads * headDim * 2;
            if (bias) {
                attn += (heads + 2L * kvHeads) * headDim;
            }
            long mlp = 3L * hidden * intermediate;
            long perLayer = attn + mlp + 2L * hidden;
            return (long) vocab * hidden * (tied ? 1 : 2) + layers * perLayer + hidden;
        }
    }

    private TinyModels() {}

    /** Writes a model directory with weights in one {@code model.safetensors}. */
    public static void write(Path dir, Shape shape, long seed, DType dtype) {
        write(dir, shape, seed, dtype, 1);
    }

    /**
     * Writes a model directory; with {@code shards > 1} the weights go into {@code model-0000i-of-0000n.safetensors}
     * files and {@code model.safetensors.index.json} (same tensors, same values as unsharded).
     *
     * @param dtype F32, F16 or BF16
     */
    public static void write(Path dir, Shape shape, long seed, DType dtype, int shards) {
        if (dtype != DType.F32 && dtype != DType.F16 && dtype != DType.BF16) {
            throw new IllegalArgumentException("tiny models are F32, F16 or BF16, not " + dtype);
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        ObjectMapper json = new ObjectMapper();
        SafetensorsWriter.writeAtomically(dir.resolve(ModelConfig.CONFIG_FILE), pretty(json, configJson(json, shape, dtype)));
        SafetensorsWriter.writeAtomically(dir.resolve(ModelConfig.GENERATION_CONFIG_FILE),
                pretty(json, generationConfigJson(json)));
        TinyTokenizer.write(dir);

        SafetensorsWriter w = new SafetensorsWriter().metadata("format", "pt");
        int h = shape.hidden;
        int headDim = shape.hidden / shape.heads;
        int q = shape.heads * headDim;
        int kv = shape.kvHeads * headDim;
        int ff = shape.intermediate;
        double embStd = 0.1;
        linear(w, "model.embed_tokens.weight", shape.vocab, h, embStd, seed, dtype);
        for (int i = 0; i < shape.layers; i++) {
            String p = "model.layers." + i + ".";
            norm(w, p + "input_layernorm.weight", h, seed, dtype);
            linear(w, p + "self_attn.q_proj.weight", q, h, 1 / Math.sqrt(h), seed, dtype);
            if (shape.bias) {
                vector(w, p + "self_attn.q_proj.bias", q, 0.0, 0.1, seed, dtype);
            }
            linear(w, p + "self_attn.k_proj.weight", kv, h, 1 / Math.sqrt(h), seed, dtype);
            if (shape.bias) {
                vector(w, p + "self_attn.k_proj.bias", kv, 0.0, 0.1, seed, dtype);
            }
            linear(w, p + "self_attn.v_proj.weight", kv, h, 1 / Math.sqrt(h), seed, dtype);
            if (shape.bias) {
                vector(w, p + "self_attn.v_proj.bias", kv, 0.0, 0.1, seed, dtype);
            }
            linear(w, p + "self_attn.o_proj.weight", h, q, 1 / Math.sqrt(q), seed, dtype);
            norm(w, p + "post_attention_layernorm.weight", h, seed, dtype);
            linear(w, p + "mlp.gate_proj.weight", ff, h, 1 / Math.sqrt(h), seed, dtype);
            linear(w, p + "mlp.up_proj.weight", ff, h, 1 / Math.sqrt(h), seed, dtype);
            linear(w, p + "mlp.down_proj.weight", h, ff, 1 / Math.sqrt(ff), seed, dtype);
        }
        norm(w, "model.norm.weight", h, seed, dtype);
        if (!shape.tied) {
            linear(w, "lm_head.weight", shape.vocab, h, 1 / Math.sqrt(h), seed, dtype);
        }
        if (shards <= 1) {
            w.write(dir.resolve(Weights.SINGLE_FILE));
        } else {
            w.writeSharded(dir, shards);
        }
    }

    private static void linear(SafetensorsWriter w, String name, int rows, int cols, double std, long seed,
                               DType dtype) {
        w.add(name, new SafetensorsWriter.Tensor(dtype, new long[] {rows, cols},
                () -> gaussian(name, (long) rows * cols, 0.0, std, seed, dtype)));
    }

    private static void norm(SafetensorsWriter w, String name, int n, long seed, DType dtype) {
        vector(w, name, n, 1.0, 0.05, seed, dtype);
    }

    private static void vector(SafetensorsWriter w, String name, int n, double mean, double std, long seed,
                               DType dtype) {
        w.add(name, new SafetensorsWriter.Tensor(dtype, new long[] {n},
                () -> gaussian(name, n, mean, std, seed, dtype)));
    }

    /** numel values mean + std * N(0,1), from a generator seeded by (seed, name), encoded as dtype. */
    static ByteBuffer gaussian(String name, long numel, double mean, double std, long seed, DType dtype) {
        SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L ^ fnv1a(name));
        int n = Math.toIntExact(numel);
        ByteBuffer out = ByteBuffer.allocate(Math.multiplyExact(n, dtype.byteSize())).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i += 2) {
            double u1 = 1.0 - random.nextDouble();          // (0, 1]
            double u2 = random.nextDouble();
            double r = StrictMath.sqrt(-2.0 * StrictMath.log(u1));
            double a = 2.0 * StrictMath.PI * u2;
            put(out, dtype, i, (float) (mean + std * r * StrictMath.cos(a)));
            if (i + 1 < n) {
                put(out, dtype, i + 1, (float) (mean + std * r * StrictMath.sin(a)));
            }
        }
        return out;
    }

    private static void put(ByteBuffer out, DType dtype, int i, float v) {
        switch (dtype) {
            case F32 -> out.putFloat(i << 2, v);
            case F16 -> out.putShort(i << 1, HalfFloats.floatToF16(v));
            case BF16 -> out.putShort(i << 1, HalfFloats.floatToBf16(v));
            default -> throw new IllegalArgumentException(dtype.toString());
        }
    }

    private static long fnv1a(String s) {
        long h = 0xcbf29ce484222325L;
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** The {@code config.json} key that marks a model {@link #write} made: its weights are random. */
    public static final String RANDOM_WEIGHTS_KEY = "ladder_random_weights";

    /** Whether the model in {@code dir} is one {@link #write} made (random weights); false when unreadable. */
    public static boolean randomWeights(Path dir) {
        try {
            JsonNode c = new ObjectMapper().readTree(dir.resolve("config.json").toFile());
            return c.path(RANDOM_WEIGHTS_KEY).asBoolean(false);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    static ObjectNode configJson(ObjectMapper json, Shape s, DType dtype) {
        ObjectNode c = json.createObjectNode();
        boolean qwen = s.architecture == ModelConfig.Architecture.QWEN2;
        c.putArray("architectures").add(qwen ? "Qwen2ForCausalLM" : "LlamaForCausalLM");
        if (!qwen) {
            c.put("attention_bias", s.bias);
        }
        c.put("attention_dropout", 0.0);
        // read by a run (environment.json) and its report: a random-weight model's numbers are never findings
        c.put(RANDOM_WEIGHTS_KEY, true);
        c.put("bos_token_id", TinyTokenizer.BEGIN_OF_TEXT);
        c.put("eos_token_id", TinyTokenizer.END_OF_TEXT);
        c.put("head_dim", s.hidden / s.heads);
        c.put("hidden_act", "silu");
        c.put("hidden_size", s.hidden);
        c.put("initializer_range", 0.02);
        c.put("intermediate_size", s.intermediate);
        c.put("max_position_embeddings", s.maxPositions);
        if (qwen) {
            c.put("max_window_layers", s.layers);
        } else {
            c.put("mlp_bias", false);
        }
        c.put("model_type", qwen ? "qwen2" : "llama");
        c.put("num_attention_heads", s.heads);
        c.put("num_hidden_layers", s.layers);
        c.put("num_key_value_heads", s.kvHeads);
        c.put("rms_norm_eps", s.rmsNormEps);
        if (s.ropeScaling == null) {
            c.putNull("rope_scaling");
        } else {
            ObjectNode r = c.putObject("rope_scaling");
            r.put("factor", s.ropeScaling.factor());
            r.put("high_freq_factor", s.ropeScaling.highFreqFactor());
            r.put("low_freq_factor", s.ropeScaling.lowFreqFactor());
            r.put("original_max_position_embeddings", s.ropeScaling.originalMaxPositions());
            r.put("rope_type", "llama3");
        }
        c.put("rope_theta", s.ropeTheta);
        if (qwen) {
            c.putNull("sliding_window");
        }
        c.put("tie_word_embeddings", s.tied);
        c.put("torch_dtype", dtype.torchName());
        c.put("use_cache", true);
        if (qwen) {
            c.put("use_sliding_window", false);
        }
        c.put("vocab_size", s.vocab);
        return c;
    }

    static ObjectNode generationConfigJson(ObjectMapper json) {
        ObjectNode g = json.createObjectNode();
        g.put("bos_token_id", TinyTokenizer.BEGIN_OF_TEXT);
        g.put("do_sample", false);
        g.putArray("eos_token_id").add(TinyTokenizer.END_OF_TEXT).add(TinyTokenizer.EOT);
        return g;
    }

    private static byte[] pretty(ObjectMapper json, ObjectNode node) {
        try {
            return (json.writerWithDefaultPrettyPrinter().writeValueAsString(node) + "\n")
                    .getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code TinyModels DIR SHAPE SEED [DTYPE] [SHARDS]}: writes one model directory. */
    public static void main(String[] args) {
        if (args.length < 3 || args.length > 5) {
            System.err.println("usage: TinyModels DIR SHAPE SEED [F32|F16|BF16] [SHARDS]   (shapes: "
                    + Arrays.toString(Shape.values()) + ")");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        Shape shape;
        DType dtype;
        long seed;
        int shards;
        try {
            shape = Shape.valueOf(args[1].toUpperCase(Locale.ROOT));
            seed = Long.parseLong(args[2]);
            dtype = args.length > 3 ? DType.fromSafetensorsName(args[3]) : DType.F32;
            shards = args.length > 4 ? Integer.parseInt(args[4]) : 1;
        } catch (IllegalArgumentException e) {
            System.err.println("bad argument: " + e.getMessage());
            System.exit(2);
            return;
        }
        write(dir, shape, seed, dtype, shards);
        System.out.println(dir);
    }
}
