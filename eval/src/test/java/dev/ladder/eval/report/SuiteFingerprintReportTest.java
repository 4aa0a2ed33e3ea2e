package dev.ladder.eval.report;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.sql.db.UserError;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

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
}
