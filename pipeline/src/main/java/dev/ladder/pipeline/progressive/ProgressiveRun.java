package dev.ladder.pipeline.progressive;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ladder.pipeline.prompt.PromptTemplates;
import dev.ladder.pipeline.strategy.JsonReply;
import dev.ladder.pipeline.strategy.Work;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.post.SqlPostProcessor;
import dev.ladder.sql.read.SchemaBinding;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Stage 3: one branch of progressive execution. Repeatedly: among the sub-tasks the plan allows next (their
 * dependencies done; every open sub-task when the plan is off), take the most confident, and with it every other one
 * at or above {@link ProgressiveSettings#highConfidence} when it is there too (confident sub-tasks are executed at
 * once, in one step); the model extends the current SQL with them ({@code extend.txt}, with the accumulated
 * {@link ExecutionContext} and the model's {@link ThreeStepPlan}); the extension is executed
 * and kept when it runs, else retried with its error up to {@link ProgressiveSettings#retries} times, then the
 * sub-task is given up (it counts as done for the plan, so the rest can go on). After each step the open sub-tasks
 * below {@link ProgressiveSettings#highConfidence} are re-scored with the new context ({@code rescore.txt}). At most
 * {@link ProgressiveSettings#maxIterations} steps.
 */
final class ProgressiveRun {

    /** One try of one step. */
    record Step(int iteration, String task, int attempt, String sql, boolean executed, String error) {}

    /**
     * @param confidences every sub-task's confidences over time: the initial one, then each re-scoring
     */
    record Outcome(String branch, String sql, Execution execution, List<String> done, List<String> givenUp,
                   Map<String, List<Double>> confidences, ExecutionContext.Snapshot context, int iterations,
                   List<Step> steps) {}

    private ProgressiveRun() {}

    /**
     * @param threeSteps the model's plan shown in every extension prompt (null or failed: none)
     */
    static Outcome run(Work work, ProgressiveSettings s, List<SubTask> tasks, QueryPlan plan, ThreeStepPlan threeSteps,
                       String branch) {
        Map<String, SubTask> byId = new LinkedHashMap<>();
        tasks.forEach(t -> byId.put(t.id(), t));
        Map<String, Double> confidence = new LinkedHashMap<>();
        Map<String, List<Double>> history = new LinkedHashMap<>();
        for (SubTask t : tasks) {
            confidence.put(t.id(), t.initialConfidence());
            history.put(t.id(), new ArrayList<>(List.of(t.initialConfidence())));
        }
        Set<String> open = new LinkedHashSet<>(byId.keySet());
        Set<String> resolved = new LinkedHashSet<>();
        List<String> done = new ArrayList<>();
        List<String> givenUp = new ArrayList<>();
        List<Step> steps = new ArrayList<>();
        ExecutionContext context = new ExecutionContext();
        String planText = threeSteps == null ? "" : threeSteps.promptText();
        String sql = null;
        Execution execution = null;
        int iteration = 0;
        while (!open.isEmpty() && iteration < s.maxIterations()) {
            iteration++;
            List<String> ready = open.stream().filter(id -> !s.usePlan() || plan.ready(id, resolved))
                    .sorted(Comparator.comparingDouble((String id) -> -confidence.get(id)).thenComparingInt(plan::position))
                    .toList();
            if (ready.isEmpty()) break;
            // the most confident ready sub-task; when it is at or above the high-confidence threshold, every other
            // ready sub-task there too goes in the same step: confident work is executed at once
            List<String> taken = new ArrayList<>(List.of(ready.get(0)));
            if (confidence.get(ready.get(0)) >= s.highConfidence()) {
                ready.stream().skip(1).filter(id -> confidence.get(id) >= s.highConfidence()).forEach(taken::add);
            }
            String id = String.join("+", taken);
            String description = String.join("; ", taken.stream().map(t -> byId.get(t).description()).toList());
            String fragment = String.join(" ", taken.stream().map(t -> byId.get(t).fragment()).filter(f -> !f.isEmpty()).toList());
            String error = null;
            boolean kept = false;
            for (int attempt = 1; attempt <= 1 + s.retries() && !kept; attempt++) {
                String source = branch + "-step-" + iteration + (attempt > 1 ? "-retry-" + (attempt - 1) : "");
                String prompt = PromptTemplates.chat(work.ctx.format(), SubTasks.FOLDER, "extend", Map.of(
                        "dialect", work.ctx.db().dialect().label(), "schema", work.ctx.schemaSummary().stripTrailing(),
                        "question", work.question.text().strip(), "plan", planText,
                        "sql", sql == null ? "(none yet)" : sql,
                        "context", context.text(), "task", description,
                        "fragment", fragment.isEmpty() ? "(none)" : fragment,
                        "error", error == null ? "" : "The last try failed: " + error + "\n"));
                String raw = work.generate(List.of(Work.Call.free(source, prompt, s.maxTokens(), 0, 0)
                        .kind(ProgressiveTeacher.SQL_BLOCK))).get(0).raw();
                SqlPostProcessor.Cleaned c = work.clean(new Work.Output(source, raw));
                if (!c.ok()) {
                    error = "no SQL statement could be read (" + c.rejection() + ")";
                    steps.add(new Step(iteration, id, attempt, null, false, error));
                    continue;
                }
                Execution e = work.execute(source, c.sql());
                if (e instanceof Execution.Success ok) {
                    sql = c.sql();
                    execution = e;
                    SchemaBinding b = ExecutionContext.bind(sql, work.ctx.db());
                    context.record(id, sql, b, ok.result());
                    steps.add(new Step(iteration, id, attempt, c.sql(), true, null));
                    kept = true;
                } else {
                    error = ((Execution.Failure) e).error().toString();
                    steps.add(new Step(iteration, id, attempt, c.sql(), false, error));
                }
            }
            open.removeAll(taken);
            resolved.addAll(taken);
            (kept ? done : givenUp).addAll(taken);
            if (s.recalculate() && kept) rescore(work, s, branch, iteration, sql, context, open, byId, confidence, history);
        }
        return new Outcome(branch, sql == null ? "" : sql, execution, done, givenUp, history, context.snapshot(), iteration, steps);
    }

    /** One call re-scores the open sub-tasks below the high-confidence threshold; an unreadable reply changes none. */
    private static void rescore(Work work, ProgressiveSettings s, String branch, int iteration, String sql,
                                ExecutionContext context, Set<String> open, Map<String, SubTask> byId,
                                Map<String, Double> confidence, Map<String, List<Double>> history) {
        List<String> low = open.stream().filter(id -> confidence.get(id) < s.highConfidence()).toList();
        if (low.isEmpty()) return;
        List<String> lines = new ArrayList<>();
        for (String id : low) {
            lines.add("- " + id + ": " + byId.get(id).description() + (byId.get(id).fragment().isEmpty() ? ""
                    : " (" + byId.get(id).fragment() + ")") + String.format(Locale.ROOT, ", confidence so far %.2f", confidence.get(id)));
        }
        String prompt = PromptTemplates.chat(work.ctx.format(), SubTasks.FOLDER, "rescore", Map.of(
                "question", work.question.text().strip(), "sql", sql, "context", context.text(),
                "tasks", String.join("\n", lines)));
        String raw = work.generate(List.of(Work.Call.json(branch + "-rescore-" + iteration, prompt, s.maxTokens())
                .kind(ProgressiveTeacher.RESCORE, Map.of(ProgressiveTeacher.FACT_TASKS, String.join(",", low))))).get(0).raw();
        JsonReply.Parsed p = JsonReply.parse(raw);
        JsonNode map = p.ok() ? p.object().get("confidences") : null;
        if (map == null || !map.isObject()) return;
        for (Iterator<Map.Entry<String, JsonNode>> it = map.fields(); it.hasNext(); ) {
            var e = it.next();
            if (!low.contains(e.getKey()) || !e.getValue().isNumber()) continue;
            double v = Math.max(0, Math.min(1, e.getValue().asDouble()));
            confidence.put(e.getKey(), v);
            history.get(e.getKey()).add(v);
        }
    }
}
