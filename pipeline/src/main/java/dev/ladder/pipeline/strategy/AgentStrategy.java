package dev.ladder.pipeline.strategy;

import dev.ladder.pipeline.agent.IntentProfile;
import dev.ladder.pipeline.agent.SchemaSubset;
import dev.ladder.pipeline.db.Execution;
import dev.ladder.pipeline.prompt.Example;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The execution-guided agent, {@code agent-0} to {@code agent-3}; each stage adds one mechanism to the one below:
 *
 * <ol start="0">
 *   <li><b>execution gate</b>: the prompt-k3 candidate ({@link Settings#k} exemplars, greedy, post-processed) is
 *   executed; it is the answer if it executes, else the baseline output;</li>
 *   <li><b>clamps</b>: the question's intent profile, and the clamps on the candidate before execution (the clamped
 *   SQL first, the unclamped when it fails);</li>
 *   <li><b>several candidates and scoring</b>: the greedy outputs of the standard and the tabular prompt and
 *   {@link Settings#candidates} samples of the standard prompt, in one {@code generate} call; the projection contract
 *   after the clamps; the executing candidates scored, the best that passes the intent gate chosen;</li>
 *   <li><b>repair</b>: when no candidate executes, one greedy repair of the first post-processed candidate, taken
 *   only when it executes and passes the intent gate.</li>
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
        Work work = new Work(question, context, name());
        IntentProfile intent = stage >= CLAMPS ? work.intent() : null;
        List<Work.Output> outputs = work.generate(calls(work));
        boolean project = stage >= CANDIDATES;
        List<Work.Result> results = new ArrayList<>();
        List<Work.Scored> scored = new ArrayList<>();
        for (Work.Output o : outputs) {
            Work.Result r = work.process(o, intent, project);
            results.add(r);
            if (stage >= CANDIDATES && r.executes()) scored.add(work.score(r, intent));
        }
        Work.Result standard = results.get(0);
        if (stage < CANDIDATES) {
            if (standard.executes()) {
                return work.answer(standard.sql(), Work.STANDARD, "the candidate executes (" + standard.form() + ")");
            }
            return work.fallback(standard, standard.cleaned().ok()
                    ? "the candidate does not execute" : "post-processing rejected the output");
        }
        if (!scored.isEmpty()) return select(work, scored);
        if (stage < REPAIR) return work.fallback(standard, "no candidate executes");
        return repair(work, results, intent);
    }

    /** standard; from agent-2 on also tabular and the samples (one request with n = candidates). */
    private List<Work.Call> calls(Work work) {
        Settings s = work.ctx.settings();
        List<Example> exemplars = work.exemplars(s.k());
        String standardPrompt = work.standardPrompt(exemplars);
        List<Work.Call> calls = new ArrayList<>();
        calls.add(Work.Call.greedy(Work.STANDARD, standardPrompt));
        if (stage < CANDIDATES) return calls;
        if (s.tabularPrompt()) {
            SchemaSubset.Subset subset = SchemaSubset.select(work.question.text(), work.ctx.schema());
            calls.add(Work.Call.greedy(Work.TABULAR, AgentPrompts.tabular(work.ctx.format(), work.ctx.schema(),
                    subset.tables(), subset.joinHints(), exemplars, work.question.text())));
        }
        if (s.candidates() > 0) {
            List<String> sources = new ArrayList<>();
            for (int i = 1; i <= s.candidates(); i++) sources.add("sample-" + i);
            calls.add(new Work.Call(Work.SAMPLES, sources, standardPrompt, true));
        }
        return calls;
    }

    /** The highest total among the candidates that pass the intent gate, else among all; ties to the earlier. */
    private static Answer select(Work work, List<Work.Scored> scored) {
        List<Work.Scored> gated = scored.stream().filter(s -> s.score().passesIntentGate()).toList();
        List<Work.Scored> pool = gated.isEmpty() ? scored : gated;
        Work.Scored best = pool.get(0);
        for (Work.Scored s : pool) {
            if (s.score().total() > best.score().total()) best = s;
        }
        String of = pool.size() == 1 ? "the only" : "the highest score of the " + pool.size();
        String decision = gated.isEmpty()
                ? of + " executing candidate" + (pool.size() == 1 ? "" : "s") + " (none passes the intent gate)"
                : of + " executing candidate" + (pool.size() == 1 ? "" : "s") + " that pass"
                        + (pool.size() == 1 ? "es" : "") + " the intent gate";
        Work.Scored chosen = best;
        boolean tie = pool.stream().anyMatch(s -> s != chosen && s.score().total() == chosen.score().total());
        if (tie) decision += "; a tie goes to the earlier candidate";
        return work.answer(best.result().sql(), best.result().source(), decision);
    }

    /** One greedy repair of the first post-processed candidate, taken only when it executes and passes the gate. */
    private static Answer repair(Work work, List<Work.Result> results, IntentProfile intent) {
        Work.Result standard = results.get(0);
        Work.Result subject = results.stream().filter(r -> r.cleaned().ok()).findFirst().orElse(null);
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
        Work.Output output = work.generate(List.of(Work.Call.greedy(Work.REPAIR, prompt))).get(0);
        Work.Result repaired = work.process(output, intent, true);
        String none = "no candidate executes; ";
        if (!repaired.cleaned().ok()) return work.fallback(standard, none + "post-processing rejected the repair");
        if (!repaired.executes()) return work.fallback(standard, none + "the repair does not execute");
        Work.Scored s = work.score(repaired, intent);
        if (!s.score().passesIntentGate()) {
            return work.fallback(standard, none + "the repair executes but fails the intent gate");
        }
        return work.answer(repaired.sql(), Work.REPAIR, none + "the repair executes and passes the intent gate");
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
