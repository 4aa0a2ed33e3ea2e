package dev.ladder.inference.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.inference.Completion;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.Sampling;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code ladder bench serve}: the same greedy requests once through the engine in-process, in batches of
 * {@code maxBatchRows} requests, and once through a server on a free loopback port from {@code concurrency} HTTP
 * clients at a time; reports generated tokens, wall time and throughput of both, how many engine calls the server's
 * scheduler formed and how many requests each held, and whether both paths produced the same completions.
 */
public final class ServeBenchmark {

    private ServeBenchmark() {}

    /**
     * @param requests     requests per path
     * @param concurrency  HTTP clients sending at the same time (each sends its next request when answered)
     * @param maxTokens    new tokens per request (greedy; a request may stop earlier at an end-of-sequence id)
     * @param maxBatchRows the server's batch limit, and the in-process batch size
     * @param batchWaitMillis the server's batch wait ({@link ServerOptions#batchWaitMillis()})
     */
    public record Settings(int requests, int concurrency, int maxTokens, int maxBatchRows, int batchWaitMillis) {
        public Settings {
            if (requests < 1) throw new IllegalArgumentException("requests must be >= 1, got " + requests);
            if (concurrency < 1) throw new IllegalArgumentException("concurrency must be >= 1, got " + concurrency);
            if (maxTokens < 1) throw new IllegalArgumentException("max tokens must be >= 1, got " + maxTokens);
            if (maxBatchRows < 1) throw new IllegalArgumentException("max batch rows must be >= 1, got " + maxBatchRows);
            if (batchWaitMillis < 0) throw new IllegalArgumentException("batch wait must be >= 0, got " + batchWaitMillis);
        }
    }

    /**
     * One path's measurements.
     *
     * @param engineCalls   {@code generate} calls the path made
     * @param meanRequests  mean requests per call
     */
    public record Side(int requests, long generatedTokens, double wallSeconds, long engineCalls, double meanRequests) {
        public double tokensPerSecond() {
            return wallSeconds <= 0 ? 0 : generatedTokens / wallSeconds;
        }
    }

    /**
     * @param identical requests whose served text and token count equal the in-process ones
     * @param largestBatch most requests the server put in one engine call
     */
    public record Result(Settings settings, Side inProcess, Side served, int identical, int largestBatch) {
        /** Served throughput over in-process throughput. */
        public double ratio() {
            return inProcess.tokensPerSecond() == 0 ? 0 : served.tokensPerSecond() / inProcess.tokensPerSecond();
        }
    }

    /** Made-up prompts of a few lengths (no benchmark text: this measures the engine and the server, not SQL). */
    private static final List<String> FRAGMENTS = List.of(
            "The lighthouse keeper counted the boats that came back before dark.",
            "A loaf of bread needs flour, water, salt and a long rest.",
            "The coastal train leaves twice a day in winter and hourly in summer.",
            "Seven violins and one cello tuned up in the old hall.");

    /** Prompt {@code i} of a run: one to four fragments, so that prompt lengths differ. */
    public static String prompt(int i) {
        StringBuilder sb = new StringBuilder("Note ").append(i).append(':');
        for (int j = 0; j <= i % 4; j++) sb.append(' ').append(FRAGMENTS.get((i + j) % FRAGMENTS.size()));
        return sb.toString();
    }

    /**
     * Runs both paths on {@code served}'s model (warming each up first) and returns the measurements.
     *
     * @throws IOException when the server cannot start or a request fails
     */
    public static Result run(ServedModel served, Settings settings, String version) throws IOException, InterruptedException {
        Objects.requireNonNull(served, "served");
        LanguageModel model = served.model();
        List<GenerationRequest> requests = new ArrayList<>();
        for (int i = 0; i < settings.requests(); i++) {
            requests.add(new GenerationRequest(prompt(i), null, settings.maxTokens(), Sampling.GREEDY, 1, 0, Set.of(), List.of()));
        }
        // both paths run the engine on this thread, the one that loaded the model (OpenAiServer.listen says why)
        model.generate(List.of(requests.get(0)));   // warm-up: first-call costs belong to neither path
        List<Completion> local = new ArrayList<>();
        long t0 = System.nanoTime();
        int calls = 0;
        for (int from = 0; from < requests.size(); from += settings.maxBatchRows()) {
            local.addAll(model.generate(requests.subList(from, Math.min(requests.size(), from + settings.maxBatchRows()))));
            calls++;
        }
        double localSeconds = (System.nanoTime() - t0) / 1e9;
        long localTokens = local.stream().mapToLong(c -> c.candidates().get(0).tokenIds().size()).sum();
        Side inProcess = new Side(requests.size(), localTokens, localSeconds, calls, (double) requests.size() / calls);

        ServerOptions options = ServerOptions.defaults(0, version).withMaxBatchRows(settings.maxBatchRows())
                .withBatchWaitMillis(settings.batchWaitMillis())
                .withMaxQueued(Math.max(ServerOptions.DEFAULT_MAX_QUEUED, settings.requests()));
        ExecutorService clients = Executors.newFixedThreadPool(settings.concurrency() + 1, r -> {
            Thread t = new Thread(r, "bench-client");
            t.setDaemon(true);
            return t;
        });
        OpenAiServer server = OpenAiServer.listen(served, options, null);
        try {
            String[] texts = new String[requests.size()];
            int[] tokens = new int[requests.size()];
            long[] servedNanos = new long[1];
            OpenAiServer.SchedulerStats[] before = new OpenAiServer.SchedulerStats[1];
            // the clients run on the pool; when they are done (or failed) they close the server, which ends runEngine
            Future<Void> driver = clients.submit(() -> {
                try {
                    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                            .connectTimeout(Duration.ofSeconds(10)).build();
                    URI uri = URI.create(server.baseUri() + "/completions");
                    send(http, uri, served.name(), prompt(0), settings.maxTokens());   // warm-up of the HTTP path
                    before[0] = server.stats();
                    AtomicInteger next = new AtomicInteger();
                    List<Future<Void>> workers = new ArrayList<>();
                    long s0 = System.nanoTime();
                    for (int c = 0; c < settings.concurrency(); c++) {
                        workers.add(clients.submit(() -> {
                            for (int i = next.getAndIncrement(); i < requests.size(); i = next.getAndIncrement()) {
                                JsonNode answer = send(http, uri, served.name(), prompt(i), settings.maxTokens());
                                texts[i] = answer.path("choices").path(0).path("text").asText();
                                tokens[i] = answer.path("usage").path("completion_tokens").asInt();
                            }
                            return null;
                        }));
                    }
                    for (Future<Void> w : workers) w.get();
                    servedNanos[0] = System.nanoTime() - s0;
                    return null;
                } finally {
                    server.close();
                }
            });
            server.runEngine();
            try {
                driver.get();
            } catch (ExecutionException e) {
                Throwable cause = e.getCause() instanceof ExecutionException inner && inner.getCause() != null
                        ? inner.getCause() : e.getCause();
                if (cause instanceof IOException io) throw io;
                throw new IOException("a benchmark client failed: " + cause, cause);
            }
            OpenAiServer.SchedulerStats after = server.stats();
            long servedCalls = after.batches() - before[0].batches();
            long servedRequests = after.requests() - before[0].requests();
            long servedTokens = 0;
            int identical = 0;
            for (int i = 0; i < requests.size(); i++) {
                servedTokens += tokens[i];
                var c = local.get(i).candidates().get(0);
                if (c.text().equals(texts[i]) && c.tokenIds().size() == tokens[i]) identical++;
            }
            Side servedSide = new Side(requests.size(), servedTokens, servedNanos[0] / 1e9, servedCalls,
                    servedCalls == 0 ? 0 : (double) servedRequests / servedCalls);
            return new Result(settings, inProcess, servedSide, identical, after.largestBatch());
        } finally {
            server.close();
            clients.shutdownNow();
        }
    }

    private static JsonNode send(HttpClient http, URI uri, String model, String prompt, int maxTokens)
            throws IOException, InterruptedException {
        ObjectNode body = Responses.JSON.createObjectNode();
        body.put("model", model);
        body.put("prompt", prompt);
        body.put("max_tokens", maxTokens);
        body.put("temperature", 0);
        body.put("add_special_tokens", false);   // the in-process requests are the same text, as it is
        HttpRequest request = HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(Responses.bytes(body))).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("the server answered " + response.statusCode() + ": " + response.body());
        }
        return Responses.JSON.readTree(response.body());
    }
}
