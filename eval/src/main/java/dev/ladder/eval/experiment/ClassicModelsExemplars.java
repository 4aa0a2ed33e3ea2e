package dev.ladder.eval.experiment;

import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.pipeline.prompt.Example;
import dev.ladder.pipeline.prompt.ExemplarSelector;
import dev.ladder.pipeline.prompt.FixedExemplars;
import dev.ladder.pipeline.prompt.SimilarExemplars;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The k-shot exemplar rules of the bundled benchmark (see docs/benchmark.md). */
public final class ClassicModelsExemplars {

    /** Seed of the similarity selector's tie order. */
    public static final long DEFAULT_SEED = 13;

    private ClassicModelsExemplars() {}

    /**
     * Ids of the fixed exemplars, in prompt order, from {@code benchmarks/classicmodels/fixed-exemplars.txt}: the
     * three k = 3 exemplars and then a spare, which {@link FixedExemplars#select} reaches only for a question that
     * is itself one of the three (a training item).
     */
    public static List<String> fixedIds() {
        try (InputStream in = ClassicModelsExemplars.class.getResourceAsStream("/benchmarks/classicmodels/fixed-exemplars.txt")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<Example> pool(Benchmark b) {
        return b.split("train").stream().map(i -> new Example(i.id(), i.question(), i.sql())).toList();
    }

    /** @param rule "fixed" or "similar" */
    public static ExemplarSelector selector(Benchmark b, String rule, long seed) {
        return switch (rule) {
            case "fixed" -> new FixedExemplars(fixedIds(), pool(b));
            case "similar" -> new SimilarExemplars(pool(b), seed);
            default -> throw new UserError("unknown exemplar rule '" + rule + "' (use fixed or similar)");
        };
    }
}
