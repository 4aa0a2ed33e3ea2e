package dev.ladder.pipeline.prompt;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The same exemplars for every question, named by id, in the given order. */
public final class FixedExemplars implements ExemplarSelector {

    private final List<Example> chosen;

    /**
     * @param ids  exemplar ids in prompt order
     * @param pool where they come from (the training split)
     * @throws IllegalArgumentException naming an id the pool does not have
     */
    public FixedExemplars(List<String> ids, List<Example> pool) {
        Map<String, Example> byId = pool.stream().collect(Collectors.toMap(Example::id, Function.identity(), (a, b) -> a));
        List<Example> out = new ArrayList<>();
        for (String id : ids) {
            Example e = byId.get(id);
            if (e == null) throw new IllegalArgumentException("no exemplar with id '" + id + "' in the pool");
            out.add(e);
        }
        this.chosen = List.copyOf(out);
    }

    @Override
    public List<Example> select(String question, int k) {
        // a question that is itself one of the fixed exemplars gets the next ones instead of itself
        return chosen.stream().filter(e -> !e.question().equals(question)).limit(k).toList();
    }
}
