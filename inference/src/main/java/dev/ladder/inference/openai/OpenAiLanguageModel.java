package dev.ladder.inference.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.inference.Candidate;
import dev.ladder.inference.ChatMessage;
import dev.ladder.inference.Completion;
import dev.ladder.inference.EngineEvents;
import dev.ladder.inference.EngineRequestException;
import dev.ladder.inference.EngineUnavailableException;
import dev.ladder.inference.FinishReason;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.text.CompletionFormat;
import dev.ladder.inference.text.PromptFormats;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * The {@code openai} engine: a model behind an OpenAI-compatible HTTP server (vLLM, llama.cpp's server, TGI, Ollama,
 * {@code ladder serve}).
 *
 * <p>Each {@link GenerationRequest} is one HTTP request with its {@code n}, seed, sampling, stops and max tokens; a
 * call's requests go out together, at most {@link OpenAiEndpoint#maxConcurrent()} in flight for the whole model (the
 * server batches them), and come back in request order whatever order they finish in.
 *
 * <p>Endpoints: {@code completions} sends the prompt Ladder formatted (or its token ids); {@code chat} sends the
 * conversation ({@link ServerChatFormat}) and the server applies its chat template.
 *
 * <p>What comes back: text, finish reason ({@code length}, or {@code stop} with vLLM's {@code stop_reason} telling a
 * stop string from a stop token; {@code ladder serve} also says {@code context}), prompt tokens from {@code usage},
 * token ids and log-probs from {@code logprobs} (with vLLM's {@code return_tokens_as_token_ids} the ids are exact;
 * otherwise ids are {@code -1} placeholders and only their number is known, from the log-probs, or from
 * {@code usage} — split evenly over the choices when {@code n > 1} and the server gives no log-probs). Timings are
 * the wall time of the HTTP call, all of it counted as decoding.
 *
 * <p>Faults: connection errors, timeouts, truncated or unreadable answers, HTTP 408, 429 and 5xx are retried per the
 * {@link RetryPolicy}, each retry recorded as an {@link EngineEvents event} of the calling item; when the tries run
 * out the call fails with {@link EngineUnavailableException} (nothing was generated: a run stops and resumes). Any
 * other 4xx is the request's or the configuration's fault: {@link EngineRequestException}, naming the model and the
 * server's message.
 */
public final class OpenAiLanguageModel implements LanguageModel {

    /**
     * What the server said about itself when connecting.
     *
     * @param served       the model ids {@code /models} lists (empty when the server has no such endpoint)
     * @param promptFormat the prompt format {@code ladder serve} reports for the model, or null
     * @param bosToken     the BOS text it reports for a completion format, or null
     * @param fingerprint  the weights' fingerprint it reports, or null
     * @param version      what {@code /version} answered, or null
     */
    public record ServerInfo(List<String> served, String promptFormat, String bosToken, String fingerprint,
                             String version) {
        public ServerInfo {
            served = List.copyOf(served);
        }
    }

    // big decimals: log-probs are parsed from their text straight to float, bit for bit what the server wrote
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    private static final String TOKEN_ID = "token_id:";
    /** How vLLM, llama.cpp's server, TGI and ladder serve say a prompt is longer than the context window (HTTP 400). */
    static final Pattern CONTEXT_OVERFLOW = Pattern.compile(
            "HTTP 400.*(maximum context length|context (length|size|window)|exceeds the available context|input validation error: `inputs` tokens)",
            Pattern.CASE_INSENSITIVE);

    private final OpenAiEndpoint endpoint;
    private final RetryPolicy retry;
    private final HttpClient http;
    private final ExecutorService pool;
    private final ServerInfo info;
    private final PromptFormat format;
    /** Whether the server's tokenizer adds its special tokens: only when Ladder does not know the model's format. */
    private final boolean serverAddsBos;
    private final SplittableRandom jitter = new SplittableRandom();

    private OpenAiLanguageModel(OpenAiEndpoint endpoint, RetryPolicy retry, HttpClient http, ServerInfo info) {
        this.endpoint = endpoint;
        this.retry = retry;
        this.http = http;
        this.info = info;
        if (endpoint.api() == OpenAiEndpoint.Api.CHAT) {
            this.format = new ServerChatFormat();
            this.serverAddsBos = false;
        } else if (endpoint.promptFormat() != null) {
            this.format = PromptFormats.byName(endpoint.promptFormat());
            this.serverAddsBos = false;
        } else if (info.promptFormat() != null) {
            this.format = CompletionFormat.NAME.equals(info.promptFormat()) && info.bosToken() != null
                    ? new CompletionFormat(info.bosToken()) : PromptFormats.byName(info.promptFormat());
            this.serverAddsBos = false;
        } else {
            this.format = new CompletionFormat("");
            this.serverAddsBos = true;
        }
        AtomicInteger threads = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(endpoint.maxConcurrent(), r -> {
            Thread t = new Thread(r, "openai-" + endpoint.model() + "-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Connects: asks the server which models it serves (retrying as for a generation: a server still loading is
     * waited for), checks the endpoint's model is one of them, and reads what {@code ladder serve} says about it.
     *
     * @throws EngineUnavailableException when the server cannot be reached
     * @throws EngineRequestException     when it refuses (a wrong key) or does not serve the model
     */
    public static OpenAiLanguageModel connect(OpenAiEndpoint endpoint, RetryPolicy retry) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
                .version(HttpClient.Version.HTTP_1_1).build();
        OpenAiLanguageModel probe = new OpenAiLanguageModel(endpoint, retry, http,
                new ServerInfo(List.of(), null, null, null, null));
        try {
            ServerInfo info = probe.askServer();
            return new OpenAiLanguageModel(endpoint, retry, http, info);
        } finally {
            probe.pool.shutdownNow();
        }
    }

    public OpenAiEndpoint endpoint() {
        return endpoint;
    }

    public ServerInfo serverInfo() {
        return info;
    }

    /**
     * What makes this model's completions what they are, for the generation cache and a run's fingerprint: served
     * model, endpoint, prompt format, and the weights' fingerprint when the server reports one. Not the server's
     * address: a server restarted on another node, or N runners reaching one server by different names, still serve
     * the same model, and a run resumes against it.
     */
    public String identity() {
        return "openai:" + endpoint.model() + "/" + endpoint.api().label() + "/"
                + format.name() + (info.fingerprint() == null ? "" : "/" + info.fingerprint());
    }

    @Override
    public String name() {
        return endpoint.model();
    }

    @Override
    public PromptFormat promptFormat() {
        return format;
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }

    // ------------------------------------------------------------------------------------------------- connecting

    private ServerInfo askServer() {
        List<String> events = new ArrayList<>();
        Answer models = send(get(endpoint.baseUrl() + "/models"), events, "list the models of", true);
        EngineEvents.recordAll(events);
        List<String> served = new ArrayList<>();
        String fmt = null;
        String bos = null;
        String print = null;
        if (models != null) {
            JsonNode data = models.json().path("data");
            for (JsonNode m : data) {
                String id = m.path("id").asText(null);
                if (id == null) continue;
                served.add(id);
                if (id.equals(endpoint.model())) {
                    JsonNode ladder = m.path("ladder");
                    fmt = textOrNull(ladder.get("prompt_format"));
                    bos = textOrNull(ladder.get("bos_token"));
                    print = textOrNull(ladder.get("fingerprint"));
                }
            }
            if (!served.isEmpty() && !served.contains(endpoint.model())) {
                throw new EngineRequestException("the server at " + endpoint.baseUrl() + " serves " + served + ", not '"
                        + endpoint.model() + "' (name a served model; a LoRA adapter on vLLM is served under the name"
                        + " given to --lora-modules)");
            }
        }
        return new ServerInfo(served, fmt, bos, print, version());
    }

    /** The server's version from {@code /version} (vLLM, ladder serve), or null: one short try, never an error. */
    private String version() {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(endpoint.serverRoot() + "/version"))
                    .timeout(Duration.ofSeconds(5)).headers(authHeader()).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) return null;
            return textOrNull(JSON.readTree(r.body()).get("version"));
        } catch (IOException | RuntimeException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    // ------------------------------------------------------------------------------------------------- generation

    @Override
    public List<Completion> generate(List<GenerationRequest> requests) {
        if (requests.isEmpty()) return List.of();
        List<List<String>> events = new ArrayList<>();
        List<Future<Completion>> futures = new ArrayList<>();
        for (GenerationRequest r : requests) {
            List<String> mine = Collections.synchronizedList(new ArrayList<>());
            events.add(mine);
            futures.add(pool.submit(() -> complete(r, mine)));
        }
        List<Completion> out = new ArrayList<>(requests.size());
        RuntimeException failure = null;
        // every request is waited for, so none is still running when the call fails
        for (Future<Completion> f : futures) {
            try {
                out.add(f.get());
            } catch (ExecutionException e) {
                if (failure == null) failure = e.getCause() instanceof RuntimeException re ? re
                        : new EngineUnavailableException(endpoint.model() + ": " + e.getCause(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                futures.forEach(x -> x.cancel(true));
                throw new EngineUnavailableException("interrupted while waiting for " + endpoint.model(), e);
            }
        }
        events.forEach(EngineEvents::recordAll);
        if (failure != null) throw failure;
        return out;
    }

    private Completion complete(GenerationRequest r, List<String> events) {
        if (r.maxNewTokens() == 0) {
            // servers reject max_tokens 0; nothing to generate is answered here
            List<Candidate> none = Collections.nCopies(r.n(), new Candidate("", List.of(), List.of(), FinishReason.LENGTH));
            return new Completion(none, r.promptIds() == null ? 0 : r.promptIds().size(), 0, 0);
        }
        boolean chat = endpoint.api() == OpenAiEndpoint.Api.CHAT;
        String body = body(r, chat).toString();
        HttpRequest post = HttpRequest.newBuilder(URI.create(endpoint.baseUrl() + (chat ? "/chat/completions" : "/completions")))
                .timeout(endpoint.timeout()).headers(authHeader()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        long t0 = System.nanoTime();
        while (true) {
            Answer a;
            try {
                a = send(post, events, "generate with", false);
            } catch (EngineRequestException e) {
                // a prompt longer than the server's window: as in-process, empty candidates that say so, not a failed run
                if (CONTEXT_OVERFLOW.matcher(e.getMessage()).find()) {
                    events.add("openai: the prompt does not fit the server's context window (" + e.getMessage() + ")");
                    List<Candidate> none = Collections.nCopies(r.n(), new Candidate("", List.of(), List.of(), FinishReason.CONTEXT));
                    return new Completion(none, r.promptIds() == null ? 0 : r.promptIds().size(), 0, 0);
                }
                throw e;
            }
            try {
                return completion(a.json(), r, chat, (System.nanoTime() - t0) / 1_000_000);
            } catch (IllegalArgumentException unreadable) {
                // a 200 whose body is not a completion: counted as a failed try like a dropped connection
                events.add("openai: unreadable completion (" + unreadable.getMessage() + ")");
                if (events.stream().filter(e -> e.startsWith("openai: unreadable")).count() >= retry.attempts()) {
                    throw new EngineUnavailableException(endpoint.model() + " at " + endpoint.hostAndPort()
                            + " answered with no usable completion " + retry.attempts() + " times: " + unreadable.getMessage(), null);
                }
            }
        }
    }

    private ObjectNode body(GenerationRequest r, boolean chat) {
        ObjectNode b = JSON.createObjectNode();
        b.put("model", endpoint.model());
        if (chat) {
            if (r.promptIds() != null) throw new IllegalArgumentException("a chat endpoint takes messages, not prompt token ids");
            ArrayNode messages = b.putArray("messages");
            for (ChatMessage m : ServerChatFormat.parse(r.prompt())) {
                messages.addObject().put("role", m.role().name().toLowerCase(Locale.ROOT)).put("content", m.content());
            }
        } else if (r.promptIds() != null) {
            ArrayNode ids = b.putArray("prompt");
            r.promptIds().forEach(ids::add);
        } else {
            b.put("prompt", r.prompt());
        }
        b.put("max_tokens", r.maxNewTokens());
        b.put("temperature", r.sampling().temperature());
        b.put("top_p", r.sampling().topP());
        b.put("n", r.n());
        b.put("seed", r.seed());
        if (!r.stopStrings().isEmpty()) {
            ArrayNode stop = b.putArray("stop");
            r.stopStrings().forEach(stop::add);
        }
        if (chat) {
            b.put("logprobs", true);
        } else {
            b.put("logprobs", 0);
        }
        if (endpoint.extensions()) {
            if (r.sampling().topK() > 0) b.put("top_k", r.sampling().topK());
            if (!r.stopTokenIds().isEmpty()) {
                ArrayNode ids = b.putArray("stop_token_ids");
                new TreeSet<>(r.stopTokenIds()).forEach(ids::add);
            }
            if (!chat) b.put("add_special_tokens", serverAddsBos);
            b.put("return_tokens_as_token_ids", true);
        } else if (r.sampling().topK() > 0 || !r.stopTokenIds().isEmpty()) {
            throw new EngineRequestException(endpoint.model() + ": top_k and stop token ids need the server's extension"
                    + " fields (extensions: true)");
        }
        return b;
    }

    /** Reads one HTTP answer into a completion; IllegalArgumentException when it is not one. */
    private Completion completion(JsonNode json, GenerationRequest r, boolean chat, long millis) {
        JsonNode choicesNode = json.get("choices");
        if (choicesNode == null || !choicesNode.isArray()) throw new IllegalArgumentException("no choices");
        List<JsonNode> choices = new ArrayList<>();
        choicesNode.forEach(choices::add);
        if (choices.size() != r.n()) {
            throw new IllegalArgumentException(choices.size() + " choices for n = " + r.n());
        }
        choices.sort(Comparator.comparingInt(c -> c.path("index").asInt(0)));
        JsonNode usage = json.path("usage");
        int promptTokens = usage.path("prompt_tokens").asInt(r.promptIds() == null ? 0 : r.promptIds().size());
        int completionTokens = usage.path("completion_tokens").asInt(-1);
        List<Candidate> out = new ArrayList<>();
        for (JsonNode c : choices) {
            JsonNode textNode = chat ? c.path("message").get("content") : c.get("text");
            if (textNode == null || !(textNode.isTextual() || textNode.isNull())) throw new IllegalArgumentException("a choice without text");
            String text = textNode.isNull() ? "" : textNode.asText();
            List<Integer> ids = new ArrayList<>();
            List<Float> logProbs = new ArrayList<>();
            readLogProbs(c.get("logprobs"), chat, ids, logProbs);
            if (ids.isEmpty() && completionTokens > 0) {
                // no log-probs: only the count is known, from usage
                int count = r.n() == 1 ? completionTokens : completionTokens / r.n();
                ids.addAll(Collections.nCopies(count, -1));
            }
            out.add(new Candidate(text, ids, logProbs, finishReason(c)));
        }
        return new Completion(out, promptTokens, 0, millis);
    }

    private static void readLogProbs(JsonNode lp, boolean chat, List<Integer> ids, List<Float> logProbs) {
        if (lp == null || lp.isNull()) return;
        List<String> tokens = new ArrayList<>();
        List<JsonNode> values = new ArrayList<>();
        if (chat) {
            for (JsonNode t : lp.path("content")) {
                tokens.add(t.path("token").asText(""));
                values.add(t.get("logprob"));
            }
        } else {
            lp.path("tokens").forEach(t -> tokens.add(t.asText("")));
            lp.path("token_logprobs").forEach(values::add);
            if (values.size() != tokens.size()) throw new IllegalArgumentException("log-probs and tokens differ in number");
        }
        for (int i = 0; i < tokens.size(); i++) {
            String t = tokens.get(i);
            int id = -1;
            if (t.startsWith(TOKEN_ID)) {
                try {
                    id = Integer.parseInt(t.substring(TOKEN_ID.length()));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("bad token id '" + t + "'");
                }
            }
            ids.add(id);
            JsonNode v = values.get(i);
            logProbs.add(v == null || !v.isNumber() ? Float.NaN : Float.parseFloat(v.asText()));
        }
    }

    private static FinishReason finishReason(JsonNode choice) {
        String ladder = textOrNull(choice.get("ladder_finish_reason"));
        if (ladder != null) {
            try {
                return FinishReason.valueOf(ladder.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException unknown) {
                // fall back on the standard fields
            }
        }
        String reason = textOrNull(choice.get("finish_reason"));
        if ("length".equals(reason)) return FinishReason.LENGTH;
        JsonNode stop = choice.get("stop_reason");
        return stop != null && stop.isTextual() ? FinishReason.STOP_STRING : FinishReason.STOP_TOKEN;
    }

    // ------------------------------------------------------------------------------------------------- HTTP

    private record Answer(JsonNode json) {}

    private HttpRequest get(String url) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(endpoint.timeout()).headers(authHeader()).GET().build();
    }

    private String[] authHeader() {
        return endpoint.apiKey() == null ? new String[] {"Accept", "application/json"}
                : new String[] {"Accept", "application/json", "Authorization", "Bearer " + endpoint.apiKey()};
    }

    /**
     * Sends with retries. Returns the parsed 200 answer; null for a 404/405 when {@code optional} (a server without
     * that endpoint).
     */
    private Answer send(HttpRequest request, List<String> events, String what, boolean optional) {
        String fault = null;
        Throwable cause = null;
        for (int attempt = 1; ; attempt++) {
            Duration retryAfter = null;
            try {
                HttpResponse<String> resp = http.send(request, HttpResponse.BodyHandlers.ofString());
                int status = resp.statusCode();
                if (status == 200) {
                    try {
                        return new Answer(JSON.readTree(resp.body()));
                    } catch (JsonProcessingException e) {
                        fault = "an unreadable answer (" + firstLine(e.getOriginalMessage()) + ")";
                    }
                } else if (status == 408 || status == 429 || status >= 500) {
                    fault = "HTTP " + status + serverMessage(resp.body());
                    retryAfter = resp.headers().firstValue("Retry-After").map(OpenAiLanguageModel::seconds).orElse(null);
                } else if (optional && (status == 404 || status == 405)) {
                    return null;
                } else {
                    String hint = status == 401 || status == 403 ? " (check the key in the environment variable api_key_env names)" : "";
                    throw new EngineRequestException("model '" + endpoint.model() + "' at " + endpoint.baseUrl()
                            + " refused the request (HTTP " + status + serverMessage(resp.body()) + ")" + hint);
                }
            } catch (HttpTimeoutException e) {
                fault = "no answer within " + endpoint.timeout().toSeconds() + " s";
                cause = e;
            } catch (IOException e) {
                fault = "connection failed (" + (e.getMessage() == null ? e.getClass().getSimpleName() : firstLine(e.getMessage())) + ")";
                cause = e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new EngineUnavailableException("interrupted while calling " + endpoint.model(), e);
            }
            if (attempt >= retry.attempts()) {
                throw new EngineUnavailableException("could not " + what + " model '" + endpoint.model() + "' at "
                        + endpoint.baseUrl() + ": " + fault + " after " + attempt + (attempt == 1 ? " try" : " tries")
                        + " (is the server running?)", cause);
            }
            Duration wait;
            synchronized (jitter) {
                wait = retry.delay(attempt, retryAfter, jitter);
            }
            events.add(String.format(Locale.ROOT, "openai: try %d of %d failed (%s); retrying in %.1f s", attempt,
                    retry.attempts(), fault, wait.toMillis() / 1e3));
            try {
                Thread.sleep(wait.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new EngineUnavailableException("interrupted while waiting to retry " + endpoint.model(), e);
            }
        }
    }

    /** ": message" from an OpenAI-style error body, or "" when there is none. */
    private static String serverMessage(String body) {
        if (body == null || body.isBlank()) return "";
        try {
            JsonNode msg = JSON.readTree(body).path("error").get("message");
            if (msg != null && msg.isTextual()) return ": " + firstLine(msg.asText());
            JsonNode detail = JSON.readTree(body).get("detail");
            if (detail != null && detail.isTextual()) return ": " + firstLine(detail.asText());
        } catch (JsonProcessingException | RuntimeException notJson) {
            // fall through to the raw text
        }
        return ": " + firstLine(body);
    }

    private static String firstLine(String s) {
        String line = s.strip().lines().findFirst().orElse("");
        return line.length() > 300 ? line.substring(0, 300) + "..." : line;
    }

    private static Duration seconds(String header) {
        try {
            return Duration.ofMillis((long) (Double.parseDouble(header.strip()) * 1000));
        } catch (NumberFormatException e) {
            return null; // an HTTP date: use our own backoff
        }
    }

    private static String textOrNull(JsonNode n) {
        return n == null || n.isNull() ? null : n.asText();
    }

    @Override
    public String toString() {
        return "OpenAiLanguageModel[" + Objects.toString(endpoint) + "]";
    }
}
