package dev.ladder.pipeline.search;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ladder.pipeline.kit.AskWithFix;
import dev.ladder.pipeline.strategy.JsonReply;
import dev.ladder.pipeline.strategy.Work;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Stage 1: one greedy call asks for K diverse SQL candidates as strict JSON ({@code sketch.txt}). A reply that is not
 * a JSON object with a {@code candidates} list gets one repair call ({@code sketch-fix.txt}); if that fails too, no
 * candidate comes from it and the trace says why. A candidate without SQL, or with fields of the wrong type, is
 * dropped on its own with its reason; the model's placeholder values are bound into the SQL.
 */
final class Sketches {

    static final String SKETCH = "sketch";
    static final String SKETCH_FIX = "sketch-fix";

    /** What the stage produced: the usable candidates and, for every dropped reply or candidate, why. */
    record Result(List<Sketch> sketches, List<String> dropped) {}

    private Sketches() {}

    static Result generate(Work work, SearchSettings s) {
        var ctx = work.ctx;
        String prompt = SearchPrompts.sketch(ctx.format(), ctx.db().dialect(), ctx.schemaSummary(), work.question.text(),
                s.sketches());
        Map<String, String> facts = Map.of(SearchTeacher.FACT_K, Integer.toString(s.sketches()));
        AskWithFix.Outcome<Candidates> r = AskWithFix.ask(
                () -> work.generate(List.of(Work.Call.json(SKETCH, prompt, s.sketchCallTokens())
                        .kind(SearchTeacher.SKETCHES, facts))).get(0).raw(),
                Sketches::candidatesOf,
                (reply, error) -> work.generate(List.of(Work.Call.json(SKETCH_FIX,
                        SearchPrompts.sketchFix(ctx.format(), reply, error), s.sketchCallTokens())
                        .kind(SearchTeacher.SKETCHES, facts))).get(0).raw());
        List<String> dropped = new ArrayList<>();
        if (r.fixAsked()) dropped.add("the sketch reply: " + r.firstError() + "; asked once to fix it");
        if (!r.ok()) {
            dropped.add("the fixed reply: " + r.reading().error() + "; no sketch is usable");
            return done(work, new Result(List.of(), dropped));
        }
        if (r.value().salvaged()) {
            dropped.add("the reply was cut off: kept the " + r.value().list().size() + " candidate(s) written whole");
        }
        List<Sketch> sketches = new ArrayList<>();
        int i = 0;
        for (JsonNode c : r.value().list()) {
            i++;
            if (sketches.size() == s.sketches()) {
                dropped.add("candidate " + i + ": more than the " + s.sketches() + " asked for");
                continue;
            }
            String why = problem(c);
            if (why != null) {
                dropped.add("candidate " + i + ": " + why);
                continue;
            }
            sketches.add(sketch("sketch-" + (sketches.size() + 1), c));
        }
        if (sketches.isEmpty() && dropped.isEmpty()) dropped.add("the reply's candidate list is empty");
        return done(work, new Result(sketches, dropped));
    }

    private static Result done(Work work, Result r) {
        String summary = r.sketches().size() + (r.sketches().size() == 1 ? " candidate" : " candidates")
                + (r.dropped().isEmpty() ? "" : "; dropped: " + String.join("; ", r.dropped()));
        StageSteps.add(work, SKETCH, "sketches", summary, r);
        return r;
    }

    /** A reply's candidate list, and whether it was kept from a reply cut off before its object closed. */
    record Candidates(List<JsonNode> list, boolean salvaged) {}

    /**
     * The reply's {@code candidates} list, else why there is none. A reply cut off at the token budget keeps the
     * candidates it wrote whole: three sketches share one reply, and losing the two complete ones with the cut third
     * would leave a hard question with none.
     */
    static AskWithFix.Reading<Candidates> candidatesOf(String reply) {
        JsonReply.Parsed p = JsonReply.parse(reply);
        if (!p.ok()) {
            List<JsonNode> whole = JsonReply.completeElements(reply, "candidates");
            return whole.isEmpty() ? AskWithFix.Reading.failed(p.error())
                    : AskWithFix.Reading.of(new Candidates(whole, true));
        }
        JsonNode list = p.object().get("candidates");
        if (list == null || !list.isArray()) return AskWithFix.Reading.failed("the object has no \"candidates\" list");
        List<JsonNode> all = new ArrayList<>();
        list.forEach(all::add);
        return AskWithFix.Reading.of(new Candidates(all, false));
    }

    /** Why a candidate object cannot be used, or null. */
    static String problem(JsonNode c) {
        if (!c.isObject()) return "not an object";
        String sql = JsonReply.text(c, "sql");
        if (sql == null || sql.isBlank()) return "no \"sql\" text";
        JsonNode tables = c.get("tables");
        if (tables != null && !tables.isNull() && (!tables.isArray() || !allText(tables))) return "\"tables\" is not a list of names";
        JsonNode columns = c.get("columns");
        if (columns != null && !columns.isNull() && !columns.isArray()) return "\"columns\" is not a list";
        JsonNode joins = c.get("joins");
        if (joins != null && !joins.isNull() && !joins.isArray()) return "\"joins\" is not a list";
        JsonNode ph = c.get("placeholders");
        if (ph != null && !ph.isNull() && !ph.isObject()) return "\"placeholders\" is not an object";
        return null;
    }

    private static boolean allText(JsonNode array) {
        for (JsonNode n : array) if (!n.isTextual()) return false;
        return true;
    }

    static Sketch sketch(String source, JsonNode c) {
        String written = JsonReply.text(c, "sql").strip();
        Map<String, String> values = new LinkedHashMap<>();
        JsonNode ph = c.get("placeholders");
        if (ph != null && ph.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> it = ph.fields();
            while (it.hasNext()) {
                var e = it.next();
                JsonNode v = e.getValue();
                String value = v == null || v.isNull() || v.isContainerNode() ? null : v.asText();
                values.put(e.getKey().replaceFirst("^:", "").toLowerCase(Locale.ROOT),
                        value == null || value.isBlank() ? null : value);
            }
        }
        String sql = Placeholders.bind(written, values);
        return new Sketch(source, written, sql, declared(c), values, JsonReply.text(c, "notes"));
    }

    /** Channel one: the entities as the model declared them; an unreadable entry is skipped. */
    static Entities declared(JsonNode c) {
        List<String> tables = null;
        JsonNode t = c.get("tables");
        if (t != null && t.isArray()) {
            tables = new ArrayList<>();
            for (JsonNode n : t) tables.add(n.asText());
        }
        List<Entities.ColumnRef> columns = null;
        JsonNode cols = c.get("columns");
        if (cols != null && cols.isArray()) {
            columns = new ArrayList<>();
            for (JsonNode n : cols) {
                if (n.isArray() && n.size() == 2 && n.get(0).isTextual() && n.get(1).isTextual()) {
                    columns.add(new Entities.ColumnRef(n.get(0).asText(), n.get(1).asText()));
                } else if (n.isTextual()) {
                    String v = n.asText();
                    int dot = v.lastIndexOf('.');
                    columns.add(dot > 0 ? new Entities.ColumnRef(v.substring(0, dot), v.substring(dot + 1))
                            : new Entities.ColumnRef(null, v));
                }
            }
        }
        List<Entities.JoinRef> joins = null;
        JsonNode j = c.get("joins");
        if (j != null && j.isArray()) {
            joins = new ArrayList<>();
            for (JsonNode n : j) {
                String left = JsonReply.text(n, "left");
                String right = JsonReply.text(n, "right");
                if (left != null && right != null) joins.add(new Entities.JoinRef(left, right, JsonReply.text(n, "on")));
            }
        }
        return new Entities(tables, columns, joins);
    }
}
