package dev.ladder.eval.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.run.ExperimentRunner;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.scorer.testsuite.TestSuite;
import dev.ladder.sql.db.UserError;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TS means "on this suite": runs scored on suites of different contents are not put side by side. */
class SuiteFingerprintReportTest {

    private static Report.Run run(String name, String print, boolean withTs) {
        Map<String, String> meta = print == null ? Map.of() : Map.of("ts.fingerprint", print);
        return new Report.Run(name, SyntheticRun.cells(), SyntheticRun.results(withTs), new RunInfo(null, Map.of(), meta));
    }

    @Test
    void tsOfDifferentSuitesIsRefusedInOneLine() {
        String a = "a".repeat(64);
        String b = "b".repeat(64);
        RunLoader.checkSameSuite(List.of(run("one", a, true), run("two", a, true)));
        // a run without TS, or one made before fingerprints were recorded, has nothing to compare
        RunLoader.checkSameSuite(List.of(run("one", a, true), run("two", b, false), run("three", null, true)));
        assertThatThrownBy(() -> RunLoader.checkSameSuite(List.of(run("one", a, true), run("two", b, true))))
                .isInstanceOf(UserError.class)
                .hasMessageContaining("different test suites").hasMessageContaining("aaaaaaaaaaaa")
                .hasMessageContaining("bbbbbbbbbbbb");
    }

    @Test
    void tsScoredOnASuiteWithoutDatabasesIsLeftOutWithTheReason(@TempDir Path dir) {
        // a run stored before empty suites were refused: its TS is EX under another name
        try (ResultsStore store = ResultsStore.open(dir.resolve(RunDirectory.RESULTS))) {
            for (Cell c : SyntheticRun.cells()) store.putCell(c);
            List<ItemResult> rows = SyntheticRun.results(true);
            for (int i = 0; i < rows.size(); i++) store.put(rows.get(i), i / 3, "{}"); // three cells per item
            store.putMeta(ExperimentRunner.TS_FINGERPRINT, TestSuite.EMPTY_FINGERPRINT);
        }
        Report.Run run = RunLoader.load(dir);
        assertThat(run.results()).hasSize(60).allSatisfy(r -> assertThat(r.ts()).isNull());
        assertThat(run.results()).anySatisfy(r -> assertThat(r.ex()).isTrue());
        assertThat(run.info().meta("ts.missing")).isEqualTo(RunLoader.EMPTY_SUITE).contains("e3b0c44298fc");
        RunLoader.checkSameSuite(List.of(run, run("other", "a".repeat(64), true)));
    }
}
