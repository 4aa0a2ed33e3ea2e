package dev.ladder.scorer.testsuite;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * {@code --time-limit} over a whole test-suite build. Every phase asks it between units of work; once the limit is
 * spent the build stops ({@link TestSuiteBuilder.Refused}), saying in what phase and how far it got, and stores nothing.
 * A suite is never cut short by the clock, so a stored suite never depends on how busy the machine was.
 */
final class TimeLimit {

    private final Duration limit;
    private final LongSupplier clock;
    private final long start;

    /**
     * @param limit the limit, null for none
     * @param clock nanoseconds, as {@link System#nanoTime()}; the build starts now
     */
    TimeLimit(Duration limit, LongSupplier clock) {
        this.limit = limit;
        this.clock = clock;
        this.start = clock.getAsLong();
    }

    /** Seconds since the build started. */
    double elapsedSeconds() {
        return (clock.getAsLong() - start) / 1e9;
    }

    /** Stops the build when the limit is spent; {@code where} names the phase and its progress (asked only then). */
    void check(Supplier<String> where) {
        long elapsed = clock.getAsLong() - start;
        if (limit == null || elapsed < limit.toNanos()) return;
        throw new TestSuiteBuilder.Refused(String.format(Locale.ROOT, "the test suite build ran out of its time limit"
                + " (%s s) while %s, after %.1f s; nothing was stored (a stored suite is unchanged): raise --time-limit,"
                + " or leave it off (--max-candidates bounds the work without the clock)",
                BigDecimal.valueOf(limit.toMillis(), 3).stripTrailingZeros().toPlainString(), where.get(), elapsed / 1e9));
    }
}
