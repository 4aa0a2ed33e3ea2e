package dev.ladder.common;

import java.nio.file.Path;

/**
 * Where Ladder's user cache and its model store live (pipeline's {@code LadderPaths} delegates here): system
 * property {@code ladder.cache.dir}, else {@code LADDER_CACHE_DIR}, else {@code $XDG_CACHE_HOME/ladder}, else
 * {@code ~/.cache/ladder}. Models go under {@code <cache>/models/} unless {@code LADDER_MODELS_DIR} (system property
 * {@code ladder.models.dir}) names another folder: on a cluster, the model store on the shared filesystem (pulled once,
 * by a setup job) and the cache on each node's own disk.
 */
public final class StorePaths {

    private StorePaths() {}

    /** The user's Ladder cache directory. */
    public static Path cacheDir() {
        String prop = System.getProperty("ladder.cache.dir");
        if (prop != null && !prop.isBlank()) return Path.of(prop).toAbsolutePath();
        String env = System.getenv("LADDER_CACHE_DIR");
        if (env != null && !env.isBlank()) return Path.of(env).toAbsolutePath();
        String xdg = System.getenv("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isBlank()) return Path.of(xdg, "ladder").toAbsolutePath();
        return Path.of(System.getProperty("user.home"), ".cache", "ladder");
    }

    /** {@code LADDER_MODELS_DIR} (property {@code ladder.models.dir}), else {@code <cache>/models}. */
    public static Path modelsDir() {
        String prop = System.getProperty("ladder.models.dir");
        if (prop != null && !prop.isBlank()) return Path.of(prop).toAbsolutePath();
        String env = System.getenv("LADDER_MODELS_DIR");
        if (env != null && !env.isBlank()) return Path.of(env).toAbsolutePath();
        return cacheDir().resolve("models");
    }
}
