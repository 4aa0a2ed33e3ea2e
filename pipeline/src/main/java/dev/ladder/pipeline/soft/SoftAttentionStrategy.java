package dev.ladder.pipeline.soft;

import dev.ladder.pipeline.prompt.Example;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.Strategy;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.pipeline.strategy.Work;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.post.SqlPostProcessor;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SchemaBinding;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Soft schema attention with execution feedback ({@code soft-attention}): no schema filtering, but relevance weights
 * the prompt shows the model, then execute, judge and regenerate.
 * <ol>
 *   <li>{@link QuestionMiner}: entities and relations of the question (OpenNLP);</li>
 *   <li>{@link AttentionWeights}: a weight per table and per {@code (table, column)};</li>
 *   <li>{@link AttentionPrompt}: the weights inline and/or as a block ({@link SoftSettings#inlineWeights},
 *   {@link SoftSettings#blockWeights}); an optional exemplar and an optional reasoning instruction;</li>
 *   <li>{@link Confidence}: the attempt executed and judged;</li>
 *   <li>refinement cycles: below {@link SoftSettings#threshold}, a new attempt from the feedback and the history of
 *   every earlier attempt, at most {@link SoftSettings#cycles}; the answer is the attempt of highest confidence
 *   (the earlier on a tie).</li>
 * </ol>
 * Every call is greedy.
 */
public final class SoftAttentionStrategy implements Strategy {

    public static final String NAME = "soft-attention";

    /** One attempt as the trace and the next prompt see it. */
    record Attempt(String source, String sql, Confidence confidence) {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Answer answer(Question question, StrategyContext ctx) {
        Work work = new Work(question, ctx, NAME);
        SoftSettings s = ctx.settings().of(SoftSettings.BLOCK);
        AttentionWeights.Weights weights = null;
        if (s.inlineWeights() || s.blockWeights()) {
            QuestionMiner.Mined mined = QuestionMiner.mine(question.text());
            weights = AttentionWeights.compute(ctx.schema(), mined);
            work.stage(null, "mining", mined.entities().size() + " entit" + (mined.entities().size() == 1 ? "y" : "ies")
                    + (mined.entities().isEmpty() ? "" : ": " + String.join("; ", mined.entities())) + "; "
                    + mined.relations().size() + " relation" + (mined.relations().size() == 1 ? "" : "s"), mined);
            AttentionWeights.Weights w = weights;
            List<String> top = w.weights().entrySet().stream()
                    .sorted((a, b) -> Double.compare(b.getValue(), a.getValue())).limit(5)
                    .map(e -> e.getKey() + " " + AttentionPrompt.fmt(e.getValue())).toList();
            work.stage(null, "weights", "highest: " + String.join(", ", top), w);
        }
        Example exemplar = s.oneShot() ? ctx.exemplars().select(question.text(), 1).stream().findFirst().orElse(null) : null;
        String prompt = AttentionPrompt.generate(ctx.format(), ctx.db().dialect(), ctx.schema(), weights, s, exemplar,
                question.text());
        List<Attempt> attempts = new ArrayList<>();
        attempts.add(attempt(work, s, "attempt-1", prompt));
        Attempt best = attempts.get(0);
        int cycle = 0;
        while (best.confidence().value() < s.threshold() && cycle < s.cycles()) {
            cycle++;
            Attempt last = attempts.get(attempts.size() - 1);
            String refine = AttentionPrompt.refine(ctx.format(), ctx.db().dialect(), ctx.schema(), weights, s,
                    question.text(), history(attempts), feedback(last));
            Attempt a = attempt(work, s, "attempt-" + (cycle + 1), refine);
            attempts.add(a);
            if (a.confidence().value() > best.confidence().value()) best = a;
        }
        String stop = best.confidence().value() >= s.threshold()
                ? best.source() + " reaches the threshold (" + fmt(best.confidence().value()) + " >= " + fmt(s.threshold()) + ")"
                : cycle == s.cycles() ? "no attempt reaches the threshold in " + s.cycles() + " cycle" + (s.cycles() == 1 ? "" : "s")
                : "stopped";
        if (best.sql() == null) {
            Attempt withSql = attempts.stream().filter(a -> a.sql() != null).findFirst().orElse(null);
            if (withSql == null) return work.answer("", "none", "no attempt gave SQL; " + stop);
            best = withSql;
        }
        return work.answer(best.sql(), best.source(), "the attempt of highest confidence (" + fmt(best.confidence().value())
                + "); " + stop);
    }

    /** One greedy call, its SQL (reasoning stripped by the post-processor), its execution and confidence. */
    private static Attempt attempt(Work work, SoftSettings s, String source, String prompt) {
        String raw = work.generate(List.of(Work.Call.free(source, prompt, s.maxTokens(), 0, 0)
                .kind(s.chainOfThought() ? SoftTeacher.REASONED : SoftTeacher.SQL_BLOCK))).get(0).raw();
        SqlPostProcessor.Cleaned c = work.clean(new Work.Output(source, raw));
        Confidence conf;
        if (!c.ok()) {
            conf = new Confidence(0, false, null, List.of("no SQL statement could be read from the reply (" + c.rejection() + ")"),
                    Map.of());
        } else {
            Execution e = work.execute(source, c.sql());
            Query q = Query.read(c.sql(), work.ctx.db().dialect());
            SchemaBinding b = q.binding(work.ctx.schema());
            conf = Confidence.of(e, q, b, s);
        }
        work.stage(source, "confidence", fmt(conf.value()) + (conf.issues().isEmpty() ? "" : "; " + String.join("; ", conf.issues())), conf);
        return new Attempt(source, c.ok() ? c.sql() : null, conf);
    }

    /** Every earlier attempt: its SQL, confidence and issues (the history the refinement prompt carries). */
    static String history(List<Attempt> attempts) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < attempts.size(); i++) {
            Attempt a = attempts.get(i);
            out.add((i + 1) + ". " + (a.sql() == null ? "(no SQL)" : a.sql()) + "\n   confidence " + fmt(a.confidence().value())
                    + (a.confidence().rows() == null ? "" : ", " + a.confidence().rows() + " rows")
                    + (a.confidence().issues().isEmpty() ? "" : "; " + String.join("; ", a.confidence().issues())));
        }
        return String.join("\n", out);
    }

    static String feedback(Attempt last) {
        if (!last.confidence().issues().isEmpty()) return String.join("; ", last.confidence().issues());
        return "its confidence (" + fmt(last.confidence().value()) + ") is below the threshold; check the row count and the columns";
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    @Override
    public boolean usesSeed(Settings settings) {
        return false;
    }

    /** Every call asks for the block's budget (the rung's {@code max_new_tokens} unless the block overrides it). */
    @Override
    public int tokenBudget(Settings settings) {
        return settings.of(SoftSettings.BLOCK).maxTokens();
    }

    @Override
    public String toString() {
        return NAME;
    }
}
