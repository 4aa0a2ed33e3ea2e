package dev.ladder.inference.llm;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import dev.ladder.inference.device.TorchRuntime;
import dev.ladder.inference.nativeext.NativeExtension;
import dev.ladder.inference.nativeext.NativeOps;
import dev.ladder.inference.model.ModelConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The int8 side of {@code ladder bench linear --int8}: every layer projection of a model shape as int8 weights with
 * per-row scales (what {@code dtype: int8} loads), timed through the Java path ({@link Linear.Int8#javaPath}: the
 * matrix widened to float32, then one matmul) and through the native extension's product (each weight byte read
 * once) at each row count; the LM head stays float32 in an int8 model, so a decode step adds its float32 time. As
 * in {@link LinearProfile}, enough copies of each weight (512 MB) that none is still cached when read again.
 */
public final class Int8Profile {
    private Int8Profile() {}

    /** One projection at one row count: milliseconds per call of each path ({@code nativeMillis} NaN when not loaded). */
    public record Timing(LinearProfile.Projection projection, int rows, double javaMillis, double nativeMillis) {
        /** Bytes an int8 call reads of its weight: one per weight plus a float32 scale per row. */
        public long bytes() {
            return projection.out() * projection.in() + 4 * projection.out();
        }
    }

    /**
     * @param stepMillis per row count: {@code java} and {@code native}, one decode step's layer projections in int8
     *                   plus the LM head in float32 (the engine's form, from {@code f32})
     * @param nativeLine the native extension's status line
     */
    public record Result(List<Timing> timings, Map<Integer, Map<String, Double>> stepMillis, long stepBytes,
                         String nativeLine) {}

    /** Times the layer projections of {@code config} in int8; {@code f32} is the same run's float32 profile. */
    public static Result run(ModelConfig config, int threads, List<Integer> rowCounts, int repeats, LinearProfile.Result f32) {
        Engine torch = TorchRuntime.engine();
        boolean nat = NativeOps.int8(Device.cpu(), DataType.FLOAT32);
        int before = JniUtils.getNumThreads();
        JniUtils.setNumThreads(threads);
        List<Timing> timings = new ArrayList<>();
        Map<Integer, Map<String, Double>> step = new LinkedHashMap<>();
        long stepBytes = 0;
        try (NDManager base = torch.newBaseManager()) {
            for (LinearProfile.Projection p : f32.projections()) {
                if (p.name().equals("lm head")) {
                    stepBytes += p.bytes();
                    for (int rows : rowCounts) {
                        double ms = engineMillis(f32, p, rows);
                        Map<String, Double> s = step.computeIfAbsent(rows, r -> new LinkedHashMap<>());
                        s.merge("java", ms, Double::sum);
                        s.merge("native", ms, Double::sum);
                    }
                    continue;
                }
                try (NDManager m = base.newSubManager()) {
                    long int8Bytes = p.out() * p.in() + 4 * p.out();
                    stepBytes += int8Bytes * p.perStep();
                    int copies = (int) Math.max(1, Math.min(64, (LinearProfile.CYCLE_BYTES + int8Bytes - 1) / int8Bytes));
                    List<Linear.Int8> ws = new ArrayList<>();
                    for (int i = 0; i < copies; i++) {
                        NDArray q = m.randomInteger(-127, 128, new Shape(p.out(), p.in()), DataType.INT8);
                        NDArray scale = m.randomUniform(0.001f, 0.02f, new Shape(p.out()));
                        ws.add(new Linear.Int8(q, scale, null, DataType.FLOAT32, nat));
                    }
                    for (int rows : rowCounts) {
                        NDArray x = m.randomNormal(new Shape(rows, p.in()));
                        double java = time(ws, x, repeats, Linear.Int8::javaPath);
                        double nativeMs = nat && rows <= NativeOps.maxRows()
                                ? time(ws, x, repeats, (w, xi) -> w.apply(xi, null)) : Double.NaN;
                        timings.add(new Timing(p, rows, java, nativeMs));
                        Map<String, Double> s = step.computeIfAbsent(rows, r -> new LinkedHashMap<>());
                        s.merge("java", java * p.perStep(), Double::sum);
                        s.merge("native", nativeMs * p.perStep(), Double::sum);
                    }
                }
            }
        } finally {
            JniUtils.setNumThreads(before);
        }
        return new Result(timings, step, stepBytes, NativeExtension.status().line());
    }

    /** The float32 milliseconds of {@code p} at {@code rows} in the form the engine picks. */
    private static double engineMillis(LinearProfile.Result f32, LinearProfile.Projection p, int rows) {
        for (LinearProfile.Timing t : f32.timings()) {
            if (t.projection().equals(p) && t.rows() == rows && t.chosen()) return t.millis();
        }
        throw new IllegalStateException("no float32 timing of " + p.name() + " at " + rows + " rows");
    }

    /** Milliseconds per call: the best of {@code repeats} passes over all copies, each after a warm-up call. */
    private static double time(List<Linear.Int8> ws, NDArray x, int repeats,
                               BiFunction<Linear.Int8, NDArray, NDArray> call) {
        double best = Double.MAX_VALUE;
        for (int rep = 0; rep < repeats; rep++) {
            try (NDManager s = x.getManager().newSubManager()) {
                NDArray xi = x.duplicate();
                xi.attach(s);
                call.apply(ws.get(0), xi).toFloatArray();
                long t0 = System.nanoTime();
                for (Linear.Int8 w : ws) {
                    try (NDManager c = s.newSubManager()) {
                        NDArray xc = xi.duplicate();
                        xc.attach(c);
                        call.apply(w, xc).toFloatArray();
                    }
                }
                best = Math.min(best, (System.nanoTime() - t0) / 1e6 / ws.size());
            }
        }
        return best;
    }

    /** The machine's load average ({@code /proc/loadavg}: 1, 5 and 15 minutes), or "unknown". */
    public static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
