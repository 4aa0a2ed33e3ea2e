package dev.ladder.inference;

import java.util.ArrayList;
import java.util.List;

/**
 * What an engine did on the way to an answer that a run should record but that is not part of the answer: retries
 * after a 429 or a dropped connection, say. Kept per calling thread, so that a run answering several items at once
 * puts each event in the trace of the item whose call caused it; the caller drains them after the item.
 *
 * <p>Events are never part of a {@link Completion}: a completion served later from a cache did not retry.
 */
public final class EngineEvents {

    private static final ThreadLocal<List<String>> EVENTS = ThreadLocal.withInitial(ArrayList::new);

    private EngineEvents() {}

    /** Records an event for the current thread's item. */
    public static void record(String event) {
        EVENTS.get().add(event);
    }

    /** Records events gathered on other threads for the current thread's item. */
    public static void recordAll(List<String> events) {
        EVENTS.get().addAll(events);
    }

    /** The current thread's events since the last drain, oldest first, and forgets them. */
    public static List<String> drain() {
        List<String> list = EVENTS.get();
        List<String> out = List.copyOf(list);
        list.clear();
        return out;
    }
}
