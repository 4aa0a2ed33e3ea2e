package dev.ladder.inference.llm;

import dev.ladder.inference.Sampling;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class SamplerTest {

    /** log-probabilities 0.5, 0.25, 0.125, 0.0625, 0.0625 in a shuffled order, plus a tiny tail. */
    static float[] logits() {
        float[] l = new float[1000];
        java.util.Arrays.fill(l, -40f);
        l[7] = (float) Math.log(0.5);
        l[3] = (float) Math.log(0.25);
        l[900] = (float) Math.log(0.125);
        l[11] = (float) Math.log(0.0625);
        l[12] = (float) Math.log(0.0625);
        return l;
    }

    static int[] histogram(Sampling s, int draws) {
        float[] l = logits();
        SplittableRandom rng = new SplittableRandom(1);
        int[] h = new int[l.length];
        for (int i = 0; i < draws; i++) h[Sampler.choose(l, 0, l.length, s, rng).token()]++;
        return h;
    }

    @Test
    void greedyPicksTheArgMaxAndReportsItsLogProb() {
        Sampler.Choice c = Sampler.choose(logits(), 0, 1000, Sampling.GREEDY, new SplittableRandom(0));
        assertThat(c.token()).isEqualTo(7);
        assertThat((double) c.logProb()).isCloseTo(Math.log(0.5), within(1e-5));
    }

    @Test
    void temperatureOneFollowsTheDistribution() {
        int[] h = histogram(new Sampling(1, 0, 1), 20000);
        assertThat(h[7] / 20000.0).isCloseTo(0.5, within(0.02));
        assertThat(h[900] / 20000.0).isCloseTo(0.125, within(0.01));
    }

    @Test
    void topKKeepsTheKBest() {
        int[] h = histogram(new Sampling(1, 2, 1), 5000);
        assertThat(h[7] + h[3]).isEqualTo(5000);
        assertThat(h[7] / 5000.0).isCloseTo(2 / 3.0, within(0.03));
    }

    @Test
    void topPKeepsTheSmallestSetReachingP() {
        // 0.5 + 0.25 = 0.75 >= 0.7: two tokens
        int[] h = histogram(new Sampling(1, 0, 0.7), 5000);
        assertThat(h[7] + h[3]).isEqualTo(5000);
        // 0.5 + 0.25 + 0.125 = 0.875 >= 0.8: three tokens
        int[] h3 = histogram(new Sampling(1, 0, 0.8), 5000);
        assertThat(h3[7] + h3[3] + h3[900]).isEqualTo(5000);
        assertThat(h3[900]).isPositive();
    }

    @Test
    void logProbIsUnderTheRawLogitsNotTheTemperedOnes() {
        Sampler.Choice c = Sampler.choose(logits(), 0, 1000, new Sampling(0.3, 3, 0.9), new SplittableRandom(4));
        double p = switch (c.token()) {
            case 7 -> 0.5;
            case 3 -> 0.25;
            case 900 -> 0.125;
            default -> Double.NaN;
        };
        double expected = Math.log(p);
        assertThat((double) c.logProb()).isCloseTo(expected, within(1e-4));
    }

    @Test
    void sameSeedSameDraws() {
        float[] l = logits();
        SplittableRandom a = new SplittableRandom(9);
        SplittableRandom b = new SplittableRandom(9);
        for (int i = 0; i < 50; i++) {
            assertThat(Sampler.choose(l, 0, 1000, new Sampling(1.3, 0, 0.95), a).token())
                    .isEqualTo(Sampler.choose(l, 0, 1000, new Sampling(1.3, 0, 0.95), b).token());
        }
    }
}
