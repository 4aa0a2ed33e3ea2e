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
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Confident sub-tasks executed progressively, with an LLM judge as reward ({@code progressive}).
 * <ol>
 *   <li>{@link SubTasks}: sub-tasks with fragments, confidences and dependencies, as strict JSON;</li>
 *   <li>{@link QueryPlan}: a dependency order, which constrains progressive execution
 *   ({@link ProgressiveSettings#usePlan});</li>
 *   <li>{@link ProgressiveRun}: the SQL built one confident step at a time, each step executed, the open sub-tasks
 *   re-scored with the new context ({@link ProgressiveSettings#recalculate});</li>
 *   <li>the semantic reward: 1.0 when the final SQL executes and the judge ({@link SqlJudge}, the context's judge
 *   model) says CORRECT, else 0; accepted at {@link ProgressiveSettings#acceptance};</li>
 *   <li>multi-branch mode ({@link ProgressiveSettings#multiBranch}): below acceptance, the other
 *   {@code beamWidth − 1} first steps are tried as branches; the branch with the best cumulative reward (reward +
 *   0.1 × the share of sub-tasks it completed) wins, the earlier on a tie;</li>
 *   <li>{@link ErrorAnalysis}: a failed answer's category.</li>
 * </ol>
 * The answer is the chosen branch's SQL (empty when nothing executed), accepted or not; the trace says which.
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
        work.stage("subtasks", "subtasks", ex.failure() != null ? ex.failure()
                : ex.tasks().size() + " sub-task" + (ex.tasks().size() == 1 ? "" : "s") + ": " + String.join("; ",
                        ex.tasks().stream().map(t -> t.id() + " " + fmt(t.initialConfidence())).toList())
                        + (ex.notes().isEmpty() ? "" : "; " + String.join("; ", ex.notes())), ex);
        if (ex.failure() != null) return work.answer("", "none", "no sub-tasks: " + ex.failure());
        QueryPlan plan = QueryPlan.of(ex.tasks());
        work.stage(null, "plan", String.join(" -> ", plan.order()) + (plan.notes().isEmpty() ? ""
                : "; " + String.join("; ", plan.notes())) + (s.usePlan() ? "" : " (not used: use_plan is off)"), plan);

        List<ProgressiveRun.Outcome> branches = new ArrayList<>();
        List<Reward> rewards = new ArrayList<>();
        branches.add(ProgressiveRun.run(work, s, ex.tasks(), plan, "b1", null));
        rewards.add(reward(work, s, branches.get(0), ex.tasks().size()));
        if (rewards.get(0).reward() < s.acceptance() && s.multiBranch()) {
            List<String> firsts = firstChoices(ex.tasks(), plan, s);
            for (int b = 1; b < s.beamWidth() && b < firsts.size(); b++) {
                ProgressiveRun.Outcome o = ProgressiveRun.run(work, s, ex.tasks(), plan, "b" + (b + 1), firsts.get(b));
                branches.add(o);
                rewards.add(reward(work, s, o, ex.tasks().size()));
            }
        }
        int best = 0;
        for (int i = 1; i < rewards.size(); i++) if (rewards.get(i).cumulative() > rewards.get(best).cumulative()) best = i;
        ProgressiveRun.Outcome chosen = branches.get(best);
        Reward r = rewards.get(best);
        boolean accepted = r.reward() >= s.acceptance();
        if (!accepted) {
            String category = ErrorAnalysis.classify(chosen.execution(), r.reasoning());
            work.stage(chosen.branch(), "error-analysis", category, Map.of("category", category));
        }
        String decision = (accepted ? "accepted" : "not accepted") + String.format(Locale.ROOT, " (reward %.1f", r.reward())
                + (r.correct() == null ? "" : r.correct() ? ", the judge says CORRECT" : ", the judge says NOT CORRECT")
                + (r.executes() ? "" : ", it does not execute") + ")"
                + (branches.size() > 1 ? "; branch " + chosen.branch() + " of " + branches.size() : "");
        if (chosen.sql().isEmpty()) return work.answer("", "none", decision + "; no step executed");
        return work.answer(chosen.sql(), chosen.branch(), decision);
    }

    /** The first step of each branch: the sub-tasks the plan allows first, most confident first. */
    static List<String> firstChoices(List<SubTask> tasks, QueryPlan plan, ProgressiveSettings s) {
        return tasks.stream().filter(t -> !s.usePlan() || plan.ready(t.id(), Set.of()))
                .sorted(Comparator.comparingDouble((SubTask t) -> -t.initialConfidence())
                        .thenComparingInt(t -> plan.position(t.id())))
                .map(SubTask::id).toList();
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
            String prompt = SqlJudge.prompt(judge, work.ctx.db().dialect(), work.ctx.schema(), work.question.text(),
                    o.sql(), o.execution());
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

    @Override
    public String toString() {
        return NAME;
    }
}
