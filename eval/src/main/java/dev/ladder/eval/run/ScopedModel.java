package dev.ladder.eval.run;

import dev.ladder.pipeline.oracle.OracleScope;

/**
 * One model of a run as its database scopes see it: loaded once, at the first scope with work, and shared by every
 * scope; or, for an engine that answers from a scope's own golds and database (the oracle), loaded for each scope and
 * freed before the next. Either way at most one copy is resident, and closing frees it. Its calls are counted, and go
 * through {@link ItemRounds}, which merges them when a cell's items run together and passes them on otherwise: one
 * model object for every cell (a reply kept for the run is keyed by it).
 */
final class ScopedModel implements AutoCloseable {

    private final RunModels models;
    private final String id;
    private final GenerationCache cache;
    private final RunDirectory dir;
    private final DatabaseScopes scopes;
    private CallCounter loaded;
    private ItemRounds rounds;

    ScopedModel(RunModels models, String id, GenerationCache cache, RunDirectory dir, DatabaseScopes scopes) {
        this.models = models;
        this.id = id;
        this.cache = cache;
        this.dir = dir;
        this.scopes = scopes;
    }

    /** The model, counting its calls, for the work of {@code scoring}'s scope. */
    CallCounter in(DatabaseScopes.ScopeScoring scoring) {
        if (!models.perScope(id)) {
            if (loaded == null) load(null);
            return loaded;
        }
        close();
        load(new OracleScope(scopes.oracleKey(scoring.scope(), scoring.main()), scoring.scope().db()));
        return loaded;
    }

    private void load(OracleScope oracle) {
        rounds = new ItemRounds(models.load(id, cache, dir, oracle));
        loaded = new CallCounter(rounds);
    }

    /** Where the loaded model's calls meet when items run together ({@link #in} loads it). */
    ItemRounds rounds() {
        return rounds;
    }

    /** How many items answer together on this model ({@link RunModels#batchWidth}). */
    int batchWidth() {
        return models.batchWidth(id);
    }

    @Override
    public void close() {
        if (loaded != null) loaded.close();
        loaded = null;
        rounds = null;
    }
}
