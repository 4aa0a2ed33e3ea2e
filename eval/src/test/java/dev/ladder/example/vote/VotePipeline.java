package dev.ladder.example.vote;

import dev.ladder.pipeline.strategy.Pipeline;
import dev.ladder.pipeline.strategy.SettingsBlock;
import dev.ladder.pipeline.strategy.Strategy;
import java.util.List;

/**
 * A pipeline defined only in test sources, plugged in the way every pipeline is: this class and one line in
 * {@code META-INF/services/dev.ladder.pipeline.strategy.Pipeline}. Its calls ask for one SQL statement, which the
 * oracle's SQL teacher already answers, so it declares no teacher of its own. docs/extending.md walks through it.
 */
public final class VotePipeline implements Pipeline {

    @Override
    public String name() {
        return "execution-vote";
    }

    @Override
    public List<Strategy> strategies() {
        return List.of(new ExecutionVoteStrategy());
    }

    @Override
    public SettingsBlock<?> settings() {
        return VoteSettings.BLOCK;
    }

    @Override
    public List<String> diagnosisCategories() {
        return ExecutionVoteStrategy.CATEGORIES;
    }

    @Override
    public int order() {
        return 1000;
    }
}
