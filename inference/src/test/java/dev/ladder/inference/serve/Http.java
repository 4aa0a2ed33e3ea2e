package dev.ladder.inference.serve;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A plain HTTP client for the server tests, reading answers as an OpenAI client would. */
final class Http {

    /** As a client reads JSON by default: floats become doubles. */
    static final ObjectMapper PLAIN = new ObjectMapper();
    /** Floats kept as the exact decimals written, to count their digits. */
    static final ObjectMapper DECIMAL = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    /** An answer: status, {@code Retry-After}, body text and its JSON. */
    record Answer(int status, String retryAfter, String text, JsonNode json, JsonNode decimals) {
        JsonNode error() {
            return json.path("error");
        }
    }

    private Http() {}

    static Answer post(OpenAiServer server, String path, String body) {
        return post(server, path, body, null);
    }

    static Answer post(OpenAiServer server, String path, String body, String authorization) {
        return postAsync(server, path, body, authorization).join();
    }

    static CompletableFuture<Answer> postAsync(OpenAiServer server, String path, String body, String authorization) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(server, path)).timeout(Duration.ofSeconds(120))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) b.header("Authorization", authorization);
        return CLIENT.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString()).thenApply(Http::answer);
    }

    static Answer get(OpenAiServer server, String path, String authorization) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(server, path)).timeout(Duration.ofSeconds(60)).GET();
        if (authorization != null) b.header("Authorization", authorization);
        try {
            return answer(CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static URI uri(OpenAiServer server, String path) {
        return URI.create("http://127.0.0.1:" + server.address().getPort() + path);
    }

    private static Answer answer(HttpResponse<String> r) {
        try {
            return new Answer(r.statusCode(), r.headers().firstValue("Retry-After").orElse(null), r.body(),
                    PLAIN.readTree(r.body()), DECIMAL.readTree(r.body()));
        } catch (IOException e) {
            throw new AssertionError("not JSON (status " + r.statusCode() + "): " + r.body(), e);
        }
    }
}
