package dev.ladder.scorer.bench.fetch;

import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * One archive downloaded into {@code <file>.part} beside its target: an interrupted download resumes with an HTTP
 * Range request (from scratch when the server ignores it), the bytes are checked against the expected size and
 * SHA-256, and only then renamed to the target. A broken-off download keeps its part file for the next try; a wrong
 * one is removed.
 */
final class ArchiveDownload {

    /** The archive in place, checked, with what was measured. */
    record Verified(Path archive, long size, String sha256, boolean resumed) {}

    private static final Pattern CONTENT_RANGE = Pattern.compile("bytes (\\d+)-(\\d+)/(\\d+|\\*)");
    private static final int CONNECT_TIMEOUT_MS = 20_000;
    private static final int READ_TIMEOUT_MS = 120_000;

    private final String label;
    private final URI url;
    private final Path target;
    private final Path part;
    private final Long size;
    private final String sha256;

    /**
     * @param label  what is fetched, for messages ({@code spider-dev})
     * @param size   expected bytes, or null
     * @param sha256 expected lower-case hex, or null
     */
    ArchiveDownload(String label, URI url, Path target, Long size, String sha256) {
        this.label = label;
        this.url = url;
        this.target = target;
        this.part = partOf(target);
        this.size = size;
        this.sha256 = sha256;
    }

    static Path partOf(Path target) {
        return target.resolveSibling(target.getFileName() + ".part");
    }

    /** Downloads (or resumes) and checks the archive; returns it in place. */
    Verified fetch() {
        try {
            Files.createDirectories(target.getParent());
            return fetch(false);
        } catch (IOException e) {
            throw new UserError(label + ": cannot write " + part + ": " + FetchRecipes.firstLine(e), e);
        }
    }

    private Verified fetch(boolean restarted) throws IOException {
        long have = Files.isRegularFile(part) ? Files.size(part) : 0;
        if (size != null && have > size) {
            Files.delete(part);
            have = 0;
        }
        if (size != null && have == size && have > 0) return finish(have, true); // every byte came before a stop
        HttpURLConnection c = open(have);
        try {
            int status = c.getResponseCode();
            String type = String.valueOf(c.getContentType()).toLowerCase(Locale.ROOT);
            if ((status == 200 || status == 206) && type.startsWith("text/html")) {
                throw new UserError(label + ": " + url + " answered a web page, not the archive (a download quota or a"
                        + " confirmation page); download " + target.getFileName() + " in a browser and put it at "
                        + target + ", then run the fetch again");
            }
            long start = 0;
            Long total = size;
            if (status == 206) {
                Matcher m = CONTENT_RANGE.matcher(String.valueOf(c.getHeaderField("Content-Range")));
                if (!m.matches() || Long.parseLong(m.group(1)) != have) {
                    throw new UserError(label + ": " + url + " answered a range other than the one asked for ("
                            + c.getHeaderField("Content-Range") + "); remove " + part + " and run the fetch again");
                }
                start = have;
                if (!m.group(3).equals("*")) total = checkedTotal(Long.parseLong(m.group(3)));
            } else if (status == 416 && have > 0 && !restarted) {
                // what is here is not a prefix of the archive: start over, once
                c.disconnect();
                Files.delete(part);
                return fetch(true);
            } else if (status != 200) {
                throw new UserError(label + ": " + url + " answered HTTP " + status + (status == 404 || status == 410
                        ? " (not found)" : "") + "; nothing was laid out");
            } else if (c.getContentLengthLong() >= 0) {
                total = checkedTotal(c.getContentLengthLong());
            }
            if (total != null) checkSpace(total - start);
            // start < have: the server ignored the range, and the part file is written again from the first byte
            long got = copy(c, start, total);
            long length = c.getContentLengthLong();
            if (length >= 0 && got < length) throw brokeOff(start + got, total, "the connection closed early");
            return finish(start + got, start > 0);
        } finally {
            c.disconnect();
        }
    }

    private Long checkedTotal(long total) throws IOException {
        if (size != null && total != size) {
            Files.deleteIfExists(part);
            throw new UserError(label + ": " + url + " serves " + total + " bytes, expected " + size
                    + " (another release of the archive?); nothing was kept");
        }
        return total;
    }

    private void checkSpace(long bytes) throws IOException {
        long free = Files.getFileStore(target.getParent()).getUsableSpace();
        if (free < bytes) {
            throw new UserError(label + ": not enough free space in " + target.getParent() + " for the download ("
                    + megabytes(bytes) + " needed, " + megabytes(free) + " free); free some, or move the cache with"
                    + " LADDER_CACHE_DIR");
        }
    }

    private long copy(HttpURLConnection c, long start, Long total) throws IOException {
        long got = 0;
        ProgressBar bar = new ProgressBarBuilder().setTaskName(label).setInitialMax(total == null ? -1 : total)
                .setStyle(ProgressBarStyle.ASCII).setUnit(" MiB", 1 << 20).continuousUpdate()
                .setConsumer(new ConsoleProgressBarConsumer(System.err)).build();
        try (bar; InputStream in = c.getInputStream();
             OutputStream out = Files.newOutputStream(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                     start > 0 ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING)) {
            bar.stepTo(start);
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) {
                try {
                    out.write(buf, 0, n);
                } catch (IOException e) {
                    throw new UserError(label + ": cannot write " + part + " (" + FetchRecipes.firstLine(e) + "); the "
                            + (start + got) + " bytes there are kept: free some space and run the fetch again to resume");
                }
                got += n;
                bar.stepBy(n);
            }
        } catch (IOException e) {
            throw brokeOff(start + got, total, FetchRecipes.firstLine(e));
        }
        return got;
    }

    private UserError brokeOff(long have, Long total, String why) {
        return new UserError(label + ": the download from " + url + " broke off after " + have
                + (total == null ? "" : " of " + total) + " bytes (" + why + "); they are kept in " + part
                + ": run the fetch again to resume");
    }

    /** Checks the complete part file and renames it to the target. */
    private Verified finish(long have, boolean resumed) throws IOException {
        String actual = sha256Of(part);
        String problem = null;
        if (size != null && have != size) problem = have + " bytes, expected " + size;
        else if (sha256 != null && !sha256.equals(actual)) problem = "SHA-256 " + actual + ", expected " + sha256;
        if (problem != null) {
            Files.deleteIfExists(part);
            throw new UserError(label + ": the archive from " + url + " has " + problem + "; it was removed and nothing"
                    + " was laid out");
        }
        Files.move(part, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return new Verified(target, have, actual, resumed);
    }

    /** Checks an archive already at the target (put there by hand, or verified by a fetch that stopped after). */
    static Verified checkPlaced(String label, Path archive, Long size, String sha256) {
        try {
            long have = Files.size(archive);
            String actual = sha256Of(archive);
            if (size != null && have != size || sha256 != null && !sha256.equals(actual)) {
                throw new UserError(label + ": " + archive + " is not the expected archive (" + have + " bytes, SHA-256 "
                        + actual + "; expected " + (size == null ? "" : size + " bytes, ") + "SHA-256 " + sha256
                        + "); remove it and run the fetch again");
            }
            return new Verified(archive, have, actual, false);
        } catch (IOException e) {
            throw new UserError(label + ": cannot read " + archive + ": " + FetchRecipes.firstLine(e), e);
        }
    }

    private HttpURLConnection open(long from) {
        try {
            HttpURLConnection c = (HttpURLConnection) url.toURL().openConnection();
            c.setInstanceFollowRedirects(true);
            c.setConnectTimeout(CONNECT_TIMEOUT_MS);
            c.setReadTimeout(READ_TIMEOUT_MS);
            c.setRequestProperty("User-Agent", "ladder (java " + System.getProperty("java.version") + ")");
            c.setRequestProperty("Accept-Encoding", "identity");
            if (from > 0) c.setRequestProperty("Range", "bytes=" + from + "-");
            c.getResponseCode();
            return c;
        } catch (IOException | IllegalArgumentException e) {
            throw new UserError(label + ": cannot reach " + url + " (" + FetchRecipes.firstLine(e) + "); offline, put "
                    + target.getFileName() + " at " + target + " by hand and run the fetch again");
        }
    }

    static String sha256Of(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) sha.update(buf, 0, n);
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static String megabytes(long bytes) {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
    }
}
