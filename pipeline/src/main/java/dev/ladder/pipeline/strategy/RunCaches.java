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

    /**
     * The value under {@code key}, made by {@code make} the first time (once, even when asked from several threads).
     *
     * @param key the parts of the key: what is cached first (e.g. {@code "schema-index"}), then what it depends on
     */
    public <T> T get(Class<T> type, List<?> key, Supplier<T> make) {
        Objects.requireNonNull(make, "make");
        return type.cast(entries.computeIfAbsent(List.copyOf(key), k -> Objects.requireNonNull(make.get(), "a cached value")));
    }

    /** How many values are cached. */
    public int size() {
        return entries.size();
    }
}
