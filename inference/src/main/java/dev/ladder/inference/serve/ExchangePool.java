package dev.ladder.inference.serve;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The executor the JDK's HTTP server runs each exchange on ({@code ladder serve}'s and {@code ladder view}'s), with two bounds the JDK server lacks (JDK 17 reads a
 * request's head on this executor's thread, from a blocking channel, with no timeout unless JVM-wide properties say
 * otherwise):
 *
 * <ul>
 *   <li>at most {@code maxExchanges} run at once; the JDK closes the connection of one this executor refuses;</li>
 *   <li>each has {@code readTimeoutMillis} from when its first bytes arrived to {@link #requestRead()}: past it, its
 *       thread is interrupted, which closes the blocking channel it reads (an {@code InterruptibleChannel}) and frees
 *       the thread.</li>
 * </ul>
 */
public final class ExchangePool implements Executor {

    private static final ThreadLocal<Deadline> CURRENT = new ThreadLocal<>();

    private final ThreadPoolExecutor threads;
    private final ScheduledThreadPoolExecutor watchdog;
    private final Semaphore slots;
    private final AtomicInteger running = new AtomicInteger();
    private final long readTimeoutMillis;

    public ExchangePool(int maxExchanges, long readTimeoutMillis) {
        this.readTimeoutMillis = readTimeoutMillis;
        this.slots = new Semaphore(maxExchanges);
        AtomicInteger n = new AtomicInteger();
        // unbounded here: the semaphore bounds the exchanges, so a thread still finishing its last one never causes a
        // refusal
        this.threads = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "serve-exchange-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.watchdog = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "serve-read-timeout");
            t.setDaemon(true);
            return t;
        });
        watchdog.setRemoveOnCancelPolicy(true);
    }

    @Override
    public void execute(Runnable exchange) {
        if (!slots.tryAcquire()) throw new RejectedExecutionException("too many connections");
        try {
            threads.execute(() -> run(exchange));
        } catch (RejectedExecutionException e) {
            slots.release();
            throw e;
        }
    }

    private void run(Runnable exchange) {
        running.incrementAndGet();
        Deadline deadline = new Deadline(Thread.currentThread());
        CURRENT.set(deadline);
        ScheduledFuture<?> timer = watchdog.schedule(deadline::expire, readTimeoutMillis, TimeUnit.MILLISECONDS);
        try {
            exchange.run();
        } finally {
            timer.cancel(false);
            deadline.finish();
            Thread.interrupted();   // a deadline that fired late must not reach the thread's next exchange
            CURRENT.remove();
            running.decrementAndGet();
            slots.release();
        }
    }

    /**
     * Marks the current exchange's request as read: the rest (validating, queueing, answering) has no deadline.
     *
     * @return false when the deadline already fired (the connection is closed or about to be)
     */
    public static boolean requestRead() {
        Deadline d = CURRENT.get();
        return d == null || d.disarm();
    }

    /** Exchanges running now (being read, or in their handler). */
    int running() {
        return running.get();
    }

    public void shutdown() {
        watchdog.shutdownNow();
        threads.shutdown();
    }

    private static final class Deadline {
        private static final int ARMED = 0, DISARMED = 1, FIRED = 2, FINISHED = 3;
        private final Thread thread;
        private int state = ARMED;

        Deadline(Thread thread) {
            this.thread = thread;
        }

        // synchronized with finish(), so an interrupt is never delivered once the exchange has ended
        synchronized void expire() {
            if (state != ARMED) return;
            state = FIRED;
            thread.interrupt();
        }

        synchronized boolean disarm() {
            if (state == ARMED) state = DISARMED;
            return state == DISARMED;
        }

        synchronized void finish() {
            state = FINISHED;
        }
    }
}
