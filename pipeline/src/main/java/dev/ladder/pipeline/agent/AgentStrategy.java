package dev.ladder.pipeline.agent;

import dev.ladder.pipeline.kit.IntentProfile;
import dev.ladder.pipeline.prompt.Example;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.Strategy;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.pipeline.strategy.TraceStep;
import dev.ladder.pipeline.strategy.Work;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.SchemaRenderer;
import dev.ladder.sql.schema.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The execution-guided agent, {@code agent-0} to {@code agent-3}; each stage adds one mechanism to the one below:
 *
 * <ol start="0">
 *   <li><b>execution gate</b>: the greedy standard candidate ({@link Settings#k} exemplars, post-processed) is
 *   executed; while nothing executes, up to {@link Settings#gateBudget} seeded low-temperature samples of the
 *   standard prompt follow, one request each ({@code gate-1}, {@code gate-2}, ...; seeds {@link Settings#gateSeed}),
 *   and the first that executes is the answer; else the baseline output. A budget of 0 makes this prompt-k3 plus
 *   one execution;</li>
 *   <li><b>clamps</b>: the question's intent profile, and the clamps on every candidate before execution (the clamped
 *   SQL first, the unclamped when it fails), the gate's candidates included;</li>
 *   <li><b>several candidates and scoring</b>, each mechanism behind its own switch: the greedy tabular candidate
 *   ({@link Settings#tabularPrompt}), {@link Settings#candidates} samples, all in one {@code generate} call with the
 *   standard candidate; the schema subset in the extra candidates' prompts ({@link Settings#schemaSubset}); the
 *   projection contract after the clamps ({@link Settings#projection}); the executing candidates scored and the best
 *   that passes the intent gate chosen ({@link Settings#rerank}; off: the first executing candidate in call order).
 *   The gate runs when no candidate of this pool executes. Every switch off answers as agent-1;</li>
 *   <li><b>repair</b>: when neither the pool nor the gate gives an executing candidate, one greedy repair of the first
 *   post-processed candidate, taken only when it executes and passes the intent gate.</li>
 * </ol>
 *
 * <p>The baseline output (what every stage falls back to) is the standard prompt's cleaned greedy output, neither
 * clamped nor projected: prompt-k3's answer.
 */
public final class AgentStrategy implements Strategy {

    public static final int GATE = 0;
    public static final int CLAMPS = 1;
    public static final int CANDIDATES = 2;
    public static final int REPAIR = 3;

    private final int stage;

    /** @param stage 0 to 3 */
    public AgentStrategy(int stage) {
        if (stage < GATE || stage > REPAIR) throw new IllegalArgumentException("agent stages are 0 to 3, got " + stage);
        this.stage = stage;
    }

    public int stage() {
        return stage;
    }

    @Override
    public String name() {
        return "agent-" + stage;
    }

    @Override
    public Answer answer(Question question, StrategyContext context) {
        AgentWork work = new AgentWork(question, context, name());
        Settings s = context.settings();
        IntentProfile intent = stage >= CLAMPS ? work.intent() : null;
        boolean project = stage >= CANDIDATES && s.projection();
        boolean rerank = stage >= CANDIDATES && s.rerank();
        List<Example> exemplars = work.exemplars(s.k());
        String standardPrompt = work.standardPrompt(exemplars);
        List<Work.Output> outputs = work.generate(calls(work, exemplars, standardPrompt));
        List<AgentWork.Result> results = new ArrayList<>();
        List<AgentWork.Scored> scored = new ArrayList<>();
        for (Work.Output o : outputs) {
            AgentWork.Result r = work.process(o, intent, project);
            results.add(r);
            if (rerank && r.executes()) scored.add(work.score(r, intent));
        }
        AgentWork.Result standard = results.get(0);
        String none;
        if (stage < CANDIDATES) {
            if (standard.executes()) {
                return work.answer(standard.sql(), AgentWork.STANDARD, "the candidate executes (" + standard.form() + ")");
            }
            none = standard.cleaned().ok() ? "the candidate does not execute" : "post-processing rejected the output";
        } else {
            if (!scored.isEmpty()) return select(work, scored);
            AgentWork.Result first = results.stream().filter(AgentWork.Result::executes).findFirst().orElse(null);
            if (first != null) {
                return work.answer(first.sql(), first.source(),
                        "the first executing candidate in call order (" + first.form() + "; reranking is off)");
            }
            none = "no candidate executes";
        }
        int before = results.size();
        AgentWork.Result gated = gate(work, standardPrompt, intent, project, results);
        int drawn = results.size() - before;
        if (gated != null) {
            return work.answer(gated.sql(), gated.source(), none + "; " + gated.source() + " executes ("
                    + gated.form() + "), the first of the gate's samples that does");
        }
        if (drawn > 0) none += "; the gate's budget of " + drawn + (drawn == 1 ? " sample" : " samples") + " ran out";
        if (stage < REPAIR) return work.fallback(standard, none);
        return repair(work, results, intent, project, none);
    }

    /**
     * The execution gate's loop: up to {@link Settings#gateBudget} samples of the standard prompt, each its own
     * request of one candidate (so the loop stops at the first that executes and asks for nothing more), processed
     * like the stage's other candidates. Every attempt is added to {@code results}; returns the one that executes,
     * or null.
     */
    private static AgentWork.Result gate(AgentWork work, String standardPrompt, IntentProfile intent, boolean project,
                                    List<AgentWork.Result> results) {
        Settings s = work.ctx.settings();
        for (int i = 1; i <= s.gateBudget(); i++) {
            Work.Call call = Work.Call.sampled(AgentWork.GATE, List.of(AgentWork.GATE + "-" + i), standardPrompt, s.gateSeed(i));
            AgentWork.Result r = work.process(work.generate(List.of(call)).get(0), intent, project);
            results.add(r);
            if (r.executes()) return r;
        }
        return null;
    }

    /**
     * standard; from agent-2 on also tabular and the samples (one request with n = candidates), as switched on. With
     * the schema subset on, the extra candidates' prompts show only the subset (the standard one keeps the whole
     * schema, so a subset that misses a table cannot lose the baseline answer); off, they show every table.
     */
    private List<Work.Call> calls(AgentWork work, List<Example> exemplars, String standardPrompt) {
        Settings s = work.ctx.settings();
        List<Work.Call> calls = new ArrayList<>();
        calls.add(Work.Call.greedy(AgentWork.STANDARD, standardPrompt));
        if (stage < CANDIDATES || (!s.tabularPrompt() && s.candidates() == 0)) return calls;
        Schema schema = work.ctx.schema();
        SchemaSubset.Subset subset = s.schemaSubset() ? work.subset() : SchemaSubset.whole(schema);
        if (s.tabularPrompt()) {
            calls.add(Work.Call.greedy(AgentWork.TABULAR, AgentPrompts.tabular(work.ctx.format(), schema,
                    subset.tables(), subset.joinHints(), exemplars, work.question.text())));
        }
        if (s.candidates() > 0) {
            String prompt = s.schemaSubset()
                    ? work.standardPrompt(SchemaRenderer.summary(SchemaSubset.restrict(schema, subset)), exemplars)
                    : standardPrompt;
            List<String> sources = new ArrayList<>();
            for (int i = 1; i <= s.candidates(); i++) sources.add("sample-" + i);
            calls.add(Work.Call.sampled(AgentWork.SAMPLES, sources, prompt, s.poolSeed()));
        }
        return calls;
    }

    /** The highest total among the candidates that pass the intent gate, else among all; ties to the earlier. */
    private static Answer select(AgentWork work, List<AgentWork.Scored> scored) {
        List<AgentWork.Scored> gated = scored.stream().filter(s -> s.score().passesIntentGate()).toList();
        List<AgentWork.Scored> pool = gated.isEmpty() ? scored : gated;
        AgentWork.Scored best = pool.get(0);
        for (AgentWork.Scored s : pool) {
            if (s.score().total() > best.score().total()) best = s;
        }
        String of = pool.size() == 1 ? "the only" : "the highest score of the " + pool.size();
        String decision = gated.isEmpty()
                ? of + " executing candidate" + (pool.size() == 1 ? "" : "s") + " (none passes the intent gate)"
                : of + " executing candidate" + (pool.size() == 1 ? "" : "s") + " that pass"
                        + (pool.size() == 1 ? "es" : "") + " the intent gate";
        AgentWork.Scored chosen = best;
        boolean tie = pool.stream().anyMatch(s -> s != chosen && s.score().total() == chosen.score().total());
        if (tie) decision += "; a tie goes to the earlier candidate";
        return work.answer(best.result().sql(), best.result().source(), decision);
    }

    /**
     * One greedy repair of the first post-processed candidate (pool first, then the gate's), taken only when it
     * executes and passes the intent gate; {@code why} says why it is needed.
     */
    private static Answer repair(AgentWork work, List<AgentWork.Result> results, IntentProfile intent, boolean project,
                                 String why) {
        AgentWork.Result standard = results.get(0);
        AgentWork.Result subject = results.stream().filter(r -> r.cleaned().ok()).findFirst().orElse(null);
        String failedSql;
        String error;
        if (subject != null) {
            failedSql = subject.cleaned().sql();
            // every form failed, so the cleaned form was executed last and its error is known
            Execution e = work.executed(failedSql);
            error = e instanceof Execution.Failure f ? f.error().toString() : "it does not execute";
        } else {
            subject = standard;
            failedSql = standard.raw();
            error = Objects.requireNonNullElse(standard.cleaned().rejection(), "post-processing rejected it");
        }
        work.trace.add(new TraceStep.Repair(subject.source(), failedSql, error));
        String prompt = AgentPrompts.repair(work.ctx.format(), work.ctx.schemaSummary(), work.question.text(),
                failedSql, error);
        Work.Output output = work.generate(List.of(Work.Call.greedy(AgentWork.REPAIR, prompt))).get(0);
        AgentWork.Result repaired = work.process(output, intent, project);
        String none = why + "; ";
        if (!repaired.cleaned().ok()) return work.fallback(standard, none + "post-processing rejected the repair");
        if (!repaired.executes()) return work.fallback(standard, none + "the repair does not execute");
        AgentWork.Scored s = work.score(repaired, intent);
        if (!s.score().passesIntentGate()) {
            return work.fallback(standard, none + "the repair executes but fails the intent gate");
        }
        return work.answer(repaired.sql(), AgentWork.REPAIR, none + "the repair executes and passes the intent gate");
    }

    @Override
    public boolean usesSeed(Settings s) {
        return s.gateBudget() > 0 || (stage >= CANDIDATES && s.candidates() > 0);
    }

    @Override
    public String toString() {
        return name();
    }
}
