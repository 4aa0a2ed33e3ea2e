package dev.ladder.inference.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The architecture of a decoder-only model, as read from a Hugging Face {@code config.json}.
 *
 * @param architecture      LLAMA (Llama 3 / 3.1 / 3.2, SmolLM2 and other Llama-architecture models) or QWEN2
 * @param hiddenSize        model width
 * @param intermediateSize  SwiGLU width
 * @param numLayers         decoder layers
 * @param numHeads          query heads
 * @param numKvHeads        key/value heads (grouped-query attention when fewer than numHeads)
 * @param headDim           per-head width (hiddenSize / numHeads unless config says otherwise)
 * @param vocabSize         rows of the embedding
 * @param maxPositions      max_position_embeddings
 * @param rmsNormEps        RMSNorm epsilon
 * @param ropeTheta         RoPE base
 * @param ropeScaling       Llama-3 style rope scaling, or null
 * @param tieWordEmbeddings the LM head is the embedding matrix
 * @param attentionBias     q/k/v projections have biases (Qwen2)
 * @param bosTokenId        begin-of-sequence id, or -1
 * @param eosTokenIds       end-of-sequence ids (config.json and generation_config.json together)
 * @param torchDtype        dtype the weights are stored in (e.g. bfloat16)
 */
public record ModelConfig(Architecture architecture, int hiddenSize, int intermediateSize, int numLayers, int numHeads,
                          int numKvHeads, int headDim, int vocabSize, int maxPositions, double rmsNormEps,
                          double ropeTheta, RopeScaling ropeScaling, boolean tieWordEmbeddings, boolean attentionBias,
                          int bosTokenId, List<Integer> eosTokenIds, String torchDtype) {

    public enum Architecture { LLAMA, QWEN2 }

    /**
     * {@code rope_scaling} with {@code rope_type: llama3}.
     */
    public record RopeScaling(double factor, double lowFreqFactor, double highFreqFactor, int originalMaxPositions) {}

    public ModelConfig {
        eosTokenIds = List.copyOf(eosTokenIds);
    }

    public static final String CONFIG_FILE = "config.json";
    public static final String GENERATION_CONFIG_FILE = "generation_config.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Reads {@code config.json} of a Hugging Face model directory, with the eos ids of {@code generation_config.json}
     * (when present) merged in after those of config.json.
     *
     * @throws ModelException (one line naming the file) when a file is missing or malformed, a required field is
     *                        absent, or the architecture or rope scaling is not supported
     */
    public static ModelConfig read(Path modelDir) {
        Path file = modelDir.resolve(CONFIG_FILE);
        JsonNode config = readJson(file, true);
        JsonNode generation = readJson(modelDir.resolve(GENERATION_CONFIG_FILE), false);
        return fromJson(config, generation, file);
    }

    /**
     * Builds a config from parsed {@code config.json} (and optional {@code generation_config.json}) trees; {@code file}
     * only names the source in error messages.
     */
    public static ModelConfig fromJson(JsonNode config, JsonNode generationConfig, Path file) {
        if (config == null || !config.isObject()) {
            throw new ModelException("malformed " + file + ": expected a JSON object");
        }
        Architecture arch = architecture(config, file);
        JsonNode c = config;
        int hidden = requiredInt(c, "hidden_size", file);
        int intermediate = requiredInt(c, "intermediate_size", file);
        int layers = requiredInt(c, "num_hidden_layers", file);
        int heads = requiredInt(c, "num_attention_heads", file);
        int kvHeads = optionalInt(c, "num_key_value_heads", heads, file);
        int vocab = requiredInt(c, "vocab_size", file);
        int headDim;
        if (c.hasNonNull("head_dim")) {
            headDim = requiredInt(c, "head_dim", file);
        } else {
            if (heads <= 0 || hidden % heads != 0) {
                throw new ModelException("hidden_size " + hidden + " is not a multiple of num_attention_heads "
                        + heads + " in " + file + " (and no head_dim is given)");
            }
            headDim = hidden / heads;
        }
        if (hidden <= 0 || intermediate <= 0 || layers <= 0 || heads <= 0 || kvHeads <= 0 || headDim <= 0
                || vocab <= 0) {
            throw new ModelException("sizes must be positive in " + file);
        }
        if (heads % kvHeads != 0) {
            throw new ModelException("num_attention_heads " + heads + " is not a multiple of num_key_value_heads "
                    + kvHeads + " in " + file);
        }
        int maxPositions = optionalInt(c, "max_position_embeddings", 2048, file);
        double eps = optionalDouble(c, "rms_norm_eps", 1e-6, file);
        double theta = optionalDouble(c, "rope_theta", 10000.0, file);
        RopeScaling scaling = ropeScaling(c.get("rope_scaling"), file);
        boolean tied = optionalBoolean(c, "tie_word_embeddings", false, file);
        boolean bias = optionalBoolean(c, "attention_bias", arch == Architecture.QWEN2, file);
        if (optionalBoolean(c, "mlp_bias", false, file)) {
            throw new ModelException("unsupported mlp_bias true in " + file);
        }
        if (arch == Architecture.QWEN2 && optionalBoolean(c, "use_sliding_window", false, file)) {
            throw new ModelException("unsupported use_sliding_window true in " + file);
        }
        int bos = optionalInt(c, "bos_token_id", -1, file);
        if (bos < 0 && generationConfig != null) {
            bos = optionalInt(generationConfig, "bos_token_id", -1, file);
        }
        List<Integer> eos = new ArrayList<>();
        addIds(eos, c.get("eos_token_id"), file);
        if (generationConfig != null) {
            addIds(eos, generationConfig.get("eos_token_id"), file);
        }
        String dtype = c.hasNonNull("torch_dtype") ? c.get("torch_dtype").asText()
                : c.hasNonNull("dtype") ? c.get("dtype").asText() : "float32";
        return new ModelConfig(arch, hidden, intermediate, layers, heads, kvHeads, headDim, vocab, maxPositions, eps,
                theta, scaling, tied, bias, bos, eos, dtype);
    }

    private static JsonNode readJson(Path file, boolean required) {
        try {
            JsonNode node = JSON.readTree(Files.readString(file));
            if (node == null || node.isMissingNode()) {
                throw new ModelException("malformed JSON in " + file + ": empty file");
            }
            if (!node.isObject()) {
                throw new ModelException("malformed JSON in " + file + ": expected an object");
            }
            return node;
        } catch (NoSuchFileException e) {
            if (required) {
                throw new ModelException("model config not found: " + file);
            }
            return null;
        } catch (JsonProcessingException e) {
            throw new ModelException("malformed JSON in " + file + " at line " + e.getLocation().getLineNr()
                    + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new ModelException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    private static final String SUPPORTED = "supported: LlamaForCausalLM, Qwen2ForCausalLM";

    private static Architecture architecture(JsonNode config, Path file) {
        JsonNode archs = config.get("architectures");
        if (archs != null && archs.isArray() && !archs.isEmpty()) {
            String name = archs.get(0).asText();
            return switch (name) {
                case "LlamaForCausalLM" -> Architecture.LLAMA;
                case "Qwen2ForCausalLM" -> Architecture.QWEN2;
                default -> throw new ModelException("unsupported architecture '" + name + "' in " + file + "; "
                        + SUPPORTED);
            };
        }
        JsonNode type = config.get("model_type");
        if (type != null && type.isTextual()) {
            return switch (type.asText().toLowerCase(Locale.ROOT)) {
                case "llama" -> Architecture.LLAMA;
                case "qwen2" -> Architecture.QWEN2;
                default -> throw new ModelException("unsupported architecture '" + type.asText()
                        + "' (model_type) in " + file + "; " + SUPPORTED);
            };
        }
        throw new ModelException("no architectures or model_type in " + file + "; " + SUPPORTED);
    }

    private static RopeScaling ropeScaling(JsonNode node, Path file) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isObject()) {
            throw new ModelException("malformed rope_scaling in " + file + ": expected an object or null");
        }
        JsonNode typeNode = node.hasNonNull("rope_type") ? node.get("rope_type") : node.get("type");
        String type = typeNode == null ? "default" : typeNode.asText();
        return switch (type) {
            case "default" -> null;
            case "llama3" -> {
                double factor = requiredDouble(node, "factor", file);
                double low = requiredDouble(node, "low_freq_factor", file);
                double high = requiredDouble(node, "high_freq_factor", file);
                int original = requiredInt(node, "original_max_position_embeddings", file);
                if (factor <= 0 || low <= 0 || high <= low || original <= 0) {
                    throw new ModelException("bad llama3 rope_scaling in " + file + ": need factor > 0, "
                            + "0 < low_freq_factor < high_freq_factor, original_max_position_embeddings > 0");
                }
                yield new RopeScaling(factor, low, high, original);
            }
            default -> throw new ModelException("unsupported rope_scaling type '" + type + "' in " + file
                    + "; supported: llama3 (or none/default)");
        };
    }

    private static void addIds(List<Integer> ids, JsonNode node, Path file) {
        if (node == null || node.isNull()) {
            return;
        }
        if (node.isArray()) {
            for (JsonNode n : node) {
                addId(ids, n, file);
            }
        } else {
            addId(ids, node, file);
        }
    }

    private static void addId(List<Integer> ids, JsonNode n, Path file) {
        if (!n.isIntegralNumber()) {
            throw new ModelException("eos_token_id must be an integer or a list of integers in " + file
                    + ", got " + n);
        }
        if (!ids.contains(n.asInt())) {
            ids.add(n.asInt());
        }
    }

    private static int requiredInt(JsonNode node, String field, Path file) {
        JsonNode n = node.get(field);
        if (n == null || n.isNull()) {
            throw new ModelException("missing '" + field + "' in " + file);
        }
        if (!n.isIntegralNumber() || !n.canConvertToInt()) {
            throw new ModelException("'" + field + "' must be an integer in " + file + ", got " + n);
        }
        return n.asInt();
    }

    private static int optionalInt(JsonNode node, String field, int dflt, Path file) {
        return node.hasNonNull(field) ? requiredInt(node, field, file) : dflt;
    }

    private static double requiredDouble(JsonNode node, String field, Path file) {
        JsonNode n = node.get(field);
        if (n == null || n.isNull()) {
            throw new ModelException("missing '" + field + "' in " + file);
        }
        if (!n.isNumber()) {
            throw new ModelException("'" + field + "' must be a number in " + file + ", got " + n);
        }
        return n.asDouble();
    }

    private static double optionalDouble(JsonNode node, String field, double dflt, Path file) {
        return node.hasNonNull(field) ? requiredDouble(node, field, file) : dflt;
    }

    private static boolean optionalBoolean(JsonNode node, String field, boolean dflt, Path file) {
        JsonNode n = node.get(field);
        if (n == null || n.isNull()) {
            return dflt;
        }
        if (!n.isBoolean()) {
            throw new ModelException("'" + field + "' must be true or false in " + file + ", got " + n);
        }
        return n.asBoolean();
    }

    /** The dtype the weights are stored in, per config ({@link DType#F32} when unknown). */
    public DType storedDType() {
        DType d = DType.fromTorchName(torchDtype);
        return d == null ? DType.F32 : d;
    }

    /** Number of query heads per key/value head. */
    public int groupSize() {
        return numHeads / numKvHeads;
    }
}
