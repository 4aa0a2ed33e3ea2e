package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.ladder.eval.run.HotJournals;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.eval.run.TestMounts;
import dev.ladder.sql.db.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What can happen to a run folder between two runs, end to end on the oracle engine: it is moved, a kill during a
 * commit leaves a hot journal in its results store, a merge into it is killed, its disk fills up. Each time the same
 * command resumes it (or says in one line what to do, exit 2).
 */
class RunFolderFaultsTest {

    @TempDir static Path tmp;
    static Path experiment;

    @BeforeAll
    static void tinyExperiment() throws IOException {
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
        experiment = Files.writeString(tmp.resolve("tiny.yaml"), """
                name: tiny
                benchmark: classicmodels
                split: train
                limit: 3
                seeds: [0]
                output: %s
                models:
                  oracle: {engine: oracle, noise: "none"}
                strategies:
                  - {name: prompt-k0, strategy: prompt-k0, model: oracle}
                scorers:
                  ts: none
                """.formatted(tmp.resolve("unused")));
    }

    private static LadderCliTest.Run run(Path out) {
        return LadderCliTest.run("run", experiment.toString(), "--out", out.toString(), "--no-generation-cache",
                "--no-progress", "--format", "md");
    }

    private static void assertResumedWhole(LadderCliTest.Run r) {
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("1 cells: 0 items answered, 3 already done");
    }

    @Test
    void aMovedRunFolderResumesWhereItIsNow() throws Exception {
        Path before = tmp.resolve("before");
        assertThat(run(before).code()).isZero();
        Path after = tmp.resolve("after");
        Files.move(before, after);
        // and a merge into it was killed: its staging folder beside it names a process that is gone
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path killedMerge = Files.createDirectories(tmp.resolve(".after.merge-" + gone.pid() + "-1"));
        Files.writeString(killedMerge.resolve(RunDirectory.RESULTS), "half a merge");

        assertResumedWhole(run(after));
        assertThat(Files.readString(after.resolve(RunDirectory.CONFIG))).contains("output: " + after + "\n")
                .doesNotContain(before.toString());
        assertThat(killedMerge).doesNotExist();
        // another experiment in the moved folder is still refused
        LadderCliTest.Run other = LadderCliTest.run("run", experiment.toString(), "--out", after.toString(), "--limit",
                "2", "--no-generation-cache", "--no-progress");
        assertThat(other.code()).isEqualTo(2);
        assertThat(other.err()).contains("holds another experiment (line ");
    }

    @Test
    void aKillDuringACommitLeavesAFolderThatRunReportAndViewOpen() throws Exception {
        Path dir = tmp.resolve("killed");
        assertThat(run(dir).code()).isZero();
        Path store = dir.resolve(RunDirectory.RESULTS);

        HotJournals.make("raw", store);
        assertResumedWhole(run(dir)); // it reads the folder read-only first (is it this experiment's?)

        HotJournals.make("raw", store);
        LadderCliTest.Run report = LadderCliTest.run("report", dir.toString(), "--out", tmp.resolve("report").toString());
        assertThat(report.code()).as(report.err()).isZero();

        HotJournals.make("raw", store);
        LadderCliTest.Run view = LadderCliTest.run("view", dir.toString(), "--export", tmp.resolve("site").toString());
        assertThat(view.code()).as(view.err()).isZero();
        assertThat(tmp.resolve("site").resolve("index.html")).isRegularFile();
    }

    @Test
    void aFullDiskIsOneLineAndTheRunResumesOnceThereIsRoom() throws Exception {
        Optional<TestMounts> mounted = TestMounts.tmpfs(tmp.resolve("disk"), "100k");
        assumeThat(mounted).as("a tmpfs can be mounted (root)").isPresent();
        try (TestMounts disk = mounted.get()) {
            Path dir = disk.dir().resolve("run");
            LadderCliTest.Run full = LadderCliTest.run("run", experiment.toString(), "--out", dir.toString(),
                    "--no-generation-cache", "--no-progress");
            assertThat(full.code()).as(full.err()).isEqualTo(2);
            String last = full.err().strip().lines().reduce((a, b) -> b).orElseThrow();
            assertThat(last).matches("ladder: cannot write " + dir + "/\\S+: disk full \\(\\d+ KB free\\); free some "
                    + "space and run the command again \\(what was written before is kept whole\\)");
            assertThat(full.err()).doesNotContain("internal error").doesNotContain("\tat ");

            disk.resize("8m");
            LadderCliTest.Run again = LadderCliTest.run("run", experiment.toString(), "--out", dir.toString(),
                    "--no-generation-cache", "--no-progress");
            assertThat(again.code()).as(again.err()).isZero();
            assertThat(again.out()).containsPattern("1 cells: \\d items answered, \\d already done");
            assertThat(dir.resolve("report").resolve("report.md")).isRegularFile();
        }
    }
}
