package dev.ladder.inference;

/**
 * How the next token is chosen.
 *
 * @param temperature 0 means greedy (arg-max); otherwise logits are divided by it before softmax
 * @param topK        keep the k most likely tokens (0 = all)
 * @param topP        keep the smallest set whose probability reaches p (1 = all)
 */
public record Sampling(double temperature, int topK, double topP) {

    public static final Sampling GREEDY = new Sampling(0, 0, 1);

    public Sampling {
        if (!(temperature >= 0) || Double.isInfinite(temperature)) throw new IllegalArgumentException("temperature must be >= 0, got " + temperature);
        if (topK < 0) throw new IllegalArgumentException("topK must be >= 0, got " + topK);
        if (!(topP > 0 && topP <= 1)) throw new IllegalArgumentException("topP must be in (0, 1], got " + topP);
    }

    public boolean greedy() {
        return temperature == 0;
    }
}
