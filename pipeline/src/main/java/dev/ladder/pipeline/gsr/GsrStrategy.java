package dev.ladder.pipeline.gsr;

import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.Strategy;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.pipeline.strategy.Work;
import dev.ladder.sql.db.SchemaRenderer;
import java.util.Map;

/**
 * Gradual SQL Refinement ({@code gsr}): one SQL, refined step by step.
 * <ol>
 *   <li>{@link ClauseDecomposition}: the question and its hint as simple clauses ({@link GsrSettings#decomposition});</li>
 *   <li>Pre-SQL ({@code pre-sql.txt}): from the schema without value details, the question, the hint and the
 *   clauses;</li>
 *   <li>{@link SchemaLinking}: the Pre-SQL's tables and columns, the masked schema, value examples and errors found by
 *   SQL, and the corrected Second-SQL ({@link GsrSettings#schemaLinking});</li>
 *   <li>{@link ExecutionRefinement}: the result shown to the model, the Final-SQL
 *   ({@link GsrSettings#executionRefinement}).</li>
 * </ol>
 * A stage switched off passes its input on. The answer is the last SQL any stage gave; empty when not even the
 * Pre-SQL could be read.
 */
public final class GsrStrategy implements Strategy {

    public static final String NAME = "gsr";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Answer answer(Question question, StrategyContext context) {
        Work work = new Work(question, context, NAME);
        GsrSettings g = context.settings().of(GsrSettings.BLOCK);
        SqlCalls calls = new SqlCalls(work, g);

        String clauses = "(not decomposed)";
        if (g.decomposition()) {
            ClauseDecomposition.Clauses c = ClauseDecomposition.run(work, calls, g);
            clauses = GsrPrompts.lines(c.clauses());
            work.stage(ClauseDecomposition.SOURCE, "clauses", c.clauses().size() + " clause"
                    + (c.clauses().size() == 1 ? "" : "s") + (c.reused() ? " (the reply for this question was reused)" : "")
                    + (c.clauses().isEmpty() ? "" : ": " + String.join("; ", c.clauses())), c);
        }
        String pre = calls.sql("pre-sql", GsrPrompts.chat(work.ctx.format(), "pre-sql", Map.of(
                "dialect", context.db().dialect().label(),
                "schema", SchemaRenderer.summary(context.schema()).stripTrailing(),
                "question", question.text().strip(), "hint", GsrPrompts.hint(question.hint()), "clauses", clauses)));
        if (pre == null) return work.answer("", "none", "no SQL could be read from the Pre-SQL reply, even after the format fix");
        String sql = pre;
        String chosen = "pre-sql";
        if (g.schemaLinking()) {
            SchemaLinking.Outcome linked = SchemaLinking.run(work, calls, g, pre);
            if (linked.sql() != null) {
                sql = linked.sql();
                chosen = "second-sql";
            }
        }
        if (g.executionRefinement()) {
            String fin = ExecutionRefinement.run(work, calls, g, sql);
            if (!fin.equals(sql)) chosen = "final-sql";
            sql = fin;
        }
        return work.answer(sql, chosen, switch (chosen) {
            case "final-sql" -> "the Final-SQL (refined after seeing the result)";
            case "second-sql" -> g.executionRefinement() ? "the Second-SQL (execution refinement kept it)"
                    : "the Second-SQL (execution refinement is off)";
            default -> g.schemaLinking() || g.executionRefinement() ? "the Pre-SQL (later stages kept it)"
                    : "the Pre-SQL (schema linking and execution refinement are off)";
        });
    }

    @Override
    public boolean usesSeed(Settings settings) {
        return settings.of(GsrSettings.BLOCK).temperature() > 0;
    }

    /** Every call asks for the block's budget (the rung's {@code max_new_tokens} unless the block overrides it). */
    @Override
    public int tokenBudget(Settings settings) {
        return settings.of(GsrSettings.BLOCK).maxTokens();
    }

    @Override
    public String toString() {
        return NAME;
    }
}
