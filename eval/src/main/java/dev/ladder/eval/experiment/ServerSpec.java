package dev.ladder.eval.experiment;

import java.util.Objects;

/**
 * How to reach a model an OpenAI-compatible server serves ({@code engine: openai}).
 *
 * @param baseUrl        the API root, e.g. {@code http://127.0.0.1:8000/v1}
 * @param model          the served model name; for an adapter rung, the name the server serves the LoRA under
 * @param apiKeyEnv      the environment variable that holds the bearer key, or null for none (the key itself is never
 *                       in a file)
 * @param endpoint       {@code completions} (Ladder formats the prompt) or {@code chat} (the server's template)
 * @param promptFormat   for completions: the prompt format's name, or null for the one the server reports, else plain
 *                       completion
 * @param timeoutSeconds longest wait for one answer
 * @param maxConcurrent  requests in flight at once; a run answers this many items at a time
 * @param retries        tries per request, the first included
 * @param extensions     whether to send vLLM's extension fields
 */
public record ServerSpec(String baseUrl, String model, String apiKeyEnv, String endpoint, String promptFormat,
                         int timeoutSeconds, int maxConcurrent, int retries, boolean extensions) {

    public static final String DEFAULT_ENDPOINT = "completions";
    public static final int DEFAULT_TIMEOUT_SECONDS = 600;
    public static final int DEFAULT_MAX_CONCURRENT = 8;
    public static final int DEFAULT_RETRIES = 6;

    public ServerSpec {
        Objects.requireNonNull(baseUrl, "baseUrl");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(endpoint, "endpoint");
    }
}
