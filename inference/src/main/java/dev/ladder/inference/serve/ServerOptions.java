package dev.ladder.inference.serve;

import dev.ladder.common.HostCheck;
import java.util.List;
import java.util.Objects;

/**
 * How a server listens and how much it takes on.
 *
 * @param host              address to bind ({@code 127.0.0.1} by default: reachable from this machine only)
 * @param port              TCP port; 0 = any free port
 * @param apiKey            when not null, every request needs {@code Authorization: Bearer <apiKey>}
 * @param maxBatchRows      most candidate rows in one engine call (a request's {@code n} rows stay together, so
 *                          {@code n} may not exceed it)
 * @param maxQueued         requests waiting for a batch; one more is answered 503 with {@code Retry-After}
 * @param batchWaitMillis   how long an idle engine waits for more requests before it starts a batch that is not full
 *                          (measured from the oldest request's arrival; 0 = start at once)
 * @param handlerThreads    HTTP threads (they read, validate and answer; none waits for the engine)
 * @param maxBodyBytes      largest request body; a larger one is answered 413
 * @param readTimeoutMillis how long a request's head and body may take to arrive, counted from its first byte; a
 *                          request still incomplete then has its connection closed (a stalled client holds a thread)
 * @param maxConnections    requests read or handled at once (each holds a thread until its body is read; requests
 *                          waiting for the engine do not count); a connection past it is closed unanswered
 * @param version           what {@code GET /version} reports (Ladder's version)
 * @param allowedHosts      names (or addresses) a request's {@code Host} may give besides loopback and, when
 *                          {@code host} is not loopback, this machine's own ({@link HostCheck#forListening}): those of
 *                          a proxy, or another name of this machine; each checked by {@link HostCheck#checkAllowed}
 */
public record ServerOptions(String host, int port, String apiKey, int maxBatchRows, int maxQueued, int batchWaitMillis,
                            int handlerThreads, int maxBodyBytes, int readTimeoutMillis, int maxConnections,
                            String version, List<String> allowedHosts) {

    public static final String LOOPBACK = "127.0.0.1";
    public static final int DEFAULT_PORT = 8000;
    public static final int DEFAULT_MAX_BATCH_ROWS = 16;
    public static final int DEFAULT_MAX_QUEUED = 256;
    public static final int DEFAULT_BATCH_WAIT_MILLIS = 0;
    public static final int DEFAULT_HANDLER_THREADS = 8;
    public static final int DEFAULT_MAX_BODY_BYTES = 4 << 20;
    public static final int DEFAULT_READ_TIMEOUT_MILLIS = 30_000;
    public static final int DEFAULT_MAX_CONNECTIONS = 64;

    public ServerOptions {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(version, "version");
        allowedHosts = allowedHosts.stream().map(HostCheck::checkAllowed).toList();
        if (port < 0 || port > 65535) throw new IllegalArgumentException("port must be in 0..65535, got " + port);
        if (apiKey != null && apiKey.isBlank()) throw new IllegalArgumentException("the API key is blank");
        if (maxBatchRows < 1) throw new IllegalArgumentException("maxBatchRows must be >= 1, got " + maxBatchRows);
        if (maxQueued < 1) throw new IllegalArgumentException("maxQueued must be >= 1, got " + maxQueued);
        if (batchWaitMillis < 0) throw new IllegalArgumentException("batchWaitMillis must be >= 0, got " + batchWaitMillis);
        if (handlerThreads < 1) throw new IllegalArgumentException("handlerThreads must be >= 1, got " + handlerThreads);
        if (maxBodyBytes < 1024) throw new IllegalArgumentException("maxBodyBytes must be >= 1024, got " + maxBodyBytes);
        if (readTimeoutMillis < 1) throw new IllegalArgumentException("readTimeoutMillis must be >= 1, got " + readTimeoutMillis);
        if (maxConnections < 1) throw new IllegalArgumentException("maxConnections must be >= 1, got " + maxConnections);
    }

    /** Loopback, the given port, no key, the defaults. */
    public static ServerOptions defaults(int port, String version) {
        return new ServerOptions(LOOPBACK, port, null, DEFAULT_MAX_BATCH_ROWS, DEFAULT_MAX_QUEUED,
                DEFAULT_BATCH_WAIT_MILLIS, DEFAULT_HANDLER_THREADS, DEFAULT_MAX_BODY_BYTES, DEFAULT_READ_TIMEOUT_MILLIS,
                DEFAULT_MAX_CONNECTIONS, version, List.of());
    }

    public ServerOptions withApiKey(String key) {
        return new ServerOptions(host, port, key, maxBatchRows, maxQueued, batchWaitMillis, handlerThreads, maxBodyBytes, readTimeoutMillis,
                maxConnections, version, allowedHosts);
    }

    public ServerOptions withMaxBatchRows(int rows) {
        return new ServerOptions(host, port, apiKey, rows, maxQueued, batchWaitMillis, handlerThreads, maxBodyBytes, readTimeoutMillis,
                maxConnections, version, allowedHosts);
    }

    public ServerOptions withMaxQueued(int queued) {
        return new ServerOptions(host, port, apiKey, maxBatchRows, queued, batchWaitMillis, handlerThreads, maxBodyBytes, readTimeoutMillis,
                maxConnections, version, allowedHosts);
    }

    public ServerOptions withBatchWaitMillis(int millis) {
        return new ServerOptions(host, port, apiKey, maxBatchRows, maxQueued, millis, handlerThreads, maxBodyBytes, readTimeoutMillis,
                maxConnections, version, allowedHosts);
    }

    public ServerOptions withHost(String h) {
        return new ServerOptions(h, port, apiKey, maxBatchRows, maxQueued, batchWaitMillis, handlerThreads, maxBodyBytes, readTimeoutMillis,
                maxConnections, version, allowedHosts);
    }

    public ServerOptions withReadTimeoutMillis(int millis) {
        return new ServerOptions(host, port, apiKey, maxBatchRows, maxQueued, batchWaitMillis, handlerThreads, maxBodyBytes, millis,
                maxConnections, version, allowedHosts);
    }

    public ServerOptions withMaxConnections(int connections) {
        return new ServerOptions(host, port, apiKey, maxBatchRows, maxQueued, batchWaitMillis, handlerThreads, maxBodyBytes,
                readTimeoutMillis, connections, version, allowedHosts);
    }

    public ServerOptions withAllowedHosts(List<String> hosts) {
        return new ServerOptions(host, port, apiKey, maxBatchRows, maxQueued, batchWaitMillis, handlerThreads, maxBodyBytes,
                readTimeoutMillis, maxConnections, version, hosts);
    }

    /** Never shows the key (records print every component). */
    @Override
    public String toString() {
        return "ServerOptions[host=" + host + ", port=" + port + ", apiKey=" + (apiKey == null ? "none" : "<set>")
                + ", maxBatchRows=" + maxBatchRows + ", maxQueued=" + maxQueued + ", batchWaitMillis=" + batchWaitMillis
                + ", handlerThreads=" + handlerThreads
                + ", maxBodyBytes=" + maxBodyBytes + ", readTimeoutMillis=" + readTimeoutMillis
                + ", maxConnections=" + maxConnections + ", version=" + version + ", allowedHosts=" + allowedHosts + "]";
    }
}
