package dev.ladder.pipeline.kit;

import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The "ask, read, ask once more with a fix prompt" loop the pipelines share: one call; when its reply cannot be read
 * (JSON that does not parse, a list that is missing, no SQL statement), one more call built from that reply and the
 * reason, and the fixed reply read the same way. Never more than two calls; the caller makes them (its prompts, call
 * kinds and seeds) and says how a reply reads.
 */
public final class AskWithFix {

    private AskWithFix() {}

    /** What a reply reads as: a value, or why there is none. */
    public record Reading<T>(T value, String error) {
        public static <T> Reading<T> of(T value) {
            return new Reading<>(Objects.requireNonNull(value, "value"), null);
        }

        /** A reply that does not read; a reason the reader did not give reads as "the reply cannot be read". */
        public static <T> Reading<T> failed(String error) {
            return new Reading<>(null, Objects.requireNonNullElse(error, "the reply cannot be read"));
        }

        public boolean ok() {
            return error == null;
        }
    }

    /**
     * How the loop ended.
     *
     * @param reading    the last reading: the first reply's when it read, else the fixed reply's
     * @param firstReply the first reply
     * @param firstError why the first reply did not read (null when it did, and no fix was asked)
     */
    public record Outcome<T>(Reading<T> reading, String firstReply, String firstError) {
        public boolean ok() {
            return reading.ok();
        }

        public T value() {
            return reading.value();
        }

        /** Whether the fix call was made. */
        public boolean fixAsked() {
            return firstError != null;
        }
    }

    /**
     * @param ask  makes the first call, returning its reply
     * @param read reads a reply
     * @param fix  makes the fix call from the first reply and why it did not read, returning the new reply
     */
    public static <T> Outcome<T> ask(Supplier<String> ask, Function<String, Reading<T>> read,
                                     BiFunction<String, String, String> fix) {
        return ask(ask, read, fix, read);
    }

    /** As {@link #ask(Supplier, Function, BiFunction)}, the fixed reply read by {@code readFixed}. */
    public static <T> Outcome<T> ask(Supplier<String> ask, Function<String, Reading<T>> read,
                                     BiFunction<String, String, String> fix, Function<String, Reading<T>> readFixed) {
        String first = ask.get();
        Reading<T> r = read.apply(first);
        if (r.ok()) return new Outcome<>(r, first, null);
        return new Outcome<>(readFixed.apply(fix.apply(first, r.error())), first, r.error());
    }
}
