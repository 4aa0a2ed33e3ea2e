package dev.ladder.eval.engine.openai;

import dev.ladder.eval.experiment.ServerSpec;
import dev.ladder.eval.run.ServedModels;
import dev.ladder.inference.engine.Engine;
import dev.ladder.inference.engine.EngineContext;
import dev.ladder.inference.engine.EngineLoad;
import dev.ladder.inference.engine.ModelFields;
import dev.ladder.inference.engine.ModelIdentity;
import dev.ladder.inference.openai.OpenAiEndpoint;
import dev.ladder.inference.openai.OpenAiLanguageModel;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The openai engine: a model an OpenAI-compatible server serves (vLLM, llama.cpp's server, TGI, {@code ladder serve}).
 * The server holds the weights: no path, adapter, dtype, device or merge base of Ladder's own. The caller reads the
 * server's fields into a {@link ServerSpec} and gives it as a fact of the context.
 */
public final class OpenAiEngine implements Engine {

    public static final String NAME = "openai";

    /** What Ladder decides for a model in a folder, and a server decides for the model it serves. */
    private static final List<String> SERVER_DECIDES = List.of("path", "adapter", "dtype", "device", "merge_base");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int order() {
        return 40;
    }

    @Override
    public List<String> fields() {
        return ServerSpec.FIELDS;
    }

    @Override
    public void check(ModelFields model) {
        for (String own : SERVER_DECIDES) {
            if (model.get(own) == null) continue;
            throw model.refuse(own, own.equals("adapter")
                    ? "engine openai takes no adapter: serve it on the server (vLLM: --enable-lora --lora-modules NAME=DIR)"
                      + " and give NAME as the model"
                    : "engine openai takes no " + own + ": the server decides it");
        }
    }

    /** Not in this process: {@code ladder run --engine/--dtype/--device} leave it be, and serve does not serve it again. */
    @Override
    public boolean inProcess() {
        return false;
    }

    /** Reachable, serving the model, the key accepted: checked here, before a run makes its directory. */
    @Override
    public ModelIdentity identify(ModelFields model, EngineContext context) {
        try (OpenAiLanguageModel served = connect(model, context)) {
            return ModelIdentity.of(served.identity());
        }
    }

    @Override
    public EngineLoad load(ModelFields model, ModelIdentity identity, EngineContext context) {
        OpenAiLanguageModel served = connect(model, context);
        if (context.id() != null) {
            context.say("model " + context.id() + ": " + served.name() + " served at " + served.endpoint().baseUrl()
                    + " (" + served.endpoint().api().label() + ", prompt format " + served.promptFormat().name()
                    + ", up to " + served.endpoint().maxConcurrent() + " requests in flight)");
        }
        return new EngineLoad(served, NAME, null, null, environment(served), served.identity());
    }

    private static OpenAiLanguageModel connect(ModelFields model, EngineContext context) {
        ServerSpec spec = context.fact(ServerSpec.class).orElseThrow(() -> new IllegalStateException(
                "engine openai loads with the model's ServerSpec as a fact of the context"));
        return ServedModels.connect(spec, model.where(null), model.where("api_key_env"));
    }

    /**
     * What environment.json says about a served model: engine, server (host and port only: never a key, never a
     * path), served name, endpoint, prompt format, and the server's version and weights' fingerprint when it reports
     * them.
     */
    static Map<String, String> environment(OpenAiLanguageModel model) {
        Map<String, String> env = new TreeMap<>();
        OpenAiEndpoint e = model.endpoint();
        env.put("engine", NAME);
        env.put("server", e.hostAndPort());
        env.put("served_model", e.model());
        env.put("endpoint", e.api().label());
        env.put("prompt_format", model.promptFormat().name());
        OpenAiLanguageModel.ServerInfo info = model.serverInfo();
        env.put("server_version", info.version() == null ? "not reported" : info.version());
        if (info.fingerprint() != null) env.put("server_fingerprint", info.fingerprint());
        return env;
    }
}
