package dev.ladder.inference.llm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Resident memory of this process from {@code /proc/self/status} (Linux; elsewhere every reading is -1).
 *
 * <p>Anonymous memory ({@code RssAnon}: Java heap, direct buffers, PyTorch's CPU tensors) is what runs a machine out
 * of RAM; file pages ({@code RssFile}, e.g. a memory-mapped safetensors file) are page cache the kernel can drop.
 * {@code VmHWM}, the kernel's peak, counts both. The kernel keeps no peak of {@code RssAnon}, so
 * {@link PeakSampler} samples it.
 */
public final class HostMemory {
    private HostMemory() {}

    private static final Path STATUS = Path.of("/proc/self/status");

    /** Current anonymous resident memory in bytes, or -1. */
    public static long rssAnonBytes() {
        return read("RssAnon");
    }

    /** Current file-backed resident memory in bytes, or -1. */
    public static long rssFileBytes() {
        return read("RssFile");
    }

    /** Peak resident memory (VmHWM: anonymous and file pages) of this process so far in bytes, or -1. */
    public static long peakRssBytes() {
        return read("VmHWM");
    }

    /** A field of a {@code /proc/PID/status} text given in kB, in bytes; -1 when absent or malformed. */
    static long field(List<String> statusLines, String key) {
        String prefix = key + ":";
        for (String line : statusLines) {
            if (!line.startsWith(prefix)) continue;
            String[] parts = line.substring(prefix.length()).trim().split("\\s+");
            if (parts.length != 2 || !parts[1].equals("kB")) return -1;
            try {
                return Long.parseLong(parts[0]) * 1024;
            } catch (NumberFormatException e) {
                return -1;
            }
        }
        return -1;
    }

    private static long read(String key) {
        try {
            return field(Files.readAllLines(STATUS), key);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Starts sampling {@code RssAnon} every {@code period} on a daemon thread until closed. */
    public static PeakSampler sampler(Duration period) {
        return new PeakSampler(period);
    }

    /**
     * The highest {@code RssAnon} seen between creation and {@link #close}: a daemon thread samples every period,
     * and callers add samples at known high points ({@link #sample}), e.g. after each layer, which a sampling
     * period could miss.
     */
    public static final class PeakSampler implements AutoCloseable {
        private final AtomicLong peak = new AtomicLong(-1);
        private final long startBytes;
        private final Thread thread;
        private volatile boolean running = true;

        private PeakSampler(Duration period) {
            if (period.isNegative() || period.isZero()) throw new IllegalArgumentException("period must be positive: " + period);
            long nanos = period.toNanos();
            startBytes = sample();
            thread = new Thread(() -> {
                while (running) {
                    sample();
                    try {
                        Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "rss-anon-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        /** Reads {@code RssAnon} now, counts it towards the peak and returns it (-1 when unknown). */
        public long sample() {
            long now = rssAnonBytes();
            peak.accumulateAndGet(now, Math::max);
            return now;
        }

        /** {@code RssAnon} when sampling began, or -1. */
        public long startBytes() {
            return startBytes;
        }

        /** Highest {@code RssAnon} so far, or -1 when it cannot be read. */
        public long peakBytes() {
            return peak.get();
        }

        /** Stops the thread after one last sample. */
        @Override
        public void close() {
            running = false;
            thread.interrupt();
            try {
                thread.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            sample();
        }
    }
}
