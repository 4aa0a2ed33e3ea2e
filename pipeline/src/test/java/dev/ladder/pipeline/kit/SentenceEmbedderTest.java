package dev.ladder.pipeline.kit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SentenceEmbedderTest {

    static SentenceEmbedder embedder;

    @BeforeAll
    static void load() {
        embedder = SentenceEmbedder.load();
    }

    @AfterAll
    static void close() {
        embedder.close();
    }

    @Test
    void similarSchemaNamesRankAboveUnrelatedOnes() {
        float[] question = embedder.embed("postal code of each office");
        double postal = SentenceEmbedder.cosine(question, embedder.embed("offices postal code"));
        double credit = SentenceEmbedder.cosine(question, embedder.embed("customers credit limit"));
        double stock = SentenceEmbedder.cosine(question, embedder.embed("products quantity in stock"));
        assertThat(postal).isGreaterThan(credit).isGreaterThan(0.5);
        assertThat(postal).isGreaterThan(stock);
    }

    @Test
    void embeddingsAreUnitLengthAndDeterministic() {
        float[] a = embedder.embed("order date");
        float[] b = embedder.embed("order date");
        assertThat(a).hasSize(SentenceEmbedder.DIMENSION).containsExactly(b);
        assertThat(SentenceEmbedder.cosine(a, a)).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-5));
    }
}
