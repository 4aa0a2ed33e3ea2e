package dev.ladder.eval.experiment;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import dev.ladder.inference.engine.Engine;
import dev.ladder.inference.engine.Engines;
import dev.ladder.inference.engine.ModelFields;
import dev.ladder.pipeline.oracle.engine.OracleEngine;
import dev.ladder.sql.db.UserError;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * A model the rungs of an experiment use.
 *
 * @param path    a model directory or a hub id ({@code owner/name}, optionally {@code @revision}) resolved through
 *                the model store; see {@link ExperimentLoader#isHubId(String)}
 * @param adapter a PEFT LoRA adapter directory merged at load time, or null for none
 * @param engine  inference engine (a registered {@link dev.ladder.inference.engine.Engine}'s name)
 * @param dtype     weights in memory ({@link ExperimentLoader#KNOWN_DTYPES})
 * @param device    where it runs: {@code auto}, {@code cpu}, {@code cuda}, {@code cuda:N}
 * @param mergeBase what the adapter is merged into: {@code full} (the base's own weights) or {@code nf4} (the base
 *                  after the NF4 round trip the QLoRA adapter was trained on); {@code full} without an adapter
 * @param server    for {@code engine: openai}, the server and served model (then {@code path} is the served name,
 *                  for the tables, and there is no adapter, dtype or device of Ladder's own); null otherwise
 * @param options   the engine's own fields beyond these (as text, by field name); empty for the built-in engines but
 *                  the oracle's, whose noise is here and in its path
 */
public record ModelSpec(String path, String adapter, String engine, String dtype, String device, String mergeBase,
                        ServerSpec server, Map<String, String> options) {

    /** The engine of a model that names none: the djl engine. */
    public static final String DEFAULT_ENGINE = "djl";
    public static final String DEFAULT_DTYPE = "auto";
    public static final String DEFAULT_DEVICE = "auto";
    public static final String DEFAULT_MERGE_BASE = "full";
    /** The oracle engine (dev.ladder.pipeline.oracle): answers from the gold; {@code path} is {@code oracle:<noise>}. */
    public static final String ORACLE = OracleEngine.NAME;

    public ModelSpec {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(mergeBase, "mergeBase");
        // the oracle's one field is its noise, which its path already holds in canonical form: one spelling of it,
        // whether the file gave it, left it to its default or wrote another form ("low" or its key=value label)
        Map<String, String> own = new TreeMap<>(options);
        if (ORACLE.equals(engine) && path.indexOf(':') >= 0) own.put("noise", path.substring(path.indexOf(':') + 1));
        options = Collections.unmodifiableMap(own);
    }

    /** A model with no fields of its engine's own. */
    public ModelSpec(String path, String adapter, String engine, String dtype, String device, String mergeBase,
                     ServerSpec server) {
        this(path, adapter, engine, dtype, device, mergeBase, server, Map.of());
    }

    /** An in-process model. */
    public ModelSpec(String path, String adapter, String engine, String dtype, String device, String mergeBase) {
        this(path, adapter, engine, dtype, device, mergeBase, null);
    }

    /** A model an OpenAI-compatible server serves on {@code engine}: its served name stands for the path. */
    public static ModelSpec served(String engine, ServerSpec server) {
        return new ModelSpec(server.model(), null, engine, DEFAULT_DTYPE, DEFAULT_DEVICE, DEFAULT_MERGE_BASE, server);
    }

    /** The oracle with this noise ({@code OracleNoise#label()}); it has no files, adapter, dtype or device. */
    public static ModelSpec oracle(String noiseLabel) {
        return new ModelSpec(ORACLE + ":" + noiseLabel, null, ORACLE, DEFAULT_DTYPE, DEFAULT_DEVICE, DEFAULT_MERGE_BASE,
                null, Map.of("noise", noiseLabel));
    }

    /**
     * The model's fields as its engine reads them (a field the engine does not take reads as absent, and a default as
     * the default); a refused value is a {@link UserError} naming {@code models.ID.FIELD}.
     */
    public ModelFields fields(String id) {
        Engine e = Engines.registry().find(engine).orElse(null);
        return new ModelFields() {
            @Override
            public String engine() {
                return engine;
            }

            @Override
            public String get(String field) {
                if (e != null && !e.fields().contains(field)) return null;
                return switch (field) {
                    case "path" -> path;
                    case "adapter" -> adapter;
                    case "dtype" -> dtype;
                    case "device" -> device;
                    case "merge_base" -> mergeBase;
                    default -> server != null && ServerSpec.FIELDS.contains(field) ? server.field(field) : options.get(field);
                };
            }

            @Override
            public String where(String field) {
                return "models." + id + (field == null ? "" : "." + field);
            }

            @Override
            public RuntimeException refuse(String field, String reason) {
                return new UserError(where(field) + ": " + reason);
            }
        };
    }

    /** Whether this is the oracle engine, a measuring instrument rather than a model. */
    public boolean oracle() {
        return ORACLE.equals(engine);
    }

    /** The oracle's noise label ({@code none}, or its key=value form); null for other engines. */
    public String oracleNoise() {
        return oracle() ? path.substring(path.indexOf(':') + 1) : null;
    }

    /** Whether a server runs the model ({@code engine: openai}) rather than this process. */
    public boolean served() {
        return server != null;
    }

    /** A model with the default device ({@code auto}) and merge base ({@code full}). */
    public ModelSpec(String path, String adapter, String engine, String dtype) {
        this(path, adapter, engine, dtype, DEFAULT_DEVICE, DEFAULT_MERGE_BASE);
    }

    public boolean hasAdapter() {
        return adapter != null;
    }

    /**
     * True when an adapter is named but its directory holds no {@code adapter_config.json}; the runner skips the
     * cells of such a model (a QLoRA adapter is trained elsewhere and may simply not be there yet).
     */
    public boolean adapterMissing() {
        return adapter != null && !Files.isRegularFile(Path.of(adapter).resolve("adapter_config.json"));
    }

    /**
     * The number of exemplars the adapter was trained with, from the {@code ladder-training.json} that
     * notebooks/qlora_train.ipynb writes beside it ({@code "k"}); empty when there is no such record.
     */
    public OptionalInt trainedK() {
        if (adapter == null) return OptionalInt.empty();
        Path record = Path.of(adapter).resolve("ladder-training.json");
        if (!Files.isRegularFile(record)) return OptionalInt.empty();
        try {
            var k = new ObjectMapper().readTree(record.toFile()).path("k");
            return k.isInt() ? OptionalInt.of(k.asInt()) : OptionalInt.empty();
        } catch (IOException e) {
            return OptionalInt.empty();   // an unreadable record says nothing; the adapter itself is checked at load
        }
    }

    public ModelSpec withPath(String p) {
        return new ModelSpec(p, adapter, engine, dtype, device, mergeBase, server, options);
    }

    public ModelSpec withAdapter(String a) {
        return new ModelSpec(path, a, engine, dtype, device, mergeBase, server, options);
    }

    public ModelSpec withDtype(String d) {
        return new ModelSpec(path, adapter, engine, d, device, mergeBase, server, options);
    }

    public ModelSpec withEngine(String e) {
        return new ModelSpec(path, adapter, e, dtype, device, mergeBase, server, options);
    }

    /** This model with one of its engine's own fields set ({@code batch_width}). */
    public ModelSpec withOption(String field, String value) {
        Map<String, String> own = new TreeMap<>(options);
        own.put(field, value);
        return new ModelSpec(path, adapter, engine, dtype, device, mergeBase, server, own);
    }

    public ModelSpec withDevice(String d) {
        return new ModelSpec(path, adapter, engine, dtype, d, mergeBase, server, options);
    }
}
