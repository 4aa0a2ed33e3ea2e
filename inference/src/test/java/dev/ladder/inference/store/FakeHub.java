package dev.ladder.inference.store;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Hugging Face hub on 127.0.0.1 for tests: {@code /api/models/{repo}/revision/{rev}} lists the files (with sizes,
 * {@code lfs.sha256} and {@code blobId} when {@link #blobs} is on), {@code /{repo}/resolve/{rev}/{file}} serves them;
 * LFS files (names ending in {@code .safetensors}) redirect to {@code /cdn/<sha256>} on this server or, with
 * {@link #cdnOnOtherHost}, on a second server (another port: another origin). Knobs per test: Range support, a
 * connection dropped half-way through a file (once), corrupt content, a required token.
 */
final class FakeHub implements AutoCloseable {

    static final String COMMIT = "0123456789abcdef0123456789abcdef01234567";

    /** One request as the servers saw it. */
    record Request(int port, String path, String authorization, String range) {}

    final HttpServer hub;
    final HttpServer cdn;
    final String repo;
    final Map<String, byte[]> files = new LinkedHashMap<>();
    final List<Request> requests = Collections.synchronizedList(new ArrayList<>());

    volatile boolean blobs = true;
    volatile boolean rangeSupport = true;
    volatile boolean cdnOnOtherHost = false;
    /** Answer 401 to requests without this bearer token (null: open repo). */
    volatile String requiredToken;
    /** Files whose first download stops after this many bytes (the connection is dropped), once each. */
    final Map<String, Integer> dropOnceAfter = new ConcurrentHashMap<>();
    /** Files served with one byte flipped (the listing keeps the true checksum). */
    final Set<String> corrupt = ConcurrentHashMap.newKeySet();

    FakeHub(String repo) throws IOException {
        this.repo = repo;
        InetAddress lo = InetAddress.getLoopbackAddress();
        hub = HttpServer.create(new InetSocketAddress(lo, 0), 0);
        cdn = HttpServer.create(new InetSocketAddress(lo, 0), 0);
        hub.createContext("/", this::handle);
        cdn.createContext("/", this::handle);
        hub.start();
        cdn.start();
    }

    FakeHub put(String name, byte[] content) {
        files.put(name, content);
        return this;
    }

    FakeHub put(String name, String content) {
        return put(name, content.getBytes(StandardCharsets.UTF_8));
    }

    String endpoint() {
        return "http://127.0.0.1:" + hub.getAddress().getPort();
    }

    List<Request> requestsTo(String pathPart) {
        synchronized (requests) {
            return requests.stream().filter(r -> r.path().contains(pathPart)).toList();
        }
    }

    @Override
    public void close() {
        hub.stop(0);
        cdn.stop(0);
    }

    static boolean isLfs(String name) {
        return name.endsWith(".safetensors");
    }

    static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static String gitBlobId(byte[] b) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-1");
            md.update(("blob " + b.length + "\0").getBytes(StandardCharsets.US_ASCII));
            return HexFormat.of().formatHex(md.digest(b));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static final Pattern API = Pattern.compile("/api/models/([^/]+/[^/]+)/revision/([^/?]+)");
    private static final Pattern RESOLVE = Pattern.compile("/([^/]+/[^/]+)/resolve/([^/]+)/(.+)");
    private static final Pattern CDN = Pattern.compile("/cdn/([0-9a-f]{64})");

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getRawPath();
            String auth = ex.getRequestHeaders().getFirst("Authorization");
            requests.add(new Request(ex.getLocalAddress().getPort(), path, auth, ex.getRequestHeaders().getFirst("Range")));
            boolean onHub = ex.getLocalAddress().getPort() == hub.getAddress().getPort();
            if (onHub && requiredToken != null && !("Bearer " + requiredToken).equals(auth)) {
                send(ex, 401, "{\"error\":\"Access to model " + repo + " is restricted.\"}", null);
                return;
            }
            Matcher m = API.matcher(path);
            if (onHub && m.matches()) {
                if (!m.group(1).equals(repo)) {
                    send(ex, 404, "{\"error\":\"Repository not found\"}", "RepoNotFound");
                } else if (!m.group(2).equals("main") && !m.group(2).equals(COMMIT)) {
                    send(ex, 404, "{\"error\":\"Invalid rev id\"}", "RevisionNotFound");
                } else {
                    send(ex, 200, listing(), null);
                }
                return;
            }
            m = RESOLVE.matcher(path);
            if (onHub && m.matches() && m.group(1).equals(repo)) {
                String name = java.net.URLDecoder.decode(m.group(3), StandardCharsets.UTF_8);
                byte[] content = files.get(name);
                if (content == null) {
                    send(ex, 404, "{\"error\":\"Entry not found\"}", "EntryNotFound");
                } else if (isLfs(name)) {
                    String base = cdnOnOtherHost ? "http://127.0.0.1:" + cdn.getAddress().getPort() : "";
                    ex.getResponseHeaders().add("Location", base + "/cdn/" + sha256(content));
                    ex.sendResponseHeaders(302, -1);
                } else {
                    serve(ex, name, content);
                }
                return;
            }
            m = CDN.matcher(path);
            if (m.matches()) {
                for (Map.Entry<String, byte[]> e : files.entrySet()) {
                    if (sha256(e.getValue()).equals(m.group(1))) {
                        serve(ex, e.getKey(), e.getValue());
                        return;
                    }
                }
            }
            send(ex, 404, "{\"error\":\"not found\"}", null);
        }
    }

    private String listing() {
        StringBuilder sb = new StringBuilder("{\"id\":\"" + repo + "\",\"sha\":\"" + COMMIT + "\",\"siblings\":[");
        boolean first = true;
        for (Map.Entry<String, byte[]> e : files.entrySet()) {
            if (!first) sb.append(',');
            first = false;
            sb.append("{\"rfilename\":\"").append(e.getKey()).append('"');
            if (blobs) {
                byte[] b = e.getValue();
                if (isLfs(e.getKey())) {
                    sb.append(",\"size\":").append(b.length).append(",\"blobId\":\"").append("ab".repeat(20))
                            .append("\",\"lfs\":{\"sha256\":\"").append(sha256(b)).append("\",\"size\":").append(b.length)
                            .append(",\"pointerSize\":134}");
                } else {
                    sb.append(",\"size\":").append(b.length).append(",\"blobId\":\"").append(gitBlobId(b)).append('"');
                }
            }
            sb.append('}');
        }
        return sb.append("]}").toString();
    }

    private void serve(HttpExchange ex, String name, byte[] content) throws IOException {
        if (corrupt.contains(name)) {
            content = content.clone();
            content[content.length / 2] ^= 0x5a;
        }
        int from = 0;
        String range = ex.getRequestHeaders().getFirst("Range");
        if (rangeSupport && range != null) {
            Matcher r = Pattern.compile("bytes=(\\d+)-").matcher(range);
            if (r.matches()) from = Integer.parseInt(r.group(1));
            if (from >= content.length) {
                ex.getResponseHeaders().add("Content-Range", "bytes */" + content.length);
                ex.sendResponseHeaders(416, -1);
                return;
            }
            ex.getResponseHeaders().add("Content-Range", "bytes " + from + "-" + (content.length - 1) + "/" + content.length);
        }
        int length = content.length - from;
        ex.sendResponseHeaders(from > 0 ? 206 : 200, length);
        Integer drop = dropOnceAfter.remove(name);
        OutputStream out = ex.getResponseBody();
        if (drop != null && drop < length) {
            out.write(content, from, drop);
            out.flush();
            // end the connection without the rest of the body
            try {
                out.close();
            } catch (IOException expected) {
                // "insufficient bytes written": the server closes the connection
            }
            throw new UncheckedIOException(new IOException("dropped"));
        }
        out.write(content, from, length);
    }

    private static void send(HttpExchange ex, int status, String body, String errorCode) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        if (errorCode != null) ex.getResponseHeaders().add("X-Error-Code", errorCode);
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }
}
