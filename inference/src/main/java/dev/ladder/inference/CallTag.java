package dev.ladder.inference;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a request is for, said by its caller: the kind of call (a pipeline's name for it, e.g. {@code sql} or
 * {@code gsr.clauses}), the item it is asked for, and facts the caller already knows (e.g. the SQL under judgement).
 * Engines that generate from the prompt ignore it, and caches never key on it (a real model's answer depends on the
 * prompt alone); an instrument that answers from a benchmark's gold (the oracle engine) reads it.
 *
 * @param kind  the call's kind, never blank
 * @param item  the question's id in its run, or "" when the caller has none
 * @param facts named values the call carries besides its prompt
 */
public record CallTag(String kind, String item, Map<String, String> facts) {
    public CallTag {
        Objects.requireNonNull(kind, "kind");
        if (kind.isBlank()) throw new IllegalArgumentException("a call's kind must not be blank");
        item = item == null ? "" : item;
        // sorted, so that a tag prints the same whatever map the caller built
        facts = facts == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(facts));
    }

    public static CallTag of(String kind, String item) {
        return new CallTag(kind, item, Map.of());
    }

    public String fact(String name) {
        return facts.get(name);
    }

    /** This tag with one more fact (null values are left out). */
    public CallTag with(String name, String value) {
        if (value == null) return this;
        Map<String, String> m = new TreeMap<>(facts);
        m.put(name, value);
        return new CallTag(kind, item, m);
    }
}
