package dev.ladder.pipeline.strategy;

import dev.ladder.inference.Candidate;
import dev.ladder.inference.Completion;
import dev.ladder.inference.FinishReason;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.text.CompletionFormat;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;

/**
 * A test double for the model only: answers from a script. Each candidate of each request takes the next text of the
 * first rule whose prompt substring the request's prompt contains and that still has texts; rules are tried in the
 * order they were added, {@link #then} (any prompt) last. A request with no scripted text left fails the test.
 * Every request is recorded. Stop strings are ignored unless {@link #honouringStops} is called: then a text is cut
 * before the earliest stop string it contains, as an engine does.
 */
public final class ScriptedLanguageModel implements LanguageModel {

    private record Rule(String promptContains, Deque<String> texts) {}

    private final List<Rule> rules = new ArrayList<>();
    private final Rule any = new Rule("", new ArrayDeque<>());
    private final List<GenerationRequest> requests = Collections.synchronizedList(new ArrayList<>());
    private final List<Integer> calls = Collections.synchronizedList(new ArrayList<>());
    private final PromptFormat format;
    private boolean honourStops;

    public ScriptedLanguageModel(PromptFormat format) {
        this.format = format;
    }

    /** In the completion format with Llama 3's BOS, the format base models use. */
    public ScriptedLanguageModel() {
        this(new CompletionFormat("<|begin_of_text|>"));
    }

    /** Outputs for any prompt, in order. */
    public ScriptedLanguageModel then(String... texts) {
        any.texts().addAll(List.of(texts));
        return this;
    }

    /** Outputs for prompts containing {@code promptContains}, in order (tried before {@link #then}). */
    public ScriptedLanguageModel when(String promptContains, String... texts) {
        rules.add(new Rule(promptContains, new ArrayDeque<>(List.of(texts))));
        return this;
    }

    /** From now on cut every text before the request's earliest stop string, finishing with {@code STOP_STRING}. */
    public ScriptedLanguageModel honouringStops() {
        honourStops = true;
        return this;
    }

    public List<GenerationRequest> requests() {
        return List.copyOf(requests);
    }

    /** The number of requests of each {@code generate} call, in call order. */
    public List<Integer> calls() {
        return List.copyOf(calls);
    }

    /** Scripted texts nobody asked for. */
    public int unused() {
        return any.texts().size() + rules.stream().mapToInt(r -> r.texts().size()).sum();
    }

    @Override
    public synchronized List<Completion> generate(List<GenerationRequest> batch) {
        calls.add(batch.size());
        List<Completion> out = new ArrayList<>();
        for (GenerationRequest r : batch) {
            requests.add(r);
            List<Candidate> candidates = new ArrayList<>();
            for (int i = 0; i < r.n(); i++) {
                String text = next(r.prompt());
                int[] stop = honourStops ? earliestStop(text, r.stopStrings()) : null;
                FinishReason finish = stop == null ? FinishReason.STOP_TOKEN : FinishReason.STOP_STRING;
                // one token per word; a cut text still counts the words up to the stop string's end, as an engine
                // counts the token that held it
                int tokens = words(stop == null ? text : text.substring(0, stop[0] + stop[1]));
                if (stop != null) text = text.substring(0, stop[0]);
                List<Integer> ids = new ArrayList<>();
                List<Float> logProbs = new ArrayList<>();
                for (int t = 0; t < tokens; t++) {
                    ids.add(t);
                    logProbs.add(-0.5f);
                }
                candidates.add(new Candidate(text, ids, logProbs, finish));
            }
            out.add(new Completion(candidates, r.prompt().length() / 4, 1, 2));
        }
        return out;
    }

    /** Words of a text, the scripted model's tokens. */
    static int words(String text) {
        return text.isBlank() ? 0 : text.strip().split("\\s+").length;
    }

    /** Offset and length of the earliest stop string in the text, or null. */
    private static int[] earliestStop(String text, List<String> stops) {
        int[] found = null;
        for (String s : stops) {
            int at = text.indexOf(s);
            if (at >= 0 && (found == null || at < found[0])) found = new int[] {at, s.length()};
        }
        return found;
    }

    private String next(String prompt) {
        for (Rule rule : rules) {
            if (prompt.contains(rule.promptContains()) && !rule.texts().isEmpty()) return rule.texts().poll();
        }
        if (!any.texts().isEmpty()) return any.texts().poll();
        throw new AssertionError("no scripted output left for the prompt ending "
                + prompt.substring(Math.max(0, prompt.length() - 200)));
    }

    @Override
    public String name() {
        return "scripted";
    }

    @Override
    public PromptFormat promptFormat() {
        return format;
    }

    @Override
    public void close() {}
}
