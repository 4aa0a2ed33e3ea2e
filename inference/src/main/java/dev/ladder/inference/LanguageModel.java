package dev.ladder.inference;

import java.util.List;

/** A text generator. Engines: {@code djl} (in-process, {@code llm.DjlLanguageModel}), {@code onnx} (ONNX Runtime, {@code onnx.OnnxLanguageModel}), {@code openai} (a server, {@code openai.OpenAiLanguageModel}). */
public interface LanguageModel extends AutoCloseable {

    /** One completion per request, in order. */
    List<Completion> generate(List<GenerationRequest> requests);

    /** A name for result rows (e.g. the model directory's name). */
    String name();

    /** The prompt format the model expects (chat for instruct models, completion for base models). */
    PromptFormat promptFormat();

    @Override
    void close();
}
