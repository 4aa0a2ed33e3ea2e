package dev.ladder.inference.llm;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import dev.ladder.inference.llm.SmallBatchLinear.Blocked;
import dev.ladder.inference.llm.SmallBatchLinear.Form;
import dev.ladder.inference.llm.SmallBatchPlans.Entry;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Decides, at a model's load, which small-batch form each weight shape runs at each row class, by
 * {@link SmallBatchRule}: stored shapes are confirmed against F.linear, the others (and stored ones the rule sends
 * back) measured, and quiet measurements stored. What it times ({@link Timer}), the machine's load ({@link
 * MachineLoad.Gauge}) and the clock come in from outside, so tests can script them.
 */
final class SmallBatchCalibration {

    /** Times one pass over a shape's weights: the only thing that touches the weights. */
    interface Timer {
        /**
         * Milliseconds of one pass of {@code rows} random rows through every weight of {@code shape} in {@code form}
         * ({@code confirm}: through its first {@link SmallBatchRule#CONFIRM_BYTES} only).
         */
        double pass(String shape, int rows, Form form, boolean confirm);
    }

    /**
     * How one shape's forms came about at this load.
     *
     * @param stored       the entry the store held (null: none)
     * @param confirmation the confirmation of that entry (null: none)
     * @param measurement  this load's measurement (null: none)
     */
    record Origin(String shape, Entry stored, Confirmation confirmation, Measurement measurement) {
        /** One line: where the forms came from, under what load, and what was kept. */
        String describe() {
            StringBuilder sb = new StringBuilder(shape).append(": ");
            if (stored != null) sb.append(storedText(stored)).append("; ").append(confirmation.describe());
            if (stored != null && measurement != null) sb.append("; ");
            if (measurement != null) sb.append(measurement.describe());
            return sb.toString();
        }

        private static String storedText(Entry e) {
            if (e.provisional()) return "stored with no load recorded (provisional)";
            String spread = Double.isNaN(e.spread()) ? "" : String.format(Locale.ROOT, ", spread %.0f%%", 100 * e.spread());
            return "stored " + TIME.format(e.measuredAt()) + " (" + e.load().describe() + spread + ")";
        }
    }

    /**
     * A stored entry's confirmation at this load.
     *
     * @param lostRows the row classes where F.linear beat the stored form by the margin
     * @param dropped  whether the entry was dropped from the store (a quiet loss)
     */
    record Confirmation(MachineLoad.Load load, List<Integer> lostRows, boolean dropped) {
        String describe() {
            String at = "confirmed now (" + load.describe() + ")";
            if (lostRows.isEmpty()) return at;
            String rows = lostRows.stream().map(String::valueOf).collect(Collectors.joining(", "));
            return dropped ? "lost to F.linear at rows " + rows + " now (" + load.describe() + "): dropped"
                    : at + " but F.linear at rows " + rows + " for this load (lost under load)";
        }
    }

    /** Why a measurement was or was not stored. */
    enum Verdict {
        STORED("stored"),
        UNDER_LOAD("this load only: under load"),
        UNSTEADY("this load only: timings spread beyond the margin"),
        NOT_STORED("this load only: models under 64 MB are not stored");

        final String text;

        Verdict(String text) {
            this.text = text;
        }
    }

    /** This load's measurement of a shape: its forms, the largest timing spread, under what load, and the verdict. */
    record Measurement(Form[] forms, double spread, MachineLoad.Load load, Verdict verdict) {
        String describe() {
            return String.format(Locale.ROOT, "measured now (%s, spread %.0f%%): %s", load.describe(), 100 * spread,
                    verdict.text);
        }
    }

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private final Timer timer;
    private final MachineLoad.Gauge gauge;
    private final Clock clock;
    private final int threads;
    private final SmallBatchPlans store;

    /** @param store null: measure every shape and keep nothing */
    SmallBatchCalibration(Timer timer, MachineLoad.Gauge gauge, Clock clock, int threads, SmallBatchPlans store) {
        this.timer = timer;
        this.gauge = gauge;
        this.clock = clock;
        this.threads = threads;
        this.store = store;
    }

    /**
     * Calibrates a model's weights on this machine: costs {@code 3 x 5 x 3} passes over the weights of each shape
     * measured (12-17 s for a 1B model on the reference), {@code 2 x 5 x 2} passes over up to
     * {@link SmallBatchRule#CONFIRM_BYTES} of each shape confirmed.
     */
    static SmallBatchLinear.Plan calibrate(Map<String, List<Blocked>> byShape, NDManager manager, SmallBatchPlans store) {
        try (NDManager m = manager.newSubManager()) {
            return new SmallBatchCalibration(new WeightPasses(byShape, m), MachineLoad.proc(), Clock.systemUTC(),
                    JniUtils.getNumThreads(), store).run(byShape.keySet());
        }
    }

    /** The plan for {@code shapes}: confirmed from the store where it holds them, measured where not. */
    SmallBatchLinear.Plan run(Collection<String> shapes) {
        Map<String, Entry> stored = store == null ? Map.of() : store.read();
        Map<String, Confirmation> confirmations = confirm(shapes.stream().filter(stored::containsKey).toList(), stored);
        Outcome out = new Outcome();
        List<String> toMeasure = new ArrayList<>();
        for (String s : shapes) {
            if (!keep(s, stored.get(s), confirmations.get(s), out)) toMeasure.add(s);
        }
        measure(toMeasure).forEach((s, m) -> out.measured(s, m, clock.instant()));
        if (store != null) store.write(out.put, out.remove);
        return new SmallBatchLinear.Plan(out.forms, List.copyOf(out.origins.values()));
    }

    /** Whether a stored entry serves this load (its forms then go into {@code out}); false: measure the shape. */
    private boolean keep(String shape, Entry e, Confirmation c, Outcome out) {
        out.origins.put(shape, new Origin(shape, e, c, null));
        if (e == null) return false;
        boolean lost = !c.lostRows().isEmpty();
        if (SmallBatchRule.remeasure(lost, e.provisional(), c.load(), threads)) {
            if (c.dropped()) out.remove.add(shape);
            return false;
        }
        out.forms.put(shape, linearWhereLost(e.forms(), c.lostRows()));
        // a loss under load leaves the entry as it was, for a quiet load to confirm or drop
        if (!lost) out.put.put(shape, e.confirmed(clock.instant(), c.load()));
        return true;
    }

    /** What a calibration decided so far: the forms, their origins, and the store's changes. */
    private static final class Outcome {
        final Map<String, Form[]> forms = new LinkedHashMap<>();
        final Map<String, Origin> origins = new LinkedHashMap<>();
        final Map<String, Entry> put = new LinkedHashMap<>();
        final Set<String> remove = new LinkedHashSet<>();

        void measured(String shape, Measurement m, Instant at) {
            forms.put(shape, m.forms());
            if (m.verdict() == Verdict.STORED) {
                remove.remove(shape);
                put.put(shape, new Entry(List.of(m.forms()), at, m.load(), m.spread(), null, null));
            }
            Origin o = origins.get(shape);
            origins.put(shape, new Origin(shape, o.stored(), o.confirmation(), m));
        }
    }

    /** Confirms each held shape's stored forms against F.linear, under one load window. */
    private Map<String, Confirmation> confirm(List<String> held, Map<String, Entry> stored) {
        if (held.isEmpty()) return Map.of();
        MachineLoad.Window window = MachineLoad.start(gauge);
        Map<String, List<Integer>> lost = new HashMap<>();
        for (String s : held) lost.put(s, lostRows(s, stored.get(s).forms()));
        MachineLoad.Load load = window.end();
        Map<String, Confirmation> out = new HashMap<>();
        for (String s : held) {
            out.put(s, new Confirmation(load, lost.get(s), SmallBatchRule.drops(!lost.get(s).isEmpty(), load, threads)));
        }
        return out;
    }

    /** The row classes where the stored form loses to F.linear ({@link SmallBatchRule#loses}). */
    private List<Integer> lostRows(String shape, List<Form> forms) {
        List<Integer> lost = new ArrayList<>();
        for (int c = 0; c < SmallBatchLinear.ROW_CLASSES.length; c++) {
            Form f = forms.get(c);
            if (f == Form.LINEAR) continue;
            int rows = SmallBatchLinear.ROW_CLASSES[c];
            double form = Double.MAX_VALUE;
            double linear = Double.MAX_VALUE;
            for (int round = 0; round < SmallBatchRule.CONFIRM_ROUNDS; round++) {
                form = Math.min(form, timer.pass(shape, rows, f, true));
                linear = Math.min(linear, timer.pass(shape, rows, Form.LINEAR, true));
            }
            if (SmallBatchRule.loses(form, linear)) lost.add(rows);
        }
        return lost;
    }

    private static Form[] linearWhereLost(List<Form> stored, List<Integer> lostRows) {
        Form[] f = stored.toArray(new Form[0]);
        for (int c = 0; c < f.length; c++) if (lostRows.contains(SmallBatchLinear.ROW_CLASSES[c])) f[c] = Form.LINEAR;
        return f;
    }

    /** Measures every form of each shape under one load window; the verdicts follow the window's load. */
    private Map<String, Measurement> measure(List<String> shapes) {
        if (shapes.isEmpty()) return Map.of();
        MachineLoad.Window window = MachineLoad.start(gauge);
        Map<String, double[]> spreads = new LinkedHashMap<>();
        Map<String, Form[]> chosen = new LinkedHashMap<>();
        for (String s : shapes) {
            double[] spread = new double[1];
            chosen.put(s, measure(s, spread));
            spreads.put(s, spread);
        }
        MachineLoad.Load load = window.end();
        Map<String, Measurement> out = new LinkedHashMap<>();
        for (String s : shapes) {
            double spread = spreads.get(s)[0];
            out.put(s, new Measurement(chosen.get(s), spread, load, verdict(load, spread)));
        }
        return out;
    }

    private Verdict verdict(MachineLoad.Load load, double spread) {
        if (store == null) return Verdict.NOT_STORED;
        if (SmallBatchRule.storable(load, threads, spread)) return Verdict.STORED;
        return SmallBatchRule.quiet(load, threads) ? Verdict.UNSTEADY : Verdict.UNDER_LOAD;
    }

    /**
     * One shape's forms per row class, in rounds over all forms (a shared machine's noise then hits every form
     * alike); each form's best round counts. {@code spread[0]} receives the largest spread of any timing.
     */
    private Form[] measure(String shape, double[] spread) {
        Form[] all = Form.values();
        Form[] chosen = new Form[SmallBatchLinear.ROW_CLASSES.length];
        for (int c = 0; c < chosen.length; c++) {
            int rows = SmallBatchLinear.ROW_CLASSES[c];
            double[][] rounds = new double[all.length][SmallBatchRule.ROUNDS];
            for (int round = 0; round < SmallBatchRule.ROUNDS; round++) {
                for (Form f : all) rounds[f.ordinal()][round] = timer.pass(shape, rows, f, false);
            }
            for (Form f : all) spread[0] = Math.max(spread[0], SmallBatchRule.spread(rounds[f.ordinal()]));
            chosen[c] = SmallBatchRule.pick(rows, rounds);
        }
        return chosen;
    }

    /** The real {@link Timer}: passes over the model's own weights, one random input per shape and row count. */
    private static final class WeightPasses implements Timer {
        private final Map<String, List<Blocked>> byShape;
        private final NDManager manager;
        private final Map<String, NDArray> inputs = new HashMap<>();

        WeightPasses(Map<String, List<Blocked>> byShape, NDManager manager) {
            this.byShape = byShape;
            this.manager = manager;
        }

        @Override
        public double pass(String shape, int rows, Form form, boolean confirm) {
            List<Blocked> ws = byShape.get(shape);
            NDArray x = inputs.computeIfAbsent(shape + "/" + rows,
                    k -> manager.randomNormal(new Shape(rows, ws.get(0).weight().getShape().get(1))));
            return SmallBatchLinear.pass(confirm ? confirmSample(ws) : ws, x, form);
        }

        /** The first weights up to {@link SmallBatchRule#CONFIRM_BYTES} (at least one). */
        private static List<Blocked> confirmSample(List<Blocked> ws) {
            long bytes = 0;
            int n = 0;
            while (n < ws.size() && bytes < SmallBatchRule.CONFIRM_BYTES) {
                NDArray w = ws.get(n++).weight();
                bytes += w.size() * w.getDataType().getNumOfBytes();
            }
            return ws.subList(0, n);
        }
    }
}
