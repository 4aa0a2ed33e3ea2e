package dev.ladder.eval.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class StatisticsTest {

    @Test
    void mcnemarExactPMatchesHandComputedBinomialTails() {
        // 2 * (C(10,0) + C(10,1)) / 2^10 = 22 / 1024
        assertThat(Statistics.mcnemarExactP(1, 9)).isEqualTo(0.021484375);
        assertThat(Statistics.mcnemarExactP(9, 1)).isEqualTo(0.021484375);
        // 2 * (1 + 10 + 45) / 1024
        assertThat(Statistics.mcnemarExactP(2, 8)).isEqualTo(0.109375);
        assertThat(Statistics.mcnemarExactP(0, 5)).isEqualTo(0.0625);
        assertThat(Statistics.mcnemarExactP(0, 4)).isEqualTo(0.125);
        assertThat(Statistics.mcnemarExactP(0, 0)).isEqualTo(1.0);
        assertThat(Statistics.mcnemarExactP(7, 7)).isEqualTo(1.0);
        assertThat(Statistics.mcnemarExactP(120, 120)).isEqualTo(1.0);
        assertThat(Statistics.mcnemarExactP(0, 1)).isEqualTo(1.0);
        assertThatThrownBy(() -> Statistics.mcnemarExactP(-1, 2)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void mcnemarStaysExactForLargeCounts() {
        // b=100, c=140 in log space with log-sum-exp, independent of the exact integer sum under test
        int n = 240;
        double[] logTerms = new double[101];
        for (int i = 0; i <= 100; i++) logTerms[i] = logChoose(n, i) - n * Math.log(2);
        double max = logTerms[100];
        double sum = 0;
        for (double t : logTerms) sum += Math.exp(t - max);
        double expected = 2 * Math.exp(max + Math.log(sum));
        assertThat(Statistics.mcnemarExactP(100, 140)).isCloseTo(expected, within(expected * 1e-9));
        assertThat(expected).isBetween(0.005, 0.02);
        // 2 * 0.5^1000 underflows a naive product of doubles, not the exact sum
        assertThat(Statistics.mcnemarExactP(0, 1000)).isCloseTo(2 * Math.pow(2, -1000), within(1e-310));
        assertThat(Statistics.mcnemarExactP(0, 1000)).isGreaterThan(0);
    }

    private static double logChoose(int n, int k) {
        double s = 0;
        for (int i = 1; i <= k; i++) s += Math.log(n - k + i) - Math.log(i);
        return s;
    }

    @Test
    void mcnemarCountsDiscordantPairs() {
        boolean[] first = {true, true, false, false, true, false};
        boolean[] second = {true, false, true, true, false, false};
        Statistics.McNemar m = Statistics.mcnemar(first, second);
        assertThat(m.n()).isEqualTo(6);
        assertThat(m.b()).isEqualTo(2); // right, then wrong
        assertThat(m.c()).isEqualTo(2); // wrong, then right
        assertThat(m.p()).isEqualTo(1.0);
        assertThatThrownBy(() -> Statistics.mcnemar(new boolean[2], new boolean[3]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void percentileInterpolatesLinearly() {
        double[] sorted = {1, 2, 3, 4};
        assertThat(Statistics.percentile(sorted, 0)).isEqualTo(1);
        assertThat(Statistics.percentile(sorted, 1)).isEqualTo(4);
        assertThat(Statistics.percentile(sorted, 0.5)).isEqualTo(2.5);
        assertThat(Statistics.percentile(sorted, 0.25)).isEqualTo(1.75); // h = 3 * 0.25
        assertThat(Statistics.percentile(new double[] {5}, 0.975)).isEqualTo(5);
    }

    @Test
    void bootstrapIntervalIsReproducibleContainsTheEstimateAndHasTheExpectedWidth() {
        boolean[] values = new boolean[100];
        for (int i = 0; i < 100; i += 2) values[i] = true;
        Statistics.Estimate e = mean(values, 1000, 0);
        assertThat(e.value()).isEqualTo(0.5);
        assertThat(e.lower()).isLessThanOrEqualTo(0.5);
        assertThat(e.upper()).isGreaterThanOrEqualTo(0.5);
        // the normal approximation gives 0.5 +- 1.96 * 0.05 = [0.402, 0.598]
        assertThat(e.lower()).isCloseTo(0.402, within(0.03));
        assertThat(e.upper()).isCloseTo(0.598, within(0.03));
        assertThat(mean(values, 1000, 0)).isEqualTo(e);
        assertThat(mean(values, 1000, 42)).isEqualTo(mean(values, 1000, 42));
    }

    @Test
    void bootstrapOfDegenerateSamples() {
        assertThat(mean(new boolean[] {true, true, true}, 1000, 0)).isEqualTo(new Statistics.Estimate(1, 1, 1));
        assertThat(mean(new boolean[5], 1000, 0)).isEqualTo(new Statistics.Estimate(0, 0, 0));
        Statistics.Estimate none = mean(new boolean[0], 1000, 0);
        assertThat(none.present()).isFalse();
        assertThat(none.lower()).isNaN();
        assertThatThrownBy(() -> mean(new boolean[1], 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pairedBootstrapKeepsThePairing() {
        boolean[] a = new boolean[40];
        boolean[] b = new boolean[40];
        for (int i = 0; i < 40; i++) {
            a[i] = i % 3 == 0;
            b[i] = a[i];
        }
        // identical outcomes: every resample's difference is 0; unpaired resampling would spread it
        assertThat(Statistics.pairedBootstrapDifference(a, b, 500, 0)).isEqualTo(new Statistics.Estimate(0, 0, 0));

        boolean[] allWrong = new boolean[10];
        boolean[] allRight = new boolean[10];
        java.util.Arrays.fill(allRight, true);
        assertThat(Statistics.pairedBootstrapDifference(allWrong, allRight, 200, 3))
                .isEqualTo(new Statistics.Estimate(1, 1, 1));

        boolean[] first = new boolean[50];
        boolean[] second = new boolean[50];
        for (int i = 0; i < 50; i++) {
            first[i] = i < 20;
            second[i] = i < 30;
        }
        Statistics.Estimate d = Statistics.pairedBootstrapDifference(first, second, 1000, 0);
        assertThat(d.value()).isCloseTo(0.2, within(1e-12));
        assertThat(d.lower()).isGreaterThan(0.05).isLessThanOrEqualTo(0.2);
        assertThat(d.upper()).isGreaterThanOrEqualTo(0.2).isLessThan(0.35);
        assertThat(Statistics.pairedBootstrapDifference(first, second, 1000, 0)).isEqualTo(d);
        assertThat(Statistics.pairedBootstrapDifference(new boolean[0], new boolean[0], 10, 0).present()).isFalse();
    }

    @Test
    void stylesWriteFixedDecimals() {
        assertThat(Style.PROPORTION.display(2.0 / 3)).isEqualTo("0.667");
        assertThat(Style.PROPORTION.display(0.0005)).isEqualTo("0.001");
        assertThat(Style.PROPORTION.display(Double.NaN)).isEqualTo(Style.MISSING);
        assertThat(Style.PROPORTION.csv(Double.NaN)).isEmpty();
        assertThat(Style.DIFFERENCE.display(0.05)).isEqualTo("+0.050");
        assertThat(Style.DIFFERENCE.display(-0.1)).isEqualTo("-0.100");
        assertThat(Style.DIFFERENCE.display(-0.0001)).isEqualTo("+0.000"); // no negative zero
        assertThat(Style.P_VALUE.display(0.021484375)).isEqualTo("0.0215");
        assertThat(Style.P_VALUE.display(1e-7)).isEqualTo("<0.0001");
        assertThat(Style.P_VALUE.csv(0.021484375)).isEqualTo("0.0214844");
        assertThat(Style.P_VALUE.csv(1e-7)).isEqualTo("0.0000001");
        assertThat(Style.P_VALUE.csv(1.0)).isEqualTo("1");
        assertThat(Style.DECIMAL.display(109.25)).isEqualTo("109.3");
        assertThat(Style.COUNT.csv(20)).isEqualTo("20");
    }

    @Test
    void wilsonIntervalsMatchKnownValuesAndAreNotDegenerateAtTheEnds() {
        // 0/10: [0, z^2 / (n + z^2)]; 10/10: [n / (n + z^2), 1]; 5/10: 0.5 -+ z sqrt(0.025 + z^2/400) / (1 + z^2/10)
        Statistics.Estimate none = Statistics.wilson(0, 10);
        assertThat(none.value()).isEqualTo(0.0);
        assertThat(none.lower()).isEqualTo(0.0);
        assertThat(none.upper()).isCloseTo(0.277532, org.assertj.core.data.Offset.offset(1e-6));
        Statistics.Estimate half = Statistics.wilson(5, 10);
        assertThat(half.lower()).isCloseTo(0.236594, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(half.upper()).isCloseTo(0.763406, org.assertj.core.data.Offset.offset(1e-6));
        Statistics.Estimate all = Statistics.wilson(new boolean[] {true, true, true, true, true, true, true, true, true, true});
        assertThat(all.lower()).isCloseTo(0.722468, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(all.upper()).isEqualTo(1.0);
        assertThat(Statistics.wilson(0, 0).present()).isFalse();
    }

    @Test
    void holmAdjustsAFamilyOfExactPValuesStepDownAndMonotone() {
        // three comparisons with discordant counts (b, c) = (0, 6), (1, 7), (2, 8):
        // exact p = 2/64 = 0.03125, 2 (1 + 8) / 256 = 0.0703125, 2 (1 + 10 + 45) / 1024 = 0.109375
        double[] p = {Statistics.mcnemarExactP(2, 8), Statistics.mcnemarExactP(0, 6), Statistics.mcnemarExactP(1, 7)};
        assertThat(p).containsExactly(0.109375, 0.03125, 0.0703125);
        // sorted: 3 x 0.03125 = 0.09375; 2 x 0.0703125 = 0.140625; 1 x 0.109375 < 0.140625, so 0.140625 (monotone)
        assertThat(Statistics.holm(p)).containsExactly(0.140625, 0.09375, 0.140625);
        assertThat(Statistics.holm(new double[] {0.5, 0.6})).containsExactly(1.0, 1.0); // capped at 1
        double[] withMissing = Statistics.holm(new double[] {Double.NaN, 0.02, 0.04});
        assertThat(withMissing[0]).isNaN();
        assertThat(withMissing[1]).isCloseTo(0.04, org.assertj.core.data.Offset.offset(1e-12)); // m = 2, NaN not counted
        assertThat(withMissing[2]).isCloseTo(0.04, org.assertj.core.data.Offset.offset(1e-12));
    }

    @Test
    void bootstrapOfMeanDifferencesEqualsThePairedBootstrapForOneSeed() {
        boolean[] x = {true, false, false, true, false, true, false, false};
        boolean[] y = {true, true, false, false, true, true, true, false};
        double[] d = new double[x.length];
        for (int i = 0; i < d.length; i++) d[i] = (y[i] ? 1 : 0) - (x[i] ? 1 : 0);
        assertThat(Statistics.bootstrapMean(d, 500, 3)).isEqualTo(Statistics.pairedBootstrapDifference(x, y, 500, 3));
        assertThat(Statistics.sampleSd(new double[] {0.4, 0.6})).isCloseTo(Math.sqrt(0.02), org.assertj.core.data.Offset.offset(1e-12));
        assertThat(Statistics.sampleSd(new double[] {0.4})).isNaN();
    }

    /** The bootstrap of a proportion: the mean of 0/1 outcomes. */
    private static Statistics.Estimate mean(boolean[] outcomes, int resamples, long seed) {
        double[] values = new double[outcomes.length];
        for (int i = 0; i < outcomes.length; i++) values[i] = outcomes[i] ? 1 : 0;
        return Statistics.bootstrapMean(values, resamples, seed);
    }
}
