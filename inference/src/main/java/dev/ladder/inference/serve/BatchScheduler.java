package dev.ladder.inference.serve;

import dev.ladder.inference.Completion;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;

import java.io.PrintWriter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Merges concurrent requests into the engine's batches. One thread owns the model (a {@link LanguageModel} is not
 * thread-safe; the scheduler's own, or the caller's through {@link #runLoop()}): it takes every request queued, oldest
 * first, up to {@code maxBatchRows} candidate rows (a request's {@code n} rows stay together; the first request that
 * does not fit waits for the next batch, so none is overtaken), calls {@code generate} once for them, and completes
 * each request's future. Requests that arrive while a batch
 * decodes join the next one: batching is per call, not per decode step (no continuous batching). With a batch wait,
 * a batch that would start below {@code maxBatchRows} rows first waits up to that long (counted from when the engine
 * became free, or from its oldest request's arrival if later) for more requests, or until the rows are full.
 *
 * <p>What a request gets does not depend on its neighbours beyond what the engine guarantees (the djl engine: a
 * request's tokens do not depend on the other rows of its batch; candidate {@code i} of seed {@code s} samples with
 * {@code s + i}). When a batch fails, each of its requests runs again alone, so only the request the engine refuses
 * fails.
 */
final class BatchScheduler implements AutoCloseable {

    /**
     * Engine calls so far and what they held.
     *
     * @param batches       engine calls ({@code generate})
     * @param requests      requests in them
     * @param rows          candidate rows in them
     * @param largestBatch  most requests in one call
     * @param failedBatches calls that threw
     */
    record Stats(long batches, long requests, long rows, int largestBatch, long failedBatches) {}

    /** A request waiting for, or in, a batch. */
    static final class Job {
        final GenerationRequest request;
        final CompletableFuture<Completion> result = new CompletableFuture<>();
        final long queuedAt = System.nanoTime();

        Job(GenerationRequest request) {
            this.request = Objects.requireNonNull(request, "request");
        }
    }

    private final LanguageModel model;
    private final int maxBatchRows;
    private final int maxQueued;
    private final long batchWaitNanos;
    private final PrintWriter log;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<Job> queue = new ArrayDeque<>();
    private final CountDownLatch loopDone = new CountDownLatch(1);
    private boolean loopStarted;
    private boolean closing;
    private int queuedRows;
    private int running;
    private long freeSince = System.nanoTime();
    private long batches;
    private long requests;
    private long rows;
    private int largest;
    private long failed;

    /**
     * @param batchWaitMillis how long a batch may wait for more requests after its oldest one arrived, while it has
     *                        fewer than {@code maxBatchRows} rows (0: it starts with whatever is queued)
     * @param log             where engine failures are reported (one line each), or null
     * @param ownThread       start a thread of its own for the engine; else the caller runs {@link #runLoop()}
     */
    BatchScheduler(LanguageModel model, int maxBatchRows, int maxQueued, int batchWaitMillis, PrintWriter log,
                   boolean ownThread) {
        this.model = Objects.requireNonNull(model, "model");
        if (maxBatchRows < 1 || maxQueued < 1) throw new IllegalArgumentException("maxBatchRows and maxQueued must be >= 1");
        if (batchWaitMillis < 0) throw new IllegalArgumentException("batchWaitMillis must be >= 0");
        this.maxBatchRows = maxBatchRows;
        this.maxQueued = maxQueued;
        this.batchWaitNanos = batchWaitMillis * 1_000_000L;
        this.log = log;
        if (ownThread) {
            Thread thread = new Thread(this::runLoop, "serve-scheduler");
            thread.setDaemon(true);
            thread.start();
        }
    }

    /**
     * Runs the engine on the calling thread until {@link #close()}: takes batches, runs them, completes their futures.
     * Returns at once when closed before it started.
     *
     * @throws IllegalStateException when the loop already runs (or ran)
     */
    void runLoop() {
        lock.lock();
        try {
            if (loopStarted) throw new IllegalStateException("the engine loop already runs");
            loopStarted = true;
        } finally {
            lock.unlock();
        }
        try {
            loop();
        } finally {
            loopDone.countDown();
        }
    }

    /**
     * Queues a request.
     *
     * @throws ApiException 503 when the queue is full (with {@code Retry-After}) or the scheduler is closing
     */
    Job submit(GenerationRequest request) {
        if (request.n() > maxBatchRows) throw new IllegalArgumentException("n " + request.n() + " > maxBatchRows " + maxBatchRows);
        Job job = new Job(request);
        lock.lock();
        try {
            if (closing) throw ApiException.shuttingDown();
            if (queue.size() >= maxQueued) throw ApiException.busy(queue.size());
            queue.addLast(job);
            queuedRows += request.n();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        return job;
    }

    /** Requests waiting for a batch (not the running one). */
    int queued() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    /** Requests in the batch the engine is running now (0 when idle). */
    int running() {
        lock.lock();
        try {
            return running;
        } finally {
            lock.unlock();
        }
    }

    Stats stats() {
        lock.lock();
        try {
            return new Stats(batches, requests, rows, largest, failed);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops: every request still queued fails at once with 503 (shutting down), the running batch finishes and its
     * requests are answered, then the scheduler thread ends. Idempotent; later submits fail with 503.
     */
    @Override
    public void close() {
        List<Job> dropped;
        lock.lock();
        try {
            closing = true;
            dropped = new ArrayList<>(queue);
            queue.clear();
            queuedRows = 0;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        for (Job j : dropped) j.result.completeExceptionally(ApiException.shuttingDown());
        boolean started;
        lock.lock();
        try {
            started = loopStarted;   // a loop that never started never will: it would return at once
        } finally {
            lock.unlock();
        }
        boolean interrupted = false;
        while (started) {
            try {
                loopDone.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;   // the running batch must still be answered; wait, then restore the flag
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    private void loop() {
        while (true) {
            List<Job> batch = new ArrayList<>();
            lock.lock();
            try {
                while (queue.isEmpty() && !closing) changed.awaitUninterruptibly();
                // a batch that is not full may wait briefly for more, counted from when the engine became free or the
                // oldest request came, whichever is later: the clients a batch has just answered send their next
                // requests a moment later, and without the wait they would always form a batch of their own
                long from = queue.isEmpty() || queue.peekFirst().queuedAt - freeSince < 0 ? freeSince
                        : queue.peekFirst().queuedAt;
                long deadline = from + batchWaitNanos;
                while (batchWaitNanos > 0 && !closing && queuedRows < maxBatchRows && deadline - System.nanoTime() > 0) {
                    try {
                        changed.awaitNanos(deadline - System.nanoTime());
                    } catch (InterruptedException e) {
                        // nobody interrupts this thread; closing is signalled through the condition
                    }
                }
                if (closing) return;
                int batchRows = 0;
                while (!queue.isEmpty() && batchRows + queue.peekFirst().request.n() <= maxBatchRows) {
                    Job j = queue.pollFirst();
                    batchRows += j.request.n();
                    queuedRows -= j.request.n();
                    batch.add(j);
                }
                running = batch.size();
            } finally {
                lock.unlock();
            }
            run(batch, true);
            lock.lock();
            try {
                running = 0;
                freeSince = System.nanoTime();
            } finally {
                lock.unlock();
            }
        }
    }

    /** One engine call for {@code batch}; on failure each request again alone when {@code isolate}. */
    private void run(List<Job> batch, boolean isolate) {
        List<GenerationRequest> reqs = batch.stream().map(j -> j.request).toList();
        int batchRows = reqs.stream().mapToInt(GenerationRequest::n).sum();
        List<Completion> out;
        try {
            out = model.generate(reqs);
            if (out == null || out.size() != reqs.size()) {
                throw new IllegalStateException("the engine answered " + (out == null ? "null" : out.size() + " completions")
                        + " for " + reqs.size() + " requests");
            }
        } catch (Throwable t) {   // also errors such as out-of-memory: the server must answer and stay up
            count(batch.size(), batchRows, true);
            if (isolate && batch.size() > 1) {
                for (Job j : batch) run(List.of(j), false);
                return;
            }
            String message = "the engine failed on this request: " + describe(t);
            if (log != null) {
                log.println("serve: " + message);
                log.flush();
            }
            for (Job j : batch) j.result.completeExceptionally(ApiException.engine(message));
            return;
        }
        count(batch.size(), batchRows, false);
        for (int i = 0; i < batch.size(); i++) batch.get(i).result.complete(out.get(i));
    }

    private void count(int batchRequests, int batchRows, boolean failure) {
        lock.lock();
        try {
            batches++;
            requests += batchRequests;
            rows += batchRows;
            largest = Math.max(largest, batchRequests);
            if (failure) failed++;
        } finally {
            lock.unlock();
        }
    }

    private static String describe(Throwable t) {
        String m = t.getMessage() == null ? "" : t.getMessage().strip().lines().findFirst().orElse("");
        return t.getClass().getSimpleName() + (m.isEmpty() ? "" : ": " + m);
    }
}
