package dev.ladder.inference.llm;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import dev.ladder.inference.device.TorchRuntime;
import dev.ladder.inference.model.ModelConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where the time of a decode step goes on a CPU: every projection of a model shape (fused q/k/v, o, fused gate/up,
 * down, LM head), float32 on the host, timed in each call form of {@link SmallBatchLinear} at each row count, with the
 * GB/s of weight it streams, the spread of its repeated timings, the load other processes put on the machine
 * meanwhile, and the form a model's calibration would pick ({@link SmallBatchRule}) and whether it would store it;
 * and the sum over one decode step (all layers plus the LM head) per form. A batch-b decode
 * step's projections see b rows. Random weights of the config's shapes, as many copies of each as make 512 MB so that
 * no copy is still in a cache when it is read again, as a model's layers are not. Not a test: {@code ladder bench
 * linear} prints it.
 */
public final class LinearProfile {
    private LinearProfile() {}

    static final long CYCLE_BYTES = 512L << 20;

    /** One projection of the model: {@code perStep} of them run in one decode step. */
    public record Projection(String name, long out, long in, int perStep) {
        public long bytes() {
            return out * in * 4;
        }
    }

    /**
     * One measurement: {@code rows} rows through {@code projection} in {@code form}, best of the repetitions.
     *
     * @param spread the repetitions' spread ({@link SmallBatchRule#spread})
     * @param chosen whether the engine uses this form for this row count
     */
    public record Timing(Projection projection, int rows, String form, double millis, double spread, boolean chosen) {
        public double gbPerS() {
            return projection.bytes() / (millis / 1e3) / 1e9;
        }
    }

    /**
     * @param stepMillis per row count and form: the projections of one decode step, summed
     * @param loads      per projection name, other processes' load while it was timed
     */
    public record Result(int threads, List<Projection> projections, List<Timing> timings,
                         Map<Integer, Map<String, Double>> stepMillis, long stepBytes, Map<String, MachineLoad.Load> loads) {

        /** The largest spread of the timings of {@code p} at {@code rows}. */
        public double spread(Projection p, int rows) {
            return timings.stream().filter(t -> t.projection().equals(p) && t.rows() == rows)
                    .mapToDouble(Timing::spread).max().orElse(0);
        }

        /** Whether a model's calibration would store the form picked for {@code p} at {@code rows} (SmallBatchRule). */
        public boolean wouldStore(Projection p, int rows) {
            return SmallBatchRule.storable(loads.get(p.name()), threads, spread(p, rows));
        }
    }

    /** The rule a model's load stores a measured form by, in words (SmallBatchRule). */
    public static String storeRule() {
        return String.format(Locale.ROOT, "a load stores a measured form when other processes took at most %.2f cores "
                + "beyond those its threads leave free and every timing's repeats agree within %.0f%%; stored forms are "
                + "confirmed against F.linear at each later load", SmallBatchRule.SLACK_CORES, 100 * SmallBatchRule.MAX_SPREAD);
    }

    /** The projections of one decode step of {@code c}, in the order a layer runs them. */
    public static List<Projection> projections(ModelConfig c) {
        long d = c.hiddenSize();
        long qkv = (long) (c.numHeads() + 2L * c.numKvHeads()) * c.headDim();
        return List.of(
                new Projection("q/k/v", qkv, d, c.numLayers()),
                new Projection("o", d, (long) c.numHeads() * c.headDim(), c.numLayers()),
                new Projection("gate/up", 2L * c.intermediateSize(), d, c.numLayers()),
                new Projection("down", d, c.intermediateSize(), c.numLayers()),
                new Projection("lm head", c.vocabSize(), d, 1));
    }

    /**
     * Times every projection of {@code config} at each row count in each form, on {@code threads} intra-op threads.
     *
     * @param repeats passes over a projection's copies per measurement; the best pass counts
     */
    public static Result run(ModelConfig config, int threads, List<Integer> rowCounts, int repeats) {
        if (rowCounts.isEmpty() || rowCounts.stream().anyMatch(r -> r < 1)) {
            throw new IllegalArgumentException("row counts must be >= 1: " + rowCounts);
        }
        if (repeats < 1) throw new IllegalArgumentException("repeats must be >= 1");
        Engine torch = TorchRuntime.engine();   // libtorch loaded before the first JniUtils call
        int before = JniUtils.getNumThreads();
        JniUtils.setNumThreads(threads);
        List<Projection> projections = projections(config);
        List<Timing> timings = new ArrayList<>();
        Map<Integer, Map<String, Double>> step = new LinkedHashMap<>();
        Map<String, MachineLoad.Load> loads = new LinkedHashMap<>();
        long stepBytes = 0;
        try (NDManager base = torch.newBaseManager()) {
            for (Projection p : projections) {
                stepBytes += p.bytes() * p.perStep();
                try (NDManager m = base.newSubManager()) {
                    int copies = (int) Math.max(1, Math.min(64, (CYCLE_BYTES + p.bytes() - 1) / p.bytes()));
                    List<SmallBatchLinear.Blocked> ws = new ArrayList<>();
                    for (int i = 0; i < copies; i++) {
                        ws.add(SmallBatchLinear.Blocked.of(m.randomNormal(0, 0.02f, new Shape(p.out(), p.in()),
                                DataType.FLOAT32)));
                    }
                    MachineLoad.Window window = MachineLoad.start(MachineLoad.proc());
                    for (int rows : rowCounts) {
                        NDArray x = m.randomNormal(new Shape(rows, p.in()));
                        double[][] rounds = time(ws, x, repeats);
                        double[] ms = new double[rounds.length];
                        for (int f = 0; f < ms.length; f++) ms[f] = Arrays.stream(rounds[f]).min().orElseThrow();
                        SmallBatchLinear.Form chosen = SmallBatchRule.pick(rows, rounds);
                        for (SmallBatchLinear.Form form : SmallBatchLinear.Form.values()) {
                            String label = SmallBatchLinear.label(form);
                            double t = ms[form.ordinal()];
                            timings.add(new Timing(p, rows, label, t, SmallBatchRule.spread(rounds[form.ordinal()]),
                                    form == chosen));
                            step.computeIfAbsent(rows, r -> new LinkedHashMap<>()).merge(label, t * p.perStep(), Double::sum);
                        }
                    }
                    loads.put(p.name(), window.end());
                }
            }
        } finally {
            JniUtils.setNumThreads(before);
        }
        for (Map.Entry<Integer, Map<String, Double>> e : step.entrySet()) {
            double engine = 0;
            for (Timing t : timings) if (t.rows() == e.getKey() && t.chosen()) engine += t.millis() * t.projection().perStep();
            e.getValue().put("engine", engine);
        }
        return new Result(threads, projections, timings, step, stepBytes, loads);
    }

    /**
     * Milliseconds per call of each form (by ordinal) in each of {@code repeats} passes over all copies, the forms in
     * turn within a pass as a calibration times them (each pass after a warm-up call).
     */
    private static double[][] time(List<SmallBatchLinear.Blocked> ws, NDArray x, int repeats) {
        SmallBatchLinear.Form[] forms = SmallBatchLinear.Form.values();
        double[][] ms = new double[forms.length][repeats];
        for (int rep = 0; rep < repeats; rep++) {
            for (SmallBatchLinear.Form f : forms) ms[f.ordinal()][rep] = SmallBatchLinear.pass(ws, x, f) / ws.size();
        }
        return ms;
    }
}
