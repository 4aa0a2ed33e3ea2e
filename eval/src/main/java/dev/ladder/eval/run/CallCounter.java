package dev.ladder.eval.run;

import dev.ladder.inference.Completion;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.PromptFormat;
import java.util.List;
import java.util.Objects;

/**
 * Counts the model calls (requests) a run makes, the completions they ask for (a request for {@code n} samples is one
 * call and {@code n} completions), and of the calls the ones a {@link CachedLanguageModel} underneath answered from
 * the generation cache, so that each item's row can say what its answer cost. Counts are kept per thread: a run that
 * answers several items at once (a served model, or items in rounds: {@link ItemRounds}) takes each item's snapshots
 * on its own thread.
 */
final class CallCounter implements LanguageModel {

    /**
     * Calls so far, how many of them the cache answered, the completions they asked for, and what the cached calls'
     * original calls took (milliseconds of prefill and decode, as the generation cache stored them).
     */
    record Snapshot(int calls, int cached, int completions, long cachedMillis) {
        Snapshot(int calls, int cached, int completions) {
            this(calls, cached, completions, 0);
        }

        Snapshot minus(Snapshot earlier) {
            return new Snapshot(calls - earlier.calls, cached - earlier.cached, completions - earlier.completions,
                    cachedMillis - earlier.cachedMillis);
        }

        /** With {@code n} more calls of one completion each, each answered from a cache (at no recorded cost). */
        Snapshot plusCached(int n) {
            return new Snapshot(calls + n, cached + n, completions + n, cachedMillis);
        }
    }

    private final LanguageModel inner;
    private final CachedLanguageModel cache;
    /** Per thread: calls, then completions. */
    private final ThreadLocal<int[]> calls = ThreadLocal.withInitial(() -> new int[2]);

    CallCounter(LanguageModel inner) {
        this.inner = Objects.requireNonNull(inner, "inner");
        this.cache = inner instanceof CachedLanguageModel c ? c : inner instanceof ItemRounds r ? r.cache() : null;
    }

    @Override
    public List<Completion> generate(List<GenerationRequest> requests) {
        int[] counts = calls.get();
        counts[0] += requests.size();
        for (GenerationRequest r : requests) counts[1] += Math.max(1, r.n());
        return inner.generate(requests);
    }

    Snapshot snapshot() {
        int[] counts = calls.get();
        return new Snapshot(counts[0], cache == null ? 0 : (int) cache.hitsOnThisThread(), counts[1],
                cache == null ? 0 : cache.hitMillisOnThisThread());
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
