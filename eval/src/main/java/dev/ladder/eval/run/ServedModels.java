package dev.ladder.eval.run;

import dev.ladder.eval.experiment.ServerSpec;
import dev.ladder.inference.EngineRequestException;
import dev.ladder.inference.EngineUnavailableException;
import dev.ladder.inference.openai.OpenAiEndpoint;
import dev.ladder.inference.openai.OpenAiLanguageModel;
import dev.ladder.inference.openai.RetryPolicy;
import dev.ladder.sql.db.UserError;
import java.time.Duration;

/** Models an OpenAI-compatible server serves ({@code engine: openai}): connecting, and what a run records of them. */
public final class ServedModels {

    private ServedModels() {}

    /**
     * Connects to the server of model {@code id}: reachable, serving the model, the key accepted.
     *
     * @throws UserError naming the model, the server and what is wrong (an unset key variable, a server that does not
     *                   answer, a model it does not serve)
     */
    public static OpenAiLanguageModel connect(String id, ServerSpec spec) {
        return connect(spec, "models." + id, "models." + id + ".api_key_env");
    }

    /** The server's API root: the experiment's base_url with its environment variables read now. */
    static String baseUrl(String label, ServerSpec spec) {
        return spec.resolvedBaseUrl(label.startsWith("models.") ? label + ".base_url" : label, System::getenv);
    }

    /**
     * As {@link #connect(String, ServerSpec)}, for a command's flags: errors start with {@code label}, and an unset key
     * variable with {@code keyLabel}.
     */
    public static OpenAiLanguageModel connect(ServerSpec spec, String label, String keyLabel) {
        try {
            return OpenAiLanguageModel.connect(endpoint(spec, label, keyLabel), retryPolicy(spec));
        } catch (EngineUnavailableException | EngineRequestException e) {
            throw new UserError(label + ": " + e.getMessage(), e);
        }
    }

    /** The endpoint of a spec, the key read from the environment variable it names. */
    public static OpenAiEndpoint endpoint(String id, ServerSpec spec) {
        return endpoint(spec, "models." + id, "models." + id + ".api_key_env");
    }

    private static OpenAiEndpoint endpoint(ServerSpec spec, String label, String keyLabel) {
        String url = baseUrl(label, spec);
        String key = null;
        if (spec.apiKeyEnv() != null) {
            key = System.getenv(spec.apiKeyEnv());
            if (key == null || key.isBlank()) {
                throw new UserError(keyLabel + ": the environment variable " + spec.apiKeyEnv()
                        + " is not set (export it with the server's key, or remove api_key_env for a server without one)");
            }
        }
        return new OpenAiEndpoint(url, spec.model(), key, OpenAiEndpoint.Api.parse(spec.endpoint()),
                spec.promptFormat(), Duration.ofSeconds(spec.timeoutSeconds()), spec.maxConcurrent(), spec.extensions());
    }

    static RetryPolicy retryPolicy(ServerSpec spec) {
        RetryPolicy d = RetryPolicy.DEFAULT;
        return new RetryPolicy(spec.retries(), d.initialDelay(), d.maxDelay());
    }
}
