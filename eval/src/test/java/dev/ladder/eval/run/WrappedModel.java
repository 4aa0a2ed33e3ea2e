package dev.ladder.eval.run;

import dev.ladder.inference.Completion;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.PromptFormat;
import java.util.List;

/**
 * A real model with something run before each generate call and on close: how runner tests count loads and closes or
 * make one call fail, around the model (never instead of it).
 */
final class WrappedModel implements LanguageModel {

    private final LanguageModel inner;
    private final Runnable beforeGenerate;
    private final Runnable onClose;

    WrappedModel(LanguageModel inner, Runnable beforeGenerate, Runnable onClose) {
        this.inner = inner;
        this.beforeGenerate = beforeGenerate;
        this.onClose = onClose;
    }

    @Override
    public List<Completion> generate(List<GenerationRequest> requests) {
        beforeGenerate.run();
        return inner.generate(requests);
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public PromptFormat promptFormat() {
        return inner.promptFormat();
    }

    @Override
    public void close() {
        onClose.run();
        inner.close();
    }
}
