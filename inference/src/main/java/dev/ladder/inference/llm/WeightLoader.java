package dev.ladder.inference.llm;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.ndarray.types.SparseFormat;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.engine.PtNDManager;
import ai.djl.pytorch.jni.JniUtils;
import dev.ladder.inference.llm.Linear.Dense;
import dev.ladder.inference.llm.Linear.Int8;
import dev.ladder.inference.model.DirectBuffers;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.ModelException;
import dev.ladder.inference.nativeext.NativeOps;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * Loads a {@link LlamaModel}'s weights: streams tensors from the source straight into their place on the target
 * device, each projection a {@link Linear} (fused q/k/v and gate/up, int8 when asked). Each tensor (or fused group)
 * gets one uninitialised array on the target, filled block of rows by block of rows, every block staged in a
 * host buffer that is freed as soon as it is copied. Conversion and quantisation then run on the target. So the
 * host holds one block beyond the weights, and on a GPU not even the weights.
 */
final class WeightLoader implements AutoCloseable {

    /**
     * Host staging per copy: tensors are read from the file in row blocks of at most this many bytes, each copied to
     * its place on the device and freed at once, so loading holds at most one block on the host besides the weights
     * themselves (when they live there). Tests lower it.
     */
    static volatile long partBytes = 64L << 20;

    private final ModelConfig config;
    private final WeightSource weights;
    private final NDManager target;
    private final NDManager cpu;
    final DataType dtype;
    private final boolean int8;
    final boolean smallBatchForms;
    /** int8 projections run the native extension's product (asked for, and it runs this device and type). */
    final boolean nativeInt8;

    WeightLoader(ModelConfig config, WeightSource weights, NDManager target, DataType dtype, boolean int8,
                 boolean smallBatchForms, boolean nativeKernels) {
        this.config = config;
        this.weights = weights;
        this.target = target;
        this.dtype = dtype;
        this.int8 = int8;
        this.nativeInt8 = int8 && nativeKernels && NativeOps.int8(target.getDevice(), dtype);
        // measured for float32 weights on a CPU only (SmallBatchLinear)
        this.smallBatchForms = smallBatchForms && dtype == DataType.FLOAT32;
        this.cpu = NDManager.newBaseManager(Device.cpu(), "PyTorch");
    }

    private long[] checkedShape(String name, long... shape) {
        if (!weights.contains(name)) throw new ModelException("the weights " + weights + " have no tensor '" + name + "'");
        long[] actual = weights.shape(name);
        if (!Arrays.equals(actual, shape)) {
            throw new ModelException("tensor '" + name + "' has shape " + Arrays.toString(actual)
                    + ", the config implies " + Arrays.toString(shape));
        }
        return actual;
    }

    /**
     * Tensors stacked along dimension 0 (one tensor, or the parts of a fused matrix) as one new array of
     * {@code type} (float16 or float32) on the target.
     */
    private NDArray read(String[] names, long[][] shapes, DataType type) {
        long rows = 0;
        for (int i = 0; i < names.length; i++) {
            checkedShape(names[i], shapes[i]);
            rows += shapes[i][0];   // Llama has no scalar tensors: every shape the config implies has rows
        }
        long[] outShape = shapes[0].clone();
        outShape[0] = rows;
        NDArray out = JniUtils.createEmptyNdArray((PtNDManager) target, new Shape(outShape),
                type, target.getDevice(), SparseFormat.DENSE);
        try {
            long at = 0;
            for (int i = 0; i < names.length; i++) at = fill(out, at, names[i], shapes[i]);
            return out;
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
    }

    /** Copies one tensor into rows {@code [at, ...)} of {@code out}, block by block; returns the next row. */
    private long fill(NDArray out, long at, String name, long[] shape) {
        boolean half = out.getDataType() == DataType.FLOAT16;
        long numel = 1;
        for (long d : shape) numel *= d;
        long rowElems = shape[0] == 0 ? 0 : numel / shape[0];
        long rowsPerPart = numel * (half ? 2 : 4) <= partBytes ? shape[0]
                : Math.max(1, partBytes / (rowElems * (half ? 2 : 4)));
        for (long first = 0; first < shape[0]; first += rowsPerPart) {
            long n = Math.min(rowsPerPart, shape[0] - first);
            long[] partShape = shape.clone();
            partShape[0] = n;
            boolean whole = n == shape[0];
            long f = first;
            ByteBuffer f16 = !half ? null : whole ? weights.float16(name) : weights.float16Rows(name, first, n);
            copy(out, at + first, n, f16,
                    () -> whole ? weights.float32(name) : weights.float32Rows(name, f, n), partShape);
        }
        return at + shape[0];
    }

    /**
     * One staged block into rows {@code [at, at + rows)} of {@code out}: float16 bytes when the source had them,
     * else float32 bytes, converted to the array's type on the way. The staging buffer is freed here.
     */
    private void copy(NDArray out, long at, long rows, ByteBuffer f16, Supplier<ByteBuffer> f32,
                      long[] partShape) {
        ByteBuffer buf = f16 != null ? f16 : f32.get();
        try (NDManager stage = cpu.newSubManager()) {
            NDArray part = stage.create(buf, new Shape(partShape), f16 != null ? DataType.FLOAT16 : DataType.FLOAT32);
            if (part.getDataType() != out.getDataType()) part = part.toType(out.getDataType(), false);
            if (!part.getDevice().equals(out.getDevice())) part = part.toDevice(out.getDevice(), false);
            long[] lo = new long[partShape.length];
            long[] hi = out.getShape().getShape().clone();
            long[] step = new long[lo.length];
            Arrays.fill(step, 1);
            lo[0] = at;
            hi[0] = at + rows;
            JniUtils.indexSet((PtNDArray) out, (PtNDArray) part, lo, hi, step);
            // done with buf: to() and index_put_ from host memory return once the data is copied
        } finally {
            DirectBuffers.free(buf);
        }
    }

    /** An array of {@code type} from one of the staged type, the staged one closed. */
    private static NDArray convert(NDArray a, DataType type) {
        if (a.getDataType() == type) return a;
        NDArray c = a.toType(type, false);
        a.close();
        return c;
    }

    NDArray dense(String name, long rows, long cols) {
        return convert(read(new String[] {name}, new long[][] {{rows, cols}}, dtype), dtype);
    }

    /** A projection over {@code w} {@code [out, in]}, blocked for small batches where that is on. */
    Dense dense(NDArray w, NDArray bias) {
        return new Dense(w, bias, smallBatchForms ? SmallBatchLinear.Blocked.of(w) : null);
    }

    NDArray norm(String name) {
        return read(new String[] {name}, new long[][] {{config.hiddenSize()}}, DataType.FLOAT32);
    }

    NDArray create(float[] data, Shape shape, DataType type) {
        try (NDManager stage = cpu.newSubManager()) {
            NDArray typed = stage.create(data, shape).toType(type, false);
            // an array made from Java data borrows a buffer of DJL's: copy it into memory of PyTorch's own
            NDArray a = typed.getDevice().equals(target.getDevice()) ? typed.duplicate()
                    : typed.toDevice(target.getDevice(), true);
            a.attach(target);
            return a;
        }
    }

    Linear linear(String[] prefixes, int[] outs, int in, boolean bias) {
        DataType staged = dtype == DataType.FLOAT16 && !int8 ? DataType.FLOAT16 : DataType.FLOAT32;
        String[] ws = new String[prefixes.length];
        String[] bs = new String[prefixes.length];
        long[][] wShapes = new long[prefixes.length][];
        long[][] bShapes = new long[prefixes.length][];
        for (int i = 0; i < prefixes.length; i++) {
            ws[i] = prefixes[i] + ".weight";
            bs[i] = prefixes[i] + ".bias";
            wShapes[i] = new long[] {outs[i], in};
            bShapes[i] = new long[] {outs[i]};
        }
        NDArray w = read(ws, wShapes, staged);
        NDArray b = null;
        try {
            if (bias) b = convert(read(bs, bShapes, staged), dtype);
            if (!int8) return dense(convert(w, dtype), b);
            return quantise(w, b);
        } catch (RuntimeException e) {
            w.close();
            if (b != null) b.close();
            throw e;
        }
    }

    /**
     * Symmetric per-row int8 of a float32 matrix on the target: {@code scale = max|w_row| / 127},
     * {@code q = round(w / scale)}. Each intermediate is freed as soon as the next exists; {@code w} too.
     */
    private Int8 quantise(NDArray w, NDArray b) {
        NDArray abs = w.abs();
        NDArray max = abs.max(new int[] {1}, true);
        abs.close();
        NDArray s127 = max.div(127f);
        max.close();
        NDArray scale = s127.maximum(1e-12f);
        s127.close();
        NDArray divided = w.div(scale);
        w.close();
        NDArray rounded = divided.round();
        divided.close();
        NDArray clipped = rounded.clip(-127, 127);
        rounded.close();
        NDArray q = convert(clipped, DataType.INT8);
        NDArray typedScale = convert(scale.reshape(-1), dtype);
        scale.close();   // a view of it may live on in typedScale: PyTorch's storage, reference-counted
        return new Int8(q, typedScale, b, dtype, nativeInt8);
    }

    @Override
    public void close() {
        cpu.close();
    }
}
