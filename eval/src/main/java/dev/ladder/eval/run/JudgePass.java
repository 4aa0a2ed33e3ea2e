package dev.ladder.eval.run;

import dev.ladder.inference.LanguageModel;
import dev.ladder.pipeline.judge.SqlJudge;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionLimits;
import java.io.PrintWriter;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

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
        List<ItemResult> rows = store.results();
        List<ItemResult> todo = rows.stream().filter(r -> !r.judged()).toList();
        if (todo.isEmpty()) return;
        if (model == null) {
            log.println("warning: the judge model " + id + " is not available (its adapter is missing); "
                    + todo.size() + " predictions stay unjudged");
            return;
        }
        long t0 = System.nanoTime();
        AtomicInteger calls = new AtomicInteger();
        Map<String, DatabaseScopes.Scope> scopeOf = scopes.byItemId();
        for (DatabaseScopes.Scope scope : scopes.all()) {
            List<ItemResult> here = rows.stream().filter(r -> scopeOf.get(r.itemId()) == scope).toList();
            if (here.stream().allMatch(ItemResult::judged)) continue;
            // the judge sees the item's own database, and an oracle judge its golds (EX needs no suite)
            try (DatabaseScopes.ScopeScoring scoring = scopes.scoring(scope, false)) {
                LanguageModel judge = model.in(scoring);
                IntConsumer one = i -> {
                    if (judgeOne(store, scope.db(), judge, here.get(i))) calls.incrementAndGet();
                };
                List<Integer> left = IntStream.range(0, here.size()).filter(i -> !here.get(i).judged()).boxed().toList();
                if (model.batchWidth() > 1) {
                    // predictions judged together, their calls merged round by round; as a resumed cell does, a resumed
                    // pass with a generation cache replays the verdicts it has (from the cache, not stored again), so
                    // every round holds what it held in a pass never stopped
                    boolean replay = model.rounds().cache() != null && left.size() < here.size();
                    List<Integer> order = replay ? IntStream.range(0, here.size()).boxed().toList() : left;
                    Set<Integer> todoHere = new HashSet<>(left);
                    model.rounds().run(model.batchWidth(), order, "judge", i -> {
                        if (todoHere.contains(i)) one.accept(i);
                        else judgeOne(null, scope.db(), judge, here.get(i));
                    });
                } else {
                    left.forEach(one::accept);
                }
            }
        }
        log.printf(Locale.ROOT, "judge %s: %d predictions judged (%d model calls) in %.1f s%n", id, todo.size(),
                calls.get(), (System.nanoTime() - t0) / 1e9);
    }

    /**
     * Judges one stored prediction into its row (none for a replay: {@code store} null); whether the judge was asked
     * (an empty or failing prediction is NO without a call).
     */
    private boolean judgeOne(ResultsStore store, Database db, LanguageModel judge, ItemResult r) {
        if (r.predicted().isBlank()) {
            if (store != null) store.putJudge(r.cell(), r.itemId(), false, "no SQL to judge");
            return false;
        }
        Execution e = db.execute(r.predicted(), limits);
        if (e instanceof Execution.Failure) {
            if (store != null) store.putJudge(r.cell(), r.itemId(), false, "it does not execute");
            return false;
        }
        SqlJudge.Verdict v = SqlJudge.judge(judge, db.dialect(), db.schema(), r.itemId(), r.question(), r.predicted(), e);
        if (store != null) store.putJudge(r.cell(), r.itemId(), v.correct(), v.reasoning());
        return true;
    }

}
