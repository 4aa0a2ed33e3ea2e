package dev.ladder.eval.run;

import dev.ladder.pipeline.oracle.OracleScope;

/**
 * One model of a run as its database scopes see it: loaded once, at the first scope with work, and shared by every
 * scope; or, for an engine that answers from a scope's own golds and database (the oracle), loaded for each scope and
 * freed before the next. Either way at most one copy is resident, and closing frees it.
 */
final class ScopedModel implements AutoCloseable {

    private final RunModels models;
    private final String id;
    private final GenerationCache cache;
    private final RunDirectory dir;
    private final DatabaseScopes scopes;
    private CallCounter loaded;

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
            if (loaded == null) loaded = new CallCounter(models.load(id, cache, dir, null));
            return loaded;
        }
        close();
        OracleScope oracle = new OracleScope(scopes.oracleKey(scoring.scope(), scoring.main()), scoring.scope().db());
        loaded = new CallCounter(models.load(id, cache, dir, oracle));
        return loaded;
    }

    @Override
    public void close() {
        if (loaded != null) loaded.close();
        loaded = null;
    }
}
