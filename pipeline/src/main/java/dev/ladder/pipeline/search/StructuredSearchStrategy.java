package dev.ladder.pipeline.search;

import dev.ladder.pipeline.kit.IntentProfile;
import dev.ladder.pipeline.kit.JoinGraph;
import dev.ladder.pipeline.kit.SentenceEmbedder;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.Strategy;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.pipeline.strategy.Work;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Two-phase structured search ({@code structured-search}): the model only sketches intent; schema alignment, join
 * legality and validation are retrieval and programs.
 *
 * <ol>
 *   <li>{@link Sketches}: one call for K diverse candidates as strict JSON (one fix attempt for bad JSON);</li>
 *   <li>{@link EntityExtraction}: the model's declared entities against the shared SQL reader's;</li>
 *   <li>{@link SchemaIndex}: the schema embedded by all-MiniLM-L6-v2 on ONNX Runtime, cached per fingerprint;</li>
 *   <li>{@link Retrieval}: tables for the question, then columns within them, the legal joins, and each candidate's
 *   {@link Evidence} package and score;</li>
 *   <li>{@link Validation}: levels L0 (static) to L3 (recheck), as switched on;</li>
 *   <li>{@link RepairLoop}: minimal edits with memory, early stop and a round limit.</li>
 * </ol>
 *
 * The answer is the best schema-valid candidate; when none validates, the best-scoring candidate, with a
 * {@link ReviewPackage} in the trace. Every call is greedy, so answers do not depend on the seed.
 */
public final class StructuredSearchStrategy implements Strategy {

    public static final String NAME = "structured-search";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Answer answer(Question question, StrategyContext context) {
        Work work = new Work(question, context, NAME);
        SearchSettings s = context.settings().of(SearchSettings.BLOCK);
        SentenceEmbedder embedder = SearchResources.embedder();
        SchemaIndex index = SearchResources.index(context.caches(), context.schema(), context.db(), s.indexValues());
        JoinGraph graph = new JoinGraph(context.schema());
        Retrieval retrieval = new Retrieval(context.schema(), index, graph, embedder, s, question.text());
        StageSteps.add(work, null, "retrieval", "tables for the question: " + String.join(", ",
                retrieval.recalledTables()), null);
        IntentProfile intent = s.semanticChecks() ? work.intent() : null;
        CandidateEvaluation evaluation = new CandidateEvaluation(work, s, retrieval, graph, intent);

        Sketches.Result sketches = Sketches.generate(work, s);
        Set<String> memory = new HashSet<>();
        List<String> tried = new ArrayList<>();
        List<Evaluated> candidates = new ArrayList<>();
        List<String> dropped = new ArrayList<>(sketches.dropped());
        for (Sketch sketch : sketches.sketches()) {
            String sql = evaluation.cleaned(sketch.source(), sketch.sql());
            if (!memory.add(RepairLoop.normal(sql))) {
                dropped.add(sketch.source() + ": the same SQL as an earlier candidate");
                continue;
            }
            tried.add(sql);
            candidates.add(evaluation.evaluate(sketch.source(), sql, sketch.declared()));
        }
        if (candidates.isEmpty()) {
            review(work, "no usable candidate", List.of(), dropped);
            return work.answer("", "none", "no usable candidate: " + String.join("; ", dropped));
        }
        RepairLoop.Outcome out = RepairLoop.run(work, s, evaluation, candidates, memory, tried);
        StageSteps.add(work, null, "search", out.stop() + "; " + out.rounds() + " repair round"
                + (out.rounds() == 1 ? "" : "s"), null);
        Evaluated best = out.best();
        if (best.valid()) {
            return work.answer(best.sql(), best.source(), "the best schema-valid candidate (score "
                    + RepairLoop.fmt(best.score()) + "); " + out.stop());
        }
        review(work, "no candidate is schema-valid", out.all(), dropped);
        return work.answer(best.sql(), best.source(), "no candidate is schema-valid; the best-scoring one (score "
                + RepairLoop.fmt(best.score()) + "), review package in the trace; " + out.stop());
    }

    private static void review(Work work, String reason, List<Evaluated> all, List<String> dropped) {
        Set<Evidence.JoinSuggestion> joins = new LinkedHashSet<>();
        all.forEach(e -> joins.addAll(e.evidence().joinSuggestions()));
        ReviewPackage p = new ReviewPackage(work.question.text(), reason, all.stream().map(RepairLoop::summary).toList(),
                all.stream().map(Evaluated::evidence).toList(), List.copyOf(joins), dropped);
        StageSteps.add(work, null, "review", reason + ": " + all.size() + " candidate" + (all.size() == 1 ? "" : "s")
                + " in the review package", p);
    }

    @Override
    public boolean usesSeed(Settings settings) {
        return false;
    }

    /** The sketch call's: K candidates of {@code tokens_per_sketch} (a repair call asks for one candidate's). */
    @Override
    public int tokenBudget(Settings settings) {
        return settings.of(SearchSettings.BLOCK).sketchCallTokens();
    }

    @Override
    public String toString() {
        return NAME;
    }
}
