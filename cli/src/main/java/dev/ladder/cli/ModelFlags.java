package dev.ladder.cli;

import dev.ladder.adapters.MergeBase;
import dev.ladder.eval.experiment.ServerSpec;
import dev.ladder.eval.run.FolderEngine;
import dev.ladder.eval.run.ModelLoader;
import dev.ladder.inference.EngineFailureException;
import dev.ladder.inference.EngineRequestException;
import dev.ladder.inference.EngineUnavailableException;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.engine.BatchWidth;
import dev.ladder.inference.engine.Engine;
import dev.ladder.inference.engine.EngineContext;
import dev.ladder.inference.engine.Engines;
import dev.ladder.inference.engine.ModelFields;
import dev.ladder.inference.openai.OpenAiEndpoint;
import dev.ladder.sql.db.InfrastructureError;
import dev.ladder.sql.db.UserError;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import picocli.CommandLine.Option;

/**
 * How a command names and loads one model ({@code ladder ask}, {@code generate}, {@code serve}, {@code bench serve},
 * {@code model logits}): one set of flags and one reading of them, every engine included. {@code --engine auto} is
 * {@code openai} with {@code --server}, else onnx where the folder holds an ONNX export and the model runs on the CPU
 * as exported, djl otherwise ({@code AutoEngine}). Every rule about an engine is its own ({@link Engine#check}): the
 * flags are handed to it as a model's fields.
 */
final class ModelFlags {
    @Option(names = "--model", required = true, paramLabel = "MODEL",
            description = "A model directory or a pulled repo id owner/name[@revision]; on ask, oracle[:NOISE] answers a benchmark question from its gold (docs/oracle.md).")
    String model;
    @Option(names = "--adapter", paramLabel = "DIR", description = "A PEFT LoRA adapter merged into the model at load time.")
    Path adapter;
    @Option(names = "--merge-base", defaultValue = "full", paramLabel = "full|nf4",
            description = "With --adapter: merge into the base's weights (full) or its NF4 round trip (nf4, as QLoRA trained).")
    String mergeBase;
    @Option(names = "--dtype", defaultValue = "auto", paramLabel = "auto|f32|f16|int8",
            description = "Weights in memory (default ${DEFAULT-VALUE}: f32 on CPU, f16 on GPU).")
    String dtype;
    @Option(names = "--device", defaultValue = "auto", paramLabel = "auto|cpu|cuda[:N]",
            description = "Where the model runs (default ${DEFAULT-VALUE}: the first GPU if the loaded libtorch has CUDA).")
    String device;
    @Option(names = "--engine", defaultValue = "auto", paramLabel = "auto|djl|onnx|openai",
            description = "The engine (default ${DEFAULT-VALUE}: openai with --server; onnx for a folder holding an ONNX"
                    + " export, on the CPU, with no --adapter or --dtype; else djl), or any other registered engine"
                    + " (docs/extending.md).")
    String engine;
    @Option(names = "--server", paramLabel = "URL",
            description = "engine openai: the server's API root (e.g. http://127.0.0.1:8000/v1); --model is then the name it"
                    + " serves the model under.")
    String server;
    @Option(names = "--server-key-env", paramLabel = "NAME",
            description = "engine openai: the environment variable holding the server's key (never the key itself).")
    String apiKeyEnv;

    /**
     * The merge base a {@code --merge-base} value names (whether it applies is the engine's rule: a folder engine's
     * {@code check} refuses nf4 without an adapter).
     *
     * @throws UserError for another value
     */
    static MergeBase mergeBase(String mergeBase) {
        String mb = mergeBase.strip().toLowerCase(Locale.ROOT);
        if (!mb.equals("full") && !mb.equals("nf4")) {
            throw new UserError("--merge-base must be full or nf4, got '" + mergeBase + "'");
        }
        return MergeBase.valueOf(mb.toUpperCase(Locale.ROOT));
    }

    /**
     * The engine these flags name: {@code --engine}, or for {@code auto} openai with {@code --server}, else the one the
     * model folder implies ({@link Engine#concrete}). Flags that mean nothing to it are refused: by the engine's own
     * checks, and here a server for an engine without one or none for an engine that needs one.
     *
     * @throws UserError for an unknown engine, a server engine without a server, a server or key with an in-process
     *                   engine, or what the engine refuses (an adapter, dtype or device given to a served model...)
     */
    Engine engine() {
        Engines engines = Engines.registry();
        String e = engine.strip().toLowerCase(Locale.ROOT);
        List<String> names = engines.commandLineNames();
        Engine named = engines.find(e).filter(Engine::onCommandLine).orElseThrow(() -> new UserError(
                "--engine must be one of " + String.join(", ", names) + ", got '" + engine + "'"));
        Engine concrete = named.concrete(fields(named), EngineContext.of(null, null, STORE));
        if (takesServer(concrete)) {
            if (server == null) {
                throw new UserError("--engine " + concrete.name() + " needs --server URL, the server's API root (e.g."
                        + " http://127.0.0.1:8000/v1)");
            }
        } else if (server != null || apiKeyEnv != null) {
            List<String> served = engines.names().stream().map(engines::byName).filter(ModelFlags::takesServer)
                    .map(Engine::name).toList();
            throw new UserError((server != null ? "--server" : "--server-key-env") + " applies to --engine "
                    + String.join(" or ", served) + "; the engine here is " + concrete.name() + " ("
                    + (named != concrete ? "detected from " + model : "--engine") + ")");
        } else {
            mergeBase(mergeBase);
        }
        concrete.check(fields(concrete));
        return concrete;
    }

    private static boolean takesServer(Engine e) {
        return e.fields().contains("base_url");
    }

    /**
     * Opens the model with the engine {@link #engine()} gave: loaded in this process for {@code workload}, or connected
     * to.
     *
     * @param log where loading says what it loads, or null
     */
    LanguageModel open(Engine e, ModelLoader.Workload workload, PrintWriter log) {
        if (adapter != null && !Files.isDirectory(adapter)) throw new UserError("adapter directory not found: " + adapter);
        return e.load(fields(e), null, context(workload, log)).model();
    }

    /** As {@link #open(Engine, ModelLoader.Workload, PrintWriter)} with the engine these flags name. */
    LanguageModel open(ModelLoader.Workload workload, PrintWriter log) {
        return open(engine(), workload, log);
    }

    /**
     * What a command knows when it identifies or loads: a model path is looked up in the store (a command never pulls),
     * the workload, and the server of {@code --server}.
     */
    EngineContext context(ModelLoader.Workload workload, PrintWriter log) {
        return EngineContext.of(null, log, STORE, workload, server == null ? null : serverSpec());
    }

    /** How a command finds a model folder: in the store, never pulling (ladder model pull does). */
    private static final FolderEngine.Locator STORE = (pathOrId, log) -> ModelCommand.resolve(pathOrId);

    /** The server of {@code --server} and {@code --server-key-env}, their values checked. */
    private ServerSpec serverSpec() {
        String problem = OpenAiEndpoint.urlProblem(server);
        if (problem != null) throw new UserError("--server " + server + ": " + problem);
        if (apiKeyEnv != null && !apiKeyEnv.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new UserError("--server-key-env is the NAME of an environment variable holding the key (e.g. VLLM_API_KEY),"
                    + " never the key itself");
        }
        return new ServerSpec(server, model, apiKeyEnv, ServerSpec.DEFAULT_ENDPOINT, null,
                ServerSpec.DEFAULT_TIMEOUT_SECONDS, 1, ServerSpec.DEFAULT_RETRIES, true);
    }

    /**
     * The flags as an engine reads a model's fields: {@code --model} is the path of a model in a folder and the served
     * name of a served one; a flag left at its default is not set; errors name the flag.
     */
    ModelFields fields(Engine e) {
        return new ModelFields() {
            @Override
            public String engine() {
                return e.name();
            }

            @Override
            public String get(String field) {
                return switch (field) {
                    case "path" -> e.fields().contains("model") ? null : model;
                    case "model" -> e.fields().contains("model") ? model : null;
                    case "adapter" -> adapter == null ? null : adapter.toString();
                    case "dtype" -> unlessDefault(dtype, "auto");
                    case "device" -> unlessDefault(device, "auto");
                    case "merge_base" -> unlessDefault(mergeBase, "full");
                    case "base_url" -> server;
                    case "api_key_env" -> apiKeyEnv;
                    // an engine whose models have no path is named --model ENGINE[:VALUE] (oracle:NOISE)
                    default -> namedByModel(field) && model != null && model.startsWith(e.name() + ":")
                            ? model.substring(e.name().length() + 1) : null;
                };
            }

            @Override
            public String where(String field) {
                if (field == null) return server != null ? "--server " + server : "--model " + model;
                return switch (field) {
                    case "path", "model" -> "--model";
                    case "base_url" -> "--server";
                    case "api_key_env" -> "--server-key-env";
                    default -> namedByModel(field) ? "--model" : "--" + field.replace('_', '-');
                };
            }

            /**
             * The one field of an engine whose models have no path: written in --model, as ENGINE:VALUE (a batch width
             * aside: a run's, which no command that takes --model has).
             */
            private boolean namedByModel(String field) {
                return !e.fields().contains("path")
                        && e.fields().stream().filter(f -> !f.equals(BatchWidth.FIELD)).toList().equals(List.of(field));
            }

            @Override
            public RuntimeException refuse(String field, String reason) {
                return new UserError(where(field) + ": " + reason);
            }
        };
    }

    private static String unlessDefault(String value, String dflt) {
        return value == null || value.strip().equalsIgnoreCase(dflt) ? null : value.strip();
    }

    /**
     * Runs a call on the model, its engine's failures as one line: a request the engine refuses (a prompt longer than
     * a server's context) is the user's to fix; a server that went away or an engine that failed is infrastructure.
     */
    <T> T call(Supplier<T> work) {
        String where = server != null ? "--server " + server : "--model " + model;
        try {
            return work.get();
        } catch (EngineRequestException e) {
            throw new UserError(where + ": " + e.getMessage(), e);
        } catch (EngineUnavailableException | EngineFailureException e) {
            throw new InfrastructureError(where + ": " + e.getMessage(), e);
        }
    }

    /** Loads the model for serving (an engine that runs it in this process: a served model is not served again). */
    ServeCommand.Session open(int maxBatchRows, String servedName, PrintWriter log) {
        Engine e = engine();
        if (!e.inProcess()) {
            throw new UserError("--engine " + e.name() + ": this command serves a model it loads itself ("
                    + String.join(", ", Engines.registry().inProcessNames()) + "); the model behind --server is served"
                    + " already");
        }
        return ServeCommand.Session.open(e, fields(e), context(null, log), adapter, maxBatchRows, servedName);
    }
}
