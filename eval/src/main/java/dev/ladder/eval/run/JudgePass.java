package dev.ladder.eval.run;

import dev.ladder.inference.LanguageModel;
import dev.ladder.pipeline.judge.SqlJudge;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionLimits;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The LLM judge's pass over a run's stored answers ({@code scorers.judge}). */
final class JudgePass {

    private final PrintWriter log;
    private final ExecutionLimits limits;

    /** @param limits the limits each prediction runs under before it is judged */
    JudgePass(PrintWriter log, ExecutionLimits limits) {
        this.log = log;
        this.limits = limits;
    }

    /**
     * The judge pass ({@code scorers.judge}): after every cell has answered (so the judge is the one model resident),
     * every stored prediction not yet judged is executed and put to the judge ({@link SqlJudge}); its verdict and
     * reasoning go into the row's {@code judge} score. A prediction that is empty or does not execute is NO without a
     * call; a reply with no verdict it can read is stored as unknown (counted apart, never as NO). Resumable: a
     * restarted run judges only the rows the pass has not reached; the generation cache answers prompts judged before.
     */
    void judge(ResultsStore store, DatabaseScopes scopes, String id, ScopedModel model) {
        List<ItemResult> todo = store.results().stream().filter(r -> !r.judged()).toList();
        if (todo.isEmpty()) return;
        if (model == null) {
            log.println("warning: the judge model " + id + " is not available (its adapter is missing); "
                    + todo.size() + " predictions stay unjudged");
            return;
        }
        long t0 = System.nanoTime();
        int calls = 0;
        Map<String, DatabaseScopes.Scope> scopeOf = scopes.byItemId();
        for (DatabaseScopes.Scope scope : scopes.all()) {
            List<ItemResult> here = todo.stream().filter(r -> scopeOf.get(r.itemId()) == scope).toList();
            if (here.isEmpty()) continue;
            Database db = scope.db();
            // the judge sees the item's own database, and an oracle judge its golds (EX needs no suite)
            try (DatabaseScopes.ScopeScoring scoring = scopes.scoring(scope, false)) {
                LanguageModel judge = model.in(scoring);
                for (ItemResult r : here) {
                    if (r.predicted().isBlank()) {
                        store.putJudge(r.cell(), r.itemId(), false, "no SQL to judge");
                        continue;
                    }
                    Execution e = db.execute(r.predicted(), limits);
                    if (e instanceof Execution.Failure) {
                        store.putJudge(r.cell(), r.itemId(), false, "it does not execute");
                        continue;
                    }
                    SqlJudge.Verdict v = SqlJudge.judge(judge, db.dialect(), db.schema(), r.itemId(), r.question(), r.predicted(), e);
                    calls++;
                    store.putJudge(r.cell(), r.itemId(), v.correct(), v.reasoning());
                }
            }
        }
        log.printf(Locale.ROOT, "judge %s: %d predictions judged (%d model calls) in %.1f s%n", id, todo.size(),
                calls, (System.nanoTime() - t0) / 1e9);
    }

}
