package dev.ladder.inference.llm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * How busy the rest of the machine was while this process measured something: the CPU time that other processes
 * (and, on a VM, the hypervisor's other guests: steal) took over the interval, in cores, from the all-CPU line of
 * {@code /proc/stat} less this process's own time from {@code /proc/self/stat}; the 1-minute load average beside it
 * for the reader. Linux only; elsewhere the load is unknown (NaN).
 *
 * <p>Why not the load average alone: it is a one-minute exponential average (it still shows a load that ended a
 * minute ago and hardly shows one that began a second ago), and it counts this process's own threads.
 */
public final class MachineLoad {
    private MachineLoad() {}

    /** Windows with fewer ticks than this over all CPUs (0.1 s on 2 cores at 100 Hz) are too short to tell. */
    static final long MIN_TICKS = 20;

    /**
     * Cumulative CPU counters at one instant, in clock ticks: every CPU's busy and total time, and this process's.
     *
     * @param cores        CPUs the busy and total counters cover
     * @param loadAverage1 the 1-minute load average at this instant (NaN when unknown)
     */
    public record Counters(long busyTicks, long totalTicks, long selfTicks, int cores, double loadAverage1) {}

    /** Where counters come from: {@code /proc} on Linux ({@link #proc}); null when they cannot be read. */
    public interface Gauge {
        Counters now();
    }

    /**
     * Other processes' CPU use over one interval.
     *
     * @param othersCores  cores' worth of CPU time others took on average over the interval (NaN: unknown, or a window
     *                     too short to tell)
     * @param cores        the machine's cores (0 when unknown)
     * @param loadAverage1 the 1-minute load average at the end of the interval (NaN when unknown)
     */
    public record Load(double othersCores, int cores, double loadAverage1) {
        public static final Load UNKNOWN = new Load(Double.NaN, 0, Double.NaN);

        /** The load between two readings of one gauge. */
        static Load between(Counters a, Counters b) {
            if (a == null || b == null) return UNKNOWN;
            long total = b.totalTicks() - a.totalTicks();
            if (total < MIN_TICKS) return new Load(Double.NaN, b.cores(), b.loadAverage1());
            long others = (b.busyTicks() - a.busyTicks()) - (b.selfTicks() - a.selfTicks());
            return new Load(Math.max(0, others) * (double) b.cores() / total, b.cores(), b.loadAverage1());
        }

        public boolean known() {
            return !Double.isNaN(othersCores);
        }

        /** {@code others 0.12 of 2 cores, load average 1.57}, or what of it is known. */
        public String describe() {
            String others = known() ? String.format(Locale.ROOT, "others %.2f of %d cores", othersCores, cores)
                    : "others' load unknown";
            return Double.isNaN(loadAverage1) ? others
                    : others + String.format(Locale.ROOT, ", load average %.2f", loadAverage1);
        }
    }

    /** An interval being measured: {@link #end} gives the load over it. */
    public static final class Window {
        private final Gauge gauge;
        private final Counters start;

        private Window(Gauge gauge) {
            this.gauge = gauge;
            this.start = gauge.now();
        }

        public Load end() {
            return Load.between(start, gauge.now());
        }
    }

    public static Window start(Gauge gauge) {
        return new Window(gauge);
    }

    /** This machine's counters, from {@code /proc}. */
    public static Gauge proc() {
        return MachineLoad::readProc;
    }

    private static Counters readProc() {
        try {
            List<String> stat = Files.readAllLines(Path.of("/proc/stat"));
            long self = selfTicks(Files.readString(Path.of("/proc/self/stat")));
            double avg = loadAverage(Files.readString(Path.of("/proc/loadavg")));
            return counters(stat, self, avg);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Counters from the lines of {@code /proc/stat}: the {@code cpu} line's user, nice, system, idle, iowait, irq,
     * softirq and steal ticks (guest time is inside user), and one {@code cpuN} line per core; null when malformed.
     */
    static Counters counters(List<String> procStat, long selfTicks, double loadAverage1) {
        long busy = -1;
        long total = -1;
        int cores = 0;
        for (String line : procStat) {
            if (line.startsWith("cpu ")) {
                String[] f = line.trim().split("\\s+");
                if (f.length < 9) return null;
                long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
                busy = 0;
                for (int i : new int[] {1, 2, 3, 6, 7, 8}) busy += Long.parseLong(f[i]);
                total = busy + idle;
            } else if (line.startsWith("cpu")) {
                cores++;
            }
        }
        return busy < 0 || cores == 0 || selfTicks < 0 ? null : new Counters(busy, total, selfTicks, cores, loadAverage1);
    }

    /** utime + stime of a {@code /proc/PID/stat} line (fields 14 and 15; the command name may hold spaces). */
    static long selfTicks(String procSelfStat) {
        String[] f = procSelfStat.substring(procSelfStat.lastIndexOf(')') + 2).trim().split("\\s+");
        // f[0] is field 3 (state): utime is field 14, stime 15
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    /** The first number of {@code /proc/loadavg}. */
    static double loadAverage(String procLoadavg) {
        return Double.parseDouble(procLoadavg.trim().split("\\s+")[0]);
    }
}
