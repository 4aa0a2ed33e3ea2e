package dev.ladder.inference.openai;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * An HTTP server that answers what a test scripts: the thing around the client under test. Every request's path and
 * body is kept; the script sees the request's number (per path, 1-based) and its body.
 */
public final class ScriptedServer implements AutoCloseable {

    /**
     * One scripted answer.
     *
     * @param delayMillis wait before answering
     * @param truncate    announce the whole body but send only its first half, then drop the connection
     */
    public record Reply(int status, String body, Map<String, String> headers, long delayMillis, boolean truncate) {
        public static Reply ok(String body) {
            return new Reply(200, body, Map.of(), 0, false);
        }

        public static Reply status(int status, String body) {
            return new Reply(status, body, Map.of(), 0, false);
        }

        public Reply after(long millis) {
            return new Reply(status, body, headers, millis, truncate);
        }

        public Reply withHeader(String name, String value) {
            Map<String, String> h = new java.util.HashMap<>(headers);
            h.put(name, value);
            return new Reply(status, body, h, delayMillis, truncate);
        }

        public Reply truncated() {
            return new Reply(status, body, headers, delayMillis, true);
        }
    }

    public record Seen(String method, String path, String body, String authorization) {}

    private final HttpServer server;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicInteger> counts = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();

    public ScriptedServer(BiFunction<Integer, Seen, Reply> script) throws IOException {
        this(0, script);
    }

    public ScriptedServer(int port, BiFunction<Integer, Seen, Reply> script) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64);
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "scripted-server");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/", ex -> handle(ex, script));
        server.start();
    }

    private void handle(HttpExchange ex, BiFunction<Integer, Seen, Reply> script) throws IOException {
        int now = inFlight.incrementAndGet();
        maxInFlight.accumulateAndGet(now, Math::max);
        boolean counted = true;
        try {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            Seen s = new Seen(ex.getRequestMethod(), ex.getRequestURI().getPath(), body,
                    ex.getRequestHeaders().getFirst("Authorization"));
            seen.add(s);
            int n = counts.computeIfAbsent(s.path(), k -> new AtomicInteger()).incrementAndGet();
            Reply r = script.apply(n, s);
            if (r.delayMillis() > 0) Thread.sleep(r.delayMillis());
            // no longer in flight once the answer starts: the client may send its next request the moment it has it
            inFlight.decrementAndGet();
            counted = false;
            byte[] bytes = r.body().getBytes(StandardCharsets.UTF_8);
            r.headers().forEach((k, v) -> ex.getResponseHeaders().add(k, v));
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(r.status(), bytes.length == 0 ? -1 : bytes.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(bytes, 0, r.truncate() ? bytes.length / 2 : bytes.length);
                if (r.truncate()) {
                    out.flush();
                    ex.getHttpContext().getServer(); // keep the exchange referenced until the drop
                    throw new IOException("truncated on purpose");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (counted) inFlight.decrementAndGet();
            ex.close();
        }
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public List<Seen> seen() {
        return List.copyOf(seen);
    }

    public List<Seen> seen(String path) {
        return seen.stream().filter(s -> s.path().equals(path)).toList();
    }

    public int maxInFlight() {
        return maxInFlight.get();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
