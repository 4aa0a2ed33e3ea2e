package dev.ladder.pipeline.db;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Where Ladder keeps things on the user's machine.
 * <ul>
 *   <li>cache: {@code LADDER_CACHE_DIR}, else {@code $XDG_CACHE_HOME/ladder}, else {@code ~/.cache/ladder}
 *       (embedded database, downloaded data, models)</li>
 *   <li>data directory: {@code --data-dir}, else {@code LADDER_DATA_DIR}: a folder with
 *       {@code classicmodels/mysqlsampledatabase.sql} and the like, read before downloading</li>
 * </ul>
 * System properties {@code ladder.cache.dir} and {@code ladder.data.dir} override the environment
 * (tests use them).
 */
public final class LadderPaths {

    private LadderPaths() {}

    public static Path cacheDir() {
        String prop = System.getProperty("ladder.cache.dir");
        if (prop != null && !prop.isBlank()) return Path.of(prop).toAbsolutePath();
        String env = System.getenv("LADDER_CACHE_DIR");
        if (env != null && !env.isBlank()) return Path.of(env).toAbsolutePath();
        String xdg = System.getenv("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isBlank()) return Path.of(xdg, "ladder").toAbsolutePath();
        return Path.of(System.getProperty("user.home"), ".cache", "ladder");
    }

    /** The configured data directory, if any. */
    public static Optional<Path> dataDir() {
        String prop = System.getProperty("ladder.data.dir");
        if (prop != null && !prop.isBlank()) return Optional.of(Path.of(prop).toAbsolutePath());
        String env = System.getenv("LADDER_DATA_DIR");
        if (env != null && !env.isBlank()) return Optional.of(Path.of(env).toAbsolutePath());
        return Optional.empty();
    }
}
