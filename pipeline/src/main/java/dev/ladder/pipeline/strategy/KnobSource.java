package dev.ladder.pipeline.strategy;

import java.util.List;

/**
 * Typed reads of one mapping of a configuration file, each failure one line naming the key (the experiment loader's
 * reader implements it). A {@link SettingsBlock} reads a pipeline's settings through it, so that every file format
 * problem is worded in one place.
 */
public interface KnobSource {

    /** An integer within {@code bound}, or {@code dflt} when the key is absent. */
    Integer integer(String key, Integer dflt, Bound bound);

    /** A 64-bit integer within {@code bound}, or {@code dflt} when the key is absent. */
    long longValue(String key, long dflt, Bound bound);

    /** A finite number within {@code bound}, or {@code dflt} when the key is absent. */
    double number(String key, double dflt, Bound bound);

    boolean bool(String key, boolean dflt);

    String string(String key, String dflt);

    List<String> stringList(String key, List<String> dflt);

    /** Whether the mapping sets {@code key}. */
    boolean has(String key);

    /** The value at {@code key} when it is a string, else null (absent, or a value of another kind). */
    String text(String key);

    /** The exception for a problem with the value at {@code key} (thrown by the caller). */
    RuntimeException problem(String key, String problem);
}
