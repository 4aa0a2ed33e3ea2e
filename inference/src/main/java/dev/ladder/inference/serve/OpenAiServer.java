package dev.ladder.inference.serve;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.ladder.common.HostCheck;
import dev.ladder.inference.Completion;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link ServedModel} behind the OpenAI HTTP API (the subset docs/serve.md lists), on the JDK's
 * {@link HttpServer}.
 *
 * <p>Threads: the HTTP server's dispatcher accepts connections; an {@link ExchangePool} thread per request being read
 * (at most {@code maxConnections}, each with {@code readTimeoutMillis} to receive its head and body) reads it,
 * validates it and queues it on the {@link BatchScheduler}, whose single engine thread (the server's own with
 * {@link #start}, the caller's with {@link #listen} and {@link #runEngine()}) runs the model; the answer is written
 * from a fixed pool of handler threads when the request's batch completes, so no thread waits for the engine. A bad
 * request is answered 4xx before it reaches the queue; a full queue 503 with {@code Retry-After}.
 *
 * <p>{@link #close()} shuts down gracefully: new requests are answered 503 (shutting down), queued ones fail with 503,
 * the running batch finishes and is answered, then the listener closes. The model is the caller's to close.
 */
public final class OpenAiServer implements AutoCloseable {

    static {
        // the JDK server writes a response's headers and body in two writes; without TCP_NODELAY the body waits for
        // the client's delayed ACK of the headers (about 40 ms per request on Linux). Read once, when the JDK's
        // server configuration loads, so it is set before any HttpServer exists.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    /** Bytes a too-large body is read past its limit before the server answers 413 and drops the connection. */
    private static final long DRAIN_LIMIT = 64L << 20;
    /**
     * Largest request head (the sum of its header lines) that is answered; a larger one gets 431. No client of this
     * API needs more; the JDK's own limit, where it has one, is larger and drops the connection unanswered.
     */
    static final int MAX_HEADER_BYTES = 32 * 1024;
    /** Seconds {@link #close()} lets the last answers be written once the running batch is done. */
    private static final int WRITE_GRACE_SECONDS = 5;

    private final ServedModel served;
    private final ServerOptions options;
    private final PrintWriter log;
    private final RequestParser parser;
    private final BatchScheduler scheduler;
    private final HttpServer http;
    private final ThreadPoolExecutor handlers;
    private final ExchangePool exchanges;
    private final byte[] expectedAuthorization;
    private final HostCheck hosts;
    private final long createdSeconds = System.currentTimeMillis() / 1000;
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CountDownLatch closed = new CountDownLatch(1);
    /** Exchanges begun and not yet answered. */
    private final AtomicInteger inFlight = new AtomicInteger();

    private OpenAiServer(ServedModel served, ServerOptions options, PrintWriter log, HttpServer http, HostCheck hosts,
                         boolean ownThread) {
        this.served = served;
        this.hosts = hosts;
        this.options = options;
        this.log = log;
        this.http = http;
        this.parser = new RequestParser(served, options.maxBatchRows());
        this.expectedAuthorization = options.apiKey() == null ? null
                : ("Bearer " + options.apiKey()).getBytes(StandardCharsets.UTF_8);
        AtomicInteger n = new AtomicInteger();
        this.handlers = new ThreadPoolExecutor(options.handlerThreads(), options.handlerThreads(), 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "serve-http-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        this.scheduler = new BatchScheduler(served.model(), options.maxBatchRows(), options.maxQueued(),
                options.batchWaitMillis(), log, ownThread);
        this.exchanges = new ExchangePool(options.maxConnections(), options.readTimeoutMillis());
        http.createContext("/", this::handle);
        http.setExecutor(exchanges);
    }

    /**
     * Binds and starts serving, the engine on a thread of the server's own.
     *
     * @param log where engine failures and internal errors are reported (one line each), or null
     * @throws IOException when the address cannot be bound (e.g. the port is in use)
     */
    public static OpenAiServer start(ServedModel served, ServerOptions options, PrintWriter log) throws IOException {
        return create(served, options, log, true);
    }

    /**
     * Binds and answers HTTP, but runs no engine: requests queue until the caller runs {@link #runEngine()}. For the
     * engine to run on the thread that loaded the model: on a CPU, PyTorch's OpenMP team belongs to the thread that
     * made it, and a second thread's team on a machine with few cores makes both spin less and wait more (a
     * SmolLM2-sized decode measured about 25% slower on a second thread; docs/serve.md).
     */
    public static OpenAiServer listen(ServedModel served, ServerOptions options, PrintWriter log) throws IOException {
        return create(served, options, log, false);
    }

    private static OpenAiServer create(ServedModel served, ServerOptions options, PrintWriter log, boolean ownThread)
            throws IOException {
        Objects.requireNonNull(served, "served");
        Objects.requireNonNull(options, "options");
        InetAddress bound = InetAddress.getByName(options.host());
        HostCheck hosts = HostCheck.forListening(bound, options.allowedHosts());
        HttpServer http = HttpServer.create(new InetSocketAddress(bound, options.port()), 0);
        OpenAiServer server = new OpenAiServer(served, options, log, http, hosts, ownThread);
        http.start();
        return server;
    }

    /**
     * Runs the engine on the calling thread until {@link #close()} is called (from another thread: a signal handler,
     * a shutdown hook, a test); returns once the last batch is answered. Only for a server made by {@link #listen}.
     *
     * @throws IllegalStateException when the engine already runs (a server from {@link #start}, or a second call)
     */
    public void runEngine() {
        scheduler.runLoop();
    }

    /** The bound address (the real port when {@code port} was 0). */
    public InetSocketAddress address() {
        return http.getAddress();
    }

    /** {@code http://host:port/v1}, what a client is pointed at. */
    public URI baseUri() {
        String host = options.host().contains(":") ? "[" + options.host() + "]" : options.host();
        return URI.create("http://" + host + ":" + address().getPort() + "/v1");
    }

    /**
     * The {@code Host} names and addresses answered besides localhost and loopback: this machine's own when it listens
     * on another address, and {@link ServerOptions#allowedHosts}.
     */
    public List<String> extraHosts() {
        return hosts.extra();
    }

    /** Requests being read, or in their handler, now (those waiting for the engine not included). */
    public int connectionsBeingRead() {
        return exchanges.running();
    }

    public String servedName() {
        return served.name();
    }

    /** Engine calls so far and their sizes. */
    public SchedulerStats stats() {
        BatchScheduler.Stats s = scheduler.stats();
        return new SchedulerStats(s.batches(), s.requests(), s.rows(), s.largestBatch(), s.failedBatches(),
                scheduler.queued(), scheduler.running());
    }

    /**
     * Engine calls and what they held.
     *
     * @param batches       engine calls ({@code generate}), failed ones included
     * @param requests      requests in them
     * @param rows          candidate rows in them
     * @param largestBatch  most requests in one call
     * @param failedBatches calls that threw
     * @param queued        requests waiting now
     * @param running       requests in the engine now
     */
    public record SchedulerStats(long batches, long requests, long rows, int largestBatch, long failedBatches,
                                 int queued, int running) {
        public double meanRequestsPerBatch() {
            return batches == 0 ? 0 : (double) requests / batches;
        }
    }

    /** Graceful stop (see the class comment); idempotent, and a second caller waits for the first. */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            awaitClosed();
            return;
        }
        try {
            scheduler.close();   // queued: 503; the running batch is answered
            // the last answers are being written on the handler pool; wait for them ourselves, because JDK 17's
            // HttpServer.stop(delay) sleeps the whole delay when no exchange ends after it is called (JDK-8304065)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WRITE_GRACE_SECONDS);
            while (inFlight.get() > 0 && System.nanoTime() < deadline) Thread.sleep(10);
            http.stop(0);
            exchanges.shutdown();
            handlers.shutdown();
            if (!handlers.awaitTermination(WRITE_GRACE_SECONDS, TimeUnit.SECONDS)) handlers.shutdownNow();
        } catch (InterruptedException e) {
            handlers.shutdownNow();
            Thread.currentThread().interrupt();
        } finally {
            closed.countDown();
        }
    }

    /** Blocks until {@link #close()} has finished (uninterruptibly: a shutdown waits for it). */
    public void awaitClosed() {
        boolean interrupted = false;
        while (true) {
            try {
                closed.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    public boolean isClosing() {
        return closing.get();
    }

    // ------------------------------------------------------------------------------------------------ HTTP

    private void handle(HttpExchange ex) {
        inFlight.incrementAndGet();   // every path ends in exactly one respond(), which counts it down
        try {
            route(ex);
        } catch (ApiException e) {
            respond(ex, e.status(), Responses.error(e), e.retryAfter());
        } catch (RuntimeException | Error e) {
            // a bug: the client gets a 500 without internals, the log one line
            report("internal error on " + ex.getRequestMethod() + " " + ex.getRequestURI().getPath() + ": " + e);
            ApiException answer = new ApiException(500, "internal server error", "server_error", null, "internal_error", null);
            respond(ex, 500, Responses.error(answer), null);
        }
    }

    private void route(HttpExchange ex) {
        checkHeaderSize(ex);
        checkHost(ex);
        authorize(ex);
        String path = ex.getRequestURI().getPath();
        String method = ex.getRequestMethod();
        // draining (SIGTERM, close()): every request from now on is told so, whatever it asks
        if (closing.get()) throw ApiException.shuttingDown();
        switch (path) {
            case "/v1/models" -> {
                only("GET", method, path);
                requestRead();
                String format = served.model().promptFormat() == null ? null : served.model().promptFormat().name();
                respond(ex, 200, Responses.models(served, format, createdSeconds), null);
            }
            case "/version" -> {
                only("GET", method, path);
                requestRead();
                respond(ex, 200, Responses.version(options.version()), null);
            }
            case "/v1/completions", "/v1/chat/completions" -> {
                only("POST", method, path);
                checkJsonContentType(ex);
                JsonNode body = readJson(ex);
                requestRead();
                ApiRequest request = path.equals("/v1/completions") ? parser.completion(body) : parser.chat(body);
                BatchScheduler.Job job = scheduler.submit(request.generation());
                job.result.whenCompleteAsync((completion, failure) -> answer(ex, request, completion, failure), handlers);
            }
            default -> throw ApiException.notFound("no such endpoint: " + path + " (this server has /v1/models, "
                    + "/v1/completions, /v1/chat/completions and /version)", "not_found");
        }
    }

    private void answer(HttpExchange ex, ApiRequest request, Completion completion, Throwable failure) {
        if (failure != null) {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            ApiException e = cause instanceof ApiException a ? a : ApiException.engine("the engine failed: " + cause);
            respond(ex, e.status(), Responses.error(e), e.retryAfter());
            return;
        }
        ObjectNode body;
        try {
            body = Responses.completion(request, completion, served, System.currentTimeMillis() / 1000);
        } catch (RuntimeException e) {
            report("cannot write the answer: " + e);
            ApiException answer = ApiException.engine("cannot write the answer: " + e.getClass().getSimpleName());
            respond(ex, 500, Responses.error(answer), null);
            return;
        }
        respond(ex, 200, body, null);
    }

    /**
     * Only the Host names this server knows, before the key is looked at: a web page that makes its own name resolve
     * here (DNS rebinding) sends that name, and could otherwise drive a server without a key from the user's browser.
     */
    private void checkHost(HttpExchange ex) {
        List<String> given = ex.getRequestHeaders().get("Host");
        if (given == null || given.size() != 1 || !hosts.accepts(given.get(0))) {
            throw ApiException.hostNotAllowed(given == null || given.size() != 1 ? null : given.get(0), address().getPort());
        }
    }

    private void authorize(HttpExchange ex) {
        if (expectedAuthorization == null) return;
        String given = ex.getRequestHeaders().getFirst("Authorization");
        // constant-time comparison: the answer time must not tell how much of a guessed key was right
        if (given == null || !MessageDigest.isEqual(expectedAuthorization, given.getBytes(StandardCharsets.UTF_8))) {
            throw ApiException.unauthorized();
        }
    }

    /** Ends the request's read deadline ({@link ExchangePool}); past it the connection is already being closed. */
    private static void requestRead() {
        if (!ExchangePool.requestRead()) throw ApiException.readTimeout();
    }

    private static void checkHeaderSize(HttpExchange ex) {
        long size = 0;
        for (var header : ex.getRequestHeaders().entrySet()) {
            for (String value : header.getValue()) size += header.getKey().length() + value.length() + 4;   // ": ", CRLF
        }
        if (size > MAX_HEADER_BYTES) throw ApiException.headerTooLarge(MAX_HEADER_BYTES);
    }

    /**
     * Only {@code application/json} bodies: a web page may POST {@code text/plain}, a form or no type at all to any
     * address without the browser asking the server first (CORS "simple requests"), and a server without a key would
     * otherwise run them.
     */
    private static void checkJsonContentType(HttpExchange ex) {
        String type = ex.getRequestHeaders().getFirst("Content-Type");
        String media = type == null ? "" : type.split(";", 2)[0].strip();
        if (!media.equalsIgnoreCase("application/json")) throw ApiException.unsupportedMediaType(type);
    }

    private static void only(String allowed, String method, String path) {
        if (!allowed.equals(method)) throw ApiException.methodNotAllowed(method, path, allowed);
    }

    /** The body as JSON; 413 past the limit (what was sent is read up to a bound, so the client can read the 413). */
    private JsonNode readJson(HttpExchange ex) {
        int limit = options.maxBodyBytes();
        String declared = ex.getRequestHeaders().getFirst("Content-Length");
        if (declared != null) {
            try {
                if (Long.parseLong(declared.strip()) > DRAIN_LIMIT) throw ApiException.tooLarge(limit);
            } catch (NumberFormatException e) {
                throw ApiException.invalid("bad Content-Length header", null);
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        long total = 0;
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = ex.getRequestBody()) {
            int n;
            while ((n = in.read(buf)) > 0) {
                total += n;
                if (total <= limit) body.write(buf, 0, n);
                if (total > DRAIN_LIMIT) break;
            }
        } catch (IOException e) {
            throw ApiException.invalid("cannot read the request body: " + e.getMessage(), null);
        }
        if (total > limit) throw ApiException.tooLarge(limit);
        if (total == 0) throw ApiException.invalid("the request body is empty (a JSON object is expected)", null);
        try {
            return Responses.JSON.readTree(body.toByteArray());
        } catch (JacksonException e) {
            throw ApiException.invalid("invalid JSON: " + e.getOriginalMessage(), null);
        } catch (IOException e) {
            throw ApiException.invalid("cannot read the request body: " + e.getMessage(), null);
        }
    }

    private void respond(HttpExchange ex, int status, ObjectNode body, String retryAfter) {
        try (ex) {
            byte[] bytes = Responses.bytes(body);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            if (retryAfter != null) ex.getResponseHeaders().set("Retry-After", retryAfter);
            if (status == 405) {
                ex.getResponseHeaders().set("Allow", ex.getRequestURI().getPath().equals("/v1/models")
                        || ex.getRequestURI().getPath().equals("/version") ? "GET" : "POST");
            }
            if (ex.getRequestMethod().equals("HEAD")) {
                ex.sendResponseHeaders(status, -1);   // a HEAD answer has no body
                return;
            }
            ex.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(bytes);
            }
        } catch (IOException e) {
            // the client went away; nothing to answer
        } finally {
            inFlight.decrementAndGet();
        }
    }

    private void report(String line) {
        if (log != null) {
            log.println("serve: " + line);
            log.flush();
        }
    }
}
