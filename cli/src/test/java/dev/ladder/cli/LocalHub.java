package dev.ladder.cli;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A model hub on 127.0.0.1 serving one repo's files the way the Hugging Face API lists and resolves them (what a pull
 * reads); point Ladder at it with the system property {@code ladder.hf.endpoint}.
 */
final class LocalHub {

    /** File downloads answered since the hub started. */
    static final AtomicInteger DOWNLOADS = new AtomicInteger();

    private LocalHub() {}

    /** The files of a model directory, by name. */
    static Map<String, byte[]> filesOf(Path dir) throws IOException {
        Map<String, byte[]> files = new LinkedHashMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.sorted().toList()) files.put(p.getFileName().toString(), Files.readAllBytes(p));
        }
        return files;
    }

    /** Serves {@code repo} at revision main (commit 1111...): its listing with sizes and SHA-256, and its files. */
    static HttpServer serve(String repo, Map<String, byte[]> files) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", ex -> {
            try (ex) {
                String path = ex.getRequestURI().getPath();
                byte[] body;
                int status = 200;
                // /{repo}/resolve/{revision}/{file, which may hold a folder: onnx/model.onnx}
                String prefix = "/" + repo + "/resolve/";
                String rest = path.startsWith(prefix) ? path.substring(prefix.length()) : "";
                String file = rest.substring(rest.indexOf('/') + 1);
                if (path.equals("/api/models/" + repo + "/revision/main")) {
                    StringBuilder sb = new StringBuilder("{\"sha\":\"" + "1".repeat(40) + "\",\"siblings\":[");
                    String sep = "";
                    for (Map.Entry<String, byte[]> e : files.entrySet()) {
                        sb.append(sep).append("{\"rfilename\":\"").append(e.getKey()).append("\",\"size\":")
                                .append(e.getValue().length).append(",\"lfs\":{\"sha256\":\"").append(sha256(e.getValue()))
                                .append("\",\"size\":").append(e.getValue().length).append("}}");
                        sep = ",";
                    }
                    body = sb.append("]}").toString().getBytes(StandardCharsets.UTF_8);
                } else if (!rest.isEmpty() && files.containsKey(file)) {
                    DOWNLOADS.incrementAndGet();
                    body = files.get(file);
                } else {
                    status = 404;
                    body = "{}".getBytes(StandardCharsets.UTF_8);
                }
                ex.sendResponseHeaders(status, body.length);
                ex.getResponseBody().write(body);
            }
        });
        server.start();
        return server;
    }

    static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
