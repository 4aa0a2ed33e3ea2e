package dev.ladder.pipeline.strategy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.common.StableJson;
import dev.ladder.inference.CallTag;
import dev.ladder.inference.Candidate;
import dev.ladder.inference.Completion;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.Sampling;
import dev.ladder.pipeline.kit.IntentClassifier;
import dev.ladder.pipeline.kit.IntentProfile;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.QueryResult;
import dev.ladder.sql.post.SqlPostProcessor;
import dev.ladder.sql.post.SqlPostProcessor.Cleaned;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One question being answered: the trace under construction, the executions so far (by SQL text, so the same text is
 * never run twice for a question) and the steps every strategy is made of (calls, clean-up, guarded execution, named
 * stages, the question's intent profile, the answer). Not shared between questions or threads. The ladder's own steps
 * (forms, clamps, projection, scores) are its package's ({@code AgentWork} in the ladder's package).
 */
public final class Work {

    /**
     * One request to make.
     *
     * @param source  the prompt's name in the trace ({@code standard}, {@code tabular}, {@code samples},
     *                {@code gate}, {@code repair})
     * @param sources the candidate name of each output ({@code n} = their number)
     * @param prompt  the formatted prompt
     * @param sampled false: greedy; true: the settings' sample temperature with {@code seed}
     * @param seed    the request's sampler seed (0 for a greedy call)
     * @param maxNewTokens the request's token budget; 0: the settings' {@link Settings#maxNewTokens}
     * @param stops   the request's stop strings; null: the settings' {@link Settings#requestStops}
     * @param temperature a sampled call's temperature; 0: the settings' {@link Settings#sampleTemperature}
     * @param kind    what the call asks for, in the caller's words ({@link #SQL} by default: one SQL statement); the
     *                oracle engine answers by it (dev.ladder.pipeline.oracle), real models never see it
     * @param facts   what the caller knows that the answer depends on besides the prompt (for the oracle)
     */
    public record Call(String source, List<String> sources, String prompt, boolean sampled, long seed,
                       int maxNewTokens, List<String> stops, double temperature, String kind, Map<String, String> facts) {
        /** The kind of a call whose answer is one SQL statement (the ladder's prompts and repairs). */
        public static final String SQL = "sql";

        public Call {
            sources = List.copyOf(sources);
            stops = stops == null ? null : List.copyOf(stops);
            kind = kind == null ? SQL : kind;
            facts = facts == null ? Map.of() : Map.copyOf(facts);
        }

        Call(String source, List<String> sources, String prompt, boolean sampled, long seed) {
            this(source, sources, prompt, sampled, seed, 0, null, 0, SQL, Map.of());
        }

        public Call(String source, List<String> sources, String prompt, boolean sampled, long seed,
                    int maxNewTokens, List<String> stops, double temperature) {
            this(source, sources, prompt, sampled, seed, maxNewTokens, stops, temperature, SQL, Map.of());
        }

        /** This call, saying what it asks for and what its answer depends on. */
        public Call kind(String k, Map<String, String> f) {
            return new Call(source, sources, prompt, sampled, seed, maxNewTokens, stops, temperature, k, f);
        }

        public Call kind(String k) {
            return kind(k, facts);
        }

        public static Call greedy(String source, String prompt) {
            return new Call(source, List.of(source), prompt, false, 0);
        }

        public static Call sampled(String source, List<String> sources, String prompt, long seed) {
            return new Call(source, sources, prompt, true, seed);
        }

        /**
         * A greedy call whose answer is a JSON document, not one SQL statement: its own token budget, and no stop
         * strings (a {@code ;} inside the JSON's SQL must not end it).
         */
        public static Call json(String source, String prompt, int maxNewTokens) {
            return new Call(source, List.of(source), prompt, false, 0, maxNewTokens, List.of(), 0);
        }

        /**
         * A call with its own budget, no stop strings and its own temperature: greedy at 0, else one sample at
         * {@code temperature} with {@code seed} (a pipeline's free-form steps).
         */
        public static Call free(String source, String prompt, int maxNewTokens, double temperature, long seed) {
            return new Call(source, List.of(source), prompt, temperature > 0, temperature > 0 ? seed : 0, maxNewTokens,
                    List.of(), temperature);
        }
    }

    /** One raw model output and the candidate it is. */
    public record Output(String source, String raw) {}

    public final Question question;
    public final StrategyContext ctx;
    public final Trace.Builder trace;
    private final Map<String, Execution> executions = new HashMap<>();

    public Work(Question question, StrategyContext ctx, String strategy) {
        this.question = question;
        this.ctx = ctx;
        this.trace = new Trace.Builder(question.id(), strategy);
    }

    /** All calls in one {@code generate} (so an engine can batch them); outputs in call order, one trace step per call. */
    public List<Output> generate(List<Call> calls) {
        return generate(ctx.model(), calls);
    }

    /** {@link #generate(List)} on another model (a judge); its prompts must be in that model's format. */
    public List<Output> generate(LanguageModel model, List<Call> calls) {
        Settings s = ctx.settings();
        List<GenerationRequest> requests = new ArrayList<>();
        for (Call c : calls) {
            requests.add(new GenerationRequest(c.prompt(), null, c.maxNewTokens() > 0 ? c.maxNewTokens() : s.maxNewTokens(),
                    c.sampled() ? new Sampling(temperatureOf(c), 0, 1.0) : Sampling.GREEDY, c.sources().size(), c.sampled() ? c.seed() : 0, Set.of(),
                    stopsOf(c), new CallTag(c.kind(), question.id(), c.facts())));
        }
        List<Completion> completions = model.generate(requests);
        if (completions.size() != calls.size()) {
            throw new IllegalStateException("model " + model.name() + " answered " + completions.size()
                    + " of " + calls.size() + " requests");
        }
        List<Output> outputs = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            Call call = calls.get(i);
            Completion done = completions.get(i);
            List<String> texts = new ArrayList<>();
            List<String> finishes = new ArrayList<>();
            List<String> notes = new ArrayList<>();
            int generated = 0;
            for (int j = 0; j < call.sources().size(); j++) {
                // an engine that returns fewer candidates than asked leaves the rest empty (rejected like any empty text)
                Candidate c = j < done.candidates().size() ? done.candidates().get(j) : null;
                String text = c == null ? "" : c.text();
                texts.add(text);
                finishes.add(c == null ? "missing" : c.finishReason().name().toLowerCase(Locale.ROOT));
                generated += c == null ? 0 : c.tokenIds().size();
                if (c != null && c.note() != null) notes.add(call.sources().get(j) + ": " + c.note());
                outputs.add(new Output(call.sources().get(j), text));
            }
            String sampling = call.sampled()
                    ? "t=" + temperatureOf(call) + " seed=" + call.seed()
                    : "greedy";
            trace.add(new TraceStep.Generate(call.source(), call.sources(), sampling, done.promptTokens(), generated,
                    done.prefillMillis(), done.decodeMillis(), texts, finishes, stopsOf(call), notes));
        }
        return outputs;
    }

    private double temperatureOf(Call c) {
        return c.temperature() > 0 ? c.temperature() : ctx.settings().sampleTemperature();
    }

    private List<String> stopsOf(Call c) {
        return c.stops() != null ? c.stops() : ctx.settings().requestStops();
    }

    private static final ObjectMapper STAGE_JSON = StableJson.mapper();

    /** A pipeline stage's step: its summary in words and its own record as JSON (null: the summary says it all). */
    public void stage(String source, String stage, String summary, Object detail) {
        trace.add(new TraceStep.Stage(source, stage, summary, detail == null ? null : STAGE_JSON.valueToTree(detail)));
    }

    public Cleaned clean(Output output) {
        Cleaned c = SqlPostProcessor.clean(output.raw(), ctx.schema(), ctx.db().dialect());
        trace.add(new TraceStep.Clean(output.source(), output.raw(), c.sql(), c.steps(), c.rejection()));
        return c;
    }

    /** Guarded execution under the settings' limits; a text already executed for this question is not run again. */
    public Execution execute(String source, String sql) {
        Execution e = executions.get(sql);
        boolean cached = e != null;
        long millis = 0;
        if (!cached) {
            long start = System.nanoTime();
            e = ctx.db().execute(sql, ctx.settings().limits());
            millis = (System.nanoTime() - start) / 1_000_000;
            executions.put(sql, e);
        }
        if (e instanceof Execution.Success ok) {
            QueryResult r = ok.result();
            trace.add(new TraceStep.Execute(source, sql, true, r.rowCount(), r.truncated(), null, null, millis, cached));
        } else {
            Execution.Failure f = (Execution.Failure) e;
            trace.add(new TraceStep.Execute(source, sql, false, null, false, f.error().kind().name(),
                    f.error().message(), millis, cached));
        }
        return e;
    }

    /** The execution of a text already run for this question, or null. */
    public Execution executed(String sql) {
        return executions.get(sql);
    }

    public Answer answer(String sql, String chosen, String decision) {
        return new Answer(sql, trace.build(sql, chosen, decision));
    }

    /**
     * The question's intent profile over the context's schema, traced: the kit's classifier, which the ladder's
     * clamps, the structured search's checks and progressive's error analysis all read.
     */
    public IntentProfile intent() {
        IntentProfile p = IntentClassifier.classify(question.text(), ctx.schema());
        trace.add(new TraceStep.Intent(null, p.intent().name(), p.wantsOrder(), p.wantsLimit(), p.limitN(),
                p.wantsDistinct(), p.wantsGrouping(), p.namedFields()));
        return p;
    }
}
