package dev.ladder.eval.cli;

import dev.ladder.adapters.MergeBase;
import dev.ladder.eval.experiment.ServerSpec;
import dev.ladder.eval.run.ModelLoader;
import dev.ladder.eval.run.ServedModels;
import dev.ladder.inference.EngineFailureException;
import dev.ladder.inference.EngineRequestException;
import dev.ladder.inference.EngineUnavailableException;
import dev.ladder.inference.LanguageModel;
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
 * as exported, djl otherwise ({@link ModelLoader#engineFor}).
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
                    + " export, on the CPU, with no --adapter or --dtype; else djl).")
    String engine;
    @Option(names = "--server", paramLabel = "URL",
            description = "engine openai: the server's API root (e.g. http://127.0.0.1:8000/v1); --model is then the name it"
                    + " serves the model under.")
    String server;
    @Option(names = "--server-key-env", paramLabel = "NAME",
            description = "engine openai: the environment variable holding the server's key (never the key itself).")
    String apiKeyEnv;

    static final List<String> ENGINES = List.of("auto", "djl", ModelLoader.ONNX, "openai");

    /**
     * The merge base a {@code --merge-base} value names.
     *
     * @throws UserError for another value, or nf4 without an adapter
     */
    static MergeBase mergeBase(String mergeBase, Path adapter) {
        String mb = mergeBase.strip().toLowerCase(Locale.ROOT);
        if (!mb.equals("full") && !mb.equals("nf4")) {
            throw new UserError("--merge-base must be full or nf4, got '" + mergeBase + "'");
        }
        if (mb.equals("nf4") && adapter == null) {
            throw new UserError("--merge-base nf4 applies to an --adapter; none given");
        }
        return MergeBase.valueOf(mb.toUpperCase(Locale.ROOT));
    }

    /**
     * The engine these flags name: {@code --engine}, or for {@code auto} openai with {@code --server}, else the one the
     * model folder implies. Flags that mean nothing to it are refused.
     *
     * @throws UserError for an unknown engine, openai without a server, a server or key with an in-process engine, or
     *                   an adapter, dtype or device given to a served model
     */
    String engine() {
        String e = engine.strip().toLowerCase(Locale.ROOT);
        if (!ENGINES.contains(e)) {
            throw new UserError("--engine must be one of " + String.join(", ", ENGINES) + ", got '" + engine + "'");
        }
        if (e.equals("auto")) {
            e = server != null ? "openai" : ModelLoader.engineFor(ModelCommand.resolve(model), adapter, dtype,
                    DeviceOptions.parse(device));
        }
        if (e.equals("openai")) {
            if (server == null) {
                throw new UserError("--engine openai needs --server URL, the server's API root (e.g. http://127.0.0.1:8000/v1)");
            }
            if (adapter != null) {
                throw new UserError("--adapter: engine openai takes no adapter; serve it on the server (vLLM: --lora-modules"
                        + " NAME=DIR) and give NAME as --model");
            }
            if (!dtype.strip().equalsIgnoreCase("auto")) throw new UserError("--dtype: engine openai's server decides the dtype");
            if (!device.strip().equalsIgnoreCase("auto")) throw new UserError("--device: engine openai's server decides the device");
        } else if (e.equals(ModelLoader.ONNX) && !dtype.strip().equalsIgnoreCase("auto")) {
            throw new UserError("--dtype: engine onnx takes the precision of its export (export another to change it)");
        } else if (e.equals(ModelLoader.ONNX) && !mergeBase.strip().equalsIgnoreCase("full")) {
            throw new UserError("--merge-base: engine onnx takes no adapter to merge");
        } else if (server != null || apiKeyEnv != null) {
            throw new UserError((server != null ? "--server" : "--server-key-env") + " applies to --engine openai; the engine"
                    + " here is " + e + " (" + (engine.strip().equalsIgnoreCase("auto") ? "detected from " + model : "--engine") + ")");
        }
        return e;
    }

    /** How to load the model in-process with {@code engine} (djl or onnx) for {@code workload}. */
    ModelLoader.LoadSpec loadSpec(String inProcessEngine, ModelLoader.Workload workload) {
        return new ModelLoader.LoadSpec(inProcessEngine, dtype, DeviceOptions.parse(device),
                mergeBase(mergeBase, adapter), workload);
    }

    /**
     * Opens the model: loaded in this process (djl, onnx) for {@code workload}, or connected to (openai).
     *
     * @param log where loading says what it loads, or null
     */
    LanguageModel open(ModelLoader.Workload workload, PrintWriter log) {
        return open(engine(), workload, log);
    }

    /** As {@link #open(ModelLoader.Workload, PrintWriter)}, with the engine {@link #engine()} already gave. */
    LanguageModel open(String e, ModelLoader.Workload workload, PrintWriter log) {
        if (e.equals("openai")) return connect();
        if (adapter != null && !Files.isDirectory(adapter)) throw new UserError("adapter directory not found: " + adapter);
        return ModelLoader.load(ModelCommand.resolve(model), adapter, loadSpec(e, workload), log).model();
    }

    /** The served model of {@code --server}: reachable, serving {@code --model}, the key accepted. */
    private LanguageModel connect() {
        String problem = OpenAiEndpoint.urlProblem(server);
        if (problem != null) throw new UserError("--server " + server + ": " + problem);
        if (apiKeyEnv != null && !apiKeyEnv.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new UserError("--server-key-env is the NAME of an environment variable holding the key (e.g. VLLM_API_KEY),"
                    + " never the key itself");
        }
        ServerSpec spec = new ServerSpec(server, model, apiKeyEnv, ServerSpec.DEFAULT_ENDPOINT, null,
                ServerSpec.DEFAULT_TIMEOUT_SECONDS, 1, ServerSpec.DEFAULT_RETRIES, true);
        return ServedModels.connect(spec, "--server " + server, "--server-key-env");
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

    /** Loads the model for serving (djl or onnx: a served model is not served again). */
    ServeCommand.Session open(int maxBatchRows, String servedName, PrintWriter log) {
        String e = engine();
        if (e.equals("openai")) {
            throw new UserError("--engine openai: this command serves a model it loads itself (djl or onnx); the model"
                    + " behind --server is served already");
        }
        return ServeCommand.Session.open(model, e, adapter, mergeBase, dtype, device, maxBatchRows, servedName, log);
    }
}
