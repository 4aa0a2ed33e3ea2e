package dev.ladder.inference.llm;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A projection {@code y = x W^T} for the few rows of a decode step on a CPU, in the call form that reads the weight
 * fastest there.
 *
 * <p>Why: {@code torch.nn.functional.linear} with 2 to 16 rows is one sgemm, and on the 2-core reference (AMD EPYC,
 * the MKL inside PyTorch 2.7.1) sgemm streams a {@code [16384, 2048]} float32 weight at 9-11 GB/s, against 23 GB/s
 * for one row (a gemv) and 47-56 GB/s that the memory gives: batch 4 then costs 2.3 batch-1 steps. Cutting the
 * weight's output rows into blocks of about {@link #BLOCK_ROWS} (a view, nothing copied) and running the blocks as
 * one {@code bmm} lets PyTorch spread the blocks over its threads, each block a small product whose operand fits in
 * the core's L2. Measured per form and batch size by {@code ladder bench linear} (see docs/inference.md), the
 * default rule is:
 * <ul>
 *   <li>{@link Form#WEIGHT_BLOCKS} ({@code bmm(W_blocks, x^T)}, each block a gemv or a two-column product) for one
 *       or two rows;</li>
 *   <li>{@link Form#ROW_BLOCKS} ({@code bmm(x, W_blocks^T)}) for 3 to {@link #MAX_ROWS} rows;</li>
 *   <li>{@link Form#LINEAR} (one sgemm) beyond that, where sgemm is compute-bound and efficient.</li>
 * </ul>
 * The best form also depends on the weight's shape, the machine's BLAS and what else runs on the machine, so a model
 * measures the forms on its own weights when it loads ({@link SmallBatchCalibration}, by {@link SmallBatchRule}) and
 * keeps a {@link Plan}.
 * The sums run in another order than sgemm's, so results differ from {@code linear} in the last bits only (the
 * engine's parity tests bound it). {@link LlamaModel.Options#smallBatchForms()} switches this off, so its effect can
 * be measured ({@code ladder bench generate} prints both).
 */
final class SmallBatchLinear {
    private SmallBatchLinear() {}

    /** Most rows (batch x tokens) that take a blocked form; more go to sgemm. */
    static final int MAX_ROWS = 16;
    /** Output rows per block: 256 x 2048 float32 weights are 2 MB, one core's L2 on the reference. */
    static final int BLOCK_ROWS = 256;

    /** How a projection is called. */
    enum Form {
        /** {@code torch.nn.functional.linear}: one gemv (1 row) or sgemm */
        LINEAR,
        /** {@code bmm(W_blocks [c, out/c, in], x^T [c, in, rows])} */
        WEIGHT_BLOCKS,
        /** {@code bmm(x [c, rows, in], W_blocks^T [c, in, out/c])} */
        ROW_BLOCKS
    }

    /** Row counts a {@link Plan} is measured at; a call with {@code r} rows uses the smallest class {@code >= r}. */
    static final int[] ROW_CLASSES = {1, 2, 4, 8, 16};

    /** The default rule: the form for {@code rows} rows before (or without) a measurement. */
    static Form formFor(long rows) {
        if (rows <= 2) return Form.WEIGHT_BLOCKS;
        if (rows <= MAX_ROWS) return Form.ROW_BLOCKS;
        return Form.LINEAR;
    }

    /** Number of blocks for {@code out} output rows: the largest divisor of {@code out} at most out / BLOCK_ROWS. */
    static int blockCount(long out) {
        int c = (int) Math.max(1, out / BLOCK_ROWS);
        while (out % c != 0) c--;
        return c;
    }

    /**
     * Which form each weight shape takes at each row class on this machine at this load ({@link
     * SmallBatchCalibration}).
     *
     * @param forms   per weight shape ({@code "out x in"}), one form per {@link #ROW_CLASSES} entry
     * @param origins per weight shape, how its forms came about: measured now or stored, under what load, what was kept
     */
    record Plan(Map<String, Form[]> forms, List<SmallBatchCalibration.Origin> origins) {
        Plan {
            forms = Map.copyOf(forms);
            origins = List.copyOf(origins);
        }

        /** How many shapes this load measured (the others were confirmed from {@link SmallBatchPlans}). */
        int measured() {
            return (int) origins.stream().filter(o -> o.measurement() != null).count();
        }

        Form formFor(Blocked weight, long rows) {
            if (rows > MAX_ROWS) return Form.LINEAR;
            Form[] f = forms.get(weight.shapeKey());
            if (f == null) return SmallBatchLinear.formFor(rows);
            int c = 0;
            while (ROW_CLASSES[c] < rows) c++;
            return f[c];
        }

        /** One line per weight shape: {@code out x in: 1 weight blocks, 2 weight blocks, 4 row blocks, ...}. */
        List<String> describe() {
            List<String> lines = new ArrayList<>();
            for (Map.Entry<String, Form[]> e : new TreeMap<>(forms).entrySet()) {
                StringBuilder sb = new StringBuilder(e.getKey()).append(':');
                for (int i = 0; i < ROW_CLASSES.length; i++) {
                    sb.append(i == 0 ? " " : ", ").append(ROW_CLASSES[i]).append(' ').append(label(e.getValue()[i]));
                }
                lines.add(sb.toString());
            }
            return lines;
        }

        /** One line per weight shape: where its forms came from at this load, under what load, what was kept. */
        List<String> describeOrigins() {
            List<String> lines = new ArrayList<>();
            for (SmallBatchCalibration.Origin o : origins) lines.add(o.describe());
            return lines;
        }
    }

    static String key(NDArray weight) {
        return weight.getShape().get(0) + " x " + weight.getShape().get(1);
    }

    /** A form's name in tables. */
    static String label(Form form) {
        return switch (form) {
            case LINEAR -> "F.linear";
            case WEIGHT_BLOCKS -> "weight blocks";
            case ROW_BLOCKS -> "row blocks";
        };
    }

    /** The form a {@link #label} names, or null. */
    static Form formOf(String label) {
        for (Form f : Form.values()) if (label(f).equals(label)) return f;
        return null;
    }

    /** Milliseconds of one pass of {@code x} through every weight in {@code form}, after one warm-up call. */
    static double pass(List<Blocked> ws, NDArray x, Form form) {
        try (NDManager s = x.getManager().newSubManager()) {
            NDArray xi = x.duplicate();
            xi.attach(s);
            ws.get(0).apply(xi, form).toFloatArray();
            long t0 = System.nanoTime();
            for (Blocked w : ws) w.apply(xi, form).toFloatArray();
            return (System.nanoTime() - t0) / 1e6;
        }
    }

    /**
     * A weight {@code [out, in]} ready for the blocked forms: views of it as blocks, made once (on the weight's
     * manager), so a step creates no views of the weight.
     */
    record Blocked(NDArray weight, NDArray blocks, NDArray blocksT, String shapeKey) {
        static Blocked of(NDArray weight) {
            long out = weight.getShape().get(0);
            long in = weight.getShape().get(1);
            int c = blockCount(out);
            NDArray blocks = weight.reshape(c, out / c, in);
            return new Blocked(weight, blocks, blocks.transpose(0, 2, 1), key(weight));
        }

        /** {@code x W^T} for {@code x [..., in]} in {@code form}; results attach to the manager of {@code x}. */
        NDArray apply(NDArray x, Form form) {
            if (form == Form.LINEAR) return LlamaModel.Ops.linear(x, weight, null);
            Shape shape = x.getShape();
            long in = shape.get(shape.dimension() - 1);
            long rows = shape.size() / in;
            long c = blocks.getShape().get(0);
            long out = weight.getShape().get(0);
            NDArray x2 = x.reshape(rows, in);
            NDArray y;
            if (form == Form.WEIGHT_BLOCKS) {
                NDArray xt = x2.transpose(1, 0).expandDims(0).broadcast(new Shape(c, in, rows));
                // [c, out/c, rows] -> [out, rows] -> [rows, out]
                y = bmm(blocks, xt).reshape(out, rows).transpose(1, 0);
            } else {
                NDArray xb = x2.expandDims(0).broadcast(new Shape(c, rows, in));
                // [c, rows, out/c] -> [rows, c, out/c] -> [rows, out]
                y = bmm(xb, blocksT).transpose(1, 0, 2);
            }
            long[] outShape = shape.getShape().clone();   // getShape() hands out the array x keeps
            outShape[outShape.length - 1] = out;
            return y.reshape(outShape);
        }

        /** {@code bmm(a, b)}, the result on the manager of {@code x}'s side (whichever of the two is not the weight). */
        private NDArray bmm(NDArray a, NDArray b) {
            NDArray r = JniUtils.bmm((PtNDArray) a, (PtNDArray) b);
            NDArray stepSide = a == blocks ? b : a;
            if (r.getManager() != stepSide.getManager()) r.attach(stepSide.getManager());
            return r;
        }
    }
}
