package dev.ladder.inference.device;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Memory sizes: parsing {@code 15GiB}, {@code 16GB}, {@code 12.5GiB}, {@code 800MiB}, plain bytes; printing. */
public final class MemorySize {
    private MemorySize() {}

    public static final long KIB = 1L << 10;
    public static final long MIB = 1L << 20;
    public static final long GIB = 1L << 30;

    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([a-zA-Z]*)");
    private static final Map<String, Long> UNITS = Map.ofEntries(
            Map.entry("", 1L), Map.entry("b", 1L),
            Map.entry("kb", 1_000L), Map.entry("mb", 1_000_000L), Map.entry("gb", 1_000_000_000L),
            Map.entry("tb", 1_000_000_000_000L),
            Map.entry("kib", KIB), Map.entry("mib", MIB), Map.entry("gib", GIB), Map.entry("tib", 1L << 40));

    /**
     * Bytes of a size: a number with an optional unit, B, KB/MB/GB/TB (powers of 1000) or KiB/MiB/GiB/TiB (powers of
     * 1024), case-insensitive, e.g. {@code 15GiB}, {@code 16GB}, {@code 12.5GiB}, {@code 800MiB}, {@code 1073741824}.
     * A fractional size is rounded to the nearest byte.
     *
     * @throws IllegalArgumentException (one line saying what is accepted) for anything else, zero, or more than
     *                                  Long.MAX_VALUE bytes
     */
    public static long parse(String text) {
        String t = text == null ? "" : text.strip();
        Matcher m = SIZE.matcher(t);
        Long unit = m.matches() ? UNITS.get(m.group(2).toLowerCase(Locale.ROOT)) : null;
        if (unit == null) {
            // "16G" is refused on purpose: it is unclear whether 10^9 or 2^30 is meant
            throw new IllegalArgumentException("bad memory size '" + text + "': use a number with a unit B, KB, MB, GB, TB"
                    + " (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024), e.g. 15GiB or 16GB");
        }
        BigDecimal bytes = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit)).setScale(0, RoundingMode.HALF_UP);
        if (bytes.signum() <= 0) throw new IllegalArgumentException("memory size '" + text + "' must be more than 0 bytes");
        if (bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException("memory size '" + text + "' is too large");
        }
        return bytes.longValueExact();
    }

    /** {@code 15.0 GiB}, {@code 812.3 MiB}, {@code 4.0 KiB}, {@code 17 B}: binary units, one decimal. */
    public static String format(long bytes) {
        if (bytes >= GIB) return String.format(Locale.ROOT, "%.1f GiB", bytes / (double) GIB);
        if (bytes >= MIB) return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) MIB);
        if (bytes >= KIB) return String.format(Locale.ROOT, "%.1f KiB", bytes / (double) KIB);
        return bytes + " B";
    }

    /** {@code bytes} in the unit {@link #format} would pick for {@code reference}, number only (for a breakdown). */
    public static String formatLike(long bytes, long reference) {
        long unit = reference >= GIB ? GIB : reference >= MIB ? MIB : reference >= KIB ? KIB : 1;
        return unit == 1 ? Long.toString(bytes) : String.format(Locale.ROOT, "%.1f", bytes / (double) unit);
    }

    /**
     * Physical memory of this machine: {@code MemTotal} of {@code /proc/meminfo} (a container's cgroup limit is not
     * looked at); where there is no /proc/meminfo, what the JVM's operating-system bean reports.
     */
    public static long physicalMemory() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    String[] parts = line.substring("MemTotal:".length()).strip().split("\\s+");
                    return Long.parseLong(parts[0]) * KIB; // the kernel writes "kB" and means KiB
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // not Linux, or an unexpected format: fall back to the JVM's figure
        }
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
    }
}
