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
import java.util.List;
import java.util.Locale;
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
 */
public record SqliteSuite(String database, List<Path> files, String fingerprint) {

    public SqliteSuite {
        files = List.copyOf(files);
    }

    /** Whether {@code dir} is a folder of SQLite suites rather than a suite Ladder built (which has a manifest). */
    public static boolean isLayout(Path dir) {
        return Files.isDirectory(dir) && !Files.isRegularFile(dir.resolve(TestSuite.MANIFEST));
    }

    /** The suite of {@code dbId} in {@code dir} ({@code dir/<dbId>/*.sqlite}), or empty when it has no SQLite file there. */
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
        if (files.isEmpty()) return Optional.empty();
        return Optional.of(new SqliteSuite(dbId, files, fingerprint(files)));
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

    private static String fingerprint(List<Path> files) {
        MessageDigest all = sha256();
        byte[] buffer = new byte[1 << 16];
        for (Path f : files) {
            MessageDigest one = sha256();
            try (InputStream in = Files.newInputStream(f)) {
                for (int n; (n = in.read(buffer)) > 0; ) one.update(buffer, 0, n);
            } catch (IOException e) {
                throw new UserError("cannot read test-suite database " + f + ": " + e.getMessage(), e);
            }
            all.update((f.getFileName() + "\t" + HexFormat.of().formatHex(one.digest()) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        return HexFormat.of().formatHex(all.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
