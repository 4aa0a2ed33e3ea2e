package dev.ladder.sql.db;

import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Test access to ClassicModels: the configured data directory, else {@code ../shared/data} beside the checkout. */
public final class TestData {

    private static Database classicModels;
    private static Database classicModelsSqlite;
    private static Path classicModelsSqlitePath;

    private TestData() {}

    public static Optional<Path> dataDir() {
        Optional<Path> configured = LadderPaths.dataDir();
        if (configured.isPresent()) return configured;
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path shared = p.resolve("../shared/data").normalize();
            if (Files.isDirectory(shared.resolve("classicmodels"))) return Optional.of(shared);
        }
        return Optional.empty();
    }

    /** ClassicModels on the embedded MariaDB, shared by all tests of the JVM. */
    public static synchronized Database classicModels() {
        if (classicModels == null) {
            classicModels = Databases.open(ClassicModels.NAME, dataDir(), Optional.empty());
        }
        return classicModels;
    }

    /** A SQLite copy of ClassicModels (made once per JVM in a temporary folder), opened read-only. */
    public static synchronized Database classicModelsSqlite() {
        if (classicModelsSqlite == null) {
            try {
                Path dir = Files.createTempDirectory("ladder-sqlite");
                dir.toFile().deleteOnExit();
                Path file = dir.resolve("classicmodels.sqlite");
                SqliteExport.copy(classicModels(), file);
                file.toFile().deleteOnExit();
                classicModelsSqlite = Databases.sqlite(file);
                classicModelsSqlitePath = file;
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return classicModelsSqlite;
    }

    public static synchronized Path classicModelsSqlitePath() {
        classicModelsSqlite();
        return classicModelsSqlitePath;
    }

    /**
     * A fingerprint of every row of every table (tables in name order, rows in primary-key order),
     * read through guarded execution. Equal fingerprints before and after mean nothing changed.
     */
    public static String checksum(Database db) {
        try {
            java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
            Schema schema = db.schema();
            for (Table t : schema.tables()) {
                md.update(t.name().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                String order = t.primaryKey().isEmpty() ? "1" : String.join(", ", t.primaryKey());
                Execution ex = db.execute("SELECT * FROM " + t.name() + " ORDER BY " + order,
                        new ExecutionLimits(java.time.Duration.ofSeconds(30), 1_000_000));
                if (!(ex instanceof Execution.Success ok)) throw new AssertionError("cannot read " + t.name() + ": " + ex);
                for (java.util.List<Object> row : ok.result().rows()) {
                    for (Object v : row) md.update((Values.render(v) + "\u0001").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    md.update((byte) '\n');
                }
            }
            return java.util.HexFormat.of().formatHex(md.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
