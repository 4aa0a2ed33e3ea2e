package dev.ladder.pipeline.gsr;

import dev.ladder.pipeline.strategy.Work;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.QueryResult;
import dev.ladder.sql.db.SchemaRenderer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Stage 4: the Second-SQL executed (guarded, under the settings' limits), its first rows or its error shown to the
 * model, which judges whether the result answers the question and refines the SQL ({@code refine.txt}): the
 * Final-SQL. When the reply holds no SQL even after the format fix, the Second-SQL stays.
 */
final class ExecutionRefinement {

    /** Characters of one shown cell, at most. */
    static final int CELL = 60;

    private ExecutionRefinement() {}

    static String run(Work work, SqlCalls calls, GsrSettings g, String sql) {
        Execution e = work.execute("second-sql", sql);
        String result = e instanceof Execution.Success ok ? table(ok.result(), g.resultRows())
                : "an error: " + ((Execution.Failure) e).error();
        String prompt = GsrPrompts.chat(work.ctx.format(), "refine", Map.of(
                "dialect", work.ctx.db().dialect().label(),
                "schema", SchemaRenderer.summary(work.ctx.schema()).stripTrailing(),
                "question", work.question.text().strip(), "hint", GsrPrompts.hint(work.question.hint()),
                "sql", sql, "result", result));
        String refined = calls.sql("final-sql", prompt);
        work.stage("final-sql", "refine", refined == null ? "no SQL in the reply; the Second-SQL stays"
                : refined.equals(sql) ? "the model kept the SQL" : "the model refined the SQL", null);
        return refined == null ? sql : refined;
    }

    /** The first rows as a small pipe table with the row count, cells cut at {@link #CELL} characters. */
    static String table(QueryResult r, int rows) {
        List<String> lines = new ArrayList<>();
        lines.add(r.rowCount() + (r.rowCount() == 1 ? " row" : " rows") + (r.truncated() ? " (at least)" : "")
                + (r.rowCount() > rows ? "; the first " + rows + ":" : ":"));
        lines.add("| " + String.join(" | ", r.columns()) + " |");
        for (List<Object> row : r.rows().subList(0, Math.min(rows, r.rows().size()))) {
            List<String> cells = new ArrayList<>();
            for (Object v : row) {
                String s = v == null ? "NULL" : String.valueOf(v).replaceAll("\\s+", " ");
                cells.add(s.length() > CELL ? s.substring(0, CELL) + "..." : s);
            }
            lines.add("| " + String.join(" | ", cells) + " |");
        }
        return String.join("\n", lines);
    }
}
