package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Scaling a measured sample to the full selection: means per item, the total, and the 95% range. */
class RunTimeEstimateTest {

    @Test
    void eachCellScalesItsMeanAndTheRangeWidensWithHowItemsVary() {
        List<RunTimeEstimate.Answer> sample = List.of(
                new RunTimeEstimate.Answer("prompt-k0", 1000, 1, 500, 40),
                new RunTimeEstimate.Answer("prompt-k0", 1000, 1, 520, 44),
                new RunTimeEstimate.Answer("agent-1", 2000, 2, 1000, 100),
                new RunTimeEstimate.Answer("agent-1", 6000, 4, 2200, 300));
        RunTimeEstimate.Estimate e = RunTimeEstimate.of(sample, List.of("prompt-k0", "agent-1", "agent-3"), 200, 30_000);
        // agent-3 had no sampled row (a skipped rung): left out, not a zero
        assertThat(e.cells()).extracting(RunTimeEstimate.Cell::cell).containsExactly("prompt-k0", "agent-1");
        RunTimeEstimate.Cell k0 = e.cells().get(0);
        assertThat(k0.sampled()).isEqualTo(2);
        assertThat(k0.secondsPerItem()).isEqualTo(1.0);
        assertThat(k0.promptPerItem()).isEqualTo(510.0);
        assertThat(k0.seconds()).isEqualTo(200.0);
        assertThat(k0.halfWidth()).isZero(); // the two items took the same time
        RunTimeEstimate.Cell a1 = e.cells().get(1);
        assertThat(a1.secondsPerItem()).isEqualTo(4.0);
        assertThat(a1.callsPerItem()).isEqualTo(3.0);
        assertThat(a1.seconds()).isEqualTo(800.0);
        // sd of {2, 6} is 2.83; 200 items x 2.83 / sqrt(2) x 1.96
        assertThat(a1.halfWidth()).isCloseTo(1.96 * 200 * Math.sqrt(8) / Math.sqrt(2), within(1e-9));
        assertThat(e.fixedSeconds()).isEqualTo(30.0);
        assertThat(e.seconds()).isEqualTo(30 + 200 + 800.0);
        assertThat(e.halfWidth()).isCloseTo(a1.halfWidth(), within(1e-9));
    }

    @Test
    void oneItemGivesAMeanButNoRange() {
        RunTimeEstimate.Estimate e = RunTimeEstimate.of(List.of(new RunTimeEstimate.Answer("c", 1500, 1, 10, 5)),
                List.of("c"), 10, 0);
        assertThat(e.seconds()).isEqualTo(15.0);
        assertThat(e.halfWidth()).isZero();
    }
}
