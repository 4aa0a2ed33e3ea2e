package dev.ladder.pipeline.strategy;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * One thing a strategy did for a question. In JSON each step is an object whose {@code kind} names the record
 * ({@code generate}, {@code clean}, {@code intent}, {@code clamp}, {@code project}, {@code execute}, {@code score},
 * {@code keep}, {@code repair}, {@code subset}, {@code stage}); {@code source} names the candidate it concerns ({@code standard},
 * {@code tabular}, {@code sample-1} ..., {@code gate-1} ..., {@code repair}).
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
@JsonSubTypes({
    @JsonSubTypes.Type(TraceStep.Generate.class), @JsonSubTypes.Type(TraceStep.Clean.class),
    @JsonSubTypes.Type(TraceStep.Intent.class), @JsonSubTypes.Type(TraceStep.Clamp.class),
    @JsonSubTypes.Type(TraceStep.Project.class), @JsonSubTypes.Type(TraceStep.Execute.class),
    @JsonSubTypes.Type(TraceStep.Score.class), @JsonSubTypes.Type(TraceStep.Keep.class),
    @JsonSubTypes.Type(TraceStep.Repair.class), @JsonSubTypes.Type(TraceStep.Subset.class),
    @JsonSubTypes.Type(TraceStep.Stage.class)
})
public sealed interface TraceStep {

    /** The candidate (or prompt) the step concerns; null for question-wide steps (intent). */
    String source();

    /**
     * One model call for one prompt.
     *
     * @param sources         the candidate names of its outputs, in order
     * @param sampling        {@code greedy}, or {@code t=0.3 seed=0}
     * @param promptTokens    the prompt's length in tokens
     * @param generatedTokens tokens generated over all outputs
     * @param outputs         the raw texts, as the model wrote them
     * @param finishReasons   why each output stopped ({@code stop_string}: cut before one of {@code stopStrings})
     * @param stopStrings     the stop strings the request carried (empty in traces written before they were recorded)
     * @param notes           what an instrument engine did to each output ("samples-1: semantic wrong_column ..."); empty
     *                        for real models (and then absent from the JSON)
     */
    @JsonTypeName("generate")
    record Generate(String source, List<String> sources, String sampling, int promptTokens, int generatedTokens,
                    long prefillMillis, long decodeMillis, List<String> outputs, List<String> finishReasons,
                    List<String> stopStrings,
                    @JsonInclude(JsonInclude.Include.NON_EMPTY)
                    List<String> notes)
            implements TraceStep {
        public Generate {
            stopStrings = stopStrings == null ? List.of() : List.copyOf(stopStrings);
            notes = notes == null ? List.of() : List.copyOf(notes);
        }

        public Generate(String source, List<String> sources, String sampling, int promptTokens, int generatedTokens,
                        long prefillMillis, long decodeMillis, List<String> outputs, List<String> finishReasons,
                        List<String> stopStrings) {
            this(source, sources, sampling, promptTokens, generatedTokens, prefillMillis, decodeMillis, outputs,
                    finishReasons, stopStrings, List.of());
        }
    }

    /**
     * Post-processing of one raw output ({@code SqlPostProcessor}).
     *
     * @param sql       the cleaned SQL, null when rejected
     * @param steps     the post-processing steps that changed something
     * @param rejection why it was rejected, null when it was not
     */
    @JsonTypeName("clean")
    record Clean(String source, String raw, String sql, List<String> steps, String rejection) implements TraceStep {}

    /** The question's intent profile ({@code IntentClassifier}), once per question from agent-1 up. */
    @JsonTypeName("intent")
    record Intent(String source, String intent, boolean wantsOrder, boolean wantsLimit, Integer limitN,
                  boolean wantsDistinct, boolean wantsGrouping, List<String> namedFields) implements TraceStep {}

    /** Clamps applied to a candidate (an empty {@code applied} list: nothing to clamp). */
    @JsonTypeName("clamp")
    record Clamp(String source, String before, String after, List<String> applied) implements TraceStep {}

    /** The projection contract enforced on a candidate. */
    @JsonTypeName("project")
    record Project(String source, String before, String after, List<String> applied) implements TraceStep {}

    /**
     * Guarded execution of one SQL text.
     *
     * @param rows         rows returned (null on failure)
     * @param errorKind    the {@code ExecutionError.Kind} on failure
     * @param errorMessage the database's or the guard's words on failure
     * @param cached       true when the same text had already been executed for this question (result reused)
     */
    @JsonTypeName("execute")
    record Execute(String source, String sql, boolean ok, Integer rows, boolean truncated, String errorKind,
                   String errorMessage, long millis, boolean cached) implements TraceStep {}

    /** {@code CandidateScorer}'s verdict on an executing candidate. */
    @JsonTypeName("score")
    record Score(String source, String sql, double total, Map<String, Double> parts, boolean passesIntentGate,
                 List<String> reasons) implements TraceStep {}

    /**
     * Which form of a candidate goes on: {@code projected}, {@code clamped} or {@code cleaned} (the most processed
     * form that executes; {@code none} when no form does).
     */
    @JsonTypeName("keep")
    record Keep(String source, String form, String sql, String reason) implements TraceStep {}

    /**
     * A repair attempt starts (agent-3): the failed SQL and its error go into {@code repair.txt}.
     *
     * @param source    the candidate being repaired
     * @param failedSql its SQL (its raw output when post-processing rejected it)
     * @param error     the database error, or the post-processor's rejection
     */
    @JsonTypeName("repair")
    record Repair(String source, String failedSql, String error) implements TraceStep {}

    /**
     * The question's schema subset, when the extra candidates' prompts use it (agent-2/3 with {@code schema_subset} on).
     *
     * @param tables    the tables chosen, in schema order
     * @param joinHints the foreign keys between them, one line each
     */
    @JsonTypeName("subset")
    record Subset(String source, List<String> tables, List<String> joinHints) implements TraceStep {}

    /**
     * A named stage of a published pipeline (structured search's {@code sketches}, {@code entities},
     * {@code evidence}, {@code validate-L0} ...): what it found in one line, and its own record as JSON. One step kind
     * for every pipeline, so a new pipeline adds stages without changing how traces are read.
     *
     * @param stage   the stage's name
     * @param summary what it found, in words (one line)
     * @param detail  the stage's record (a pipeline's own types, as JSON); null when the summary says everything
     */
    @JsonTypeName("stage")
    record Stage(String source, String stage, String summary, JsonNode detail)
            implements TraceStep {}
}
