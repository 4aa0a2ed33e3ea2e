package dev.ladder.common;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Recursive delete, the one copy every module uses (a staging directory, a half-written install, a stale report).
 * Links are removed, never followed.
 */
public final class FileTrees {

    private FileTrees() {}

    /**
     * Deletes {@code root} and everything under it; nothing when it does not exist.
     *
     * @throws IOException on the first entry that cannot be read or deleted (what was deleted before stays deleted)
     */
    public static void delete(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) return;
        for (Path p : deepestFirst(root)) Files.deleteIfExists(p);
    }

    /**
     * Deletes what it can of {@code root} and everything under it, and says nothing of the rest: for clean-up after a
     * failure, where the failure is what the user needs to see and a leftover temporary directory is harmless.
     */
    public static void deleteQuietly(Path root) {
        List<Path> paths;
        try {
            if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) return;
            paths = deepestFirst(root);
        } catch (IOException e) {
            return;
        }
        for (Path p : paths) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                // left behind, and so is its directory: harmless after the failure that matters
            }
        }
    }

    /** Every entry under {@code root} and {@code root} itself, children before their directory. */
    private static List<Path> deepestFirst(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.sorted(Comparator.reverseOrder()).toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
