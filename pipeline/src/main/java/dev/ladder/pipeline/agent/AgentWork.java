package dev.ladder.pipeline.agent;

import dev.ladder.pipeline.agent.CandidateScorer.CandidateScore;
import dev.ladder.pipeline.kit.IntentProfile;
import dev.ladder.pipeline.prompt.Example;
import dev.ladder.pipeline.prompt.SqlPrompt;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.pipeline.strategy.Trace;
import dev.ladder.pipeline.strategy.TraceStep;
import dev.ladder.pipeline.strategy.Work;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.post.SqlPostProcessor.Cleaned;
import java.util.ArrayList;
import java.util.List;

/**
 * One question answered by a rung of the ladder: the shared {@link Work} (calls, clean-up, guarded execution, the
 * trace) and the rungs' own steps on it: the standard prompt, the schema subset, the intent profile, a candidate's
 * forms (clamped, projected) executed from the most processed down, its score, the baseline fallback.
 */
public final class AgentWork {

    /** Candidate names and form names as the trace spells them. */
    static final String STANDARD = "standard";
    static final String TABULAR = "tabular";
    static final String SAMPLES = "samples";
    static final String GATE = "gate";
    static final String REPAIR = "repair";
    static final String CLEANED = "cleaned";
    static final String CLAMPED = "clamped";
    static final String PROJECTED = "projected";

    /**
     * A candidate after post-processing, clamps, projection and execution of its forms.
     *
     * @param cleaned   the post-processor's verdict
     * @param form      the form that executes ({@code projected}, {@code clamped}, {@code cleaned}), null when none
     * @param sql       that form's text, null when none executes
     * @param execution its successful execution, null when none executes
     */
    record Result(String source, String raw, Cleaned cleaned, String form, String sql, Execution execution) {
        boolean executes() {
            return sql != null;
        }
    }

    /** An executing candidate with its score. */
    record Scored(Result result, CandidateScore score) {}

    /** One form of a candidate: its name and text. */
    private record Form(String name, String sql) {}

    final Work work;
    final Question question;
    final StrategyContext ctx;
    final Trace.Builder trace;

    AgentWork(Question question, StrategyContext ctx, String strategy) {
        this.work = new Work(question, ctx, strategy);
        this.question = question;
        this.ctx = ctx;
        this.trace = work.trace;
    }

    List<Work.Output> generate(List<Work.Call> calls) {
        return work.generate(calls);
    }

    Cleaned clean(Work.Output output) {
        return work.clean(output);
    }

    Execution executed(String sql) {
        return work.executed(sql);
    }

    Answer answer(String sql, String chosen, String decision) {
        return work.answer(sql, chosen, decision);
    }

    /** The standard prompt with these exemplars. */
    String standardPrompt(List<Example> exemplars) {
        return standardPrompt(ctx.schemaSummary(), exemplars);
    }

    /** The standard prompt over another rendering of the schema (the schema subset's). */
    String standardPrompt(String schemaSummary, List<Example> exemplars) {
        return SqlPrompt.of(ctx.format()).prompt(schemaSummary, exemplars, question.text());
    }

    /** The question's schema subset, traced. */
    SchemaSubset.Subset subset() {
        SchemaSubset.Subset s = SchemaSubset.select(question.text(), ctx.schema());
        trace.add(new TraceStep.Subset(null, s.tables(), s.joinHints()));
        return s;
    }

    /** The first {@code k} exemplars of the context's rule for the question. */
    List<Example> exemplars(int k) {
        return k == 0 ? List.of() : ctx.exemplars().select(question.text(), k);
    }

    /** The question's intent profile, traced. */
    IntentProfile intent() {
        return work.intent();
    }

    /**
     * Post-processes an output, builds its forms (clamped when {@code intent} is given, projected when {@code project}
     * too) and executes them from the most processed down until one executes.
     */
    Result process(Work.Output output, IntentProfile intent, boolean project) {
        Cleaned cleaned = work.clean(output);
        if (!cleaned.ok()) return new Result(output.source(), output.raw(), cleaned, null, null, null);
        // forms from least to most processed; a form whose text equals one below it is not a form of its own
        List<Form> forms = new ArrayList<>();
        forms.add(new Form(CLEANED, cleaned.sql()));
        String current = cleaned.sql();
        if (intent != null) {
            Clamps.Clamped c = Clamps.apply(current, intent, ctx.db().dialect());
            trace.add(new TraceStep.Clamp(output.source(), current, c.sql(), c.applied()));
            current = addForm(forms, CLAMPED, c.sql());
            if (project) {
                ProjectionContract.Projected p = ProjectionContract.enforce(current, intent, ctx.schema(), question.text());
                trace.add(new TraceStep.Project(output.source(), current, p.sql(), p.applied()));
                addForm(forms, PROJECTED, p.sql());
            }
        }
        List<String> failed = new ArrayList<>();
        for (int i = forms.size() - 1; i >= 0; i--) {
            String form = forms.get(i).name();
            String sql = forms.get(i).sql();
            Execution e = work.execute(output.source(), sql);
            if (e.ok()) {
                String reason = failed.isEmpty()
                        ? (forms.size() == 1 ? "the only form; it executes" : "the most processed form; it executes")
                        : String.join(" and ", failed) + " fail" + (failed.size() == 1 ? "s" : "") + "; " + form
                                + " executes";
                trace.add(new TraceStep.Keep(output.source(), form, sql, reason));
                return new Result(output.source(), output.raw(), cleaned, form, sql, e);
            }
            failed.add(form);
        }
        trace.add(new TraceStep.Keep(output.source(), "none", null, "no form executes"));
        return new Result(output.source(), output.raw(), cleaned, null, null, null);
    }

    /** Adds a form unless its text is already one; returns the text the next step works on. */
    private static String addForm(List<Form> forms, String name, String sql) {
        if (sql == null || sql.isBlank()) return forms.get(forms.size() - 1).sql();
        if (forms.stream().noneMatch(f -> f.sql().equals(sql))) forms.add(new Form(name, sql));
        return sql;
    }

    Scored score(Result r, IntentProfile intent) {
        CandidateScore s = CandidateScorer.score(question.text(), intent, r.sql(), ctx.schema(), r.execution());
        trace.add(new TraceStep.Score(r.source(), r.sql(), s.total(), s.parts(), s.passesIntentGate(), s.reasons()));
        return new Scored(r, s);
    }

    /** The baseline output (prompt-k3's answer) as the answer: {@code fallback}, or {@code none} when it is empty. */
    Answer fallback(Result standard, String why) {
        String sql = standard.cleaned().ok() ? standard.cleaned().sql() : "";
        return sql.isEmpty()
                ? work.answer(sql, "none", why + "; the baseline output is empty")
                : work.answer(sql, "fallback", why + "; the baseline output");
    }}
