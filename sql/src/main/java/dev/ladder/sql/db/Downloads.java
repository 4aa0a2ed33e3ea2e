package dev.ladder.sql.db;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/** Downloads one file to a target path, atomically, with a progress bar and a SHA-256 check. */
public final class Downloads {

    private Downloads() {}

    /**
     * Fetches {@code url} into {@code target}. The bytes go to {@code target.part} first and are
     * moved into place only when complete and (if {@code expectedSha256} is given) verified, so an
     * interrupted or corrupt download never looks like a finished one.
     */
    public static void fetch(URI url, Path target, String expectedSha256, String label) {
        Path part = target.resolveSibling(target.getFileName() + ".part");
        try {
            Files.createDirectories(target.getParent());
            HttpClient client = HttpClient.newBuilder()
                    .followRedirects(HttpClient.Redirect.NORMAL)
                    .connectTimeout(Duration.ofSeconds(20))
                    .build();
            HttpRequest req = HttpRequest.newBuilder(url).timeout(Duration.ofMinutes(10)).GET().build();
            HttpResponse<InputStream> resp = client.send(req, HttpResponse.BodyHandlers.ofInputStream());
            if (resp.statusCode() != 200) {
                resp.body().close();
                throw new UserError("download of " + label + " from " + url + " failed: HTTP " + resp.statusCode());
            }
            long length = resp.headers().firstValueAsLong("Content-Length").orElse(-1);
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            try (InputStream in = resp.body();
                 OutputStream out = Files.newOutputStream(part);
                 ProgressBar bar = new ProgressBarBuilder().setTaskName(label).setInitialMax(length)
                         .setStyle(ProgressBarStyle.ASCII).setUnit(" KiB", 1024).continuousUpdate()
                         .setConsumer(new ConsoleProgressBarConsumer(System.err)).build()) {
                byte[] buf = new byte[64 * 1024];
                int n;
                while ((n = in.read(buf)) > 0) {
                    out.write(buf, 0, n);
                    sha.update(buf, 0, n);
                    bar.stepBy(n);
                }
            }
            String actual = HexFormat.of().formatHex(sha.digest());
            if (expectedSha256 != null && !expectedSha256.equalsIgnoreCase(actual)) {
                Files.deleteIfExists(part);
                throw new UserError("download of " + label + " from " + url + " has SHA-256 " + actual
                        + ", expected " + expectedSha256 + "; nothing was kept");
            }
            Files.move(part, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            deleteQuietly(part);
            String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw new UserError("download of " + label + " from " + url + " failed (" + why
                    + "); offline, put the file in a data directory (--data-dir or LADDER_DATA_DIR)", e);
        } catch (InterruptedException e) {
            deleteQuietly(part);
            Thread.currentThread().interrupt();
            throw new UserError("download of " + label + " was interrupted");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[64 * 1024];
            int n;
            while ((n = in.read(buf)) > 0) sha.update(buf, 0, n);
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort
        }
    }
}
