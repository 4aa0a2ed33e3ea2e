package dev.ladder.pipeline.search;

import dev.ladder.pipeline.strategy.Work;

/** The structured search's stage steps ({@link Work#stage}). */
final class StageSteps {

    private StageSteps() {}

    static void add(Work work, String source, String stage, String summary, Object detail) {
        work.stage(source, stage, summary, detail);
    }
}
