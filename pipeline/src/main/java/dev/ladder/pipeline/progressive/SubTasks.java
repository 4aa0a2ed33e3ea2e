package dev.ladder.pipeline.progressive;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ladder.pipeline.kit.AskWithFix;
import dev.ladder.pipeline.prompt.PromptTemplates;
import dev.ladder.pipeline.strategy.JsonReply;
import dev.ladder.pipeline.strategy.Work;
import dev.ladder.sql.Dialect;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Stage 1: confident sub-task extraction. One call ({@code subtasks.txt}, or {@code alternative.txt} for a branch
 * that decomposes again after a rejected answer) for sub-tasks with fragments, confidences in [0, 1] and
 * dependencies, as strict JSON; the prompt asks for the columns to return as a sub-task of its own; a reply that does not read gets one fix call ({@code subtasks-fix.txt}),
 * then the stage fails with its reason. A sub-task without an id or description is dropped; a confidence outside
 * [0, 1] or missing is clamped (missing: 0.5); dependencies on unknown ids or on itself are dropped, each with a note.
 */
final class SubTasks {

    static final String FOLDER = "dev/ladder/pipeline/progressive/";

    /** The sub-tasks, or why there are none, and what was dropped or mended. */
    record Extracted(List<SubTask> tasks, String failure, List<String> notes) {}

    private SubTasks() {}

    static Extracted extract(Work work, ProgressiveSettings s) {
        Dialect d = work.ctx.db().dialect();
        String prompt = PromptTemplates.chat(work.ctx.format(), FOLDER, "subtasks", Map.of("dialect", d.label(),
                "schema", work.ctx.schemaSummary().stripTrailing(), "question", work.question.text().strip()));
        return ask(work, s, "subtasks", prompt);
    }

    /**
     * Another decomposition after a branch was not accepted ({@code alternative.txt}): the earlier sub-tasks, the SQL
     * they built and why it was judged wrong, and a request to decompose differently.
     */
    static Extracted alternative(Work work, ProgressiveSettings s, String source, List<SubTask> earlier, String sql,
                                 String reasoning) {
        Dialect d = work.ctx.db().dialect();
        String prompt = PromptTemplates.chat(work.ctx.format(), FOLDER, "alternative", Map.of("dialect", d.label(),
                "schema", work.ctx.schemaSummary().stripTrailing(), "question", work.question.text().strip(),
                "tasks", lines(earlier), "sql", sql == null || sql.isBlank() ? "(nothing executed)" : sql,
                "reasoning", reasoning == null || reasoning.isBlank() ? "(no reason given)" : reasoning.strip()));
        return ask(work, s, source, prompt);
    }

    private static Extracted ask(Work work, ProgressiveSettings s, String source, String prompt) {
        AskWithFix.Outcome<JsonNode> r = AskWithFix.ask(
                () -> work.generate(List.of(Work.Call.json(source, prompt, s.maxTokens())
                        .kind(ProgressiveTeacher.SUBTASKS))).get(0).raw(),
                reply -> reading(parse(reply)),
                (reply, error) -> {
                    String fix = PromptTemplates.chat(work.ctx.format(), FOLDER, "subtasks-fix",
                            Map.of("reply", reply.isBlank() ? "(empty)" : reply.strip(), "error", error));
                    return work.generate(List.of(Work.Call.json(source + "-fix", fix, s.maxTokens())
                            .kind(ProgressiveTeacher.SUBTASKS))).get(0).raw();
                });
        if (!r.ok()) {
            return new Extracted(List.of(), "the sub-task reply: " + r.firstError() + "; after one fix: "
                    + r.reading().error(), List.of());
        }
        return read(r.value());
    }

    /** Sub-tasks one per line, as the plan and alternative prompts show them. */
    static String lines(List<SubTask> tasks) {
        List<String> out = new ArrayList<>();
        for (SubTask t : tasks) {
            out.add("- " + t.id() + ": " + t.description() + (t.fragment().isEmpty() ? "" : " (" + t.fragment() + ")"));
        }
        return String.join("\n", out);
    }

    private static AskWithFix.Reading<JsonNode> reading(JsonReply.Parsed p) {
        return p.ok() ? AskWithFix.Reading.of(p.object()) : AskWithFix.Reading.failed(p.error());
    }

    static JsonReply.Parsed parse(String reply) {
        JsonReply.Parsed p = JsonReply.parse(reply);
        if (!p.ok()) return p;
        JsonNode list = p.object().get("subtasks");
        if (list == null || !list.isArray() || list.isEmpty()) {
            return new JsonReply.Parsed(null, "the object has no non-empty \"subtasks\" list");
        }
        return p;
    }

    static Extracted read(JsonNode object) {
        List<String> notes = new ArrayList<>();
        List<SubTask> raw = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        int i = 0;
        for (JsonNode n : object.get("subtasks")) {
            i++;
            String id = JsonReply.text(n, "id");
            String description = JsonReply.text(n, "description");
            if (id == null || id.isBlank() || description == null || description.isBlank()) {
                notes.add("sub-task " + i + ": no id or description, dropped");
                continue;
            }
            if (!ids.add(id)) {
                notes.add("sub-task " + i + ": id " + id + " repeats an earlier one, dropped");
                continue;
            }
            JsonNode c = n.get("confidence");
            double conf = c != null && c.isNumber() ? c.asDouble() : 0.5;
            if (c == null || !c.isNumber()) notes.add(id + ": no numeric confidence, read as 0.5");
            else if (conf < 0 || conf > 1) notes.add(id + ": confidence " + conf + " clamped to [0, 1]");
            conf = Math.max(0, Math.min(1, conf));
            List<String> deps = new ArrayList<>();
            JsonNode d = n.get("depends_on");
            if (d != null && d.isArray()) for (JsonNode x : d) if (x.isTextual()) deps.add(x.asText());
            String fragment = JsonReply.text(n, "fragment");
            raw.add(new SubTask(id, description.strip(), fragment == null ? "" : fragment.strip(), conf, deps));
        }
        List<SubTask> out = new ArrayList<>();
        for (SubTask t : raw) {
            List<String> deps = new ArrayList<>();
            for (String dep : t.dependsOn()) {
                if (dep.equals(t.id()) || !ids.contains(dep)) notes.add(t.id() + ": dependency " + dep + " dropped (unknown or itself)");
                else deps.add(dep);
            }
            out.add(new SubTask(t.id(), t.description(), t.fragment(), t.initialConfidence(), deps));
        }
        if (out.isEmpty()) return new Extracted(List.of(), "no usable sub-task: " + String.join("; ", notes), notes);
        return new Extracted(out, null, notes);
    }
}
