package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.sql.db.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ladder bench ladder}: a real sample of an experiment (the oracle engine on the train split, answers that run,
 * so every cell does its full work) scaled to the whole selection, in one table.
 */
class BenchLadderTest {

    @TempDir static Path tmp;

    @BeforeAll
    static void data() {
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
    }

    @Test
    void aSampleOfEveryCellIsRunAndScaledToTheFullSelection() throws Exception {
        Path yaml = tmp.resolve("estimate.yaml");
        Files.writeString(yaml, """
                name: estimate
                benchmark: classicmodels
                split: train
                limit: 30
                output: %s
                models:
                  oracle: {engine: oracle, noise: low}
                strategies:
                  - {name: prompt-k0, strategy: prompt-k0, model: oracle}
                  - {name: agent-1, strategy: agent-1, model: oracle}
                scorers: {ts: none}
                """.formatted(tmp.resolve("never-written")));
        Path kept = tmp.resolve("sample");
        LadderCliTest.Run r = LadderCliTest.run("bench", "ladder", yaml.toString(), "--sample", "3", "--keep", kept.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("running 3 of 30 items through 2 cells of estimate (stratified sample)");
        assertThat(r.out()).startsWith("estimate on this machine: 3 of 30 items per cell measured in ")
                .contains("(batch width 1)")
                .contains("est. for 30 items").containsPattern("(?m)^prompt-k0 +3 ").containsPattern("(?m)^agent-1 +3 ")
                .contains("once per run").contains("estimated wall time: ");
        try (ResultsStore store = ResultsStore.openReadOnly(kept.resolve(RunDirectory.RESULTS))) {
            assertThat(store.results()).hasSize(6).allSatisfy(row -> assertThat(row.calls()).isPositive());
        }
        // the experiment's own output is never touched
        assertThat(tmp.resolve("never-written")).doesNotExist();

        // one item at a time beside three together: the oracle answers a request the same in any batch
        LadderCliTest.Run both = LadderCliTest.run("bench", "ladder", yaml.toString(), "--sample", "3", "--batch-width", "3");
        assertThat(both.code()).as(both.err()).isZero();
        assertThat(both.err()).contains("one item at a time, then 3 items together");
        assertThat(both.out()).contains("(batch width 3)").contains("the whole job, 2 cells x 3 items, on ")
                .containsPattern("(?m)^ +one at a time +3 items together$").containsPattern("(?m)^sample wall time ")
                .containsPattern("(?m)^generated tok/s ").containsPattern("(?m)^load \\(1 min\\) before, after ")
                .contains("predictions identical: yes (6 of 6 rows)");

        LadderCliTest.Run zero = LadderCliTest.run("bench", "ladder", yaml.toString(), "--sample", "0");
        assertThat(zero.code()).isEqualTo(2);
        assertThat(zero.err().strip()).isEqualTo("ladder: --sample must be >= 1, got 0");
        LadderCliTest.Run again = LadderCliTest.run("bench", "ladder", yaml.toString(), "--keep", kept.toString());
        assertThat(again.code()).isEqualTo(2);
        assertThat(again.err().strip()).isEqualTo("ladder: --keep " + kept + " exists; name a new directory");
    }
}
