package dev.ladder.plugins.template;

import dev.ladder.pipeline.prompt.SqlPrompt;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.Strategy;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.pipeline.strategy.Work;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.post.SqlPostProcessor.Cleaned;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One greedy call of the standard prompt (with the rung's k exemplars), cleaned, and, with {@code check}, executed
 * before it is returned. Every call, clean-up and execution is a trace step through {@link Work}, so the run's costs,
 * traces and the oracle engine treat it like any rung. Replace the body with your method.
 */
public final class TemplateStrategy implements Strategy {

    public static final String NAME = "template";
    /** The error-analysis categories this strategy writes (the report counts them by rung). */
    public static final List<String> CATEGORIES = List.of("does-not-execute");

    private static final String HINT = readResource("hint.txt");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Answer answer(Question question, StrategyContext ctx) {
        TemplateSettings s = ctx.settings().of(TemplateSettings.BLOCK);
        Work work = new Work(question, ctx, NAME);
        String text = s.hint() ? question.text() + "\n" + HINT : question.text();
        String prompt = SqlPrompt.of(ctx.format()).prompt(ctx.schemaSummary(),
                ctx.settings().k() == 0 ? List.of() : ctx.exemplars().select(question.text(), ctx.settings().k()), text);
        Work.Output out = work.generate(List.of(Work.Call.greedy("answer", prompt))).get(0);
        Cleaned c = work.clean(out);
        if (!c.ok()) return work.answer("", "none", "the reply holds no SQL");
        if (s.check() && !(work.execute(out.source(), c.sql()) instanceof Execution.Success)) {
            work.stage(null, "error-analysis", CATEGORIES.get(0), null);
        }
        return work.answer(c.sql(), out.source(), s.check() ? "the reply, executed" : "the reply");
    }

    private static String readResource(String name) {
        try (InputStream in = TemplateStrategy.class.getResourceAsStream(name)) {
            if (in == null) throw new IllegalStateException("missing resource " + name + " beside " + TemplateStrategy.class);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return NAME;
    }
}
