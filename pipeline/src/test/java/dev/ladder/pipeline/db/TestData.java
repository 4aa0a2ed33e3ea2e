package dev.ladder.pipeline.db;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Test access to ClassicModels: the configured data directory, else {@code ../shared/data} beside the checkout. */
public final class TestData {

    private static Database classicModels;

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
}
