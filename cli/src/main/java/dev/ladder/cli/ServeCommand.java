package dev.ladder.cli;

import dev.ladder.common.HostCheck;
import dev.ladder.eval.run.FolderEngine;
import dev.ladder.eval.run.ModelLoader;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.device.EngineLimits;
import dev.ladder.inference.engine.Engine;
import dev.ladder.inference.engine.EngineContext;
import dev.ladder.inference.engine.EngineLoad;
import dev.ladder.inference.engine.ModelFields;
import dev.ladder.inference.engine.ModelIdentity;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.ModelException;
import dev.ladder.inference.serve.OpenAiServer;
import dev.ladder.inference.serve.ServedModel;
import dev.ladder.inference.serve.ServerOptions;
import dev.ladder.inference.text.PromptFormats;
import dev.ladder.inference.text.Tokenizer;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * {@code ladder serve}: a model loaded as {@code ladder run} loads it, behind an OpenAI-compatible HTTP API
 * (docs/serve.md). Prints {@code serving NAME on http://HOST:PORT/v1} once listening; stops gracefully on SIGTERM
 * (exit 0) or Ctrl-C.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serve a model over an OpenAI-compatible HTTP API (/v1/models, /v1/completions, "
                + "/v1/chat/completions, /version); concurrent requests share the engine's batches.",
                "Listens on loopback unless --host says otherwise, and answers only requests whose Host header names "
                        + "loopback, this machine (with a non-loopback --host) or an --allow-host NAME. "
                        + "With --api-key-env VAR every request needs "
                        + "'Authorization: Bearer $VAR'. SIGTERM: the running batch is answered, queued requests get 503, "
                        + "exit 0. See docs/serve.md."})
final class ServeCommand implements Callable<Integer> {

    /** Tokens per row the memory plan assumes (prompt and new tokens); longer requests still run while memory lasts. */
    static final int PLAN_CONTEXT = 2048;

    @Spec CommandSpec spec;
    @Mixin ModelFlags load;
    @Option(names = "--host", defaultValue = ServerOptions.LOOPBACK, paramLabel = "ADDR",
            description = "Address to listen on (default ${DEFAULT-VALUE}: this machine only).")
    String host;
    @Option(names = "--allow-host", paramLabel = "NAME",
            description = "Also answer requests whose Host header is NAME (repeatable): a proxy's name, or another "
                    + "name of this machine. Loopback names are always answered; with a non-loopback --host, so are this "
                    + "machine's own names and addresses. Any other Host gets 403 (DNS rebinding).")
    List<String> allowHosts = new ArrayList<>();
    @Option(names = "--port", defaultValue = "8000", paramLabel = "PORT", description = "TCP port (default ${DEFAULT-VALUE}; 0 = any free port).")
    int port;
    @Option(names = "--served-name", paramLabel = "NAME", description = "The model name clients send (default: the model directory's name).")
    String servedName;
    @Option(names = "--api-key-env", paramLabel = "VAR",
            description = "Require 'Authorization: Bearer <key>', the key read from this environment variable (never from the command line).")
    String apiKeyEnv;
    @Option(names = "--max-batch-rows", defaultValue = "16", paramLabel = "R",
            description = "Most candidate rows in one engine batch; a request's n may not exceed it (default ${DEFAULT-VALUE}).")
    int maxBatchRows;
    @Option(names = "--batch-wait-ms", defaultValue = "0", paramLabel = "MS",
            description = "An idle engine waits up to this long after a request arrives for more to share its batch "
                    + "(default ${DEFAULT-VALUE}: start at once).")
    int batchWaitMs;
    @Option(names = "--max-queue", defaultValue = "256", paramLabel = "N",
            description = "Requests waiting for a batch; beyond it the server answers 503 with Retry-After (default ${DEFAULT-VALUE}).")
    int maxQueue;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (port < 0 || port > 65535) throw new UserError("--port must be in 0..65535, got " + port);
        if (maxBatchRows < 1) throw new UserError("--max-batch-rows must be >= 1, got " + maxBatchRows);
        if (maxQueue < 1) throw new UserError("--max-queue must be >= 1, got " + maxQueue);
        if (batchWaitMs < 0 || batchWaitMs > 60_000) throw new UserError("--batch-wait-ms must be in 0..60000, got " + batchWaitMs);
        if (servedName != null && servedName.isBlank()) throw new UserError("--served-name is blank");
        List<String> allowed = allowedHosts(allowHosts);
        String key = apiKey(apiKeyEnv);
        InetAddress address = address(host);
        checkPort(address, port);   // before loading: a taken port should not cost a model load
        if (key == null && !address.isLoopbackAddress()) {
            err.println("warning: listening on " + host + " without --api-key-env: anyone who can reach this port can use the model");
        }
        ServerOptions options = new ServerOptions(host, port, key, maxBatchRows, maxQueue, batchWaitMs,
                ServerOptions.DEFAULT_HANDLER_THREADS, ServerOptions.DEFAULT_MAX_BODY_BYTES, ServerOptions.DEFAULT_READ_TIMEOUT_MILLIS,
                ServerOptions.DEFAULT_MAX_CONNECTIONS, Ladder.version(), allowed);
        try (Session session = load.open(maxBatchRows, servedName, err)) {
            OpenAiServer server;
            try {
                // the engine runs on this thread, which loaded the model (OpenAiServer.listen says why)
                server = OpenAiServer.listen(session.served(), options, err);
            } catch (IOException e) {
                throw new UserError("cannot listen on " + host + ":" + port + ": " + e.getMessage()
                        + " (choose another --port, or --port 0 for any free one)", e);
            }
            Stop stop = new Stop(server, session, err);
            // Ctrl-C, SIGHUP, or SIGTERM where it cannot be caught: stop gracefully while the JVM exits
            Thread hook = new Thread(stop::run, "ladder-serve-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            Object previous = Sigterm.catchIt(stop::run);
            if (!server.extraHosts().isEmpty()) {
                err.println("serve: answering requests whose Host is localhost, a loopback address or one of "
                        + String.join(", ", server.extraHosts()) + " (others get 403; --allow-host adds names)");
            }
            out.println("serving " + session.served().name() + " on " + server.baseUri());
            out.flush();
            server.runEngine();   // until a signal closes the server; the last batch is answered first
            stop.run();           // waits for the signal's stop to finish
            Sigterm.restore(previous);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException alreadyExiting) {
                // the JVM is exiting anyway; the hook finds everything closed
            }
            OpenAiServer.SchedulerStats s = server.stats();
            err.printf(Locale.ROOT, "serve: stopped after %d engine batches (%d requests, %.1f per batch)%n", s.batches(),
                    s.requests(), s.meanRequestsPerBatch());
            err.flush();
            return 0;
        }
    }

    /** The graceful stop, run by whichever comes first (SIGTERM, the shutdown hook, the command); later callers wait. */
    private static final class Stop {
        private final OpenAiServer server;
        private final Session session;
        private final PrintWriter err;
        private boolean announced;

        Stop(OpenAiServer server, Session session, PrintWriter err) {
            this.server = server;
            this.session = session;
            this.err = err;
        }

        synchronized void run() {
            if (!announced && !server.isClosing()) {
                announced = true;
                err.println("serve: stopping: the running batch is answered, queued requests get 503");
                err.flush();
            }
            server.close();
            session.close();
        }
    }

    /** The {@code --allow-host} entries, normalised; a malformed one is a user error. */
    static List<String> allowedHosts(List<String> entries) {
        List<String> out = new ArrayList<>();
        for (String entry : entries) {
            try {
                out.add(HostCheck.checkAllowed(entry));
            } catch (IllegalArgumentException e) {
                throw new UserError("--allow-host " + e.getMessage());
            }
        }
        return out;
    }

    /** The key from the named environment variable; it is never printed. */
    static String apiKey(String variable) {
        if (variable == null) return null;
        if (!variable.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new UserError("--api-key-env takes the name of an environment variable (e.g. LADDER_API_KEY), not the key");
        }
        String key = System.getenv(variable);
        if (key == null || key.isBlank()) {
            throw new UserError("--api-key-env " + variable + ": the environment variable " + variable
                    + " is not set or empty (export it with the key)");
        }
        return key.strip();
    }

    static InetAddress address(String host) {
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new UserError("--host " + host + ": unknown host");
        }
    }

    /** Fails early, with one line, when the port is taken. */
    static void checkPort(InetAddress address, int port) {
        if (port == 0) return;
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(address, port));
        } catch (IOException e) {
            throw new UserError("cannot listen on " + address.getHostAddress() + ":" + port + ": " + e.getMessage()
                    + " (choose another --port, or --port 0 for any free one)", e);
        }
    }

    /**
     * A model loaded for serving (through {@link ModelLoader}, as {@code ladder run} loads it), its tokenizer (for
     * log-prob token texts) and what the server reports about it. Closing closes both, once.
     */
    static final class Session implements AutoCloseable {
        private final LanguageModel model;
        private final Tokenizer tokenizer;
        private final ServedModel served;
        private final AtomicBoolean closed = new AtomicBoolean();

        private Session(LanguageModel model, Tokenizer tokenizer, ServedModel served) {
            this.model = model;
            this.tokenizer = tokenizer;
            this.served = served;
        }

        ServedModel served() {
            return served;
        }

        /** A session of a model named as on the command line (the flags' values as given). */
        static Session open(String model, String engine, Path adapter, String mergeBase, String dtype, String device,
                            int maxBatchRows, String servedName, PrintWriter log) {
            ModelFlags flags = new ModelFlags();
            flags.model = model;
            flags.engine = engine;
            flags.adapter = adapter;
            flags.mergeBase = mergeBase;
            flags.dtype = dtype;
            flags.device = device;
            return flags.open(maxBatchRows, servedName, log);
        }

        /**
         * @param engine  an engine that runs the model folder in this process, its checks passed
         * @param context where loading says what it does, and how a path finds its folder
         * @throws UserError for a missing model or adapter, a bad flag, a model that does not fit
         */
        static Session open(Engine engine, ModelFields fields, EngineContext context, Path adapter, int maxBatchRows,
                            String servedName) {
            DeviceOptions.parse(fields.get("device", "auto"));
            if (adapter != null && !Files.isRegularFile(adapter.resolve("adapter_config.json"))) {
                throw new UserError("--adapter " + adapter + ": no PEFT adapter there (no adapter_config.json)");
            }
            ModelIdentity identity = engine.identify(fields, context);
            Path dir = identity.dir();
            ModelConfig config;
            try {
                config = ModelConfig.read(dir);
            } catch (ModelException e) {
                throw new UserError(e.getMessage(), e);
            }
            ModelLoader.Workload workload = new ModelLoader.Workload(maxBatchRows,
                    Math.min(PLAN_CONTEXT, EngineLimits.defaultContext(config)));
            EngineLoad loaded = engine.load(fields, identity,
                    context.with(workload).with(new FolderEngine.BatchRows(maxBatchRows)));
            try {
                Tokenizer tokenizer = Tokenizer.load(dir);
                String fingerprint = "model=" + identity.modelPrint() + " dtype=" + loaded.dtype() + " device="
                        + loaded.device() + " adapter=" + (adapter == null ? "none" : identity.adapterPrint())
                        + (adapter != null ? " merge-base=" + fields.get("merge_base", "full").toLowerCase(Locale.ROOT) : "");
                String name = servedName != null ? servedName.strip() : loaded.model().name();
                // the BOS a text prompt gets with add_special_tokens: the one the model's own tokenizer adds, if any
                String bos = PromptFormats.completionFor(dir).bos();
                ServedModel served = new ServedModel(loaded.model(), name, loaded.engine(), fingerprint, bos,
                        tokenizer::decode, config.vocabSize());
                return new Session(loaded.model(), tokenizer, served);
            } catch (ModelException e) {
                loaded.model().close();
                throw new UserError(e.getMessage(), e);
            } catch (RuntimeException e) {
                loaded.model().close();
                throw e;
            }
        }

        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) return;
            try {
                model.close();
            } finally {
                tokenizer.close();
            }
        }
    }

    /**
     * SIGTERM handling through {@code sun.misc.Signal} (module jdk.unsupported): the JVM's own handler would exit with
     * status 143; catching it lets the command stop gracefully and exit 0. Where the signal cannot be caught (e.g.
     * {@code -Xrs}), the shutdown hook still stops gracefully.
     */
    static final class Sigterm {
        private Sigterm() {}

        /** Runs {@code action} on SIGTERM; returns the handler it replaced (for {@link #restore}), or null. */
        static Object catchIt(Runnable action) {
            try {
                return Signal.handle(new Signal("TERM"), s -> action.run());
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                return null;
            }
        }

        static void restore(Object previous) {
            if (previous instanceof SignalHandler h) {
                try {
                    Signal.handle(new Signal("TERM"), h);
                } catch (IllegalArgumentException | UnsupportedOperationException e) {
                    // nothing to restore
                }
            }
        }
    }
}
