package dev.ladder.eval.run;

import dev.ladder.inference.Completion;
import dev.ladder.inference.EngineEvents;
import dev.ladder.inference.EngineFailureException;
import dev.ladder.inference.EngineUnavailableException;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.PromptFormat;
import dev.ladder.sql.db.InfrastructureError;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;

/**
 * Items decoded together in this process: {@link #run} answers a list of items on {@code width} item threads whose
 * model calls meet here and advance in <b>rounds</b>. A round closes when every item thread is either waiting in
 * {@link #generate} or has no item left (a thread executing SQL or scoring is not waiting yet: the round waits for it);
 * its requests are merged in item order, then request order, into one call of the model below (the generation cache,
 * then the engine), and each caller gets its own completions back. A thread that finishes an item takes the next in
 * item order before any round can close, so which items share a round depends only on how many rounds each item
 * needed, never on timing: the engine sees the same calls, in the same order, run after run.
 *
 * <p>What the engine guarantees still holds per request (the djl and onnx engines: a request's seed draws for its own
 * candidates wherever it sits in a batch; stop strings and token budgets are per request). Calls from threads that are
 * not this run's item threads, and every call while no run is in progress, go straight to the model below.
 *
 * <p>The generation cache answers inside the round: its lookups, the engine call for its misses and its stores happen
 * while every item waits, so whether a request is a hit depends on the rounds before it, not on which thread got there
 * first; each item's thread is credited with its own hits. When a merged call throws, each item's requests run again
 * alone (in item order), so only the item the engine refuses gets the failure; a failure of the engine itself (or of
 * what else the run stands on) goes to every item of the round. The engine's events of a call (retries and the like)
 * go into the traces of the items in it.
 */
final class ItemRounds implements LanguageModel {

    private final LanguageModel inner;
    private final CachedLanguageModel cache;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** The current thread's place in a run, or null on any other thread. */
    private final ThreadLocal<Slot> mine = new ThreadLocal<>();
    /** The run in progress, or null. */
    private Session session;
    private long rounds;
    private long roundRequests;

    /** @param inner the model below: a {@link CachedLanguageModel}, or the engine itself */
    ItemRounds(LanguageModel inner) {
        this.inner = Objects.requireNonNull(inner, "inner");
        this.cache = inner instanceof CachedLanguageModel c ? c : null;
    }

    /** The generation cache below, or null. */
    CachedLanguageModel cache() {
        return cache;
    }

    /** Merged calls made so far (rounds with at least one request), and the requests in them. */
    long rounds() {
        return rounds;
    }

    long roundRequests() {
        return roundRequests;
    }

    // ------------------------------------------------------------------------------------------------ the item loop

    /**
     * Runs {@code work} on every position of {@code todo} (in that order), {@code width} items at a time, in rounds.
     * When {@code work} throws, no further item starts, the items in progress finish, and the failure of the earliest
     * failed item (in {@code todo}'s order) is thrown; an {@link Error} is thrown as it is.
     *
     * @param name names the item threads ({@code NAME-item-N})
     */
    void run(int width, List<Integer> todo, String name, IntConsumer work) {
        if (width < 1) throw new IllegalArgumentException("width must be >= 1, got " + width);
        Session s = new Session(todo);
        lock.lock();
        try {
            if (session != null) throw new IllegalStateException("items of another run are in progress");
            session = s;
        } finally {
            lock.unlock();
        }
        try {
            List<Thread> threads = new ArrayList<>();
            AtomicInteger n = new AtomicInteger();
            for (int i = 0; i < Math.min(width, todo.size()); i++) {
                Slot slot = new Slot();
                s.slots.add(slot);
                Thread t = new Thread(() -> itemLoop(s, slot, work), name + "-item-" + n.incrementAndGet());
                t.setDaemon(true);
                threads.add(t);
            }
            threads.forEach(Thread::start);
            joinAll(threads);
        } finally {
            lock.lock();
            try {
                session = null;
            } finally {
                lock.unlock();
            }
        }
        s.rethrow();
    }

    private static void joinAll(List<Thread> threads) {
        boolean interrupted = false;
        for (Thread t : threads) {
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    // the items in progress finish and are stored: their rows are worth keeping
                    interrupted = true;
                }
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    /** One item thread: takes items in order until none is left or one failed. */
    private void itemLoop(Session s, Slot slot, IntConsumer work) {
        mine.set(slot);
        try {
            while (true) {
                int position = next(s, slot);
                if (position < 0) return;
                try {
                    work.accept(s.todo.get(position));
                } catch (Throwable t) {
                    s.fail(position, t);
                }
            }
        } finally {
            mine.remove();
            leave(s, slot);
        }
    }

    /** The next position for a thread that is running (so no round closes meanwhile), or -1 when it has none. */
    private int next(Session s, Slot slot) {
        lock.lock();
        try {
            if (s.failed() || s.next >= s.todo.size()) return -1;
            slot.position = s.next++;
            return slot.position;
        } finally {
            lock.unlock();
        }
    }

    /** The thread has no item left: a round waiting only for it may close now. */
    private void leave(Session s, Slot slot) {
        List<Slot> round;
        lock.lock();
        try {
            slot.state = State.DONE;
            round = closeIfReady(s);
        } finally {
            lock.unlock();
        }
        if (round != null) execute(round);
    }

    // ----------------------------------------------------------------------------------------------------- rounds

    @Override
    public List<Completion> generate(List<GenerationRequest> requests) {
        Slot slot = mine.get();
        if (slot == null) return inner.generate(requests);
        if (requests.isEmpty()) return List.of();
        Session s;
        List<Slot> round;
        lock.lock();
        try {
            s = session;
            slot.requests = List.copyOf(requests);
            slot.state = State.WAITING;
            round = closeIfReady(s);
        } finally {
            lock.unlock();
        }
        if (round != null) execute(round);
        lock.lock();
        try {
            while (slot.state == State.WAITING || slot.state == State.IN_ROUND) changed.awaitUninterruptibly();
        } finally {
            lock.unlock();
        }
        return slot.collect(cache);
    }

    /**
     * The round's slots in item order, marked as in the round, when none is running and one waits; else null. The
     * caller runs it ({@link #execute}) outside the lock; nothing else can change meanwhile, since every other
     * thread of the run is waiting or gone.
     */
    private List<Slot> closeIfReady(Session s) {
        boolean any = false;
        for (Slot x : s.slots) {
            if (x.state == State.RUNNING || x.state == State.IN_ROUND) return null;
            any |= x.state == State.WAITING;
        }
        if (!any) return null;
        List<Slot> round = new ArrayList<>();
        for (Slot x : s.slots) {
            if (x.state == State.WAITING) {
                x.state = State.IN_ROUND;
                round.add(x);
            }
        }
        round.sort(Comparator.comparingInt(x -> x.position));
        return round;
    }

    /** Runs a round: one merged call, or each item's call alone when the merged one throws; then wakes its threads. */
    private void execute(List<Slot> round) {
        List<String> own = EngineEvents.drain();   // this thread's item's events, kept out of the round's
        try {
            List<GenerationRequest> merged = new ArrayList<>();
            round.forEach(x -> merged.addAll(x.requests));
            try {
                Answered a = call(merged);
                List<String> events = EngineEvents.drain();
                int at = 0;
                for (Slot x : round) {
                    int n = x.requests.size();
                    x.succeed(a.completions().subList(at, at + n), a.hits(at, at + n), a.hitMillis(at, at + n), events);
                    at += n;
                }
            } catch (RuntimeException e) {
                EngineEvents.drain();
                if (round.size() == 1 || standsOn(e)) round.forEach(x -> x.fail(e, List.of()));
                else round.forEach(this::alone);
            } catch (Error e) {
                EngineEvents.drain();
                round.forEach(x -> x.fail(e, List.of()));
            }
            lock.lock();
            try {
                rounds++;
                roundRequests += merged.size();
            } finally {
                lock.unlock();
            }
        } finally {
            EngineEvents.recordAll(own);
            lock.lock();
            try {
                round.forEach(x -> x.state = State.RUNNING);
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Whether a failure is one of what the run stands on (the engine, its server, the database), not of one request:
     * every item of the round gets it, so the run stops as one item alone would stop it, and resumes there. Trying each
     * item alone would make the batches depend on when a device ran out of memory.
     */
    private static boolean standsOn(RuntimeException e) {
        return e instanceof EngineFailureException || e instanceof EngineUnavailableException
                || e instanceof InfrastructureError;
    }

    /** One item's requests after its round's merged call failed: its own result or its own failure. */
    private void alone(Slot x) {
        try {
            Answered a = call(x.requests);
            x.succeed(a.completions(), a.hits(0, a.completions().size()), a.hitMillis(0, a.completions().size()),
                    EngineEvents.drain());
        } catch (RuntimeException | Error e) {
            x.fail(e, EngineEvents.drain());
        }
    }

    private Answered call(List<GenerationRequest> requests) {
        if (cache != null) {
            CachedLanguageModel.Answered a = cache.answer(requests);
            return new Answered(a.completions(), a.hits(), a.originalMillis(), a.sameAs());
        }
        List<Completion> out = inner.generate(requests);
        if (out.size() != requests.size()) {
            throw new IllegalStateException(inner.name() + " returned " + out.size() + " completions for "
                    + requests.size() + " requests");
        }
        int[] none = new int[out.size()];
        Arrays.fill(none, -1);
        return new Answered(out, new boolean[out.size()], new long[out.size()], none);
    }

    /**
     * A merged call's completions and, per request, whether the cache answered it, what a stored hit's original call
     * took, and for a repeat of a request sent in the call the index of the first ({@link CachedLanguageModel.Answered}).
     */
    private record Answered(List<Completion> completions, boolean[] hit, long[] millis, int[] sameAs) {
        int hits(int from, int to) {
            int n = 0;
            for (int i = from; i < to; i++) if (hit[i]) n++;
            return n;
        }

        /**
         * What the hits of requests {@code [from, to)} (one item's) would have cost: a stored hit its original call's
         * time; a repeat of another item's request the time of the call that answered both, as a cache hit of it would
         * (one item alone would have found it stored); a repeat within the item's own call nothing. Per call the
         * longest, not the sum: requests decoded together each carry the batch's time.
         */
        long hitMillis(int from, int to) {
            long most = 0;
            for (int i = from; i < to; i++) {
                if (!hit[i]) continue;
                Completion c = completions.get(i);
                long m = sameAs[i] < 0 ? millis[i]
                        : sameAs[i] < from ? Math.max(0, c.prefillMillis()) + Math.max(0, c.decodeMillis()) : 0;
                most = Math.max(most, m);
            }
            return most;
        }
    }

    // ------------------------------------------------------------------------------------------- threads' places

    private enum State { RUNNING, WAITING, IN_ROUND, DONE }

    /** One item thread's place: its item's position, its state and its call in the current round. */
    private static final class Slot {
        State state = State.RUNNING;
        int position = -1;
        List<GenerationRequest> requests = List.of();
        List<Completion> completions;
        Throwable failure;
        int hits;
        long hitMillis;
        List<String> events = List.of();

        void succeed(List<Completion> got, int cacheHits, long cacheMillis, List<String> engineEvents) {
            completions = List.copyOf(got);
            failure = null;
            hits = cacheHits;
            hitMillis = cacheMillis;
            events = engineEvents;
        }

        void fail(Throwable t, List<String> engineEvents) {
            completions = null;
            failure = t;
            hits = 0;
            hitMillis = 0;
            events = engineEvents;
        }

        /** On the slot's own thread: its events and cache hits recorded there, its completions or its failure. */
        List<Completion> collect(CachedLanguageModel cache) {
            EngineEvents.recordAll(events);
            if (cache != null && completions != null) cache.credit(hits, hitMillis);
            requests = List.of();
            if (failure instanceof RuntimeException e) throw e;
            if (failure instanceof Error e) throw e;
            return completions;
        }
    }

    /** A run's items, where it is in them, its threads' places and its earliest failure. */
    private static final class Session {
        final List<Integer> todo;
        final List<Slot> slots = new ArrayList<>();
        int next;
        private int failedAt = Integer.MAX_VALUE;
        private Throwable failure;

        Session(List<Integer> todo) {
            this.todo = List.copyOf(todo);
        }

        synchronized boolean failed() {
            return failure != null;
        }

        synchronized void fail(int position, Throwable t) {
            if (position < failedAt) {
                failedAt = position;
                failure = t;
            }
        }

        synchronized void rethrow() {
            if (failure instanceof RuntimeException e) throw e;
            if (failure instanceof Error e) throw e;
            if (failure != null) throw new IllegalStateException(failure.toString(), failure);
        }
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public PromptFormat promptFormat() {
        return inner.promptFormat();
    }

    @Override
    public void close() {
        inner.close();
    }
}
