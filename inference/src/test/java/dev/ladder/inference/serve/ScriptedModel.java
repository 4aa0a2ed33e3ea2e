package dev.ladder.inference.serve;

import dev.ladder.inference.Candidate;
import dev.ladder.inference.Completion;
import dev.ladder.inference.FinishReason;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.text.Llama3ChatFormat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A test double: answers every candidate with {@code ok:<prompt>} and three fixed tokens, fails any batch holding the
 * prompt {@code boom}, records the batches it is given, and can hold a call until the test releases it.
 */
final class ScriptedModel implements LanguageModel {

    final List<List<GenerationRequest>> batches = new CopyOnWriteArrayList<>();
    private volatile CountDownLatch hold;
    private volatile CountDownLatch entered = new CountDownLatch(1);

    /** The next calls wait until {@link #release()}; {@link #awaitEntered()} tells when one has started. */
    void holdNextCalls() {
        entered = new CountDownLatch(1);
        hold = new CountDownLatch(1);
    }

    void release() {
        CountDownLatch h = hold;
        hold = null;
        if (h != null) h.countDown();
    }

    void awaitEntered() throws InterruptedException {
        if (!entered.await(30, TimeUnit.SECONDS)) throw new AssertionError("the engine was never called");
    }

    @Override
    public List<Completion> generate(List<GenerationRequest> requests) {
        batches.add(List.copyOf(requests));
        entered.countDown();
        CountDownLatch h = hold;
        if (h != null) {
            try {
                if (!h.await(60, TimeUnit.SECONDS)) throw new IllegalStateException("never released");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        List<Completion> out = new ArrayList<>();
        for (GenerationRequest r : requests) {
            if ("boom".equals(r.prompt())) throw new IllegalStateException("scripted failure");
            List<Candidate> cs = new ArrayList<>();
            for (int i = 0; i < r.n(); i++) {
                cs.add(new Candidate("ok:" + (r.prompt() == null ? "ids" : r.prompt()), List.of(1, 2, 3),
                        List.of(-0.5f, -1.25f, -0.1f), FinishReason.LENGTH));
            }
            out.add(new Completion(cs, r.prompt() == null ? r.promptIds().size() : r.prompt().length(), 0, 0));
        }
        return out;
    }

    @Override
    public String name() {
        return "scripted";
    }

    @Override
    public PromptFormat promptFormat() {
        return new Llama3ChatFormat();
    }

    @Override
    public void close() {}
}
