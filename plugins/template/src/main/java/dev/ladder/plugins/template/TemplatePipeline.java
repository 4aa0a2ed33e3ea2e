package dev.ladder.plugins.template;

import dev.ladder.pipeline.strategy.Pipeline;
import dev.ladder.pipeline.strategy.SettingsBlock;
import dev.ladder.pipeline.strategy.Strategy;
import java.util.List;

/**
 * A pipeline of one's own: its strategies, its settings block and the error categories it writes. Registered by one
 * line in {@code META-INF/services/dev.ladder.pipeline.strategy.Pipeline}; nothing else in Ladder names it.
 */
public final class TemplatePipeline implements Pipeline {

    @Override
    public String name() {
        return TemplateStrategy.NAME;
    }

    @Override
    public List<Strategy> strategies() {
        return List.of(new TemplateStrategy());
    }

    @Override
    public SettingsBlock<?> settings() {
        return TemplateSettings.BLOCK;
    }

    @Override
    public List<String> diagnosisCategories() {
        return TemplateStrategy.CATEGORIES;
    }

    @Override
    public int order() {
        return 2000;
    }
}
