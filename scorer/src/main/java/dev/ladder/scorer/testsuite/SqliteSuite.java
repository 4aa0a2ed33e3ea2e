package dev.ladder.scorer.testsuite;

import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A test suite of a SQLite database in the layout of the official test-suite evaluator's database folder
 * ({@code DIR/<db_id>/*.sqlite}): every SQLite file in the database's folder is one database of the suite, the
 * original's copy {@code <db_id>.sqlite} included, exactly as the official evaluator runs them. Suites distilled by
 * Ladder live on the embedded MariaDB ({@link TestSuite}); these are the published ones for Spider-style benchmarks.
 *
 * @param database    the database id the suite is for
 * @param files       its SQLite files, sorted by name
 * @param fingerprint SHA-256 over each file's name and content SHA-256: two folders with one fingerprint hold the same
 *                    databases, so their TS numbers compare
 * @param variants    files whose contents are not the original's copy ({@code <db_id>.sqlite}): the databases that can
 *                    tell a prediction apart that the original cannot (every file when there is no such copy)
 */
public record SqliteSuite(String database, List<Path> files, String fingerprint, int variants) {

    public SqliteSuite {
        files = List.copyOf(files);
    }

    /** Whether {@code dir} is a folder of SQLite suites rather than a suite Ladder built (which has a manifest). */
    public static boolean isLayout(Path dir) {
        return Files.isDirectory(dir) && !Files.isRegularFile(dir.resolve(TestSuite.MANIFEST));
    }

    /**
     * The suite of {@code dbId} in {@code dir} ({@code dir/<dbId>/*.sqlite}), or empty when there is no such folder. A
     * folder without a SQLite file, or with only copies of the original, is returned: {@link #unusable} says why.
     */
    public static Optional<SqliteSuite> find(Path dir, String dbId) {
        Path folder = dir.resolve(dbId);
        if (dbId.contains("/") || dbId.contains("\\") || dbId.equals("..") || !Files.isDirectory(folder)) {
            return Optional.empty();
        }
        List<Path> files;
        try (Stream<Path> list = Files.list(folder)) {
            files = list.filter(f -> f.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".sqlite")
                    && Files.isRegularFile(f)).sorted().toList();
        } catch (IOException e) {
            throw new UserError("cannot read test-suite folder " + folder + ": " + e.getMessage(), e);
        }
        Map<Path, String> hashes = new LinkedHashMap<>();
        for (Path f : files) hashes.put(f, contentHash(f));
        String original = hashes.get(folder.resolve(dbId + ".sqlite"));
        int variants = (int) hashes.values().stream().filter(h -> !h.equals(original)).count();
        return Optional.of(new SqliteSuite(dbId, files, fingerprint(hashes), variants));
    }

    /**
     * Why this suite cannot judge TS, as one line, or empty when it can: TS needs a database beyond the original, and a
     * copy of the original only repeats its verdicts, so a folder with no SQLite file or with copies alone is no suite.
     */
    public Optional<String> unusable(Path dir) {
        Path folder = dir.resolve(database);
        if (files.isEmpty()) {
            return Optional.of("the test-suite folder " + folder + " holds no SQLite file, so TS would be EX (expected "
                    + folder + "/*.sqlite, the layout of the official test-suite databases)");
        }
        if (variants == 0) {
            return Optional.of("the test-suite folder " + folder + " holds only copies of the original (" + database
                    + ".sqlite), so TS would be EX (the official suites add distilled databases beside it)");
        }
        return Optional.empty();
    }

    /** Opens every database of the suite, read-only; on a failure closes what it opened and names the file. */
    public List<Database> open() {
        List<Database> out = new ArrayList<>();
        try {
            for (Path f : files) out.add(Databases.sqlite(f));
            return out;
        } catch (RuntimeException e) {
            out.forEach(Database::close);
            throw e;
        }
    }

    /** Why a folder of SQLite suites has none for {@code dbId}: one line. */
    public static String absent(Path dir, String dbId) {
        return "no test suite for " + dbId + " in " + dir + " (expected " + dir.resolve(dbId)
                + "/*.sqlite, the layout of the official test-suite databases)";
    }

    private static String fingerprint(Map<Path, String> hashes) {
        MessageDigest all = sha256();
        hashes.forEach((f, hash) -> all.update((f.getFileName() + "\t" + hash + "\n").getBytes(StandardCharsets.UTF_8)));
        return HexFormat.of().formatHex(all.digest());
    }

    private static String contentHash(Path f) {
        MessageDigest one = sha256();
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(f)) {
            for (int n; (n = in.read(buffer)) > 0; ) one.update(buffer, 0, n);
        } catch (IOException e) {
            throw new UserError("cannot read test-suite database " + f + ": " + e.getMessage(), e);
        }
        return HexFormat.of().formatHex(one.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
