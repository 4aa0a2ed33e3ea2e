package dev.ladder.pipeline.gsr;

import dev.ladder.pipeline.strategy.Work;
import dev.ladder.sql.db.ColumnValues;
import dev.ladder.sql.db.SchemaRenderer;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SchemaBinding;
import dev.ladder.sql.schema.Schema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Stage 3: SQL-driven schema linking. From a draft (the Pre-SQL first):
 * <ol>
 *   <li>the tables and columns it uses, read by the shared SQL reader ({@code Query.binding}), not by the model;</li>
 *   <li>the schema with those masked ({@link MaskedSchema}); the model names what else the question may need
 *   ({@code explore.txt}, asked once, for the Pre-SQL);</li>
 *   <li>the value condition checker: the used columns compared with a literal get the stored values most similar to
 *   the question's keywords ({@link ValueIndex}); the other used columns a few example values by SQL;</li>
 *   <li>the errors found by SQL ({@link LinkingErrors}).</li>
 * </ol>
 * The model corrects the draft with the three pieces ({@code correct.txt}): the Second-SQL. While the Second-SQL still
 * has errors, it is the next round's draft, up to {@link GsrSettings#linkingRounds} rounds.
 */
final class SchemaLinking {

    /** Columns of a draft that get example values by SQL, at most. */
    static final int EXAMPLE_COLUMNS = 12;
    /** Example values per such column. */
    static final int EXAMPLES = 3;

    /** One round as the trace records it. */
    record Round(int round, String draft, List<String> used, List<String> explored, Map<String, List<ValueIndex.Match>> valueExamples,
                 Map<String, List<String>> columnExamples, List<String> truncatedColumns, List<String> errors,
                 String corrected) {}

    /** The Second-SQL (null when no round gave SQL) and the errors it still has. */
    record Outcome(String sql, List<String> errors, int rounds) {}

    private SchemaLinking() {}

    static Outcome run(Work work, SqlCalls calls, GsrSettings g, String preSql) {
        Schema schema = work.ctx.schema();
        ValueIndex values = ValueIndexes.of(work.ctx.caches(), work.ctx.db(), g.maxIndexedValues());
        List<String> keywords = ValueIndex.keywords(work.question.text() + " " + work.question.hint());
        String draft = preSql;
        List<String> explored = null;
        String second = null;
        List<String> remaining = List.of();
        int round = 0;
        while (round < g.linkingRounds()) {
            round++;
            Query q = Query.read(draft, work.ctx.db().dialect());
            SchemaBinding b = q.binding(schema);
            List<String> used = used(b);
            if (explored == null) {
                String reply = calls.text("explore", GsrPrompts.chat(work.ctx.format(), "explore", Map.of(
                        "dialect", work.ctx.db().dialect().label(),
                        "masked_schema", MaskedSchema.render(schema, b).stripTrailing(),
                        "question", work.question.text().strip(), "hint", GsrPrompts.hint(work.question.hint()),
                        "limit", Integer.toString(g.exploreLimit()))), GsrTeacher.EXPLORE,
                        Map.of(GsrTeacher.FACT_DRAFT, draft, GsrTeacher.FACT_LIMIT, Integer.toString(g.exploreLimit())));
                explored = MaskedSchema.parse(reply, schema, b, g.exploreLimit());
            }
            Map<String, List<ValueIndex.Match>> valueExamples = new LinkedHashMap<>();
            Set<String> conditioned = new LinkedHashSet<>();
            List<String> truncated = new ArrayList<>();
            for (SchemaBinding.ValueCondition c : b.conditions()) {
                String name = c.column().table() + "." + c.column().column();
                boolean text = schema.table(c.column().table()).flatMap(t -> t.column(c.column().column()))
                        .map(ColumnValues::isText).orElse(false);
                if (!text || !conditioned.add(name.toLowerCase(Locale.ROOT))) continue;
                valueExamples.put(name, values.similar(c.column().table(), c.column().column(), keywords, g.valueExamples()));
                if (values.column(c.column().table(), c.column().column()).truncated()) truncated.add(name);
            }
            Map<String, List<String>> columnExamples = new LinkedHashMap<>();
            for (SchemaBinding.BoundColumn c : b.columns()) {
                String name = c.table() + "." + c.column();
                if (conditioned.contains(name.toLowerCase(Locale.ROOT)) || columnExamples.containsKey(name)) continue;
                if (columnExamples.size() == EXAMPLE_COLUMNS) break;
                columnExamples.put(name, ColumnValues.distinct(work.ctx.db(), c.table(), c.column(), EXAMPLES));
            }
            List<String> errors = LinkingErrors.find(work.ctx.db(), schema, q, b);
            String prompt = GsrPrompts.chat(work.ctx.format(), "correct", Map.ofEntries(
                    Map.entry("dialect", work.ctx.db().dialect().label()),
                    Map.entry("schema", SchemaRenderer.summary(schema).stripTrailing()),
                    Map.entry("question", work.question.text().strip()),
                    Map.entry("hint", GsrPrompts.hint(work.question.hint())), Map.entry("sql", draft),
                    Map.entry("used", used.isEmpty() ? "(nothing the schema has)" : String.join(", ", used)),
                    Map.entry("explored", explored.isEmpty() ? "(none)" : String.join(", ", explored)),
                    Map.entry("value_examples", valueText(valueExamples, b)),
                    Map.entry("column_examples", examplesText(columnExamples)),
                    Map.entry("errors", GsrPrompts.lines(errors))));
            String corrected = calls.sql("second-sql-" + round, prompt);
            work.stage("second-sql-" + round, "linking", "round " + round + ": " + used.size() + " used, "
                    + explored.size() + " explored, " + valueExamples.size() + " filtered column"
                    + (valueExamples.size() == 1 ? "" : "s") + " with value examples, " + errors.size() + " error"
                    + (errors.size() == 1 ? "" : "s") + (errors.isEmpty() ? "" : ": " + String.join("; ", errors))
                    + (corrected == null ? "; no SQL in the reply, the draft stays" : ""),
                    new Round(round, draft, used, explored, valueExamples, columnExamples, truncated, errors, corrected));
            if (corrected == null) break;
            second = corrected;
            Query sq = Query.read(second, work.ctx.db().dialect());
            remaining = LinkingErrors.find(work.ctx.db(), schema, sq, sq.binding(schema));
            if (remaining.isEmpty() || corrected.equals(draft)) break;
            draft = second;
        }
        work.stage(null, "second-sql", second == null ? "no round gave SQL; the Pre-SQL goes on"
                : remaining.isEmpty() ? "no errors left after " + round + " round" + (round == 1 ? "" : "s")
                : remaining.size() + " error" + (remaining.size() == 1 ? "" : "s") + " left after " + round + " round"
                        + (round == 1 ? "" : "s") + ": " + String.join("; ", remaining), null);
        return new Outcome(second, remaining, round);
    }

    static List<String> used(SchemaBinding b) {
        List<String> out = new ArrayList<>(b.tables());
        for (SchemaBinding.BoundColumn c : b.columns()) out.add(c.table() + "." + c.column());
        return out;
    }

    static String valueText(Map<String, List<ValueIndex.Match>> examples, SchemaBinding b) {
        if (examples.isEmpty()) return "(the draft filters on no text column)";
        List<String> lines = new ArrayList<>();
        examples.forEach((column, matches) -> {
            List<String> used = b.conditions().stream()
                    .filter(c -> (c.column().table() + "." + c.column().column()).equals(column))
                    .map(c -> c.operator() + " '" + c.value() + "'").distinct().toList();
            lines.add("- " + column + " (the draft: " + String.join(", ", used) + "): " + (matches.isEmpty()
                    ? "no stored value is close to the question's words"
                    : String.join(", ", matches.stream().map(m -> "'" + m.value() + "'").toList())));
        });
        return String.join("\n", lines);
    }

    static String examplesText(Map<String, List<String>> examples) {
        if (examples.isEmpty()) return "(none)";
        List<String> lines = new ArrayList<>();
        examples.forEach((column, values) -> lines.add("- " + column + ": " + (values.isEmpty() ? "(no values)"
                : String.join(", ", values.stream().map(v -> "'" + (v.length() > 40 ? v.substring(0, 40) : v) + "'").toList()))));
        return String.join("\n", lines);
    }
}
