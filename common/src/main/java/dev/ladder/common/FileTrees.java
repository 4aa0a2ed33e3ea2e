package dev.ladder.common;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Recursive delete, the one copy every module uses (a staging directory, a half-written install, a stale report).
 * Links are removed, never followed.
 */
public final class FileTrees {

    private static final Duration REUSE_MARGIN = Duration.ofSeconds(10);

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

    /**
     * Deletes the staging folders {@code parent/<prefix><pid>-...} that killed processes left behind: a folder whose
     * process is gone, or whose pid now names a process started after the folder last changed (the pid was reused).
     * A live process's folder, and a name this rule cannot read, are left alone.
     *
     * @return the folders deleted
     * @throws IOException when {@code parent} cannot be listed or a folder not deleted
     */
    public static List<Path> deleteOrphans(Path parent, String prefix) throws IOException {
        if (!Files.isDirectory(parent)) return List.of();
        List<Path> orphans;
        try (Stream<Path> entries = Files.list(parent)) {
            orphans = entries.filter(p -> p.getFileName().toString().startsWith(prefix))
                    .filter(p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))
                    .filter(p -> orphaned(p, p.getFileName().toString().substring(prefix.length())))
                    .toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        for (Path dir : orphans) delete(dir);
        return orphans;
    }

    /** Whether the writer named {@code <pid>-...} of this folder is gone. */
    private static boolean orphaned(Path dir, String pidAndRest) {
        int dash = pidAndRest.indexOf('-');
        long pid;
        try {
            pid = Long.parseLong(dash < 0 ? pidAndRest : pidAndRest.substring(0, dash));
        } catch (NumberFormatException e) {
            return false;
        }
        Optional<ProcessHandle> process = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        if (process.isEmpty()) return true;
        Optional<Instant> started = process.get().info().startInstant();
        try {
            // the folder changed after its writer started; a process started later cannot be that writer (with a
            // margin: a start time is read to the second of the boot time)
            Instant changed = Files.getLastModifiedTime(dir).toInstant();
            return started.isPresent() && started.get().isAfter(changed.plus(REUSE_MARGIN));
        } catch (IOException e) {
            return false;
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
