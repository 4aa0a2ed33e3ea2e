package dev.ladder.pipeline.search;

import dev.ladder.pipeline.oracle.OracleTeacher;
import dev.ladder.pipeline.strategy.Pipeline;
import dev.ladder.pipeline.strategy.SettingsBlock;
import dev.ladder.pipeline.strategy.Strategy;
import java.util.List;

/** Two-phase structured search as a plugin (registered in META-INF/services/dev.ladder.pipeline.strategy.Pipeline). */
public final class StructuredSearchPipeline implements Pipeline {

    @Override
    public String name() {
        return "structured-search";
    }

    @Override
    public List<Strategy> strategies() {
        return List.of(new StructuredSearchStrategy());
    }

    @Override
    public SettingsBlock<?> settings() {
        return SearchSettings.BLOCK;
    }

    @Override
    public List<OracleTeacher> oracleTeachers() {
        return List.of(new SearchTeacher());
    }

    @Override
    public int order() {
        return 10;
    }

    /** A repaired candidate won. */
    @Override
    public boolean laterStageChose(String chosen) {
        return chosen != null && chosen.startsWith(RepairLoop.REPAIR + "-");
    }
}
