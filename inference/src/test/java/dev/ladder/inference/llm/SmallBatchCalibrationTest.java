package dev.ladder.inference.llm;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.ladder.inference.device.TorchRuntime;
import dev.ladder.inference.llm.SmallBatchCalibration.Verdict;
import dev.ladder.inference.llm.SmallBatchLinear.Form;
import dev.ladder.inference.llm.SmallBatchPlans.Entry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static dev.ladder.inference.llm.SmallBatchLinear.Form.LINEAR;
import static dev.ladder.inference.llm.SmallBatchLinear.Form.ROW_BLOCKS;
import static dev.ladder.inference.llm.SmallBatchLinear.Form.WEIGHT_BLOCKS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

/**
 * The calibration's decisions under scripted timings and load: a {@link Machine} stands in for the weights' passes
 * (how long each form takes) and for {@code /proc} (how much CPU other processes take meanwhile); the rule and the
 * store are the real ones.
 */
class SmallBatchCalibrationTest {

    static final List<String> SHAPES = List.of("512 x 64", "64 x 512");
    static final Instant T0 = Instant.parse("2026-12-01T03:00:00Z");
    static final List<Form> ALL_WEIGHT_BLOCKS = List.of(WEIGHT_BLOCKS, WEIGHT_BLOCKS, WEIGHT_BLOCKS, WEIGHT_BLOCKS, WEIGHT_BLOCKS);
    static final List<Form> ALL_LINEAR = List.of(LINEAR, LINEAR, LINEAR, LINEAR, LINEAR);

    @TempDir Path tmp;

    /**
     * A 2-core machine: each pass takes the form's scripted milliseconds (times a per-round factor), during which both
     * cores are busy and others take {@link #othersWhenLoaded} of them while loaded (which may differ between
     * confirmations and measurements); the gauge reports the ticks that adds up to.
     */
    static final class Machine implements SmallBatchCalibration.Timer, MachineLoad.Gauge {
        Map<Form, Double> ms = Map.of(LINEAR, 200.0, WEIGHT_BLOCKS, 100.0, ROW_BLOCKS, 120.0);
        double[] roundFactors = {1.0};
        Predicate<Boolean> loadedWhileConfirming = confirm -> false;
        double othersWhenLoaded = 1.9;
        int measurePasses;
        int confirmPasses;
        private final Map<String, Integer> calls = new HashMap<>();
        private double busy;
        private double total;
        private double self;

        @Override
        public double pass(String shape, int rows, Form form, boolean confirm) {
            if (confirm) confirmPasses++;
            else measurePasses++;
            int n = calls.merge(shape + rows + form + confirm, 1, Integer::sum);
            double t = ms.get(form) * roundFactors[(n - 1) % roundFactors.length];
            double others = loadedWhileConfirming.test(confirm) ? othersWhenLoaded : 0;
            double ticks = t / 10;   // 100 Hz: both cores busy, others' share of them taken from this process
            total += 2 * ticks;
            busy += 2 * ticks;
            self += (2 - others) * ticks;
            return t;
        }

        @Override
        public MachineLoad.Counters now() {
            return new MachineLoad.Counters(Math.round(busy), Math.round(total), Math.round(self), 2, 1.0);
        }

        void quiet() {
            loadedWhileConfirming = confirm -> false;
        }

        void loaded() {
            loadedWhileConfirming = confirm -> true;
        }
    }

    private final Machine machine = new Machine();
    private Instant now = T0;

    private SmallBatchLinear.Plan run(SmallBatchPlans store) {
        SmallBatchLinear.Plan plan = new SmallBatchCalibration(machine, machine, Clock.fixed(now, ZoneOffset.UTC), 2, store)
                .run(SHAPES);
        now = now.plus(Duration.ofHours(1));
        return plan;
    }

    private SmallBatchPlans store() {
        return new SmallBatchPlans(tmp.resolve("small-batch-forms.json"), "machine A");
    }

    @Test
    void aQuietMeasurementIsStoredWithItsLoadAndReusedAfterAConfirmation() throws Exception {
        SmallBatchLinear.Plan first = run(store());
        assertThat(first.measured()).isEqualTo(2);
        assertThat(first.forms().get("512 x 64")).containsExactly(ALL_WEIGHT_BLOCKS.toArray(new Form[0]));
        assertThat(first.origins()).allMatch(o -> o.measurement().verdict() == Verdict.STORED);
        Entry e = store().read().get("512 x 64");
        assertThat(e.forms()).isEqualTo(ALL_WEIGHT_BLOCKS);
        assertThat(e.measuredAt()).isEqualTo(T0);
        assertThat(e.load().othersCores()).isZero();
        assertThat(e.load().cores()).isEqualTo(2);
        assertThat(e.spread()).isZero();
        assertThat(Files.readString(tmp.resolve("small-batch-forms.json"))).contains("\"measured_at\" : \"2026-12-01T03:00:00Z\"");
        // 3 forms x 5 row classes x 3 rounds per shape
        assertThat(machine.measurePasses).isEqualTo(2 * 45);

        machine.measurePasses = 0;
        SmallBatchLinear.Plan again = run(store());
        assertThat(again.measured()).isZero();
        assertThat(machine.measurePasses).isZero();
        // the stored form and F.linear, 2 rounds each, at each of the 5 row classes
        assertThat(machine.confirmPasses).isEqualTo(2 * 20);
        assertThat(again.describe()).isEqualTo(first.describe());
        assertThat(again.describeOrigins()).first().asString()
                .startsWith("512 x 64: stored 2026-12-01 03:00 UTC (others 0.00 of 2 cores, load average 1.00, spread 0%); confirmed now");
        assertThat(store().read().get("512 x 64").confirmedAt()).isEqualTo(T0.plus(Duration.ofHours(1)));
    }

    @Test
    void aMeasurementUnderLoadServesThisLoadOnlyAndAQuietLoadStoresIt() {
        machine.loaded();
        SmallBatchLinear.Plan loaded = run(store());
        assertThat(loaded.measured()).isEqualTo(2);
        assertThat(loaded.forms()).containsOnlyKeys(SHAPES);
        assertThat(loaded.origins()).allMatch(o -> o.measurement().verdict() == Verdict.UNDER_LOAD);
        assertThat(loaded.origins().get(0).measurement().load().othersCores()).isCloseTo(1.9, offset(0.01));
        assertThat(loaded.describeOrigins().get(0)).contains("others 1.90 of 2 cores").endsWith("this load only: under load");
        assertThat(store().read()).isEmpty();

        machine.quiet();
        assertThat(run(store()).measured()).isEqualTo(2);
        assertThat(store().read()).containsOnlyKeys(SHAPES);
    }

    /** One of 2 cores taken by others leaves a 1-thread calibration its core: quiet. */
    @Test
    void othersOnTheCoresThisProcessLeavesFreeDoNotCount() {
        MachineLoad.Load oneCore = new MachineLoad.Load(1.0, 2, 1.0);
        assertThat(SmallBatchRule.quiet(oneCore, 1)).isTrue();
        assertThat(SmallBatchRule.quiet(oneCore, 2)).isFalse();
        assertThat(SmallBatchRule.quiet(new MachineLoad.Load(0.25, 2, 1.0), 2)).isTrue();
        assertThat(SmallBatchRule.quiet(MachineLoad.Load.UNKNOWN, 2)).isTrue();
    }

    @Test
    void timingsThatSpreadBeyondTheMarginAreNotStored() {
        machine.roundFactors = new double[] {1.0, 1.3, 1.3};
        SmallBatchLinear.Plan plan = run(store());
        assertThat(plan.origins()).allMatch(o -> o.measurement().verdict() == Verdict.UNSTEADY);
        assertThat(plan.origins().get(0).measurement().spread()).isCloseTo(0.3, offset(1e-9));
        assertThat(store().read()).isEmpty();

        // without /proc the load is unknown and steady timings alone decide
        machine.roundFactors = new double[] {1.0};
        MachineLoad.Gauge none = () -> null;
        new SmallBatchCalibration(machine, none, Clock.fixed(now, ZoneOffset.UTC), 2, store()).run(SHAPES);
        assertThat(store().read().get("512 x 64").load().known()).isFalse();
    }

    @Test
    void aStoredFormThatLosesAQuietConfirmationIsDroppedAndMeasuredAgain() {
        run(store());
        // F.linear now beats the stored weight blocks by more than the margin
        machine.ms = Map.of(LINEAR, 50.0, WEIGHT_BLOCKS, 100.0, ROW_BLOCKS, 120.0);
        machine.measurePasses = 0;
        SmallBatchLinear.Plan plan = run(store());
        assertThat(plan.measured()).isEqualTo(2);
        assertThat(machine.measurePasses).isEqualTo(2 * 45);
        SmallBatchCalibration.Origin o = plan.origins().get(0);
        assertThat(o.confirmation().lostRows()).containsExactly(1, 2, 4, 8, 16);
        assertThat(o.confirmation().dropped()).isTrue();
        assertThat(plan.forms().get("512 x 64")).containsOnly(LINEAR);
        Entry e = store().read().get("512 x 64");
        assertThat(e.forms()).isEqualTo(ALL_LINEAR);
        assertThat(e.measuredAt()).isEqualTo(T0.plus(Duration.ofHours(1)));
        assertThat(plan.describeOrigins().get(0)).contains("lost to F.linear at rows 1, 2, 4, 8, 16 now").contains("dropped")
                .endsWith(": stored");
    }

    /** A quiet loss drops the entry even when the measurement that follows is under load and so stores nothing. */
    @Test
    void aDroppedFormIsNotReplacedByAMeasurementUnderLoad() {
        run(store());
        machine.ms = Map.of(LINEAR, 50.0, WEIGHT_BLOCKS, 100.0, ROW_BLOCKS, 120.0);
        machine.loadedWhileConfirming = confirm -> !confirm;
        SmallBatchLinear.Plan plan = run(store());
        assertThat(plan.forms().get("512 x 64")).containsOnly(LINEAR);
        assertThat(plan.origins().get(0).measurement().verdict()).isEqualTo(Verdict.UNDER_LOAD);
        assertThat(store().read()).isEmpty();
    }

    /** Under load a losing stored form gives way to F.linear for that load; the quiet measurement stays stored. */
    @Test
    void aLossUnderLoadRunsFLinearThereAndKeepsTheEntry() {
        run(store());
        Entry before = store().read().get("512 x 64");
        machine.loaded();
        // only the one- and two-row products lose
        machine.ms = Map.of(LINEAR, 80.0, WEIGHT_BLOCKS, 100.0, ROW_BLOCKS, 120.0);
        machine.roundFactors = new double[] {1.0};
        Machine m = machine;
        SmallBatchLinear.Plan plan = new SmallBatchCalibration(new SmallBatchCalibration.Timer() {
            @Override
            public double pass(String shape, int rows, Form form, boolean confirm) {
                double t = m.pass(shape, rows, form, confirm);
                return form == LINEAR && rows > 2 ? t * 2 : t;
            }
        }, machine, Clock.fixed(now, ZoneOffset.UTC), 2, store()).run(SHAPES);
        assertThat(plan.measured()).isZero();
        assertThat(plan.forms().get("512 x 64")).containsExactly(LINEAR, LINEAR, WEIGHT_BLOCKS, WEIGHT_BLOCKS, WEIGHT_BLOCKS);
        assertThat(plan.origins().get(0).confirmation().dropped()).isFalse();
        assertThat(plan.describeOrigins().get(0)).endsWith("but F.linear at rows 1, 2 for this load (lost under load)");
        assertThat(store().read().get("512 x 64")).isEqualTo(before);
    }

    @Test
    void oldFormatFilesAreReadAsProvisionalUntilAQuietLoadMeasures() throws Exception {
        Path file = tmp.resolve("small-batch-forms.json");
        // the format before loads were recorded: a bare list of forms per shape
        Files.writeString(file, """
                {
                  "machine A" : {
                    "512 x 64" : [ "weight blocks", "weight blocks", "row blocks", "row blocks", "row blocks" ],
                    "64 x 512" : [ "F.linear", "F.linear", "F.linear", "F.linear", "F.linear" ]
                  },
                  "machine B" : { "512 x 64" : [ "F.linear", "F.linear", "F.linear", "F.linear", "F.linear" ] }
                }
                """);
        Entry old = store().read().get("512 x 64");
        assertThat(old.provisional()).isTrue();
        assertThat(old.forms()).containsExactly(WEIGHT_BLOCKS, WEIGHT_BLOCKS, ROW_BLOCKS, ROW_BLOCKS, ROW_BLOCKS);

        // under load the old forms serve, after their confirmation
        machine.loaded();
        SmallBatchLinear.Plan loaded = run(store());
        assertThat(loaded.measured()).isZero();
        assertThat(loaded.forms().get("512 x 64")).containsExactly(WEIGHT_BLOCKS, WEIGHT_BLOCKS, ROW_BLOCKS, ROW_BLOCKS, ROW_BLOCKS);
        assertThat(loaded.describeOrigins().get(0)).startsWith("512 x 64: stored with no load recorded (provisional); confirmed now");
        assertThat(store().read().get("512 x 64").provisional()).isTrue();

        // a quiet load measures them and stores its own
        machine.quiet();
        assertThat(run(store()).measured()).isEqualTo(2);
        assertThat(store().read().values()).noneMatch(Entry::provisional);
        assertThat(store().read().get("512 x 64").forms()).isEqualTo(ALL_WEIGHT_BLOCKS);
        // another machine's entry is left as it was
        assertThat(new SmallBatchPlans(file, "machine B").read().get("512 x 64").forms()).isEqualTo(ALL_LINEAR);
    }

    /** Another machine measures its own; a form the file does not know, or a damaged file, is measured again. */
    @Test
    void plansAreKeptPerMachineAndDamageIsMeasuredOver() throws Exception {
        Path file = tmp.resolve("small-batch-forms.json");
        run(store());
        assertThat(run(new SmallBatchPlans(file, "machine B")).measured()).isEqualTo(2);
        assertThat(store().read()).containsOnlyKeys(SHAPES);

        Files.writeString(file, Files.readString(file).replaceFirst("\"weight blocks\"", "\"gemm\""));
        assertThat(run(store()).measured()).isEqualTo(1);
        Files.writeString(file, "{not json");
        assertThat(run(store()).measured()).isEqualTo(2);
        assertThat(store().read()).hasSize(2);
    }

    /** The real passes over real weights: every shape gets forms, and a store-less calibration says it kept nothing. */
    @Test
    void calibratesRealWeightsWithoutAStore() {
        try (NDManager base = TorchRuntime.engine().newBaseManager()) {
            Map<String, List<SmallBatchLinear.Blocked>> byShape = new LinkedHashMap<>();
            for (int[] shape : new int[][] {{512, 64}, {64, 512}}) {
                NDArray w = base.randomNormal(new Shape(shape[0], shape[1]));
                byShape.put(SmallBatchLinear.key(w), List.of(SmallBatchLinear.Blocked.of(w)));
            }
            SmallBatchLinear.Plan plan = SmallBatchCalibration.calibrate(byShape, base, null);
            assertThat(plan.forms()).containsOnlyKeys(SHAPES);
            assertThat(plan.origins()).allMatch(o -> o.measurement().verdict() == Verdict.NOT_STORED);
            assertThat(plan.describeOrigins().get(0)).startsWith("512 x 64: measured now (")
                    .endsWith("this load only: models under 64 MB are not stored");
        }
    }
}
