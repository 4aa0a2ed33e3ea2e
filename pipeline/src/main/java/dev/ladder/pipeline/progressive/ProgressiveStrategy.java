package dev.ladder.pipeline.progressive;

import dev.ladder.pipeline.judge.SqlJudge;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.Strategy;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.pipeline.strategy.Work;
import dev.ladder.sql.db.Execution;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Confident sub-tasks executed progressively, with an LLM judge as reward ({@code progressive}).
 * <ol>
 *   <li>{@link SubTasks}: sub-tasks with fragments, confidences and dependencies, as strict JSON, the columns to
 *   return among them;</li>
 *   <li>the plan ({@link ProgressiveSettings#usePlan}): the model's {@link ThreeStepPlan} (tables, operations,
 *   columns to return), shown when each step is written, and the dependency order ({@link QueryPlan}), which
 *   constrains which sub-task may run next;</li>
 *   <li>{@link ProgressiveRun}: the SQL built one confident step at a time (sub-tasks at or above the high-confidence
 *   threshold together), each step executed, the open sub-tasks re-scored with the new context
 *   ({@link ProgressiveSettings#recalculate});</li>
 *   <li>the semantic reward: 1.0 when the final SQL executes and the judge ({@link SqlJudge}, the context's judge
 *   model) says CORRECT, else 0; accepted at {@link ProgressiveSettings#acceptance};</li>
 *   <li>alternatives ({@link ProgressiveSettings#multiBranch}, the method's beam): below acceptance, the model
 *   decomposes the question again, told the rejected SQL and the judge's reason, and the new decomposition runs as the
 *   next branch, until one is accepted or {@code beamWidth} branches ran; the branch with the best cumulative reward
 *   (reward + 0.1 × the share of sub-tasks it completed) wins, the earlier on a tie;</li>
 *   <li>{@link ErrorAnalysis}: a failed answer's category, from the database error, the structure, then the judge.</li>
 * </ol>
 * The answer is the chosen branch's SQL (empty when nothing executed), accepted or not; the trace and the decision say
 * which, and which sub-tasks were given up.
 */
public final class ProgressiveStrategy implements Strategy {

    public static final String NAME = "progressive";
    /** Weight of a branch's completed share in its cumulative reward (so completion breaks a tie of rewards). */
    static final double COMPLETION_WEIGHT = 0.1;

    /** A branch as the trace records it (its execution is in the trace's execute steps). */
    record Progress(String branch, String sql, List<String> done, List<String> givenUp,
                    Map<String, List<Double>> confidences, ExecutionContext.Snapshot context, int iterations,
                    List<ProgressiveRun.Step> steps) {}

    /** The judge's verdict on a branch, as the trace records it. */
    record Reward(String branch, double reward, boolean executes, Boolean correct, String reasoning, double cumulative) {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Answer answer(Question question, StrategyContext ctx) {
        Work work = new Work(question, ctx, NAME);
        ProgressiveSettings s = ctx.settings().of(ProgressiveSettings.BLOCK);
        SubTasks.Extracted ex = SubTasks.extract(work, s);
        traceSubTasks(work, "subtasks", ex);
        if (ex.failure() != null) return work.answer("", "none", "no sub-tasks: " + ex.failure());

        List<ProgressiveRun.Outcome> branches = new ArrayList<>();
        List<Reward> rewards = new ArrayList<>();
        List<SubTask> tasks = ex.tasks();
        String notTaken = null;
        while (true) {
            String branch = "b" + (branches.size() + 1);
            ProgressiveRun.Outcome o = branch(work, s, branch, tasks);
            branches.add(o);
            Reward r = reward(work, s, o, tasks.size());
            rewards.add(r);
            // the method: below the acceptance reward, generate an alternative and keep the best branch
            if (r.reward() >= s.acceptance() || !s.multiBranch() || branches.size() >= s.beamWidth()) break;
            String source = "b" + (branches.size() + 1) + "-subtasks";
            SubTasks.Extracted alt = SubTasks.alternative(work, s, source, tasks, o.sql(), r.reasoning());
            traceSubTasks(work, source, alt);
            if (alt.failure() != null) {
                notTaken = "no alternative decomposition (" + alt.failure() + ")";
                break;
            }
            tasks = alt.tasks();
        }
        int best = 0;
        for (int i = 1; i < rewards.size(); i++) if (rewards.get(i).cumulative() > rewards.get(best).cumulative()) best = i;
        ProgressiveRun.Outcome chosen = branches.get(best);
        Reward r = rewards.get(best);
        boolean accepted = r.reward() >= s.acceptance();
        if (!accepted) {
            ErrorAnalysis.Finding f = ErrorAnalysis.classify(new ErrorAnalysis.Inputs(ctx.schema(), ctx.db().dialect(),
                    question.text(), work.intent(), chosen.sql(), chosen.execution(), r.reasoning()));
            work.stage(chosen.branch(), "error-analysis", f.category(), Map.of("category", f.category(),
                    "evidence", f.evidence()));
        }
        String decision = (accepted ? "accepted" : "not accepted") + String.format(Locale.ROOT, " (reward %.1f", r.reward())
                + (r.correct() == null ? "" : r.correct() ? ", the judge says CORRECT" : ", the judge says NOT CORRECT")
                + (r.executes() ? "" : ", it does not execute") + ")"
                + (branches.size() > 1 ? "; branch " + chosen.branch() + " of " + branches.size() : "")
                + (chosen.givenUp().isEmpty() ? "" : "; given up: " + String.join(", ", chosen.givenUp()))
                + (notTaken == null ? "" : "; " + notTaken);
        if (chosen.sql().isEmpty()) return work.answer("", "none", decision + "; no step executed");
        return work.answer(chosen.sql(), chosen.branch(), decision);
    }

    private static void traceSubTasks(Work work, String source, SubTasks.Extracted ex) {
        work.stage(source, "subtasks", ex.failure() != null ? ex.failure()
                : ex.tasks().size() + " sub-task" + (ex.tasks().size() == 1 ? "" : "s") + ": " + String.join("; ",
                        ex.tasks().stream().map(t -> t.id() + " " + fmt(t.initialConfidence())).toList())
                        + (ex.notes().isEmpty() ? "" : "; " + String.join("; ", ex.notes())), ex);
    }

    /** One branch: its plan (the dependency order, and the model's three steps when the plan is on), then its run. */
    private static ProgressiveRun.Outcome branch(Work work, ProgressiveSettings s, String branch, List<SubTask> tasks) {
        QueryPlan plan = QueryPlan.of(tasks);
        ThreeStepPlan steps = null;
        if (s.usePlan()) steps = ThreeStepPlan.ask(work, s, branch.equals("b1") ? "plan" : branch + "-plan", tasks);
        work.stage(branch, "plan", String.join(" -> ", plan.order()) + (plan.notes().isEmpty() ? ""
                : "; " + String.join("; ", plan.notes())) + (s.usePlan() ? "; " + steps.summary()
                : " (not used: use_plan is off)"), Map.of("order", plan, "steps", steps == null ? Map.of() : steps));
        return ProgressiveRun.run(work, s, tasks, plan, steps, branch);
    }

    private static Reward reward(Work work, ProgressiveSettings s, ProgressiveRun.Outcome o, int total) {
        work.stage(o.branch(), "progress", o.done().size() + " of " + total + " sub-tasks done in " + o.iterations()
                + " step" + (o.iterations() == 1 ? "" : "s") + (o.givenUp().isEmpty() ? "" : "; given up: "
                + String.join(", ", o.givenUp())), new Progress(o.branch(), o.sql(), o.done(), o.givenUp(),
                o.confidences(), o.context(), o.iterations(), o.steps()));
        boolean executes = o.execution() instanceof Execution.Success && !o.sql().isEmpty();
        Boolean correct = null;
        String reasoning = executes ? null : "the SQL does not execute" + (o.sql().isEmpty() ? " (no step executed)" : "");
        if (executes) {
            var judge = work.ctx.judgeModel();
            // the pipeline's own reward prompt: the judge metric asks with judge.txt, so the generation cache can
            // never hand the metric this pipeline's verdict
            String prompt = SqlJudge.prompt(judge, SubTasks.FOLDER, "reward", work.ctx.db().dialect(), work.ctx.schema(),
                    work.question.text(), o.sql(), o.execution());
            String raw = work.generate(judge, List.of(Work.Call.free(o.branch() + "-judge", prompt, SqlJudge.MAX_TOKENS, 0, 0)
                    .kind(SqlJudge.KIND, Map.of(SqlJudge.FACT_SQL, o.sql()))))
                    .get(0).raw();
            SqlJudge.Verdict v = SqlJudge.read(raw, prompt, 0, 0);
            correct = v.correct();
            reasoning = v.reasoning();
        }
        double reward = executes && Boolean.TRUE.equals(correct) ? 1.0 : 0.0;
        double cumulative = reward + COMPLETION_WEIGHT * (total == 0 ? 0 : (double) o.done().size() / total);
        Reward r = new Reward(o.branch(), reward, executes, correct, reasoning, Math.round(cumulative * 1000) / 1000.0);
        work.stage(o.branch() + "-judge", "reward", fmt(reward) + (correct == null ? "" : correct ? " (CORRECT)" : " (NOT CORRECT)")
                + (reasoning == null ? "" : ": " + reasoning), r);
        return r;
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    @Override
    public boolean usesSeed(Settings settings) {
        return false;
    }

    /** The block's budget for the pipeline's own calls, or the reward judge's, whichever is larger. */
    @Override
    public int tokenBudget(Settings settings) {
        return Math.max(settings.of(ProgressiveSettings.BLOCK).maxTokens(), SqlJudge.MAX_TOKENS);
    }

    @Override
    public String toString() {
        return NAME;
    }
}
