package dev.ladder.pipeline.strategy;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * What strategies build once and reuse while a run lasts (a schema index, a value index, a greedy reply every
 * ablation of a pipeline shares), owned by the run and handed to every context, not kept in static maps: two runs in
 * one process share nothing, and a cache dies with its run. Keys name what was built and from what (objects compared
 * by equality; a model or a database by identity).
 */
public final class RunCaches {

    private final Map<List<Object>, Object> entries = new ConcurrentHashMap<>();
    private final ThreadLocal<int[]> reused = ThreadLocal.withInitial(() -> new int[1]);

    /**
     * The value under {@code key}, made by {@code make} the first time (once, even when asked from several threads).
     * {@code make} must not call a model: other threads asking for a key meanwhile may wait on it, and a run whose
     * items advance together waits for every item before its next model call ({@link #reply} is for replies).
     *
     * @param key the parts of the key: what is cached first (e.g. {@code "schema-index"}), then what it depends on
     */
    public <T> T get(Class<T> type, List<?> key, Supplier<T> make) {
        Objects.requireNonNull(make, "make");
        return type.cast(entries.computeIfAbsent(List.copyOf(key), k -> Objects.requireNonNull(make.get(), "a cached value")));
    }

    /**
     * A model's reply kept for the run under {@code key} (which names the model object and the prompt), asked by
     * {@code ask} the first time. A reply served again counts, on this thread, as a call answered from a cache: an
     * item's row then says what its answer cost whichever rung asked first (a later ablation's reused reply is a
     * cached call, not a free one). Nothing is locked while {@code ask} runs (items answered together each wait in
     * the model for the others): two threads asking one key at once both ask, and the first reply stored is kept.
     * A key that names the item keeps replies from being shared between the items of one cell, whose order of
     * asking may vary; rungs run one after another.
     */
    public String reply(List<?> key, Supplier<String> ask) {
        List<Object> k = List.copyOf(key);
        Object kept = entries.get(k);
        if (kept != null) {
            reused.get()[0]++;
            return (String) kept;
        }
        String reply = Objects.requireNonNull(ask.get(), "a reply");
        entries.putIfAbsent(k, reply);
        return reply;
    }

    /** Replies {@link #reply} served again on this thread so far. */
    public int repliesReusedOnThisThread() {
        return reused.get()[0];
    }

    /** How many values are cached. */
    public int size() {
        return entries.size();
    }
}
