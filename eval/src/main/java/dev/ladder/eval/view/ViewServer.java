package dev.ladder.eval.view;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.ladder.common.HostCheck;
import dev.ladder.inference.serve.ExchangePool;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;

/**
 * Serves a {@link RunViewer}'s pages on the loopback interface only: GET and HEAD of a page's path; anything else is
 * answered with a status and one line of text, never a stack trace.
 *
 * <p>Only requests whose {@code Host} names the loopback interface are answered: a page of another site can make the
 * browser resolve its own name to 127.0.0.1 (DNS rebinding) and would then read these pages as same-origin; its
 * requests still carry its own name in {@code Host} ({@link HostCheck}, which {@code ladder serve} shares).
 */
public final class ViewServer implements AutoCloseable {

    private static final HostCheck HOSTS = HostCheck.loopback();

    /** Requests read or answered at once, and the time a request has to arrive in full. */
    static final int MAX_CONNECTIONS = 32;
    static final long READ_TIMEOUT_MILLIS = 30_000;

    private final HttpServer server;
    private final ExchangePool exchanges;

    private ViewServer(HttpServer server, ExchangePool exchanges) {
        this.server = server;
        this.exchanges = exchanges;
    }

    /** @param port 0 for any free port */
    public static ViewServer start(Map<String, byte[]> pages, int port) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        s.createContext("/", ex -> handle(ex, pages));
        // without an executor the JDK reads every request on its one dispatcher thread, with no timeout: one client
        // that sends half a request would freeze the viewer for everyone
        ExchangePool pool = new ExchangePool(MAX_CONNECTIONS, READ_TIMEOUT_MILLIS);
        s.setExecutor(pool);
        s.start();
        return new ViewServer(s, pool);
    }

    public String url() {
        return "http://127.0.0.1:" + port() + "/";
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void handle(HttpExchange ex, Map<String, byte[]> pages) throws IOException {
        try (ex) {
            // a GET is read once its head is: the rest has no deadline (false: the deadline fired, it is being closed)
            if (!ExchangePool.requestRead()) return;
            List<String> hosts = ex.getRequestHeaders().get("Host");
            if (hosts == null || hosts.size() != 1 || !HOSTS.accepts(hosts.get(0))) {
                reply(ex, 403, "text/plain; charset=utf-8", ("refused: the Host header must name this machine's loopback "
                        + "interface (127.0.0.1, localhost or [::1]); open " + "http://127.0.0.1:" + ex.getLocalAddress().getPort()
                        + "/\n").getBytes(), !ex.getRequestMethod().equals("HEAD"));
                return;
            }
            String method = ex.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                reply(ex, 405, "text/plain; charset=utf-8", ("method " + method + " is not allowed: this viewer only reads\n").getBytes(),
                        true);
                return;
            }
            String path = ex.getRequestURI().getPath();
            String key = path.equals("/") ? "index.html" : path.substring(1);
            byte[] page = pages.get(key);
            if (page == null) {
                reply(ex, 404, "text/plain; charset=utf-8", ("no page " + path + "\n").getBytes(), !method.equals("HEAD"));
                return;
            }
            reply(ex, 200, type(key), page, !method.equals("HEAD"));
        }
    }

    private static void reply(HttpExchange ex, int status, String type, byte[] body, boolean withBody) throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        // the pages carry their own scripts and nothing else may run: no external source of any kind
        ex.getResponseHeaders().set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; "
                + "style-src 'unsafe-inline'; img-src 'self'");
        ex.sendResponseHeaders(status, withBody ? body.length : -1);
        if (withBody) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private static String type(String key) {
        if (key.endsWith(".html")) return "text/html; charset=utf-8";
        if (key.endsWith(".svg")) return "image/svg+xml";
        return "application/octet-stream";
    }

    @Override
    public void close() {
        server.stop(0);
        exchanges.shutdown();
    }
}
