package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code ladder bench linear}: every projection of a shape timed in every call form, then one decode step summed; and
 * its user errors in one line.
 */
class BenchLinearTest {

    @Test
    void profilesEveryProjectionOfAShape() {
        LadderCliTest.Run r = LadderCliTest.run("bench", "linear", "--shape", "tiny", "--rows", "1,4", "--repeats", "1",
                "--threads", "1");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("tiny, float32 on the CPU, 1 threads")
                // the engine's pick, the spread of its timings, others' load meanwhile, and whether a load would store it
                .containsPattern("(?m)^q/k/v +128 x 64 .* 1 .* (weight blocks|row blocks|F\\.linear) +\\d+% "
                        + "+(\\d+\\.\\d\\d of \\d+|unknown) +(stored|this load only)$")
                .containsPattern("(?m)^calibration: a load stores a measured form when other processes took at most 0\\.25 cores")
                .containsPattern("(?m)^lm head +512 x 64 ")
                .contains("one decode step's projections")
                .containsPattern("(?m)^ +1 .*x$").containsPattern("(?m)^ +4 .*x$");
    }

    @Test
    void int8PutsBothPathsBesideFloat32WithTheMachinesLoad() {
        LadderCliTest.Run r = LadderCliTest.run("bench", "linear", "--shape", "tiny", "--rows", "1,4", "--repeats", "1",
                "--threads", "1", "--int8");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("(?m)^load average \\(1, 5, 15 min\\): \\S+ \\S+ \\S+ at the start$")
                .contains("int8 weights, one float32 scale per row")
                .containsPattern("(?m)^native extension: (loaded|not built|not loaded|off)")
                .containsPattern("(?m)^gate/up +344 x 64 .* 4 ")
                .containsPattern("(?m)^lm head +512 x 64 ")   // the float32 table only: an int8 model keeps it float
                .contains("one decode step: float32")
                .containsPattern("(?m)^ +1 +[0-9.]+ +[0-9.]+ ")
                .containsPattern("(?m)at the end$");
        assertThat(r.out().lines().filter(l -> l.startsWith("lm head")).count()).isEqualTo(2);
    }

    @Test
    void userErrorsAreOneLine() {
        LadderCliTest.Run none = LadderCliTest.run("bench", "linear");
        assertThat(none.code()).isEqualTo(2);
        assertThat(none.err().strip()).isEqualTo("ladder: give one of --model MODEL or --shape NAME");
        LadderCliTest.Run shape = LadderCliTest.run("bench", "linear", "--shape", "gpt5");
        assertThat(shape.code()).isEqualTo(2);
        assertThat(shape.err().strip()).startsWith("ladder: unknown shape 'gpt5' (tiny, smollm2-135m, llama3-2-1b, qwen2-5-0-5b");
        LadderCliTest.Run rows = LadderCliTest.run("bench", "linear", "--shape", "tiny", "--rows", "0");
        assertThat(rows.code()).isEqualTo(2);
        assertThat(rows.err().strip()).isEqualTo("ladder: --rows must be >= 1, got 0");
        LadderCliTest.Run missing = LadderCliTest.run("bench", "linear", "--model", "/no/such/model");
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err().strip().lines().count()).isEqualTo(1);
    }
}
