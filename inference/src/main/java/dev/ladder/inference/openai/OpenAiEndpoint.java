package dev.ladder.inference.openai;

import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * Where and how to reach a model behind an OpenAI-compatible server (vLLM, llama.cpp's server, TGI, Ollama,
 * {@code ladder serve}).
 *
 * @param baseUrl       the API root, e.g. {@code http://127.0.0.1:8000/v1} (a trailing slash is dropped)
 * @param model         the served model name; for an adapter, the name the server serves the LoRA under
 * @param apiKey        the bearer key, or null for none; read from an environment variable by the caller and never
 *                      written anywhere ({@link #toString()} leaves it out)
 * @param api           which endpoint generates
 * @param promptFormat  for {@link Api#COMPLETIONS}: the prompt format's name, or null to take the one the server
 *                      reports ({@code ladder serve} does), else plain completion with the server's own BOS
 * @param timeout       longest wait for one HTTP answer
 * @param maxConcurrent most requests in flight at once (the server batches them)
 * @param extensions    whether to send vLLM's extension fields ({@code top_k}, {@code stop_token_ids},
 *                      {@code add_special_tokens}, {@code return_tokens_as_token_ids}); servers that reject unknown
 *                      fields need false
 */
public record OpenAiEndpoint(String baseUrl, String model, String apiKey, Api api, String promptFormat, Duration timeout,
                             int maxConcurrent, boolean extensions) {

    /** {@code completions}: Ladder formats the prompt; {@code chat}: the server applies its chat template. */
    public enum Api {
        COMPLETIONS, CHAT;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Api parse(String s) {
            return switch (s.toLowerCase(Locale.ROOT)) {
                case "completions" -> COMPLETIONS;
                case "chat" -> CHAT;
                default -> throw new IllegalArgumentException("unknown endpoint '" + s + "'; use completions or chat");
            };
        }
    }

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(600);
    public static final int DEFAULT_MAX_CONCURRENT = 8;

    public OpenAiEndpoint {
        Objects.requireNonNull(baseUrl, "baseUrl");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(api, "api");
        Objects.requireNonNull(timeout, "timeout");
        while (baseUrl.endsWith("/")) baseUrl = baseUrl.substring(0, baseUrl.length() - 1);
        String problem = urlProblem(baseUrl);
        if (problem != null) throw new IllegalArgumentException(problem);
        if (model.isBlank()) throw new IllegalArgumentException("empty served model name");
        if (maxConcurrent < 1) throw new IllegalArgumentException("max concurrent requests must be >= 1, got " + maxConcurrent);
        if (timeout.isZero() || timeout.isNegative()) throw new IllegalArgumentException("timeout must be positive");
    }

    /** Why a base URL is unusable, or null. */
    public static String urlProblem(String url) {
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            return "base_url '" + url + "' is not a URL";
        }
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
            return "base_url '" + url + "' must start with http:// or https://";
        }
        if (uri.getHost() == null) return "base_url '" + url + "' has no host";
        if (uri.getUserInfo() != null) {
            return "base_url must not hold credentials (user:password@); put the key in an environment variable and name it in api_key_env";
        }
        return null;
    }

    /** {@code host:port} of the server, what a run records (never the key, never the path). */
    public String hostAndPort() {
        URI uri = URI.create(baseUrl);
        int port = uri.getPort() >= 0 ? uri.getPort() : "https".equals(uri.getScheme()) ? 443 : 80;
        return uri.getHost() + ":" + port;
    }

    /** The server's root: the base URL without a trailing {@code /v1} (where vLLM answers {@code /version}). */
    public String serverRoot() {
        return baseUrl.endsWith("/v1") ? baseUrl.substring(0, baseUrl.length() - 3) : baseUrl;
    }

    @Override
    public String toString() {
        return "OpenAiEndpoint[" + baseUrl + ", model " + model + ", " + api.label() + (apiKey == null ? "" : ", with key") + "]";
    }
}
