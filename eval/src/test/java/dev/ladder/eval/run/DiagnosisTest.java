package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.pipeline.strategy.Trace;
import dev.ladder.pipeline.strategy.TraceStep;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A row's diagnosis is the last error-analysis stage of its trace. */
class DiagnosisTest {

    @Test
    void theLastErrorAnalysisStageIsTheDiagnosis() {
        Trace.Builder b = new Trace.Builder("q", "progressive");
        b.add(new TraceStep.Stage("b1", "reward", "0.00", null));
        assertThat(RowScorer.diagnosis(b.build("", "none", "x"))).isNull();
        b.add(new TraceStep.Stage("b1", "error-analysis", "wrong-join", null));
        b.add(new TraceStep.Stage("b2", "error-analysis", "wrong-filter", null));
        assertThat(RowScorer.diagnosis(b.build("SELECT 1", "b2", "x"))).isEqualTo("wrong-filter");
        assertThat(RowScorer.diagnosis(new Trace("q", "prompt-k0", "", "none", "x", 0, 0, 0, List.of()))).isNull();
    }
}
