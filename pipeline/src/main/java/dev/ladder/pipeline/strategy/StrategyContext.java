package dev.ladder.pipeline.strategy;

import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.PromptFormat;
import dev.ladder.pipeline.prompt.ExemplarSelector;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.SchemaRenderer;
import dev.ladder.sql.schema.Schema;
import java.util.Objects;

/**
 * What a strategy works with for one database.
 *
 * @param model         the language model (base, instruct, or base + adapter: the QLoRA rung is this, nothing else)
 * @param db            where candidates are executed (guarded, read-only)
 * @param schema        {@code db.schema()}
 * @param schemaSummary {@code SchemaRenderer.summary(schema)}, as the standard prompt embeds it
 * @param format        the prompt format (normally {@code model.promptFormat()})
 * @param exemplars     the k-shot rule (the benchmark's fixed k = 3 exemplars from its train split)
 * @param settings      knobs, see {@link Settings}
 * @param judge         the model a pipeline asks for judgements (the progressive pipeline's reward); null: {@code model}
 * @param caches        what strategies build once while the run lasts (indexes, shared replies); the runner gives
 *                      every context of a run the same
 */
public record StrategyContext(LanguageModel model, Database db, Schema schema, String schemaSummary,
                              PromptFormat format, ExemplarSelector exemplars, Settings settings, LanguageModel judge,
                              RunCaches caches) {

    public StrategyContext {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(db, "db");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(schemaSummary, "schemaSummary");
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(exemplars, "exemplars");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(caches, "caches");
    }

    /** The usual context: schema and summary from the database, format from the model, the model as its own judge. */
    public static StrategyContext of(LanguageModel model, Database db, ExemplarSelector exemplars, Settings settings) {
        Schema schema = db.schema();
        return new StrategyContext(model, db, schema, SchemaRenderer.summary(schema), model.promptFormat(), exemplars,
                settings, null, new RunCaches());
    }

    /** This context with another model as the judge (null: the model judges itself). */
    public StrategyContext withJudge(LanguageModel j) {
        return new StrategyContext(model, db, schema, schemaSummary, format, exemplars, settings, j, caches);
    }

    /** This context with the run's caches (shared by every context of the run). */
    public StrategyContext withCaches(RunCaches c) {
        return new StrategyContext(model, db, schema, schemaSummary, format, exemplars, settings, judge, c);
    }

    /** The judge: {@link #judge} when one was given, else {@link #model}. */
    public LanguageModel judgeModel() {
        return judge != null ? judge : model;
    }
}
