package dev.ladder.pipeline.progressive;

import dev.ladder.pipeline.oracle.OracleTeacher;
import dev.ladder.pipeline.strategy.Pipeline;
import dev.ladder.pipeline.strategy.SettingsBlock;
import dev.ladder.pipeline.strategy.Strategy;
import java.util.List;

/** Progressive execution of confident sub-tasks with an LLM judge as a plugin (registered in META-INF/services/dev.ladder.pipeline.strategy.Pipeline). */
public final class ProgressivePipeline implements Pipeline {

    @Override
    public String name() {
        return "progressive";
    }

    @Override
    public List<Strategy> strategies() {
        return List.of(new ProgressiveStrategy());
    }

    @Override
    public SettingsBlock<?> settings() {
        return ProgressiveSettings.BLOCK;
    }

    @Override
    public List<OracleTeacher> oracleTeachers() {
        return List.of(new ProgressiveTeacher());
    }

    @Override
    public List<String> diagnosisCategories() {
        return ErrorAnalysis.CATEGORIES;
    }

    @Override
    public int order() {
        return 40;
    }

    /** An alternative decomposition's branch won. */
    @Override
    public boolean laterStageChose(String chosen) {
        return chosen != null && chosen.matches("b\\d+") && !chosen.equals("b1");
    }
}
