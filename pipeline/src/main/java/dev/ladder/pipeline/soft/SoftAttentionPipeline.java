package dev.ladder.pipeline.soft;

import dev.ladder.pipeline.oracle.OracleTeacher;
import dev.ladder.pipeline.strategy.Pipeline;
import dev.ladder.pipeline.strategy.SettingsBlock;
import dev.ladder.pipeline.strategy.Strategy;
import java.util.List;

/** Soft schema attention as a plugin (registered in META-INF/services/dev.ladder.pipeline.strategy.Pipeline). */
public final class SoftAttentionPipeline implements Pipeline {

    @Override
    public String name() {
        return "soft-attention";
    }

    @Override
    public List<Strategy> strategies() {
        return List.of(new SoftAttentionStrategy());
    }

    @Override
    public SettingsBlock<?> settings() {
        return SoftSettings.BLOCK;
    }

    @Override
    public List<OracleTeacher> oracleTeachers() {
        return List.of(new SoftTeacher());
    }

    @Override
    public int order() {
        return 30;
    }

    /** A refinement cycle's attempt won. */
    @Override
    public boolean laterStageChose(String chosen) {
        return chosen != null && chosen.matches("attempt-\\d+") && !chosen.equals("attempt-1");
    }
}
