package dev.ladder.eval.experiment;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.scorer.bench.ItemSubset;
import dev.ladder.scorer.bench.fetch.FetchedBenchmarks;
import dev.ladder.scorer.io.TextFiles;
import dev.ladder.scorer.score.ExMode;
import dev.ladder.scorer.score.em.EmMode;
import dev.ladder.inference.device.DeviceChoice;
import dev.ladder.inference.device.TorchSetupException;
import dev.ladder.inference.engine.BatchWidth;
import dev.ladder.inference.engine.Engine;
import dev.ladder.inference.engine.Engines;
import dev.ladder.inference.engine.ModelFields;
import dev.ladder.inference.text.PromptFormats;
import dev.ladder.pipeline.strategy.Bound;
import dev.ladder.pipeline.strategy.Pipelines;
import dev.ladder.pipeline.strategy.SettingBounds;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.SettingsBlock;
import dev.ladder.pipeline.strategy.SharedKnobs;
import dev.ladder.sql.db.SqlMode;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Reads and validates experiment files (docs/experiments.md). Everything a file can get wrong is reported before a
 * model is loaded, as one {@link ExperimentException} line naming the file and the field.
 */
public final class ExperimentLoader {

    /** Strategy names a rung may use: the pipeline's registry. */
    public static final List<String> KNOWN_STRATEGIES = Pipelines.registry().strategyNames();
    /** Engine names a model may use: the engines' registry. */
    public static final List<String> KNOWN_ENGINES = Engines.registry().names();
    /** What {@code ModelLoader} accepts: auto is f32 on CPU and f16 on a GPU; int8 quantises the linear layers. */
    public static final List<String> KNOWN_DTYPES = List.of("auto", "f32", "f16", "int8");
    public static final List<String> EX_MODES = List.of("spider", "bird");
    public static final List<String> TS_MODES = List.of("suite", "stored", "none");

    static final List<String> TOP_FIELDS = List.of("name", "benchmark", "split", "database", "sql_mode", "limit", "subset", "subset_seed", "seeds", "output",
            "models", "strategies", "settings", "scorers", "comparisons");
    /** The fields of a model in a folder; each engine says which fields it takes ({@code Engine#fields()}). */
    static final List<String> FOLDER_FIELDS = List.of("path", "adapter", "dtype", "device", "merge_base");
    public static final List<String> KNOWN_MERGE_BASES = List.of("full", "nf4");
    static final List<String> RUNG_FIELDS = List.of("name", "strategy", "model", "settings");
    static final List<String> SCORER_FIELDS = List.of("ex_mode", "keep_distinct", "tolerance", "ts", "suite", "em_mode",
            "judge");

    /**
     * The ranges of the loader's own numbers, by field ({@code ID}: any model's), beside the settings blocks' own
     * ({@code @Bounded} on their records); the maxima and why: {@link SettingBounds}.
     */
    public static final Map<String, Bound> FIELD_BOUNDS = fieldBounds();

    private static Map<String, Bound> fieldBounds() {
        Map<String, Bound> m = new LinkedHashMap<>();
        m.put("limit", new Bound(1, SettingBounds.ITEMS));
        m.put("subset_seed", Bound.ANY_LONG);
        m.put("models.ID.timeout_seconds", new Bound(1, SettingBounds.SERVER_SECONDS));
        m.put("models.ID.max_concurrent", new Bound(1, SettingBounds.CONCURRENT));
        m.put("models.ID.retries", new Bound(1, SettingBounds.RETRIES));
        m.put("models.ID." + BatchWidth.FIELD, new Bound(1, SettingBounds.BATCH_WIDTH));
        m.put("scorers.tolerance", new Bound(0, SettingBounds.TOLERANCE));
        return Collections.unmodifiableMap(m);
    }

    /** Names that end up in file names and cell names; '@' is kept for the seed suffix. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    private static final Pattern HUB_ID = Pattern.compile(
            "[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}(@[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*)?");

    private static final YAMLMapper YAML = YAMLMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .build();

    private ExperimentLoader() {}

    /** Loads, resolves and validates an experiment file. */
    public static Experiment load(Path yaml) {
        String source = yaml.toString();
        if (!Files.isRegularFile(yaml)) {
            throw new ExperimentException(source, "file", "not found; give the path of an experiment YAML file, e.g. experiments/smoke.yaml");
        }
        // a read problem is a UserError naming the file (and the line for bytes that are not UTF-8)
        return parse(TextFiles.read(yaml), source);
    }

    /**
     * Parses experiment YAML text.
     *
     * @param source the file name used in messages; its stem is the default {@code name}
     */
    public static Experiment parse(String text, String source) {
        JsonNode tree;
        try {
            tree = YAML.readTree(text);
        } catch (JsonProcessingException e) {
            throw malformed(source, e);
        }
        if (tree == null || tree.isMissingNode() || tree.isNull()) {
            throw new ExperimentException(source, "file", "is empty; an experiment needs at least benchmark, models and strategies");
        }
        Fields root = Fields.of(source, "", tree);
        root.allowOnly(TOP_FIELDS);

        String name = root.string("name", stem(source));
        checkName(root, "name", name);
        String benchmark = root.requiredString("benchmark", "name a bundled benchmark (classicmodels) or a benchmark folder or file");
        String split = root.string("split", "test");
        String database = root.string("database", null);
        SqlMode sqlMode;
        try {
            sqlMode = SqlMode.parse(root.string("sql_mode", SqlMode.SERVER.label()), "sql_mode");
        } catch (UserError e) {
            throw root.error("sql_mode", "unknown SQL mode '" + root.string("sql_mode", "") + "'; use server or mysql8");
        }
        Integer limit = root.integer("limit", null, FIELD_BOUNDS.get("limit"));
        String subsetText = root.choice("subset", ItemSubset.DEFAULT.method().label(),
                Arrays.stream(ItemSubset.Method.values()).map(ItemSubset.Method::label).toList(), "subset");
        long subsetSeed = root.longValue("subset_seed", ItemSubset.DEFAULT.seed(), FIELD_BOUNDS.get("subset_seed"));
        ItemSubset subset = new ItemSubset(ItemSubset.Method.parse(subsetText), subsetSeed);
        List<Long> seeds = root.longList("seeds", List.of(0L), SettingBounds.SEEDS);
        if (seeds.isEmpty()) throw root.error("seeds", "is empty; give at least one seed, e.g. [0], or remove the line");
        for (int i = 0; i < seeds.size(); i++) {
            if (seeds.indexOf(seeds.get(i)) != i) {
                throw root.error("seeds[" + i + "]", "seed " + seeds.get(i) + " is listed twice; each seed runs every rung once");
            }
        }
        String outputText = root.string("output", "runs/" + name);
        Path output = path(root, "output", outputText);

        Map<String, ModelSpec> models = models(root);
        Settings settings = settings(root);
        List<RungSpec> rungs = rungs(root, models, settings);
        ScorerSpec scorers = scorers(root);
        if (scorers.judge() != null && !models.containsKey(scorers.judge())) {
            throw root.error("scorers.judge", "unknown model '" + scorers.judge() + "'; the judge must be one of models: "
                    + String.join(", ", models.keySet()));
        }
        List<Comparisons.Pair> comparisons = comparisons(root, rungs);

        Benchmark b;
        try {
            b = Benchmarks.load(benchmark, database);
        } catch (RuntimeException e) {
            throw root.error("benchmark", e.getMessage());
        }
        if (!b.splits().containsKey(split)) {
            throw root.error("split", Fields.unknownValue("split", split, List.copyOf(b.splits().keySet()))
                    .replace("; known:", "; benchmark " + b.name() + " has:"));
        }
        return new Experiment(name, benchmark, split, database != null ? database : b.defaultDatabase(), sqlMode, limit, subset, seeds,
                output, models, rungs, settings, scorers, comparisons);
    }

    /**
     * True when {@code s} has the form of a hub id: {@code owner/name} or {@code owner/name@revision}, each part
     * starting with a letter or digit (so {@code ./x/y}, {@code /x/y}, {@code ~/x} and {@code a/b/c} are paths).
     */
    public static boolean isHubId(String s) {
        return HUB_ID.matcher(s).matches() && !s.contains("..");
    }

    /**
     * What is wrong with a model {@code path}, or null when it is usable: an existing directory with
     * {@code config.json}, or any string of hub-id form that is not an existing path (it is resolved through the
     * model store, and pulled if need be, when the run starts).
     */
    public static String modelPathProblem(String p) {
        if (p == null || p.isBlank()) return "empty model path; give a model directory or a hub id owner/name";
        Path path;
        try {
            path = Path.of(p);
        } catch (InvalidPathException e) {
            return "'" + p + "' is not a valid path";
        }
        if (Files.isDirectory(path)) {
            return Files.isRegularFile(path.resolve("config.json")) ? null
                    : "'" + p + "' has no config.json: not a model directory (give the directory holding config.json and *.safetensors)";
        }
        if (Files.exists(path)) return "'" + p + "' is a file, not a model directory";
        if (isHubId(p)) return null;
        return "model directory not found: '" + p + "' (relative paths start at the current directory, '~' is not expanded; "
                + "or give a hub id owner/name such as Qwen/Qwen2.5-0.5B-Instruct)";
    }

    /** One line for a YAML syntax error: the line the parser stopped at, its problem, and where the construct began. */
    private static final Pattern NON_FINITE = Pattern.compile("Malformed numeric value '([-+]?\\.(?:nan|NaN|NAN|inf|Inf|INF))'.*");

    /** {@code settings.sample_temperature}, {@code strategies[2]}: the field a parser stands on. */
    private static String fieldPath(JsonStreamContext ctx) {
        List<String> parts = new ArrayList<>();
        for (JsonStreamContext c = ctx; c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inArray()) parts.add(0, "[" + Math.max(0, c.getCurrentIndex()) + "]");
            else if (c.getCurrentName() != null) parts.add(0, "." + c.getCurrentName());
        }
        String path = String.join("", parts);
        return path.startsWith(".") ? path.substring(1) : path;
    }

    private static ExperimentException malformed(String source, JsonProcessingException e) {
        JsonLocation at = e.getLocation();
        int line = at == null ? -1 : at.getLineNr();
        String problem = String.valueOf(e.getOriginalMessage()).lines().findFirst().orElse("").strip();
        if (e.getCause() instanceof MarkedYAMLException y) {
            if (y.getProblemMark() != null) line = y.getProblemMark().getLine() + 1;
            problem = y.getProblem() == null ? problem : y.getProblem().strip();
            if (y.getContext() != null && y.getContextMark() != null && y.getContextMark().getLine() + 1 != line) {
                problem += " (" + y.getContext().strip() + " that starts on line " + (y.getContextMark().getLine() + 1) + ")";
            }
        } else if (NON_FINITE.matcher(problem).matches()) {
            // YAML's .nan / .inf: Jackson refuses them as malformed numbers; say which field and why
            String value = NON_FINITE.matcher(problem).replaceFirst("$1");
            String field = e.getProcessor() instanceof JsonParser p
                    ? fieldPath(p.getParsingContext()) : "";
            return new ExperimentException(source, field.isEmpty() ? (line > 0 ? "line " + line : "YAML") : field,
                    "expected a finite number, got " + value + " (NaN and infinity are not allowed)");
        } else if (problem.startsWith("Duplicate field")) {
            String key = problem.replaceFirst("^Duplicate field '([^']*)'.*", "$1");
            return new ExperimentException(source, line > 0 ? "line " + line : "YAML",
                    "malformed YAML: duplicate key '" + key + "' in one mapping; keep one of the two");
        }
        return new ExperimentException(source, line > 0 ? "line " + line : "YAML",
                "malformed YAML: " + problem + "; fix the syntax there (indentation, ':' after keys, closing brackets, quotes)");
    }

    private static Map<String, ModelSpec> models(Fields root) {
        JsonNode node = root.get("models");
        if (node == null) {
            throw root.error("models", "missing; add a mapping such as 'models: {base: {path: Qwen/Qwen2.5-0.5B-Instruct}}'");
        }
        Fields all = Fields.of(root.source, "models", node);
        Map<String, ModelSpec> models = new LinkedHashMap<>();
        for (String id : all.keys()) {
            checkName(all, all.field(id), id);
            Fields m = Fields.of(root.source, all.field(id), all.get(id));
            Engine engine = Engines.registry().byName(m.choice("engine", ModelSpec.DEFAULT_ENGINE, KNOWN_ENGINES, "engine"));
            ModelFields view = modelFields(m, all.field(id), engine.name());
            List<String> takes = engine.fields();
            // the fields an engine takes say what kind of model it is: served (a server's), named (no path), in a folder
            if (takes.contains("base_url")) {
                engine.check(view);
                models.put(id, servedModel(m, engine));
                continue;
            }
            if (!takes.contains("path")) {
                engine.check(view);
                allowOnly(m, engine);
                models.put(id, new ModelSpec(engine.label(view), null, engine.name(), ModelSpec.DEFAULT_DTYPE,
                        ModelSpec.DEFAULT_DEVICE, ModelSpec.DEFAULT_MERGE_BASE, null, ownFields(m, engine)));
                continue;
            }
            models.put(id, folderModel(m, engine, view));
        }
        if (models.isEmpty()) throw root.error("models", "is empty; define at least one model");
        return models;
    }

    /** A model in a folder (a directory or a hub id): its fields read and checked, then what its engine refuses. */
    private static ModelSpec folderModel(Fields m, Engine engine, ModelFields view) {
        allowOnly(m, engine);
        String p = m.requiredString("path", "give a model directory or a hub id owner/name");
        String problem = modelPathProblem(p);
        if (problem != null) throw m.error(m.field("path"), problem);
        String adapter = m.string("adapter", null);
        if (adapter != null) path(m, m.field("adapter"), adapter);
        String dtype = m.choice("dtype", ModelSpec.DEFAULT_DTYPE, KNOWN_DTYPES, "dtype");
        String device = m.string("device", ModelSpec.DEFAULT_DEVICE);
        String deviceProblem = deviceProblem(device);
        if (deviceProblem != null) throw m.error(m.field("device"), deviceProblem);
        String mergeBase = m.choice("merge_base", ModelSpec.DEFAULT_MERGE_BASE, KNOWN_MERGE_BASES, "merge base");
        // what the engine refuses (onnx: an adapter, a dtype), each rule written once, in its engine's package
        engine.check(view);
        return new ModelSpec(p, adapter, engine.name(), dtype, device, mergeBase, null, ownFields(m, engine));
    }

    /**
     * A model behind an OpenAI-compatible server: where it is and how to call it. Ladder's own loading fields (path,
     * adapter, dtype, device, merge_base) mean nothing there and are refused with the reason.
     */
    private static ModelSpec servedModel(Fields m, Engine engine) {
        allowOnly(m, engine);
        String url = m.requiredString("base_url", "give the server's API root, e.g. http://127.0.0.1:8000/v1");
        // ${NAME} in base_url is read when the server is called: a cluster's shards learn the server's address from
        // their job's environment (docs/scale.md)
        String problem = ServerSpec.urlProblem(url, System::getenv);
        if (problem != null) throw m.error(m.field("base_url"), problem);
        String served = m.requiredString("model", "give the name the server serves the model under (its /v1/models lists them)");
        String keyEnv = m.string("api_key_env", null);
        if (keyEnv != null && !keyEnv.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw m.error(m.field("api_key_env"), "is the NAME of an environment variable holding the key (e.g. VLLM_API_KEY),"
                    + " never the key itself");
        }
        String endpoint = m.choice("endpoint", ServerSpec.DEFAULT_ENDPOINT, List.of("completions", "chat"), "endpoint");
        String format = m.string("prompt_format", null);
        if (format != null) {
            if (endpoint.equals("chat")) {
                throw m.error(m.field("prompt_format"), "applies to endpoint: completions; a chat endpoint uses the server's template");
            }
            if (!PromptFormats.NAMES.contains(format)) {
                throw m.error(m.field("prompt_format"), Fields.unknownValue("prompt format", format, PromptFormats.NAMES));
            }
        }
        int timeout = m.integer("timeout_seconds", ServerSpec.DEFAULT_TIMEOUT_SECONDS, FIELD_BOUNDS.get("models.ID.timeout_seconds"));
        int concurrent = m.integer("max_concurrent", ServerSpec.DEFAULT_MAX_CONCURRENT, FIELD_BOUNDS.get("models.ID.max_concurrent"));
        int retries = m.integer("retries", ServerSpec.DEFAULT_RETRIES, FIELD_BOUNDS.get("models.ID.retries"));
        boolean extensions = m.bool("extensions", true);
        return ModelSpec.served(engine.name(),
                new ServerSpec(url, served, keyEnv, endpoint, format, timeout, concurrent, retries, extensions));
    }

    /** Refuses a field the model's engine does not take, naming the ones it does. */
    private static void allowOnly(Fields m, Engine engine) {
        List<String> known = new ArrayList<>();
        known.add("engine");
        known.addAll(engine.fields());
        m.allowOnly(known);
    }

    /** The fields an engine takes beyond a folder's and a server's: its own, as text. */
    private static Map<String, String> ownFields(Fields m, Engine engine) {
        Map<String, String> own = new LinkedHashMap<>();
        for (String f : engine.fields()) {
            if (FOLDER_FIELDS.contains(f) || ServerSpec.FIELDS.contains(f)) continue;
            String v = f.equals(BatchWidth.FIELD) ? batchWidth(m) : text(m.get(f));
            if (v != null) own.put(f, v);
        }
        return own;
    }

    /** {@code batch_width}: {@code auto} (null: the engine decides) or a whole number within its bound, as text. */
    private static String batchWidth(Fields m) {
        JsonNode v = m.get(BatchWidth.FIELD);
        if (v == null || v.isNull() || v.isTextual() && v.asText().strip().equals(BatchWidth.AUTO)) return null;
        if (!v.isIntegralNumber()) {
            throw m.error(m.field(BatchWidth.FIELD), "expected auto or a whole number, got " + Fields.describe(v));
        }
        return Integer.toString(m.integer(BatchWidth.FIELD, null, FIELD_BOUNDS.get("models.ID." + BatchWidth.FIELD)));
    }

    private static String text(JsonNode n) {
        return n == null || n.isNull() ? null : n.isValueNode() ? n.asText() : n.toString();
    }

    /** A model's mapping as its engine reads it: a refused field is the file's error at that field. */
    private static ModelFields modelFields(Fields m, String where, String engine) {
        return new ModelFields() {
            @Override
            public String engine() {
                return engine;
            }

            @Override
            public String get(String field) {
                return text(m.get(field));
            }

            @Override
            public String where(String field) {
                return field == null ? where : m.field(field);
            }

            @Override
            public RuntimeException refuse(String field, String reason) {
                return m.error(m.field(field), reason);
            }
        };
    }

    /** Why a device string is not one the engine accepts, or null (the device itself is checked at load time). */
    static String deviceProblem(String device) {
        try {
            DeviceChoice.parse(device, "device");
            return null;
        } catch (TorchSetupException e) {
            return "unknown device '" + device + "'; use auto, cpu, cuda or cuda:N";
        }
    }

    /** The rungs; a rung's own {@code settings:} apply on top of the experiment's {@code settings}. */
    private static List<RungSpec> rungs(Fields root, Map<String, ModelSpec> models, Settings experimentSettings) {
        JsonNode node = root.get("strategies");
        if (node == null) throw root.error("strategies", "missing; list the rungs, e.g. [prompt-k0, agent-1]");
        if (!(node instanceof ArrayNode list)) {
            throw root.error("strategies", "expected a list of rungs, got " + Fields.describe(node));
        }
        if (list.isEmpty()) throw root.error("strategies", "is empty; list at least one rung, e.g. [prompt-k0]");
        String firstModel = models.keySet().iterator().next();
        List<RungSpec> rungs = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < list.size(); i++) {
            String at = "strategies[" + i + "]";
            JsonNode entry = list.get(i);
            RungSpec rung;
            if (entry.isTextual()) {
                String s = entry.asText();
                if (!KNOWN_STRATEGIES.contains(s)) throw root.error(at, Fields.unknownValue("strategy", s, KNOWN_STRATEGIES));
                rung = new RungSpec(s, s, firstModel);
            } else if (entry.isObject()) {
                Fields r = Fields.of(root.source, at, entry);
                r.allowOnly(RUNG_FIELDS);
                String strategy = r.requiredString("strategy", "name one of " + String.join(", ", KNOWN_STRATEGIES));
                if (!KNOWN_STRATEGIES.contains(strategy)) {
                    throw r.error(r.field("strategy"), Fields.unknownValue("strategy", strategy, KNOWN_STRATEGIES));
                }
                String model = r.string("model", firstModel);
                if (!models.containsKey(model)) {
                    throw r.error(r.field("model"), Fields.unknownValue("model", model, List.copyOf(models.keySet()))
                            .replace("; known:", "; models in this file:"));
                }
                String name = r.string("name", strategy);
                checkName(r, r.field("name"), name);
                JsonNode own = r.get("settings");
                Settings settings = own == null ? null
                        : settings(Fields.of(root.source, r.field("settings"), own), experimentSettings);
                rung = new RungSpec(name, strategy, model, settings);
            } else {
                throw root.error(at, "expected a strategy name or a mapping {name, strategy, model, settings}, got " + Fields.describe(entry));
            }
            Integer before = seen.putIfAbsent(rung.name(), i);
            if (before != null) {
                throw root.error(entry.isObject() ? at + ".name" : at, "duplicate rung name '" + rung.name()
                        + "' (also strategies[" + before + "]); give one of them a distinct 'name:'");
            }
            rungs.add(rung);
        }
        return rungs;
    }

    /** {@code comparisons: [[from, to], [from, to, family], ...]}, or null (absent) for the default family. */
    private static List<Comparisons.Pair> comparisons(Fields root, List<RungSpec> rungs) {
        JsonNode node = root.get("comparisons");
        if (node == null) return null;
        if (!(node instanceof ArrayNode list)) {
            throw root.error("comparisons", "expected a list of [from, to] rung pairs, got " + Fields.describe(node));
        }
        if (list.isEmpty()) throw root.error("comparisons", "is empty; list [from, to] rung pairs, or remove the line for the default family");
        List<Comparisons.Pair> pairs = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            JsonNode e = list.get(i);
            if (!e.isArray() || e.size() < 2 || e.size() > 3 || !e.get(0).isTextual() || !e.get(1).isTextual()
                    || e.size() == 3 && (!e.get(2).isTextual() || e.get(2).asText().isBlank())) {
                throw root.error("comparisons[" + i + "]", "expected a pair of rung names [from, to], or [from, to, "
                        + "family] with a Holm family name, got " + Fields.describe(e));
            }
            pairs.add(new Comparisons.Pair(e.get(0).asText(), e.get(1).asText(), e.size() == 3 ? e.get(2).asText() : null));
        }
        String[] problem = Comparisons.problem(pairs, rungs.stream().map(RungSpec::name).toList());
        if (problem != null) throw root.error(problem[0], problem[1]);
        return pairs;
    }

    private static Settings settings(Fields root) {
        JsonNode node = root.get("settings");
        if (node == null) return Settings.DEFAULT;
        return settings(Fields.of(root.source, "settings", node), Settings.DEFAULT);
    }

    /**
     * Settings from {@code KEY=VALUE} pairs over {@code base}, checked like a file's {@code settings:} block: a key is
     * a shared knob ({@code max_new_tokens}) or a pipeline block's ({@code gsr.temperature}), a value is read as
     * YAML ({@code 0.2}, {@code false}, {@code [a, b]}).
     *
     * @param source what the pairs came from, for messages (e.g. {@code --set})
     * @throws ExperimentException naming the pair's key and what is wrong
     */
    public static Settings settingsFrom(List<String> pairs, Settings base, String source) {
        ObjectNode root = YAML.createObjectNode();
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            if (eq <= 0) throw new ExperimentException(source, pair, "expected KEY=VALUE, e.g. gsr.temperature=0.2 or candidates=2");
            String[] key = pair.substring(0, eq).strip().split("\\.", -1);
            if (key.length > 2 || Arrays.stream(key).anyMatch(String::isBlank)) {
                throw new ExperimentException(source, pair, "a key is a setting (candidates) or a block's setting (gsr.temperature)");
            }
            JsonNode value;
            try {
                value = YAML.readTree(pair.substring(eq + 1));
            } catch (JsonProcessingException e) {
                throw new ExperimentException(source, pair, "the value is not YAML: " + e.getOriginalMessage().lines().findFirst().orElse(""));
            }
            if (value == null || value.isMissingNode()) value = YAML.getNodeFactory().nullNode();
            if (key.length == 1) {
                root.set(key[0], value);
            } else {
                JsonNode block = root.get(key[0]);
                if (block != null && !block.isObject()) throw new ExperimentException(source, pair, key[0] + " is set twice");
                ObjectNode b = block == null ? root.putObject(key[0]) : (ObjectNode) block;
                b.set(key[1], value);
            }
        }
        return settings(Fields.of(source, "settings", root), base);
    }

    /** The keys a settings mapping accepts: the shared knobs, then each registered pipeline's block. */
    static List<String> settingsFields() {
        List<String> out = new ArrayList<>(SharedKnobs.BLOCK.keys());
        Pipelines.registry().settingsBlocks().forEach(b -> out.add(b.key()));
        return out;
    }

    /**
     * A settings mapping (the experiment's or a rung's) read over {@code d}: a key it leaves out keeps d's value. The
     * shared knobs and each pipeline's block are bound alike ({@link SettingsBlock}).
     */
    private static Settings settings(Fields s, Settings d) {
        s.allowOnly(settingsFields());
        Settings out = d.with(SharedKnobs.BLOCK.read(s, d.knobs()));
        for (SettingsBlock<?> block : Pipelines.registry().settingsBlocks()) out = block(s, block, out);
        return out;
    }

    /** A pipeline's block (absent: as in {@code d}) read over d's value of it, key by key. */
    private static <T extends Record> Settings block(Fields settings, SettingsBlock<T> block, Settings d) {
        JsonNode node = settings.get(block.key());
        if (node == null) return d;
        Fields s = Fields.of(settings.source, settings.field(block.key()), node);
        s.allowOnly(block.keys());
        return d.with(block, block.read(s, d.declared(block)));
    }

    private static ScorerSpec scorers(Fields root) {
        JsonNode node = root.get("scorers");
        if (node == null) return ScorerSpec.DEFAULT;
        Fields s = Fields.of(root.source, "scorers", node);
        s.allowOnly(SCORER_FIELDS);
        ScorerSpec d = ScorerSpec.DEFAULT;
        // one mode, or a list of two: EX means the first; the second is reported beside it
        List<String> exModes;
        JsonNode exNode = s.get("ex_mode");
        if (exNode != null && exNode.isArray()) {
            exModes = s.stringList("ex_mode", List.of());
            if (exModes.isEmpty() || exModes.size() > 2) {
                throw s.error(s.field("ex_mode"), "give one EX mode or a list of two, e.g. [spider, bird]; got " + exModes.size());
            }
            for (int i = 0; i < exModes.size(); i++) {
                if (!EX_MODES.contains(exModes.get(i))) {
                    throw s.error(s.field("ex_mode") + "[" + i + "]", Fields.unknownValue("EX mode", exModes.get(i), EX_MODES));
                }
            }
            if (exModes.size() == 2 && exModes.get(0).equals(exModes.get(1))) {
                throw s.error(s.field("ex_mode"), "lists " + exModes.get(0) + " twice; give two different modes or one");
            }
        } else {
            exModes = List.of(s.choice("ex_mode", d.exMode().name().toLowerCase(Locale.ROOT), EX_MODES, "EX mode"));
        }
        ExMode mode = ExMode.valueOf(exModes.get(0).toUpperCase(Locale.ROOT));
        ExMode alsoMode = exModes.size() > 1 ? ExMode.valueOf(exModes.get(1).toUpperCase(Locale.ROOT)) : null;
        boolean keepDistinct = s.bool("keep_distinct", d.keepDistinct());
        double tolerance = s.number("tolerance", d.tolerance(), FIELD_BOUNDS.get("scorers.tolerance"));
        ScorerSpec.Ts ts = ScorerSpec.Ts.valueOf(s.choice("ts", d.ts().name().toLowerCase(Locale.ROOT), TS_MODES, "TS mode")
                .toUpperCase(Locale.ROOT));
        String suiteText = s.string("suite", null);
        Path suite = null;
        if (suiteText != null) {
            if (ts == ScorerSpec.Ts.NONE) throw s.error(s.field("suite"), "a test suite with 'ts: none'; remove one of the two");
            try {
                // a fetched suite by name (spider-ts), else a path
                suite = FetchedBenchmarks.suite(suiteText).orElse(null);
            } catch (UserError e) {
                throw s.error(s.field("suite"), e.getMessage());
            }
            if (suite == null) suite = path(s, s.field("suite"), suiteText);
            if (!Files.isDirectory(suite)) {
                throw s.error(s.field("suite"), "no test-suite directory at " + suiteText + " (build one with 'ladder testsuite build DB', or remove the line for the stored suite)");
            }
        }
        List<String> emModes = Arrays.stream(EmMode.values()).map(EmMode::label).toList();
        EmMode emMode = EmMode.parse(s.choice("em_mode", d.emMode().label(), emModes, "EM mode")).orElseThrow();
        String judge = s.string("judge", null);
        return new ScorerSpec(mode, keepDistinct, tolerance, ts, suite, emMode, alsoMode, judge);
    }

    private static void checkName(Fields f, String field, String name) {
        if (!NAME.matcher(name).matches()) {
            throw f.error(field, "'" + name + "' is not a valid name; use letters, digits, '.', '_' and '-' (no spaces, no '@')");
        }
    }

    private static Path path(Fields f, String field, String text) {
        try {
            return Path.of(text);
        } catch (InvalidPathException e) {
            throw f.error(field, "'" + text + "' is not a valid path");
        }
    }

    private static String stem(String source) {
        String n = source.replace('\\', '/');
        n = n.substring(n.lastIndexOf('/') + 1);
        int dot = n.lastIndexOf('.');
        n = dot > 0 ? n.substring(0, dot) : n;
        return NAME.matcher(n).matches() ? n : "experiment";
    }
}
