package dev.ladder.inference.llm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class MachineLoadTest {

    static final List<String> STAT = List.of(
            "cpu  1000 10 200 5000 40 0 30 20 0 0",
            "cpu0 500 5 100 2500 20 0 15 10 0 0",
            "cpu1 500 5 100 2500 20 0 15 10 0 0",
            "intr 22503139 0 0",
            "ctxt 1234");

    @Test
    void countersComeFromTheAllCpuLine() {
        MachineLoad.Counters c = MachineLoad.counters(STAT, 77, 1.5);
        // busy: user, nice, system, irq, softirq, steal; idle and iowait make up the rest
        assertThat(c.busyTicks()).isEqualTo(1000 + 10 + 200 + 0 + 30 + 20);
        assertThat(c.totalTicks()).isEqualTo(1260 + 5000 + 40);
        assertThat(c.cores()).isEqualTo(2);
        assertThat(c.selfTicks()).isEqualTo(77);
        assertThat(MachineLoad.counters(List.of("cpu  1 2"), 0, 0)).isNull();
    }

    @Test
    void selfTicksSkipACommandNameWithSpacesAndParentheses() {
        String stat = "4242 (java (main) x) S 1 4242 4242 0 -1 4194304 100 0 0 0 731 89 0 0 20 0 30 0 1361086 3133440 411";
        assertThat(MachineLoad.selfTicks(stat)).isEqualTo(731 + 89);
        assertThat(MachineLoad.loadAverage("2.17 2.09 3.22 2/182 25802\n")).isEqualTo(2.17);
    }

    /** Others' cores: the busy ticks this process did not spend, as a share of all ticks, times the cores. */
    @Test
    void othersAreTheBusyTimeThisProcessDidNotSpend() {
        MachineLoad.Counters a = new MachineLoad.Counters(1000, 4000, 300, 2, 0.5);
        // 200 ticks over 2 cores = 1 s: 150 busy, 50 of them ours: others took one core
        MachineLoad.Load l = MachineLoad.Load.between(a, new MachineLoad.Counters(1150, 4200, 350, 2, 1.25));
        assertThat(l.othersCores()).isCloseTo(1.0, within(1e-12));
        assertThat(l.loadAverage1()).isEqualTo(1.25);
        assertThat(l.describe()).isEqualTo("others 1.00 of 2 cores, load average 1.25");
        // accounting skew never makes the others negative
        assertThat(MachineLoad.Load.between(a, new MachineLoad.Counters(1100, 4200, 420, 2, 1)).othersCores()).isZero();
        // a window too short to tell, or no readings
        assertThat(MachineLoad.Load.between(a, new MachineLoad.Counters(1005, 4010, 305, 2, 1)).known()).isFalse();
        assertThat(MachineLoad.Load.between(null, a)).isEqualTo(MachineLoad.Load.UNKNOWN);
        assertThat(MachineLoad.Load.UNKNOWN.describe()).isEqualTo("others' load unknown");
    }

    @Test
    void readsThisMachineWhereThereIsAProc() {
        if (!Files.isReadable(Path.of("/proc/stat"))) return;
        MachineLoad.Counters c = MachineLoad.proc().now();
        assertThat(c).isNotNull();
        assertThat(c.cores()).isPositive();
        assertThat(c.totalTicks()).isGreaterThanOrEqualTo(c.busyTicks());
        assertThat(c.selfTicks()).isNotNegative();
    }
}
