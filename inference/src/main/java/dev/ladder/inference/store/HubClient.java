package dev.ladder.inference.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.inference.store.ModelStore.Listing;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Hugging Face hub as {@link ModelStore} talks to it: the file list of a revision through the API, and each file
 * downloaded into {@code <file>.part}, resumed with an HTTP Range request, checked against the size and SHA-256 (or git
 * blob id) the hub listed and only then renamed into place. The token goes to the hub's own host only: redirects to
 * another host (the hub sends LFS files to a CDN) are followed without it.
 */
final class HubClient {

    private static final Pattern HEX40 = Pattern.compile("[0-9a-f]{40}");
    private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");
    private static final Pattern CONTENT_RANGE = Pattern.compile("bytes (\\d+)-(\\d+)/(\\d+|\\*)");
    private static final int MAX_REDIRECTS = 10;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String endpoint;
    private final String token;
    private final int retries;
    private final long retryDelayMillis;
    private final int connectTimeoutMillis;
    private final int readTimeoutMillis;

    /** 3 retries 2 s apart, 30 s to connect, 120 s without a byte. */
    HubClient(String endpoint, String token) {
        this(endpoint, token, 3, 2000, 30_000, 120_000);
    }

    private HubClient(String endpoint, String token, int retries, long retryDelayMillis, int connectTimeoutMillis,
                      int readTimeoutMillis) {
        String e = Objects.requireNonNull(endpoint, "endpoint").strip();
        while (e.endsWith("/")) e = e.substring(0, e.length() - 1);
        if (!e.startsWith("http://") && !e.startsWith("https://")) {
            throw new StoreException("hub endpoint must be an http(s) URL, got '" + endpoint + "' (HF_ENDPOINT)");
        }
        this.endpoint = e;
        this.token = token == null || token.isBlank() ? null : token.strip();
        this.retries = retries;
        this.retryDelayMillis = retryDelayMillis;
        this.connectTimeoutMillis = connectTimeoutMillis;
        this.readTimeoutMillis = readTimeoutMillis;
    }

    HubClient withRetries(int count, long delayMillis) {
        return new HubClient(endpoint, token, count, delayMillis, connectTimeoutMillis, readTimeoutMillis);
    }

    String endpoint() {
        return endpoint;
    }

    /** The repo's files at {@code rev} (repo id and revision already checked). */
    Listing list(String repoId, String rev) throws IOException {
        URI uri = URI.create(endpoint + "/api/models/" + repoId + "/revision/" + encodeSegment(rev) + "?blobs=true");
        HttpURLConnection c = open(uri, -1, repoId, rev, null);
        JsonNode root;
        try (InputStream in = c.getInputStream()) {
            root = JSON.readTree(in);
        } catch (IOException e) {
            throw new IOException("could not read the hub's file list for " + repoId + "@" + rev + ": " + e.getMessage(), e);
        } finally {
            c.disconnect();
        }
        String commit = root.hasNonNull("sha") ? root.get("sha").asText() : null;
        if (commit != null && !HEX40.matcher(commit).matches()) commit = null;
        List<HubFile> files = new ArrayList<>();
        JsonNode siblings = root.path("siblings");
        if (!siblings.isArray()) throw new IOException("the hub's answer for " + repoId + "@" + rev + " has no file list (siblings)");
        for (JsonNode s : siblings) {
            String name = s.path("rfilename").asText(null);
            if (name == null || name.isEmpty()) continue;
            JsonNode lfs = s.path("lfs");
            long size = lfs.hasNonNull("size") ? lfs.get("size").asLong(-1) : s.hasNonNull("size") ? s.get("size").asLong(-1) : -1;
            String sha = lfs.hasNonNull("sha256") ? lfs.get("sha256").asText().toLowerCase(Locale.ROOT) : null;
            if (sha != null && !HEX64.matcher(sha).matches()) sha = null;
            String blob = !lfs.isMissingNode() && !lfs.isNull() ? null
                    : s.hasNonNull("blobId") ? s.get("blobId").asText().toLowerCase(Locale.ROOT) : null;
            if (blob != null && (!HEX40.matcher(blob).matches() || size < 0)) blob = null;
            files.add(new HubFile(name, size, sha, blob));
        }
        return new Listing(commit, files);
    }

    /**
     * Downloads one file into {@code dir}, resuming after a broken connection up to the retries, and starting over
     * once when a resumed part turns out to belong to another version of the file.
     */
    PullManifest.Entry fetchWithRetries(String repoId, String fileRev, HubFile f, Path dir, ProgressListener l)
            throws IOException {
        boolean restartedAfterMismatch = false;
        for (int attempt = 0; ; attempt++) {
            try {
                return fetch(repoId, fileRev, f, dir, l);
            } catch (ChecksumMismatch e) {
                // a part file from an older revision of the file: start over once
                if (e.resumed && !restartedAfterMismatch) {
                    restartedAfterMismatch = true;
                    continue;
                }
                throw e;
            } catch (StoreException e) {
                throw e;
            } catch (IOException e) {
                if (attempt >= retries) throw e;
                try {
                    Thread.sleep(retryDelayMillis * (attempt + 1));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("pull interrupted");
                }
            }
        }
    }

    /** A downloaded file does not match what the hub listed; its part file has been removed. */
    static final class ChecksumMismatch extends IOException {
        private static final long serialVersionUID = 1L;
        final transient boolean resumed;

        ChecksumMismatch(String message, boolean resumed) {
            super(message);
            this.resumed = resumed;
        }
    }

    /** Downloads one file into {@code <name>.part}, resuming what is there, checks it and renames it into place. */
    private PullManifest.Entry fetch(String repoId, String fileRev, HubFile f, Path dir, ProgressListener l) throws IOException {
        Path target = dir.resolve(f.name());
        Path part = dir.resolve(f.name() + ".part");
        Files.createDirectories(target.getParent()); // an ONNX export keeps the repo's onnx/ folder
        long have = Files.isRegularFile(part) ? Files.size(part) : 0;
        if (f.size() >= 0 && have > f.size()) {
            Files.delete(part);
            have = 0;
        }
        if (f.size() >= 0 && have == f.size() && have > 0) {
            // an earlier pull got every byte but stopped before the rename
            l.fileStarted(f.name(), f.size(), have);
            return finish(f, part, target, digestOf(f, part, have), have, true);
        }
        URI uri = URI.create(endpoint + "/" + repoId + "/resolve/" + encodeSegment(fileRev) + "/" + encodePath(f.name()));
        HttpURLConnection c = open(uri, have, repoId, fileRev, f.name());
        try {
            int status = c.getResponseCode();
            long start = 0;
            long length = c.getContentLengthLong();
            long expectedTotal = f.size();
            if (status == 206) {
                Matcher m = CONTENT_RANGE.matcher(Objects.toString(c.getHeaderField("Content-Range"), ""));
                if (!m.matches()) throw new IOException("bad Content-Range for " + f.name() + ": " + c.getHeaderField("Content-Range"));
                start = Long.parseLong(m.group(1));
                if (start > have) throw new IOException("server resumed " + f.name() + " at byte " + start + ", not " + have);
                if (!m.group(3).equals("*")) {
                    long total = Long.parseLong(m.group(3));
                    if (expectedTotal >= 0 && total != expectedTotal) {
                        Files.deleteIfExists(part);
                        throw new IOException(f.name() + " is " + total + " bytes on the server, the listing said " + expectedTotal);
                    }
                    expectedTotal = total;
                }
            } else if (status == 416) {
                // what we have is not a prefix of the file (or is all of it without a known size): start over
                c.disconnect();
                Files.deleteIfExists(part);
                return fetch(repoId, fileRev, f, dir, l);
            } else if (status != 200) {
                throw new IOException("hub answered HTTP " + status + " for " + uri);
            } else if (length >= 0) {
                expectedTotal = expectedTotal >= 0 ? expectedTotal : length;
            }
            boolean resumed = start > 0;
            if (start < have) {
                try (FileChannel ch = FileChannel.open(part, StandardOpenOption.WRITE)) {
                    ch.truncate(start);
                }
            }
            have = start;
            FileDigests d = resumed ? digestOf(f, part, have) : FileDigests.of(f);
            l.fileStarted(f.name(), expectedTotal, have);
            long got = 0;
            try (InputStream in = c.getInputStream();
                 OutputStream out = Files.newOutputStream(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                         have > 0 ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING)) {
                byte[] buf = new byte[1 << 16];
                for (int n; (n = in.read(buf)) > 0; ) {
                    out.write(buf, 0, n);
                    d.update(buf, 0, n);
                    got += n;
                    l.transferred(f.name(), n);
                }
            }
            if (length >= 0 && got < length) {
                throw new IOException("connection closed after " + (have + got) + " of " + (have + length) + " bytes of " + f.name());
            }
            try (FileChannel ch = FileChannel.open(part, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            return finish(f, part, target, d, have + got, resumed);
        } finally {
            c.disconnect();
        }
    }

    private static FileDigests digestOf(HubFile f, Path part, long have) throws IOException {
        FileDigests d = FileDigests.of(f);
        try (InputStream in = Files.newInputStream(part)) {
            byte[] buf = new byte[1 << 16];
            long left = have;
            for (int n; left > 0 && (n = in.read(buf, 0, (int) Math.min(buf.length, left))) > 0; left -= n) d.update(buf, 0, n);
        }
        return d;
    }

    private static PullManifest.Entry finish(HubFile f, Path part, Path target, FileDigests d, long size, boolean resumed)
            throws IOException {
        String problem = null;
        if (f.size() >= 0 && size != f.size()) {
            problem = "size mismatch for " + f.name() + ": expected " + f.size() + " bytes, got " + size;
        } else if (f.sha256() != null && !f.sha256().equals(d.sha256())) {
            problem = "sha256 mismatch for " + f.name() + ": expected " + f.sha256() + ", got " + d.sha256();
        } else if (f.blobId() != null && !f.blobId().equals(d.gitBlob())) {
            problem = "git blob id mismatch for " + f.name() + ": expected " + f.blobId() + ", got " + d.gitBlob();
        }
        if (problem != null) {
            Files.deleteIfExists(part);
            throw new ChecksumMismatch(problem + " (download removed; run the pull again)", resumed);
        }
        Files.move(part, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return new PullManifest.Entry(f.name(), size, d.sha256());
    }

    // ---------------------------------------------------------------------------------------------------- HTTP

    /**
     * Opens a GET, following redirects by hand so that the token goes to the hub's host only. Returns a connection
     * whose status is 200 or 206 (or 416 for a range request); turns the hub's refusals into {@link StoreException}s.
     *
     * @param rangeFrom bytes already there (a Range request when > 0), or -1 for an API call
     * @param file      the file being fetched, or null for the listing
     */
    private HttpURLConnection open(URI uri, long rangeFrom, String repoId, String rev, String file) throws IOException {
        URI origin = URI.create(endpoint);
        URI current = uri;
        for (int hop = 0; hop <= MAX_REDIRECTS; hop++) {
            HttpURLConnection c = (HttpURLConnection) current.toURL().openConnection();
            c.setInstanceFollowRedirects(false);
            c.setConnectTimeout(connectTimeoutMillis);
            c.setReadTimeout(readTimeoutMillis);
            c.setRequestProperty("User-Agent", "ladder (java " + System.getProperty("java.version") + ")");
            c.setRequestProperty("Accept-Encoding", "identity");
            if (token != null && sameOrigin(origin, current)) c.setRequestProperty("Authorization", "Bearer " + token);
            if (rangeFrom > 0) c.setRequestProperty("Range", "bytes=" + rangeFrom + "-");
            int status = c.getResponseCode();
            if (status == 301 || status == 302 || status == 303 || status == 307 || status == 308) {
                String location = c.getHeaderField("Location");
                c.disconnect();
                if (location == null) throw new IOException("redirect without Location from " + current);
                try {
                    current = current.resolve(location.replace(" ", "%20").replace("|", "%7C"));
                } catch (IllegalArgumentException e) {
                    throw new IOException("bad redirect from " + current + " to " + location, e);
                }
                if (!"http".equals(current.getScheme()) && !"https".equals(current.getScheme())) {
                    throw new IOException("redirect to a non-http URL: " + current);
                }
                continue;
            }
            if (status == 200 || status == 206 || (status == 416 && rangeFrom > 0)) return c;
            String code = c.getHeaderField("X-Error-Code");
            String what = file == null ? repoId + "@" + rev : file + " of " + repoId + "@" + rev;
            c.disconnect();
            if ("RepoNotFound".equals(code) || "RevisionNotFound".equals(code) || status == 404 && file == null) {
                throw new StoreException("no such model or revision: " + repoId + "@" + rev + " on " + endpoint
                        + (token == null && "RepoNotFound".equals(code) ? " (if it is private, set HF_TOKEN)" : ""));
            }
            if ("EntryNotFound".equals(code) || status == 404) {
                throw new StoreException("the hub has no file " + what + " (404) although it listed it");
            }
            if (status == 401 || status == 403 || "GatedRepo".equals(code)) {
                throw new StoreException(repoId + " is gated or needs a token: accept the license on the hub ("
                        + endpoint + "/" + repoId + ") and set HF_TOKEN"
                        + (token != null ? " (a token was sent; its account has no access yet)" : ""));
            }
            if (status == 429) throw new IOException("the hub is rate-limiting requests (HTTP 429): try again later");
            throw new IOException("hub answered HTTP " + status + " for " + current);
        }
        throw new IOException("too many redirects from " + uri);
    }

    private static boolean sameOrigin(URI a, URI b) {
        return Objects.equals(a.getScheme(), b.getScheme())
                && a.getHost() != null && a.getHost().equalsIgnoreCase(b.getHost())
                && port(a) == port(b);
    }

    private static int port(URI u) {
        if (u.getPort() >= 0) return u.getPort();
        return "https".equals(u.getScheme()) ? 443 : 80;
    }

    private static String encodeSegment(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String encodePath(String path) {
        StringBuilder sb = new StringBuilder();
        for (String seg : path.split("/", -1)) {
            if (!sb.isEmpty()) sb.append('/');
            sb.append(encodeSegment(seg));
        }
        return sb.toString();
    }
}
