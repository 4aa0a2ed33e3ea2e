package dev.ladder.eval.run;

import dev.ladder.inference.Completion;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.PromptFormat;
import java.util.List;
import java.util.Objects;

/**
 * Counts the model calls (requests) a run makes, and of those the ones a {@link CachedLanguageModel} underneath
 * answered from the generation cache, so that each item's row can say what its answer cost. Counts are kept per
 * thread: a run that answers several items at once (a served model) takes each item's snapshots on its own thread.
 */
final class CallCounter implements LanguageModel {

    /** Calls so far, and how many of them the cache answered. */
    record Snapshot(int calls, int cached) {
        Snapshot minus(Snapshot earlier) {
            return new Snapshot(calls - earlier.calls, cached - earlier.cached);
        }

        /** With {@code n} more calls, each answered from a cache. */
        Snapshot plusCached(int n) {
            return new Snapshot(calls + n, cached + n);
        }
    }

    private final LanguageModel inner;
    private final CachedLanguageModel cache;
    private final ThreadLocal<int[]> calls = ThreadLocal.withInitial(() -> new int[1]);

    CallCounter(LanguageModel inner) {
        this.inner = Objects.requireNonNull(inner, "inner");
        this.cache = inner instanceof CachedLanguageModel c ? c : null;
    }

    @Override
    public List<Completion> generate(List<GenerationRequest> requests) {
        calls.get()[0] += requests.size();
        return inner.generate(requests);
    }

    Snapshot snapshot() {
        return new Snapshot(calls.get()[0], cache == null ? 0 : (int) cache.hitsOnThisThread());
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
