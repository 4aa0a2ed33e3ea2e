package dev.ladder.sql.db;

import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLockInterruptionException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock that guards starting and stopping the {@link EmbeddedMariaDb} of one cache directory (not its use), held
 * across processes (a file lock) and across the threads of one JVM (a fair lock in front of it: a file lock cannot be
 * taken twice by one process).
 */
final class ServerLock implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ServerLock.class);

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** How long a server that lives is given to answer before a lock timeout names it as the cause. */
    private static final Duration SILENCE = Duration.ofSeconds(5);

    private final FileChannel channel;
    private final ReentrantLock inJvm;

    private ServerLock(FileChannel channel, ReentrantLock inJvm) {
        this.channel = channel;
        this.inJvm = inJvm;
    }

    /** Closes the lock file (which releases the lock) and lets this JVM's next waiter in. */
    @Override
    public void close() throws IOException {
        try {
            channel.close();
        } finally {
            inJvm.unlock();
        }
    }

    /** Threads of this JVM queue here first (fairly): a file lock cannot be taken twice by one process. */
    private static final Map<Path, ReentrantLock> IN_JVM_LOCKS = new ConcurrentHashMap<>();

    private static final ScheduledExecutorService LOCK_ALARMS =
            Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "ladder-lock-alarm");
                t.setDaemon(true);
                return t;
            });

    /** The lock of {@code lockFile}, waiting at most a minute for it. */
    static ServerLock acquire(Path lockFile) throws IOException {
        return acquire(lockFile, WAIT);
    }

    /**
     * The lock that guards starting and stopping the server (not its use). A waiter blocks on the file lock, so the
     * kernel hands it over when it is released (polling would let a quicker process take it again and again); an
     * alarm ends the wait at the deadline.
     */
    static ServerLock acquire(Path lockFile, Duration wait) throws IOException {
        long deadline = System.nanoTime() + wait.toNanos();
        ReentrantLock inJvm =
                IN_JVM_LOCKS.computeIfAbsent(lockFile.toAbsolutePath().normalize(), k -> new ReentrantLock(true));
        try {
            if (!inJvm.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS)) throw lockTimeout(lockFile, wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UserError("interrupted while waiting for the embedded database lock");
        }
        FileChannel ch = null;
        try {
            ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            if (ch.tryLock() == null) {
                log.warn("waiting for another Ladder process that starts or stops the embedded database ({})",
                        lockFile.getParent());
                Thread waiter = Thread.currentThread();
                AtomicBoolean rang = new AtomicBoolean();
                ScheduledFuture<?> alarm = LOCK_ALARMS.schedule(() -> {
                    rang.set(true);
                    waiter.interrupt();
                }, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                try {
                    ch.lock();
                } catch (FileLockInterruptionException | ClosedByInterruptException e) {
                    alarm.cancel(false);
                    boolean timedOut = rang.get();
                    Thread.interrupted();
                    if (!timedOut) {
                        Thread.currentThread().interrupt();
                        throw new UserError("interrupted while waiting for the embedded database lock");
                    }
                    throw lockTimeout(lockFile, wait);
                } finally {
                    alarm.cancel(false);
                    // an alarm that rang just after the lock was granted must not leave this thread interrupted
                    if (rang.get()) Thread.interrupted();
                }
            }
            return new ServerLock(ch, inJvm);
        } catch (IOException | RuntimeException e) {
            if (ch != null) ch.close();
            inJvm.unlock();
            throw e;
        }
    }

    /**
     * A lock that did not come: usually another process starting or stopping the server, but a server that lives and
     * does not answer keeps a recovering process waiting under the lock too, and is then named as the cause (the
     * machine's failure: exit 1).
     */
    private static RuntimeException lockTimeout(Path lockFile, Duration wait) {
        Optional<String> silent = EmbeddedMariaDb.silentServer(lockFile.getParent(), SILENCE);
        if (silent.isPresent()) {
            return new InfrastructureError(silent.get() + " (waited " + wait.toSeconds() + " s for the lock of another "
                    + "Ladder process that waits for it)", null);
        }
        return new UserError("another Ladder process has been starting or stopping the embedded database under "
                + lockFile.getParent() + " for " + wait.toSeconds() + " s; try again, or set LADDER_CACHE_DIR"
                + " to another folder, or use --url");
    }
}
