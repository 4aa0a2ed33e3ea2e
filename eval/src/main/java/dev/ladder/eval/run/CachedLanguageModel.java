package dev.ladder.eval.run;

import dev.ladder.inference.Completion;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.PromptFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link LanguageModel} that answers from a {@link GenerationCache} when it can and asks the wrapped model only for
 * the rest, in one call per batch (so the misses stay batched together), storing what it gets before returning.
 *
 * <p>The fingerprints are what makes a cached completion valid: the model fingerprint should name everything that
 * changes the output besides the request (weights and tokenizer via {@link Fingerprints#ofDirectory}, plus engine,
 * dtype and device), the adapter fingerprint the adapter ({@code ""} for none). A hit returns exactly the completion
 * first stored, timings included.
 *
 * <p>Counting: {@link #misses()} is the number of requests sent to the wrapped model; {@link #hits()} the number
 * answered without it (identical requests in one batch are sent once: the repeats count as hits).
 *
 * <p>{@link #close()} closes the wrapped model, not the cache (several models may share one).
 */
public final class CachedLanguageModel implements LanguageModel {

    private final LanguageModel inner;
    private final String modelFingerprint;
    private final String adapterFingerprint;
    private final GenerationCache cache;
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    /** Per thread: hits, then the milliseconds the hits' original calls took (prefill and decode, as stored). */
    private final ThreadLocal<long[]> threadHits = ThreadLocal.withInitial(() -> new long[2]);

    public CachedLanguageModel(LanguageModel inner, String modelFingerprint, String adapterFingerprint,
                               GenerationCache cache) {
        this.inner = Objects.requireNonNull(inner, "inner");
        this.modelFingerprint = Objects.requireNonNull(modelFingerprint, "modelFingerprint");
        this.adapterFingerprint = adapterFingerprint == null ? "" : adapterFingerprint;
        this.cache = Objects.requireNonNull(cache, "cache");
    }

    @Override
    public List<Completion> generate(List<GenerationRequest> requests) {
        Answered a = answer(requests);
        int hitCount = 0;
        long original = 0;
        for (int i = 0; i < requests.size(); i++) {
            if (a.hits()[i]) hitCount++;
            // requests decoded together each carry the batch's time: the longest, not the sum, is the call's
            original = Math.max(original, a.originalMillis()[i]);
        }
        credit(hitCount, original);
        return a.completions();
    }

    /**
     * A call's completions and, per request, whether it was answered without the wrapped model, what its stored
     * completion's original call took (prefill and decode, as stored; 0 unless it came from the cache), and, for a
     * repeat of a request sent in this call, the index of the first one (else -1).
     */
    record Answered(List<Completion> completions, boolean[] hits, long[] originalMillis, int[] sameAs) {}

    /**
     * Answers from the cache what it holds and asks the wrapped model for the rest in one call (each distinct request
     * once), storing what it gets before returning; counts the run's hits and misses but credits no thread
     * ({@link #credit}): a caller that answers for several items credits each item's thread with its own.
     */
    Answered answer(List<GenerationRequest> requests) {
        int size = requests.size();
        if (size == 0) return new Answered(List.of(), new boolean[0], new long[0], new int[0]);
        List<String> keys = new ArrayList<>(size);
        List<String> keyTexts = new ArrayList<>(size);
        for (GenerationRequest r : requests) {
            String text = GenerationCache.keyText(modelFingerprint, adapterFingerprint, r);
            keyTexts.add(text);
            keys.add(GenerationCache.sha256(text));
        }
        Map<String, Completion> found = cache.getAll(keys);
        boolean[] hit = new boolean[size];
        long[] original = new long[size];
        int[] sameAs = new int[size];
        // first request of each missing key, in batch order
        Map<String, Integer> missing = new LinkedHashMap<>();
        for (int i = 0; i < size; i++) {
            Completion c = found.get(keys.get(i));
            sameAs[i] = -1;
            if (c != null) {
                // a hit cost nothing now; what its original call took is what it would have cost without the cache
                hit[i] = true;
                original[i] = Math.max(0, c.prefillMillis()) + Math.max(0, c.decodeMillis());
            } else {
                Integer first = missing.putIfAbsent(keys.get(i), i);
                if (first != null) {
                    hit[i] = true;
                    sameAs[i] = first;
                }
            }
        }
        if (!missing.isEmpty()) {
            List<GenerationRequest> toSend = missing.values().stream().map(requests::get).toList();
            List<Completion> fresh = inner.generate(toSend);
            if (fresh.size() != toSend.size()) {
                throw new IllegalStateException(inner.name() + " returned " + fresh.size() + " completions for "
                        + toSend.size() + " requests");
            }
            List<GenerationCache.Entry> entries = new ArrayList<>();
            int j = 0;
            for (Map.Entry<String, Integer> m : missing.entrySet()) {
                Completion c = fresh.get(j++);
                found.put(m.getKey(), c);
                entries.add(new GenerationCache.Entry(m.getKey(), modelFingerprint, adapterFingerprint,
                        keyTexts.get(m.getValue()), c));
            }
            cache.putAll(entries);
        }
        misses.addAndGet(missing.size());
        hits.addAndGet(size - missing.size());
        List<Completion> out = new ArrayList<>(size);
        for (String k : keys) out.add(found.get(k));
        return new Answered(out, hit, original, sameAs);
    }

    /**
     * Credits the current thread with {@code n} requests answered without the wrapped model whose original calls took
     * {@code originalMillis} (see {@link #hitMillisOnThisThread}).
     */
    void credit(int n, long originalMillis) {
        long[] mine = threadHits.get();
        mine[0] += n;
        mine[1] += originalMillis;
    }

    /** Requests answered without the wrapped model. */
    public long hits() {
        return hits.get();
    }

    /** Requests answered without the wrapped model in calls made on the current thread. */
    public long hitsOnThisThread() {
        return threadHits.get()[0];
    }

    /**
     * What the original calls of this thread's hits took, in milliseconds (their prefill and decode time as the cache
     * stored it; per call, the longest of its hits, since requests decoded together each carry the batch's time): the
     * model time the cached answers would have cost.
     */
    public long hitMillisOnThisThread() {
        return threadHits.get()[1];
    }

    /** Requests sent to the wrapped model. */
    public long misses() {
        return misses.get();
    }

    public LanguageModel inner() {
        return inner;
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
