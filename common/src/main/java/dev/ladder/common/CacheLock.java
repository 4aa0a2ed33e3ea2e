package dev.ladder.common;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.FileLockInterruptionException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Work on a shared cache directory that must be done once, not raced (a model pull, a test-suite build): the processes
 * sharing the directory (the shards of an array on one node, or on a shared filesystem) take the lock in turn, and a
 * process that waits is told so once. The kernel releases the lock of a process that dies, so a killed holder never
 * leaves the others waiting. Threads of one JVM queue on an in-JVM lock first: a file lock cannot be held twice by one
 * process.
 */
public final class CacheLock implements AutoCloseable {

    private static final Map<Path, ReentrantLock> IN_JVM = new ConcurrentHashMap<>();

    private final FileChannel channel;
    private final FileLock lock;
    private final ReentrantLock inJvm;
    private final boolean waited;
    private boolean closed;

    private CacheLock(FileChannel channel, FileLock lock, ReentrantLock inJvm, boolean waited) {
        this.channel = channel;
        this.lock = lock;
        this.inJvm = inJvm;
        this.waited = waited;
    }

    /**
     * Takes the lock on {@code file} (created with its folder if missing), waiting for its holder as long as it holds
     * it; {@code onWait} runs once, before waiting, when another thread or process holds it.
     */
    public static CacheLock acquire(Path file, Runnable onWait) throws IOException {
        Path key = file.toAbsolutePath().normalize();
        ReentrantLock inJvm = IN_JVM.computeIfAbsent(key, k -> new ReentrantLock(true));
        boolean waited = false;
        if (!inJvm.tryLock()) {
            onWait.run();
            waited = true;
            try {
                inJvm.lockInterruptibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for " + key);
            }
        }
        FileChannel channel = null;
        try {
            Files.createDirectories(key.getParent());
            channel = FileChannel.open(key, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                if (!waited) onWait.run();
                waited = true;
                try {
                    lock = channel.lock();
                } catch (FileLockInterruptionException | ClosedByInterruptException e) {
                    throw new InterruptedIOException("interrupted while waiting for " + key);
                }
            }
            return new CacheLock(channel, lock, inJvm, waited);
        } catch (IOException | RuntimeException e) {
            if (channel != null) channel.close();
            inJvm.unlock();
            throw e;
        }
    }

    /** Whether taking it meant waiting for another holder (whose work may now be done). */
    public boolean waited() {
        return waited;
    }

    @Override
    public synchronized void close() throws IOException {
        if (closed) return;
        closed = true;
        try (channel) {
            lock.release();
        } finally {
            inJvm.unlock();
        }
    }
}
