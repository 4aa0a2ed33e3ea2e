package dev.ladder.sql.db;

import dev.ladder.common.StorePaths;
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

    /** One rule for the whole project; it lives in inference, which pipeline depends on. */
    public static Path cacheDir() {
        return StorePaths.cacheDir();
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
