package dev.ladder.example.engine;

import dev.ladder.inference.Candidate;
import dev.ladder.inference.Completion;
import dev.ladder.inference.FinishReason;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.text.Tokenizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** The canned engine's model: every candidate is the reply, cut to the request's token budget. */
final class CannedModel implements LanguageModel {

    private final String name;
    private final List<Integer> ids;
    private final Tokenizer tokenizer;
    private final PromptFormat format;

    CannedModel(String name, String reply, Tokenizer tokenizer, PromptFormat format) {
        this.name = name;
        this.ids = Arrays.stream(tokenizer.encode(reply)).boxed().toList();
        this.tokenizer = tokenizer;
        this.format = format;
    }

    @Override
    public List<Completion> generate(List<GenerationRequest> requests) {
        List<Completion> out = new ArrayList<>();
        for (GenerationRequest r : requests) {
            List<Integer> cut = ids.subList(0, Math.min(ids.size(), r.maxNewTokens()));
            FinishReason why = cut.size() < ids.size() ? FinishReason.LENGTH : FinishReason.STOP_TOKEN;
            List<Candidate> cs = new ArrayList<>();
            for (int i = 0; i < r.n(); i++) {
                cs.add(new Candidate(tokenizer.decode(cut), cut, Collections.nCopies(cut.size(), 0f), why));
            }
            int promptTokens = r.prompt() == null ? r.promptIds().size() : tokenizer.encode(r.prompt()).length;
            out.add(new Completion(cs, promptTokens, 0, 0));
        }
        return out;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public PromptFormat promptFormat() {
        return format;
    }

    @Override
    public void close() {
        tokenizer.close();
    }
}
