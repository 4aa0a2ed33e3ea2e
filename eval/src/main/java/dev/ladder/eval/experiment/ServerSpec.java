package dev.ladder.eval.experiment;

import dev.ladder.inference.openai.OpenAiEndpoint;
import dev.ladder.sql.db.UserError;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How to reach a model an OpenAI-compatible server serves ({@code engine: openai}).
 *
 * @param baseUrl        the API root, e.g. {@code http://127.0.0.1:8000/v1}, as the experiment wrote it: it may name
 *                       environment variables ({@code ${LADDER_SERVER_URL}}, {@code http://${SERVER_HOST}:8000/v1}),
 *                       read when the server is called, so that a run resumed against a server that moved (a cluster
 *                       job started on another node) is the same experiment
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

    /** The fields of an experiment's model that make this record ({@code engine: openai}). */
    public static final List<String> FIELDS = List.of("base_url", "model", "api_key_env", "endpoint", "prompt_format",
            "timeout_seconds", "max_concurrent", "retries", "extensions");

    /** A field's value as text (as {@link #FIELDS} name them), or null when unset or not one of them. */
    public String field(String name) {
        return switch (name) {
            case "base_url" -> baseUrl;
            case "model" -> model;
            case "api_key_env" -> apiKeyEnv;
            case "endpoint" -> endpoint;
            case "prompt_format" -> promptFormat;
            case "timeout_seconds" -> Integer.toString(timeoutSeconds);
            case "max_concurrent" -> Integer.toString(maxConcurrent);
            case "retries" -> Integer.toString(retries);
            case "extensions" -> Boolean.toString(extensions);
            default -> null;
        };
    }

    /** {@code ${NAME}} in a base URL: an environment variable. */
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");

    public ServerSpec {
        Objects.requireNonNull(baseUrl, "baseUrl");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(endpoint, "endpoint");
    }

    /** The environment variables the base URL names, in order. */
    public List<String> urlVariables() {
        List<String> names = new ArrayList<>();
        Matcher m = VARIABLE.matcher(baseUrl);
        while (m.find()) names.add(m.group(1));
        return names;
    }

    /**
     * Why a base URL as written is unusable, or null: a {@code $} that is not {@code ${NAME}}, or (every variable it
     * names being set in {@code env}) a URL that is not http(s) with a host. A variable not set yet is not a problem
     * here: it is read when the server is called (a cluster job sets it).
     */
    public static String urlProblem(String baseUrl, UnaryOperator<String> env) {
        if (VARIABLE.matcher(baseUrl).replaceAll("").contains("$")) {
            return "base_url '" + baseUrl + "' has a '$' that is not ${NAME} (an environment variable)";
        }
        Matcher m = VARIABLE.matcher(baseUrl);
        StringBuilder expanded = new StringBuilder();
        while (m.find()) {
            String value = env.apply(m.group(1));
            if (value == null || value.isBlank()) return null;
            m.appendReplacement(expanded, Matcher.quoteReplacement(value.strip()));
        }
        m.appendTail(expanded);
        String problem = OpenAiEndpoint.urlProblem(expanded.toString());
        return problem == null || expanded.toString().equals(baseUrl) ? problem
                : problem + " (from " + baseUrl + ")";
    }

    /**
     * The base URL with each {@code ${NAME}} replaced by the value of that environment variable.
     *
     * @param label what the error names, e.g. {@code models.base.base_url}
     * @throws UserError a variable is not set, or the URL it makes is unusable
     */
    public String resolvedBaseUrl(String label, UnaryOperator<String> env) {
        for (String name : urlVariables()) {
            String value = env.apply(name);
            if (value == null || value.isBlank()) {
                throw new UserError(label + " '" + baseUrl + "' names the environment variable " + name
                        + ", which is not set (export it with the server's address, e.g. http://HOST:8000/v1)");
            }
        }
        String problem = urlProblem(baseUrl, env);
        if (problem != null) throw new UserError(label + ": " + problem);
        Matcher m = VARIABLE.matcher(baseUrl);
        StringBuilder expanded = new StringBuilder();
        while (m.find()) m.appendReplacement(expanded, Matcher.quoteReplacement(env.apply(m.group(1)).strip()));
        m.appendTail(expanded);
        return expanded.toString();
    }
}
