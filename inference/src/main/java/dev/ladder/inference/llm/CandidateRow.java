package dev.ladder.inference.llm;

import dev.ladder.inference.Candidate;
import dev.ladder.inference.FinishReason;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.Sampling;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * One candidate being generated, with the rules every in-process engine follows (djl and onnx share this class, so
 * their semantics cannot drift apart):
 * <ul>
 *   <li>candidate {@code i} of a request with seed {@code s} samples from {@code SplittableRandom(s + i)};</li>
 *   <li>end-of-sequence ids and the request's stop ids end it, and the id is not kept;</li>
 *   <li>stop strings are searched in the decoded generated text, which is cut before the earliest (the ids and
 *   log-probs keep the token that completed it);</li>
 *   <li>it may generate {@code min(maxNewTokens, context − prompt)} tokens: reaching the budget ends it with
 *   {@link FinishReason#LENGTH}, reaching the context window first with {@link FinishReason#CONTEXT}.</li>
 * </ul>
 */
public final class CandidateRow {

    public final int request;
    public final int candidate;
    public final int[] prompt;
    public final int maxNew;
    /** Tokens it may generate: min(maxNew, context - prompt). */
    public final int limit;
    public final Sampling sampling;
    public final SplittableRandom rng;
    private final Set<Integer> stopIds;
    private final List<String> stopStrings;
    private final Function<List<Integer>, String> decoder;
    private final List<Integer> ids = new ArrayList<>();
    private final List<Float> logProbs = new ArrayList<>();
    /** Left padding of its prompt in the batch. */
    public int pad;
    /** The last token it accepted (fed back at the next step). */
    public int last;
    private FinishReason finish;
    private String cutText;

    /**
     * @param eosIds  the model's end-of-sequence ids
     * @param decoder ids to text; null when the model has no tokenizer (texts are then empty, and stop strings are
     *                refused before a row is made)
     */
    public CandidateRow(int request, int candidate, GenerationRequest r, int[] prompt, int contextLength,
                        Set<Integer> eosIds, Function<List<Integer>, String> decoder) {
        this.request = request;
        this.candidate = candidate;
        this.prompt = prompt;
        this.maxNew = r.maxNewTokens();
        this.limit = Math.max(0, Math.min(r.maxNewTokens(), contextLength - prompt.length));
        this.sampling = r.sampling();
        Set<Integer> stops = new HashSet<>(eosIds);
        stops.addAll(r.stopTokenIds());
        this.stopIds = stops;
        this.stopStrings = r.stopStrings();
        this.rng = new SplittableRandom(r.seed() + candidate);
        this.decoder = decoder;
        if (maxNew == 0) finish = FinishReason.LENGTH;
        else if (limit == 0) finish = FinishReason.CONTEXT;
    }

    public boolean done() {
        return finish != null;
    }

    public void accept(int token, float logProb) {
        if (stopIds.contains(token)) {
            finish = FinishReason.STOP_TOKEN;
            return;
        }
        ids.add(token);
        logProbs.add(logProb);
        last = token;
        if (!stopStrings.isEmpty()) {
            String text = decoder.apply(ids);
            int cut = -1;
            for (String s : stopStrings) {
                int at = text.indexOf(s);
                if (at >= 0 && (cut < 0 || at < cut)) cut = at;
            }
            if (cut >= 0) {
                cutText = text.substring(0, cut);
                finish = FinishReason.STOP_STRING;
                return;
            }
        }
        if (ids.size() >= limit) finish = limit >= maxNew ? FinishReason.LENGTH : FinishReason.CONTEXT;
    }

    /**
     * The batches a call runs: whole requests (a request's candidates always together) in order, each batch at most
     * {@code maxBatchRows} rows (a request with more rows is a batch of its own); requests that cannot generate
     * anything (budget 0, prompt at the context window) are in none. Both in-process engines batch this way.
     *
     * @param rowsByRequest each request's candidate rows
     */
    public static List<List<Integer>> batches(List<List<CandidateRow>> rowsByRequest, int maxBatchRows) {
        List<List<Integer>> out = new ArrayList<>();
        List<Integer> group = new ArrayList<>();
        int groupRows = 0;
        for (int i = 0; i < rowsByRequest.size(); i++) {
            List<CandidateRow> rows = rowsByRequest.get(i);
            if (rows.get(0).done()) continue;
            if (!group.isEmpty() && groupRows + rows.size() > maxBatchRows) {
                out.add(group);
                group = new ArrayList<>();
                groupRows = 0;
            }
            group.add(i);
            groupRows += rows.size();
        }
        if (!group.isEmpty()) out.add(group);
        return out;
    }

    public Candidate toCandidate() {
        String text = cutText != null ? cutText : decoder == null ? "" : decoder.apply(ids);
        return new Candidate(text, ids, logProbs, finish);
    }
}
