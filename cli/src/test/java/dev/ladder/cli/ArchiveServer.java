package dev.ladder.cli;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * Archives served on 127.0.0.1 at {@code /<file>}, the way a mirror or the official hosts serve them: HTTP Range
 * requests answered with 206 (or ignored, on request), a connection that breaks off after some bytes, a length
 * claimed in the headers; unknown files are 404. Point {@code ladder bench fetch --mirror} at {@link #url()}.
 */
final class ArchiveServer implements AutoCloseable {

    private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-");

    final Map<String, byte[]> files = new ConcurrentHashMap<>();
    /** The Range header of every request ("" without one). */
    final List<String> ranges = new CopyOnWriteArrayList<>();
    /** Body bytes sent. */
    final AtomicLong served = new AtomicLong();
    /** Answer Range requests with 206 (else the whole file with 200). */
    volatile boolean honourRange = true;
    /** When >= 0: the next response claims the whole length and closes after this many bytes. */
    volatile long breakAfter = -1;
    /** The Content-Type of every file (a quota page of Google Drive: text/html). */
    volatile String contentType = "application/zip";
    /** When >= 0: the next response sends this many bytes, then stalls until the server closes (a kill's moment). */
    volatile long stallAfter = -1;
    /** When > 0: the length every response claims, whatever it sends. */
    volatile long claimedLength = 0;

    private final HttpServer server;
    private final CountDownLatch closing = new CountDownLatch(1);
    /** A thread per request: a stalled one must not hold up the next (as a real server's would not). */
    private final ExecutorService threads = Executors.newCachedThreadPool();

    ArchiveServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", ex -> {
            try (ex) {
                String range = ex.getRequestHeaders().getFirst("Range");
                ranges.add(range == null ? "" : range);
                byte[] body = files.get(ex.getRequestURI().getPath().substring(1));
                if (body == null) {
                    ex.sendResponseHeaders(404, -1);
                    return;
                }
                ex.getResponseHeaders().add("Content-Type", contentType);
                int start = 0;
                Matcher m = RANGE.matcher(range == null ? "" : range);
                if (honourRange && m.matches()) {
                    start = Integer.parseInt(m.group(1));
                    if (start >= body.length) {
                        ex.getResponseHeaders().add("Content-Range", "bytes */" + body.length);
                        ex.sendResponseHeaders(416, -1);
                        return;
                    }
                    ex.getResponseHeaders().add("Content-Range", "bytes " + start + "-" + (body.length - 1) + "/" + body.length);
                }
                long length = claimedLength > 0 ? claimedLength : body.length - start;
                ex.sendResponseHeaders(start > 0 ? 206 : 200, length);
                long stall = stallAfter;
                stallAfter = -1;
                long limit = stall >= 0 ? stall : breakAfter >= 0 ? breakAfter : body.length - start;
                breakAfter = -1;
                OutputStream out = ex.getResponseBody();
                int n = (int) Math.min(limit, body.length - start);
                out.write(body, start, n);
                served.addAndGet(n);
                out.flush();
                if (stall >= 0) closing.await();
            } catch (IOException e) {
                // the client went away
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        server.setExecutor(threads);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        closing.countDown();
        server.stop(0);
        threads.shutdownNow();
    }

    /** A zip of these entries, in order. */
    static byte[] zip(Map<String, byte[]> entries) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                zip.putNextEntry(new ZipEntry(e.getKey()));
                zip.write(e.getValue());
                zip.closeEntry();
            }
        }
        return bytes.toByteArray();
    }
}
