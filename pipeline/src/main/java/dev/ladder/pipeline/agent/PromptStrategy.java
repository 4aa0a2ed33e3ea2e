package dev.ladder.pipeline.agent;

import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.Strategy;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.pipeline.strategy.Work;
import java.util.List;

/**
 * The prompt-only rungs ({@code prompt-k0}, {@code prompt-k3}): the standard prompt with {@code k} exemplars of the
 * context's rule, one greedy completion, {@code SqlPostProcessor}. The cleaned SQL is the answer ({@code ""} when
 * post-processing rejects the output); nothing is executed. {@link Settings#k} does not apply: the name fixes k.
 */
public final class PromptStrategy implements Strategy {

    private final String name;
    private final int k;

    /** @param k exemplars in the prompt */
    public PromptStrategy(String name, int k) {
        if (k < 0) throw new IllegalArgumentException("k must be >= 0, got " + k);
        this.name = name;
        this.k = k;
    }

    @Override
    public String name() {
        return name;
    }

    public int k() {
        return k;
    }

    @Override
    public Answer answer(Question question, StrategyContext context) {
        AgentWork work = new AgentWork(question, context, name);
        Work.Output output = work.generate(List.of(Work.Call.greedy(AgentWork.STANDARD, work.standardPrompt(work.exemplars(k))))).get(0);
        var cleaned = work.clean(output);
        if (!cleaned.ok()) return work.answer("", "none", "post-processing rejected the output");
        return work.answer(cleaned.sql(), AgentWork.STANDARD, "the cleaned greedy output (prompt only: not executed)");
    }

    @Override
    public String toString() {
        return name;
    }
}
