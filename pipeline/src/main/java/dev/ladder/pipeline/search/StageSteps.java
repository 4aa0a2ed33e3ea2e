package dev.ladder.pipeline.search;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.pipeline.strategy.TraceStep;
import dev.ladder.pipeline.strategy.Work;

/** Writes a stage's record into the trace as a {@link TraceStep.Stage} (its record as JSON). */
final class StageSteps {

    private static final ObjectMapper JSON = new ObjectMapper();

    private StageSteps() {}

    static void add(Work work, String source, String stage, String summary, Object detail) {
        work.trace.add(new TraceStep.Stage(source, stage, summary, detail == null ? null : JSON.valueToTree(detail)));
    }
}
