package dev.ladder.pipeline.prompt;

import java.util.List;

/** Chooses the k exemplars shown for a question. Implementations are deterministic. */
public interface ExemplarSelector {

    /**
     * @param question the question being asked; an example with the same text is never returned
     *                 (so a training item is not its own exemplar)
     */
    List<Example> select(String question, int k);
}
