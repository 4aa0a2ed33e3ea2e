package dev.ladder.inference.openai;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * When to try a request again: after a connection error, a timeout, a truncated or unreadable answer, HTTP 408, 429
 * or 5xx. Waits grow exponentially from {@code initialDelay} up to {@code maxDelay}, each drawn uniformly from
 * [delay/2, delay] (jitter: runners that failed together do not come back together); a server's {@code Retry-After}
 * is honoured up to {@code maxDelay}.
 *
 * @param attempts     tries in all, the first included (1 = never retry)
 * @param initialDelay wait before the second try
 * @param maxDelay     longest wait between two tries
 */
public record RetryPolicy(int attempts, Duration initialDelay, Duration maxDelay) {

    /** Six tries over about a minute: rides out a server restart or a burst of 429s, and still fails in minutes. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(6, Duration.ofMillis(500), Duration.ofSeconds(30));

    public RetryPolicy {
        if (attempts < 1) throw new IllegalArgumentException("attempts must be >= 1, got " + attempts);
        Objects.requireNonNull(initialDelay, "initialDelay");
        Objects.requireNonNull(maxDelay, "maxDelay");
        if (initialDelay.isNegative() || maxDelay.compareTo(initialDelay) < 0) {
            throw new IllegalArgumentException("need 0 <= initialDelay <= maxDelay");
        }
    }

    /**
     * The wait before try {@code attempt + 1}, after {@code attempt} failed tries (1-based).
     *
     * @param retryAfter what the server asked for, or null
     */
    public Duration delay(int attempt, Duration retryAfter, RandomGenerator random) {
        if (retryAfter != null && !retryAfter.isNegative()) {
            return retryAfter.compareTo(maxDelay) > 0 ? maxDelay : retryAfter;
        }
        long base = initialDelay.toMillis();
        long ceiling = maxDelay.toMillis();
        long full = base;
        for (int i = 1; i < attempt && full < ceiling; i++) full *= 2;
        full = Math.min(full, ceiling);
        long half = full / 2;
        return Duration.ofMillis(half + (full > half ? random.nextLong(full - half + 1) : 0));
    }
}
