package dev.ladder.inference.serve;

import dev.ladder.inference.Completion;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.PromptFormat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A real engine, unchanged, that records the batches the server hands it and can hold a call until the test releases
 * it (so that the requests sent meanwhile queue up and form the next batch together).
 */
final class RecordingModel implements LanguageModel {

    final List<List<GenerationRequest>> batches = new CopyOnWriteArrayList<>();
    private final LanguageModel engine;
    private volatile CountDownLatch hold;
    private volatile CountDownLatch entered = new CountDownLatch(1);

    RecordingModel(LanguageModel engine) {
        this.engine = engine;
    }

    void holdNextCall() {
        entered = new CountDownLatch(1);
        hold = new CountDownLatch(1);
    }

    void awaitEntered() throws InterruptedException {
        if (!entered.await(60, TimeUnit.SECONDS)) throw new AssertionError("the engine was never called");
    }

    void release() {
        CountDownLatch h = hold;
        hold = null;
        if (h != null) h.countDown();
    }

    @Override
    public List<Completion> generate(List<GenerationRequest> requests) {
        batches.add(List.copyOf(requests));
        CountDownLatch h = hold;
        entered.countDown();
        if (h != null) {
            try {
                if (!h.await(60, TimeUnit.SECONDS)) throw new IllegalStateException("never released");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return engine.generate(requests);
    }

    @Override
    public String name() {
        return engine.name();
    }

    @Override
    public PromptFormat promptFormat() {
        return engine.promptFormat();
    }

    @Override
    public void close() {
        engine.close();
    }
}
