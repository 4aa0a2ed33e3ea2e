package dev.ladder.pipeline.gsr;

import dev.ladder.pipeline.oracle.OracleTeacher;
import dev.ladder.pipeline.strategy.Pipeline;
import dev.ladder.pipeline.strategy.SettingsBlock;
import dev.ladder.pipeline.strategy.Strategy;
import java.util.List;

/** Gradual SQL Refinement as a plugin (registered in META-INF/services/dev.ladder.pipeline.strategy.Pipeline). */
public final class GsrPipeline implements Pipeline {

    @Override
    public String name() {
        return "gsr";
    }

    @Override
    public List<Strategy> strategies() {
        return List.of(new GsrStrategy());
    }

    @Override
    public SettingsBlock<?> settings() {
        return GsrSettings.BLOCK;
    }

    @Override
    public List<OracleTeacher> oracleTeachers() {
        return List.of(new GsrTeacher());
    }

    @Override
    public int order() {
        return 20;
    }

    /** Schema linking's Second-SQL or execution refinement's Final-SQL is the answer. */
    @Override
    public boolean laterStageChose(String chosen) {
        return "second-sql".equals(chosen) || "final-sql".equals(chosen);
    }
}
