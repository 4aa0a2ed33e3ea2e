package dev.ladder.pipeline.progressive;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ladder.pipeline.prompt.PromptTemplates;
import dev.ladder.pipeline.strategy.JsonReply;
import dev.ladder.pipeline.strategy.Work;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Stage 2, the method's query plan: the model's three steps for the query (the tables it reads, the operations on
 * them, the columns it returns), asked once per decomposition ({@code plan.txt}) and shown in every extension
 * prompt, so that each step is written toward the same plan. A reply that does not read leaves the steps without a
 * plan (the trace says why); it gets no fix call.
 *
 * @param error why there is no plan, or null
 */
record ThreeStepPlan(List<String> tables, List<String> operations, List<String> columns, String error) {

    ThreeStepPlan {
        tables = List.copyOf(tables);
        operations = List.copyOf(operations);
        columns = List.copyOf(columns);
    }

    static ThreeStepPlan ask(Work work, ProgressiveSettings s, String source, List<SubTask> tasks) {
        String prompt = PromptTemplates.chat(work.ctx.format(), SubTasks.FOLDER, "plan", Map.of(
                "dialect", work.ctx.db().dialect().label(), "schema", work.ctx.schemaSummary().stripTrailing(),
                "question", work.question.text().strip(), "tasks", SubTasks.lines(tasks)));
        String raw = work.generate(List.of(Work.Call.json(source, prompt, s.maxTokens())
                .kind(ProgressiveTeacher.PLAN))).get(0).raw();
        return read(raw);
    }

    static ThreeStepPlan read(String reply) {
        JsonReply.Parsed p = JsonReply.parse(reply);
        if (!p.ok()) return failed(p.error());
        List<String> tables = texts(p.object().get("tables"));
        List<String> operations = texts(p.object().get("operations"));
        List<String> columns = texts(p.object().get("columns"));
        if (tables.isEmpty() && columns.isEmpty()) return failed("the plan names no tables and no columns");
        return new ThreeStepPlan(tables, operations, columns, null);
    }

    private static ThreeStepPlan failed(String why) {
        return new ThreeStepPlan(List.of(), List.of(), List.of(), why);
    }

    boolean ok() {
        return error == null;
    }

    /** The plan as the extension prompt shows it; empty when there is none. */
    String promptText() {
        if (!ok()) return "";
        return "\nThe plan for the query:\n1. tables: " + join(tables) + "\n2. operations: " + join(operations)
                + "\n3. columns to return: " + join(columns) + "\n";
    }

    String summary() {
        return ok() ? "tables " + join(tables) + "; operations " + join(operations) + "; returns " + join(columns)
                : "no plan: " + error;
    }

    private static String join(List<String> xs) {
        return xs.isEmpty() ? "(none)" : String.join("; ", xs);
    }

    private static List<String> texts(JsonNode n) {
        List<String> out = new ArrayList<>();
        if (n != null && n.isArray()) for (JsonNode x : n) if (x.isTextual() && !x.asText().isBlank()) out.add(x.asText().strip());
        if (n != null && n.isTextual() && !n.asText().isBlank()) out.add(n.asText().strip());
        return out;
    }
}
