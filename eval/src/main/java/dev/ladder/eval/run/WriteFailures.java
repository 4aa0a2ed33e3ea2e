package dev.ladder.eval.run;

import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileStore;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * Writes that fail for the disk's or the folder's sake: a full disk, a read-only file system, a folder without write
 * permission, a file where a folder should be. These are the user's to fix, so they become one line naming the path
 * (and the free space, for a full disk), exit 2, where they used to read as an internal error. Any other failure is
 * left to the caller: a bug, or a fault of the machine.
 */
public final class WriteFailures {

    /** Below this much free space an SQLite I/O error is read as a full disk (a delayed ENOSPC at fsync). */
    private static final long NEARLY_FULL = 1_000_000;

    private WriteFailures() {}

    /** {@code cannot write PATH: CAUSE}, when {@code e} (or an exception under it) is one of these failures. */
    public static Optional<UserError> userError(Path path, Throwable e) {
        return cause(path, e).map(c -> new UserError("cannot write " + path + ": " + c, e));
    }

    /** {@link #userError}, or else {@code otherwise} (an I/O fault this class does not judge). */
    public static RuntimeException orElse(Path path, Throwable e, RuntimeException otherwise) {
        return userError(path, e).map(RuntimeException.class::cast).orElse(otherwise);
    }

    /** What went wrong with writing {@code path}, in words and with the remedy, or empty when it is not the disk's. */
    static Optional<String> cause(Path path, Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            Optional<String> c = t instanceof SQLiteException s ? sqlite(path, s.getResultCode())
                    : t instanceof IOException io ? io(path, io) : Optional.empty();
            if (c.isPresent()) return c;
            if (t.getCause() == t) break;
        }
        return Optional.empty();
    }

    private static Optional<String> sqlite(Path path, SQLiteErrorCode code) {
        if (code == SQLiteErrorCode.SQLITE_READONLY_DBMOVED || code == SQLiteErrorCode.SQLITE_READONLY_ROLLBACK) {
            return Optional.empty(); // not about permissions: a file moved while open, a hot journal (SqliteFiles)
        }
        SQLiteErrorCode base = SQLiteErrorCode.getErrorCode(code.code & 0xff);
        return switch (base) {
            case SQLITE_FULL -> Optional.of(diskFull(path));
            // only when the path is indeed not writable: a write through a connection opened read-only is a bug
            case SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN ->
                    writable(path) ? Optional.empty() : Optional.of(notWritable(path));
            case SQLITE_IOERR -> usable(path) < NEARLY_FULL ? Optional.of(diskFull(path)) : Optional.empty();
            default -> Optional.empty();
        };
    }

    private static Optional<String> io(Path path, IOException e) {
        String reason = e instanceof FileSystemException f && f.getReason() != null ? f.getReason() : e.getMessage();
        String lower = reason == null ? "" : reason.toLowerCase(Locale.ROOT);
        if (lower.contains("no space left on device")) return Optional.of(diskFull(path));
        if (lower.contains("disk quota exceeded")) return Optional.of("disk quota exceeded (" + free(path) + " on the disk)");
        if (lower.contains("read-only file system") || e instanceof AccessDeniedException
                || lower.contains("permission denied")) {
            return Optional.of(notWritable(path));
        }
        if (lower.contains("not a directory") || e instanceof NotDirectoryException
                || e instanceof FileAlreadyExistsException) {
            return fileInTheWay(path).map(f -> f + " is a file where a folder should be: move it, or write elsewhere");
        }
        return Optional.empty();
    }

    /** The regular file above {@code path} that stands where a folder is needed. */
    private static Optional<Path> fileInTheWay(Path path) {
        for (Path p = path.toAbsolutePath().normalize().getParent(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p)) return Optional.of(p);
        }
        return Optional.empty();
    }

    private static String diskFull(Path path) {
        return "disk full (" + free(path) + "); free some space and run the command again (what was written before "
                + "is kept whole)";
    }

    private static String notWritable(Path path) {
        Path folder = folderOf(path);
        return readOnlyStore(folder) ? "the file system of " + folder + " is read-only: write elsewhere"
                : "no permission to write in " + folder + ": write elsewhere, or change its permissions";
    }

    /** The nearest existing folder at or above {@code path} (the path itself when it is one). */
    static Path folderOf(Path path) {
        Path p = path.toAbsolutePath().normalize();
        if (!Files.isDirectory(p)) p = p.getParent();
        while (p != null && !Files.isDirectory(p)) p = p.getParent();
        return p == null ? path.toAbsolutePath().getRoot() : p;
    }

    /** Whether this process may write {@code path} (when it exists) and create files in its folder. */
    private static boolean writable(Path path) {
        Path folder = folderOf(path);
        return (!Files.exists(path) || Files.isWritable(path)) && Files.isWritable(folder) && !readOnlyStore(folder);
    }

    private static boolean readOnlyStore(Path folder) {
        try {
            return Files.getFileStore(folder).isReadOnly();
        } catch (IOException e) {
            return false;
        }
    }

    /** Bytes free for this user on the disk of {@code path}; {@code Long.MAX_VALUE} when unknown. */
    static long usable(Path path) {
        try {
            FileStore store = Files.getFileStore(folderOf(path));
            return store.getUsableSpace();
        } catch (IOException e) {
            return Long.MAX_VALUE;
        }
    }

    /** "12 KB free", "3 MB free", "41.5 GB free" (decimal units), or "free space unknown". */
    static String free(Path path) {
        long bytes = usable(path);
        if (bytes == Long.MAX_VALUE) return "free space unknown";
        if (bytes < 1_000_000) return bytes / 1000 + " KB free";
        if (bytes < 1_000_000_000) return bytes / 1_000_000 + " MB free";
        return String.format(Locale.ROOT, "%.1f GB free", bytes / 1e9);
    }
}
