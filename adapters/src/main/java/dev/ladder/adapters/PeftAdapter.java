package dev.ladder.adapters;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.ModelException;
import dev.ladder.inference.model.TensorInfo;
import dev.ladder.inference.model.Weights;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A Hugging Face PEFT LoRA adapter directory: {@code adapter_config.json} plus {@code adapter_model.safetensors}.
 *
 * <p>Tensor names are as PEFT saves them, without the adapter name: {@code base_model.model.<module>.lora_A.weight}
 * ({@code [r, in]}) and {@code base_model.model.<module>.lora_B.weight} ({@code [out, r]}), where {@code <module>} is
 * the module's name in the Hugging Face model (e.g. {@code model.layers.0.self_attn.q_proj}, adapting the base tensor
 * {@code model.layers.0.self_attn.q_proj.weight}). An adapter-name segment ({@code lora_A.default.weight}) is
 * tolerated. Embedding LoRA ({@code lora_embedding_A} {@code [r, vocab]}, {@code lora_embedding_B} {@code [dim, r]})
 * is supported. Any other tensor (from {@code modules_to_save}, e.g. {@code base_model.model.lm_head.weight}, or a
 * trained bias saved with {@code bias: all / lora_only}, or an embedding PEFT saved with
 * {@code save_embedding_layers}) replaces the base tensor of the same name wholesale; when that tensor is also
 * LoRA-adapted the LoRA product is added to the replacement.
 *
 * <p>Per-module rank and alpha follow PEFT: a key of {@code rank_pattern} / {@code alpha_pattern} applies to a
 * module when the whole module name matches the regular expression {@code (.*\.)?(KEY)$}, i.e. the key (itself a
 * regex) matches the full name or a suffix of it that starts after a dot; the first matching key in the file's order
 * wins; otherwise {@code r} / {@code lora_alpha}. Scale is {@code alpha / r}, or {@code alpha / sqrt(r)} with
 * {@code use_rslora}. {@code target_modules} selects a module as PEFT does: a string is a regex that must match the
 * full module name; a list matches a module whose name equals an entry or ends with {@code "." + entry};
 * {@code "all-linear"} selects every projection. The tensors in the file are authoritative; a LoRA module the config
 * does not select is an error.
 *
 * <p>Holds the safetensors file open (memory-mapped) until {@link #close()}.
 */
public final class PeftAdapter implements AutoCloseable {

    public static final String CONFIG_FILE = "adapter_config.json";
    public static final String WEIGHTS_FILE = "adapter_model.safetensors";
    public static final String PICKLE_FILE = "adapter_model.bin";

    static final String PREFIX = "base_model.model.";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern LORA = Pattern.compile("(.+)\\.lora_(A|B)(?:\\.[A-Za-z0-9_-]+)?\\.weight");
    private static final Pattern LORA_EMBEDDING = Pattern.compile("(.+)\\.lora_embedding_(A|B)(?:\\.[A-Za-z0-9_-]+)?");
    private static final Pattern LAYER_INDEX = Pattern.compile("(?:^|\\.)(?:layers|h|blocks|layer)\\.(\\d+)\\.");

    /**
     * The fields of {@code adapter_config.json} that matter here.
     *
     * @param targetModules     entries of a list {@code target_modules} (empty when it is a regex string or absent)
     * @param targetRegex       {@code target_modules} when given as a regex string, else null
     * @param rankPattern       {@code rank_pattern} in file order
     * @param alphaPattern      {@code alpha_pattern} in file order
     * @param layersToTransform {@code layers_to_transform} (empty: all layers)
     */
    public record Config(String peftType, String taskType, String baseModel, int r, double alpha, boolean useRslora,
                         List<String> targetModules, String targetRegex, Map<String, Integer> rankPattern,
                         Map<String, Double> alphaPattern, String bias, List<String> modulesToSave,
                         boolean fanInFanOut, List<Integer> layersToTransform) {
        public Config {
            targetModules = List.copyOf(targetModules);
            rankPattern = Collections.unmodifiableMap(new LinkedHashMap<>(rankPattern));
            alphaPattern = Collections.unmodifiableMap(new LinkedHashMap<>(alphaPattern));
            modulesToSave = List.copyOf(modulesToSave);
            layersToTransform = List.copyOf(layersToTransform);
        }

        /** {@code target_modules} as written: the regex, or the list joined with commas. */
        public String targetModulesText() {
            return targetRegex != null ? targetRegex : String.join(", ", targetModules);
        }

        /** The rank of a module (by PEFT's pattern rule). */
        public int rankOf(String module) {
            String key = patternKey(rankPattern.keySet(), module);
            return key == null ? r : rankPattern.get(key);
        }

        /** The alpha of a module (by PEFT's pattern rule). */
        public double alphaOf(String module) {
            String key = patternKey(alphaPattern.keySet(), module);
            return key == null ? alpha : alphaPattern.get(key);
        }

        /** {@code alpha / r}, or {@code alpha / sqrt(r)} with rsLoRA. */
        public double scale(int rank, double alpha) {
            return useRslora ? alpha / Math.sqrt(rank) : alpha / rank;
        }

        /** Whether {@code target_modules} selects a module, as PEFT decides. */
        public boolean targets(String module) {
            if (targetRegex != null) {
                return targetRegex.equals("all-linear") || Pattern.compile(targetRegex).matcher(module).matches();
            }
            for (String t : targetModules) {
                if (t.equals("all-linear") || module.equals(t) || module.endsWith("." + t)) return true;
            }
            return false;
        }
    }

    /**
     * The first pattern key that matches a module name the way PEFT's {@code get_pattern_key} does
     * ({@code re.match(rf"(.*\.)?({key})$", name)}), or null.
     */
    public static String patternKey(Iterable<String> keys, String module) {
        for (String key : keys) {
            if (Pattern.compile("(.*\\.)?(" + key + ")").matcher(module).matches()) return key;
        }
        return null;
    }

    /**
     * One LoRA-adapted module, as read from the file (shapes not yet checked against a base).
     *
     * @param module    the module name, e.g. {@code model.layers.0.self_attn.q_proj}
     * @param embedding an embedding LoRA ({@code lora_embedding_A/B})
     */
    public record LoraModule(String module, String baseTensor, String aTensor, String bTensor, int rank,
                             double alpha, double scale, boolean embedding) {}

    /**
     * A LoRA module bound to its base tensor: the merge adds {@code scale * b · a} to the {@code [rows, cols]} base
     * matrix, with {@code b} of shape {@code [rows, rank]} and {@code a} of {@code [rank, cols]}. For an ordinary
     * linear layer {@code b = lora_B}, {@code a = lora_A}; {@code transposed} (embedding LoRA, {@code fan_in_fan_out}
     * with a base stored {@code [in, out]}) means {@code b = lora_A^T}, {@code a = lora_B^T}.
     */
    public record Target(LoraModule lora, long rows, long cols, boolean transposed) {
        public String baseTensor() {
            return lora.baseTensor();
        }

        public int rank() {
            return lora.rank();
        }

        public float scale() {
            return (float) lora.scale();
        }
    }

    /** The adapter bound to a base model: LoRA targets and wholesale replacements (base name → adapter name). */
    public record Plan(Map<String, Target> targets, Map<String, String> replacements) {
        public Plan {
            targets = Collections.unmodifiableMap(new LinkedHashMap<>(targets));
            replacements = Collections.unmodifiableMap(new LinkedHashMap<>(replacements));
        }
    }

    private final Path directory;
    private final Config config;
    private final Weights weights;
    private final List<LoraModule> modules;
    private final Map<String, String> replacements;

    private PeftAdapter(Path directory, Config config, Weights weights, List<LoraModule> modules,
                        Map<String, String> replacements) {
        this.directory = directory;
        this.config = config;
        this.weights = weights;
        this.modules = List.copyOf(modules);
        this.replacements = Collections.unmodifiableMap(replacements);
    }

    /**
     * Reads and checks an adapter directory.
     *
     * @throws AdapterException (one line, naming the file) for a missing or malformed file, a non-LoRA or
     *                          unsupported adapter (DoRA, Megatron, LoRA bias, layer replication, ...), or tensors
     *                          that do not agree with the config
     */
    public static PeftAdapter read(Path dir) {
        if (!Files.isDirectory(dir)) throw new AdapterException("adapter directory not found: " + dir);
        Path configFile = dir.resolve(CONFIG_FILE);
        Path weightsFile = dir.resolve(WEIGHTS_FILE);
        if (!Files.isRegularFile(configFile)) {
            throw new AdapterException("no " + CONFIG_FILE + " in " + dir + " (not a PEFT adapter directory)");
        }
        Config config = readConfig(configFile);
        if (!Files.isRegularFile(weightsFile)) {
            if (Files.isRegularFile(dir.resolve(PICKLE_FILE))) {
                throw new AdapterException(dir.resolve(PICKLE_FILE) + " is a pickle, which Ladder does not load; convert "
                        + "it to safetensors (in Python: save_pretrained(..., safe_serialization=True)) as " + WEIGHTS_FILE);
            }
            throw new AdapterException("no " + WEIGHTS_FILE + " in " + dir);
        }
        Weights w;
        try {
            w = Weights.open(weightsFile);
        } catch (ModelException e) {
            throw new AdapterException(e.getMessage(), e);
        }
        try {
            Map<String, String[]> pairs = new TreeMap<>();       // module -> {A, B}
            Map<String, Boolean> embedding = new LinkedHashMap<>();
            Map<String, String> replacements = new TreeMap<>();
            for (String name : w.names()) {
                if (!name.startsWith(PREFIX)) {
                    throw new AdapterException("tensor '" + name + "' in " + weightsFile + " does not start with '"
                            + PREFIX + "' (not saved by PEFT's save_pretrained)");
                }
                String rest = name.substring(PREFIX.length());
                if (rest.contains("lora_magnitude_vector")) {
                    throw new AdapterException(weightsFile + " is a DoRA adapter (tensor '" + name + "'); DoRA is not supported");
                }
                if (rest.matches(".*\\.lora_B(\\.[A-Za-z0-9_-]+)?\\.bias")) {
                    throw new AdapterException(weightsFile + " has LoRA bias tensors ('" + name + "'); lora_bias is not supported");
                }
                if (rest.contains("trainable_tokens")) {
                    throw new AdapterException(weightsFile + " has trainable-token tensors ('" + name + "'); not supported");
                }
                Matcher m = LORA.matcher(rest);
                Matcher e = LORA_EMBEDDING.matcher(rest);
                boolean isEmb = false;
                if (!m.matches()) {
                    m = e;
                    isEmb = e.matches();
                }
                if (m.matches()) {
                    String module = m.group(1);
                    String[] ab = pairs.computeIfAbsent(module, k -> new String[2]);
                    int i = m.group(2).equals("A") ? 0 : 1;
                    if (ab[i] != null) {
                        throw new AdapterException("two lora_" + m.group(2) + " tensors for module '" + module + "' in "
                                + weightsFile + " ('" + ab[i] + "', '" + name + "')");
                    }
                    ab[i] = name;
                    Boolean prev = embedding.put(module, isEmb);
                    if (prev != null && prev != isEmb) {
                        throw new AdapterException("module '" + module + "' in " + weightsFile
                                + " mixes lora_A/B and lora_embedding_A/B tensors");
                    }
                    continue;
                }
                if (rest.contains("lora_")) {
                    throw new AdapterException("unrecognised LoRA tensor '" + name + "' in " + weightsFile);
                }
                String base = rest.replace(".modules_to_save.", ".").replace(".base_layer.", ".")
                        .replace(".original_module.", ".");
                if (replacements.put(base, name) != null) {
                    throw new AdapterException("two tensors in " + weightsFile + " replace base tensor '" + base + "'");
                }
            }
            if (pairs.isEmpty() && replacements.isEmpty()) {
                throw new AdapterException(weightsFile + " has no tensors");
            }
            List<LoraModule> modules = new ArrayList<>();
            for (Map.Entry<String, String[]> p : pairs.entrySet()) {
                String module = p.getKey();
                String a = p.getValue()[0];
                String b = p.getValue()[1];
                if (a == null || b == null) {
                    throw new AdapterException("module '" + module + "' in " + weightsFile + " has "
                            + (a == null ? "lora_B but no lora_A" : "lora_A but no lora_B"));
                }
                boolean emb = embedding.get(module);
                TensorInfo ai = w.info(a);
                TensorInfo bi = w.info(b);
                if (ai.rank() != 2 || bi.rank() != 2) {
                    throw new AdapterException("'" + a + "' " + Arrays.toString(ai.shape()) + " and '" + b + "' "
                            + Arrays.toString(bi.shape()) + " in " + weightsFile + " must both be matrices");
                }
                if (!ai.dtype().isFloat() || !bi.dtype().isFloat()) {
                    throw new AdapterException("'" + a + "' in " + weightsFile + " is " + ai.dtype() + "/" + bi.dtype()
                            + "; LoRA factors must be F32, F16, BF16 or F64");
                }
                int rank = (int) ai.dim(0);
                if (bi.dim(1) != rank) {
                    throw new AdapterException("'" + b + "' has shape " + Arrays.toString(bi.shape()) + " but '" + a
                            + "' has rank " + rank + " (" + Arrays.toString(ai.shape()) + ") in " + weightsFile);
                }
                int expected = config.rankOf(module);
                if (rank != expected) {
                    throw new AdapterException("module '" + module + "' has rank " + rank + " in " + weightsFile
                            + " but " + CONFIG_FILE + " gives it r=" + expected + " (r / rank_pattern)");
                }
                if (!config.targets(module)) {
                    throw new AdapterException("module '" + module + "' has LoRA weights in " + weightsFile
                            + " but target_modules (" + config.targetModulesText() + ") in " + CONFIG_FILE
                            + " does not select it");
                }
                if (!config.layersToTransform().isEmpty()) {
                    Matcher li = LAYER_INDEX.matcher(module);
                    if (li.find() && !config.layersToTransform().contains(Integer.parseInt(li.group(1)))) {
                        throw new AdapterException("module '" + module + "' has LoRA weights in " + weightsFile
                                + " but layers_to_transform " + config.layersToTransform() + " excludes its layer");
                    }
                }
                double alpha = config.alphaOf(module);
                modules.add(new LoraModule(module, module + ".weight", a, b, rank, alpha, config.scale(rank, alpha), emb));
            }
            return new PeftAdapter(dir, config, w, modules, replacements);
        } catch (RuntimeException e) {
            w.close();
            throw e;
        }
    }

    /** Parses {@code adapter_config.json}, rejecting what Ladder cannot merge. */
    static Config readConfig(Path file) {
        JsonNode root;
        try {
            root = JSON.readTree(file.toFile());
        } catch (JsonProcessingException e) {
            throw new AdapterException("malformed JSON in " + file + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new AdapterException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) throw new AdapterException(file + " is not a JSON object");
        String peftType = text(root, "peft_type", file);
        if (peftType == null) throw new AdapterException("no peft_type in " + file);
        if (!peftType.equals("LORA")) {
            throw new AdapterException("peft_type '" + peftType + "' in " + file + " is not supported (only LORA)");
        }
        if (root.path("use_dora").asBoolean(false)) {
            throw new AdapterException("use_dora: true in " + file + ": DoRA adapters are not supported (train with "
                    + "use_dora=false)");
        }
        if (root.path("lora_bias").asBoolean(false)) {
            throw new AdapterException("lora_bias: true in " + file + " is not supported");
        }
        if (root.path("use_qalora").asBoolean(false)) {
            throw new AdapterException("use_qalora: true in " + file + " is not supported");
        }
        for (String key : List.of("megatron_config", "layer_replication", "trainable_token_indices",
                "alora_invocation_tokens")) {
            if (present(root.get(key))) {
                throw new AdapterException(key + " in " + file + " is not supported (it must be null or absent)");
            }
        }
        if (present(root.get("target_parameters"))) {
            throw new AdapterException("target_parameters in " + file + " is not supported");
        }
        int r = root.has("r") ? intValue(root, "r", file) : 8;
        if (r < 1) throw new AdapterException("r must be >= 1 in " + file + ", got " + r);
        double alpha = root.has("lora_alpha") ? number(root.get("lora_alpha"), "lora_alpha", file) : 8;
        List<String> targets = new ArrayList<>();
        String targetRegex = null;
        JsonNode tm = root.get("target_modules");
        if (tm != null && tm.isTextual()) {
            targetRegex = tm.asText();
            try {
                Pattern.compile(targetRegex);
            } catch (PatternSyntaxException e) {
                throw new AdapterException("target_modules in " + file + " is not a valid regex: " + e.getDescription());
            }
        } else if (tm != null && tm.isArray()) {
            tm.forEach(n -> targets.add(n.asText()));
        } else if (present(tm)) {
            throw new AdapterException("target_modules in " + file + " must be a list or a string");
        }
        Map<String, Integer> rankPattern = new LinkedHashMap<>();
        Map<String, Double> alphaPattern = new LinkedHashMap<>();
        pattern(root, "rank_pattern", file).forEach((k, v) -> {
            if (!v.canConvertToInt() || v.asInt() < 1 || !v.isIntegralNumber()) {
                throw new AdapterException("rank_pattern['" + k + "'] in " + file + " must be a positive integer");
            }
            rankPattern.put(k, v.asInt());
        });
        pattern(root, "alpha_pattern", file).forEach((k, v) -> alphaPattern.put(k, number(v, "alpha_pattern['" + k + "']", file)));
        String bias = root.hasNonNull("bias") ? root.get("bias").asText() : "none";
        if (!List.of("none", "all", "lora_only").contains(bias)) {
            throw new AdapterException("bias '" + bias + "' in " + file + " must be none, all or lora_only");
        }
        List<String> modulesToSave = new ArrayList<>();
        JsonNode mts = root.get("modules_to_save");
        if (mts != null && mts.isArray()) mts.forEach(n -> modulesToSave.add(n.asText()));
        List<Integer> layers = new ArrayList<>();
        JsonNode ltt = root.get("layers_to_transform");
        if (ltt != null && ltt.isInt()) layers.add(ltt.asInt());
        else if (ltt != null && ltt.isArray()) ltt.forEach(n -> layers.add(n.asInt()));
        else if (present(ltt)) throw new AdapterException("layers_to_transform in " + file + " must be an int or a list");
        return new Config(peftType, text(root, "task_type", file), text(root, "base_model_name_or_path", file), r,
                alpha, root.path("use_rslora").asBoolean(false), targets, targetRegex, rankPattern, alphaPattern,
                bias, modulesToSave, root.path("fan_in_fan_out").asBoolean(false), layers);
    }

    private static boolean present(JsonNode n) {
        return n != null && !n.isNull() && !(n.isContainerNode() && n.isEmpty());
    }

    private static String text(JsonNode root, String key, Path file) {
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) return null;
        if (!n.isTextual()) throw new AdapterException(key + " in " + file + " must be a string");
        return n.asText();
    }

    private static int intValue(JsonNode root, String key, Path file) {
        JsonNode n = root.get(key);
        if (n == null || !n.isIntegralNumber() || !n.canConvertToInt()) {
            throw new AdapterException(key + " in " + file + " must be an integer");
        }
        return n.asInt();
    }

    private static double number(JsonNode n, String key, Path file) {
        if (n == null || !n.isNumber()) throw new AdapterException(key + " in " + file + " must be a number");
        return n.asDouble();
    }

    private static Map<String, JsonNode> pattern(JsonNode root, String key, Path file) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) return out;
        if (!n.isObject()) throw new AdapterException(key + " in " + file + " must be an object");
        n.fields().forEachRemaining(e -> {
            try {
                Pattern.compile(e.getKey());
            } catch (PatternSyntaxException x) {
                throw new AdapterException(key + " key '" + e.getKey() + "' in " + file + " is not a valid regex");
            }
            out.put(e.getKey(), e.getValue());
        });
        return out;
    }

    // ------------------------------------------------------------------------------------------------ binding

    /**
     * Binds the adapter to a base model's tensors.
     *
     * @param baseShape the base tensor's shape, or null when the base has no tensor of that name
     * @throws AdapterException when an adapted or replaced tensor is missing in the base or shapes disagree
     */
    public Plan plan(Function<String, long[]> baseShape, String baseName) {
        Map<String, Target> targets = new LinkedHashMap<>();
        Path file = directory.resolve(WEIGHTS_FILE);
        for (LoraModule m : modules) {
            long[] shape = baseShape.apply(m.baseTensor());
            if (shape == null) {
                throw new AdapterException("module '" + m.module() + "' of " + file + " adapts '" + m.baseTensor()
                        + "', which " + baseName + " does not have (wrong base model?)");
            }
            long[] a = weights.info(m.aTensor()).shape();
            long[] b = weights.info(m.bTensor()).shape();
            if (shape.length != 2) {
                throw new AdapterException("base tensor '" + m.baseTensor() + "' of " + baseName + " has shape "
                        + Arrays.toString(shape) + "; LoRA adapts matrices only");
            }
            boolean transposed;
            if (m.embedding()) {
                // lora_embedding_A [r, vocab], lora_embedding_B [dim, r], base [vocab, dim]
                transposed = true;
                if (a[1] != shape[0] || b[0] != shape[1]) throw shapeError(m, a, b, shape, baseName, "[r, " + shape[0]
                        + "] and [" + shape[1] + ", r]");
            } else if (a[1] == shape[1] && b[0] == shape[0]) {
                // nn.Linear [out, in]; PEFT ignores fan_in_fan_out for nn.Linear, and so do we
                transposed = false;
            } else if (config.fanInFanOut() && a[1] == shape[0] && b[0] == shape[1]) {
                transposed = true;          // Conv1D-style base stored [in, out]
            } else {
                throw shapeError(m, a, b, shape, baseName, "[r, " + shape[1] + "] and [" + shape[0] + ", r]");
            }
            targets.put(m.baseTensor(), new Target(m, shape[0], shape[1], transposed));
        }
        for (Map.Entry<String, String> r : replacements.entrySet()) {
            long[] shape = baseShape.apply(r.getKey());
            long[] mine = weights.info(r.getValue()).shape();
            if (shape == null) {
                throw new AdapterException("'" + r.getValue() + "' in " + file + " replaces '" + r.getKey() + "', which "
                        + baseName + " does not have" + (r.getKey().equals("lm_head.weight")
                        ? " (the base ties lm_head to embed_tokens)" : ""));
            }
            if (!Arrays.equals(shape, mine)) {
                throw new AdapterException("'" + r.getValue() + "' in " + file + " has shape " + Arrays.toString(mine)
                        + " but '" + r.getKey() + "' of " + baseName + " has " + Arrays.toString(shape)
                        + " (resized vocabulary?)");
            }
            if (!weights.info(r.getValue()).dtype().isFloat()) {
                throw new AdapterException("'" + r.getValue() + "' in " + file + " is " + weights.info(r.getValue()).dtype()
                        + "; only float tensors can replace base tensors");
            }
        }
        return new Plan(targets, replacements);
    }

    private AdapterException shapeError(LoraModule m, long[] a, long[] b, long[] base, String baseName, String want) {
        return new AdapterException("module '" + m.module() + "' in " + directory.resolve(WEIGHTS_FILE) + ": lora A "
                + Arrays.toString(a) + " and B " + Arrays.toString(b) + " do not fit base '" + m.baseTensor() + "' "
                + Arrays.toString(base) + " of " + baseName + " (expected " + want + ")");
    }

    /**
     * Validates the adapter against a base model directory: its config must be a supported architecture, and every
     * adapted or replaced tensor must exist there with a matching shape.
     */
    public Plan validate(Path baseDir) {
        try {
            ModelConfig.read(baseDir);
            try (Weights base = Weights.open(baseDir)) {
                return plan(n -> base.contains(n) ? base.info(n).shape() : null, baseDir.toString());
            }
        } catch (ModelException e) {
            throw new AdapterException(e.getMessage(), e);
        }
    }

    /** The merge factors {@code {b [rows × rank], a [rank × cols]}} of a target, as float32 row-major arrays. */
    public float[][] factors(Target t) {
        float[] a = floats(t.lora().aTensor());
        float[] b = floats(t.lora().bTensor());
        if (!t.transposed()) return new float[][] {b, a};
        int r = t.rank();
        // lora_A [r, rows] -> b [rows, r]; lora_B [cols, r] -> a [r, cols]
        return new float[][] {transpose(a, r, (int) t.rows()), transpose(b, (int) t.cols(), r)};
    }

    private float[] floats(String name) {
        try {
            return weights.floats(name);
        } catch (ModelException e) {
            throw new AdapterException(e.getMessage(), e);
        }
    }

    static float[] transpose(float[] m, int rows, int cols) {
        float[] t = new float[m.length];
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) t[j * rows + i] = m[i * cols + j];
        }
        return t;
    }

    // ------------------------------------------------------------------------------------------------ accessors

    public Path directory() {
        return directory;
    }

    public Config config() {
        return config;
    }

    /** LoRA modules, sorted by module name. */
    public List<LoraModule> modules() {
        return modules;
    }

    /** Base tensor name → adapter tensor name, for tensors replaced wholesale (modules_to_save, trained biases). */
    public Map<String, String> replacements() {
        return replacements;
    }

    /** The adapter's tensors (open until {@link #close()}). */
    public Weights weights() {
        return weights;
    }

    /** Parameters in the adapter file. */
    public long parameters() {
        long n = 0;
        for (String name : weights.names()) n += weights.info(name).numel();
        return n;
    }

    @Override
    public void close() {
        weights.close();
    }

    @Override
    public String toString() {
        return "PeftAdapter[" + directory + ", " + modules.size() + " LoRA modules, " + replacements.size()
                + " replaced tensors]";
    }
}
