package dev.ladder.adapters;

import dev.ladder.inference.llm.WeightSource;
import dev.ladder.inference.model.F16Clamp;
import dev.ladder.inference.model.HalfFloats;
import dev.ladder.inference.model.ModelException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Base weights with a LoRA adapter merged in as they are read: adapted matrices come back as
 * {@code W + scale · B · A} in float32 (float16 when asked: converted from the merged float32), tensors the adapter
 * replaces ({@code modules_to_save}, trained biases) come from the adapter file, everything else is the base's.
 * With {@link MergeBase#NF4} every decoder-layer projection matrix ({@code model.layers.N.….weight}, 2-D) is first
 * replaced by its NF4 round trip (see {@link Nf4}), as bitsandbytes quantises every linear layer but {@code lm_head}
 * when a QLoRA adapter is trained.
 *
 * <p>Row slices ({@link #float32Rows}) are computed on their own, so a large matrix is merged one block of rows at a
 * time; the adapter's factors for the last matrix read are cached. The adapter must stay open while this is used.
 */
public final class AdaptedWeightSource implements WeightSource {

    private static final Pattern LAYER_MATRIX = Pattern.compile("model\\.layers\\.\\d+\\..+\\.weight");

    private final WeightSource base;
    private final PeftAdapter adapter;
    private final PeftAdapter.Plan plan;
    private final MergeBase mergeBase;
    private String cachedTarget;
    private float[][] cachedFactors;

    /** Wraps {@code base}, binding the adapter to it ({@link PeftAdapter#plan}). */
    public AdaptedWeightSource(WeightSource base, PeftAdapter adapter, MergeBase mergeBase) {
        this.base = Objects.requireNonNull(base, "base");
        this.adapter = Objects.requireNonNull(adapter, "adapter");
        this.mergeBase = Objects.requireNonNull(mergeBase, "mergeBase");
        this.plan = adapter.plan(n -> base.contains(n) ? base.shape(n) : null, base.toString());
    }

    public PeftAdapter.Plan plan() {
        return plan;
    }

    public MergeBase mergeBase() {
        return mergeBase;
    }

    /** Whether a tensor differs from the base's: LoRA-adapted, replaced, or NF4-rounded. */
    public boolean modified(String name) {
        return plan.targets().containsKey(name) || plan.replacements().containsKey(name) || nf4(name);
    }

    private boolean nf4(String name) {
        return mergeBase == MergeBase.NF4 && LAYER_MATRIX.matcher(name).matches() && base.contains(name)
                && base.shape(name).length == 2;
    }

    @Override
    public boolean contains(String name) {
        return base.contains(name);
    }

    @Override
    public long[] shape(String name) {
        return base.shape(name);
    }

    @Override
    public ByteBuffer float32(String name) {
        if (!modified(name)) return base.float32(name);
        long[] s = shape(name);
        long rows = s.length == 0 ? 1 : s[0];
        return toBuffer(rows(name, 0, rows));
    }

    @Override
    public ByteBuffer float32Rows(String name, long firstRow, long rows) {
        if (!modified(name)) return base.float32Rows(name, firstRow, rows);
        return toBuffer(rows(name, firstRow, rows));
    }

    @Override
    public ByteBuffer float16(String name) {
        if (!modified(name)) return base.float16(name);
        long[] s = shape(name);
        return toHalf(rows(name, 0, s.length == 0 ? 1 : s[0]));
    }

    @Override
    public ByteBuffer float16Rows(String name, long firstRow, long rows) {
        if (!modified(name)) return base.float16Rows(name, firstRow, rows);
        return toHalf(rows(name, firstRow, rows));
    }

    /** The base's clamps; merged tensors are narrowed here with the same clamping but are not counted. */
    @Override
    public List<F16Clamp> float16Clamps() {
        return base.float16Clamps();
    }

    /**
     * Rows {@code [firstRow, firstRow + rows)} of a tensor as this source gives them (merged where modified), in a
     * new float array.
     */
    public float[] rows(String name, long firstRow, long rows) {
        long[] shape = shape(name);
        long total = shape.length == 0 ? 1 : shape[0];
        if (firstRow < 0 || rows < 0 || firstRow + rows > total) {
            throw new IndexOutOfBoundsException("rows [" + firstRow + ", " + (firstRow + rows) + ") of '" + name + "'");
        }
        long numel = 1;
        for (long d : shape) numel *= d;
        long cols = total == 0 ? 0 : numel / total;
        if (rows * cols > Integer.MAX_VALUE - 8) {
            throw new AdapterException("rows [" + firstRow + ", " + (firstRow + rows) + ") of '" + name
                    + "' are too many for one array; read fewer rows at a time");
        }
        String replacement = plan.replacements().get(name);
        float[] w;
        if (replacement != null) {
            try {
                w = read(shape.length == 0 ? adapter.weights().toFloat32(replacement)
                        : adapter.weights().toFloat32Rows(replacement, firstRow, rows), (int) (rows * cols));
            } catch (ModelException e) {
                throw new AdapterException(e.getMessage(), e);
            }
        } else if (nf4(name)) {
            w = nf4Rows(name, firstRow, rows, cols, total);
        } else {
            w = read(shape.length == 0 ? base.float32(name) : base.float32Rows(name, firstRow, rows), (int) (rows * cols));
        }
        PeftAdapter.Target t = plan.targets().get(name);
        if (t != null) {
            float[][] f = factors(t);
            LoraMath.addProduct(w, firstRow, (int) rows, (int) cols, f[0], f[1], t.rank(), t.scale());
        }
        return w;
    }

    /** Rows of a base matrix after the NF4 round trip of the blocks (of the flattened tensor) that cover them. */
    private float[] nf4Rows(String name, long firstRow, long rows, long cols, long total) {
        long startElem = firstRow * cols;
        long endElem = (firstRow + rows) * cols;
        long alignedStart = startElem / Nf4.BLOCK_SIZE * Nf4.BLOCK_SIZE;
        long alignedEnd = Math.min(total * cols, (endElem + Nf4.BLOCK_SIZE - 1) / Nf4.BLOCK_SIZE * Nf4.BLOCK_SIZE);
        long readFirst = alignedStart / cols;
        long readEnd = Math.min(total, (alignedEnd + cols - 1) / cols);
        long readRows = readEnd - readFirst;
        if (readRows * cols > Integer.MAX_VALUE - 8) {
            throw new AdapterException("rows of '" + name + "' are too many for one array; read fewer rows at a time");
        }
        float[] all = read(base.float32Rows(name, readFirst, readRows), (int) (readRows * cols));
        int off = (int) (alignedStart - readFirst * cols);
        Nf4.roundTrip(all, off, (int) (alignedEnd - readFirst * cols));
        int from = (int) (startElem - readFirst * cols);
        if (from == 0 && all.length == rows * cols) return all;
        float[] out = new float[(int) (rows * cols)];
        System.arraycopy(all, from, out, 0, out.length);
        return out;
    }

    private synchronized float[][] factors(PeftAdapter.Target t) {
        if (!t.baseTensor().equals(cachedTarget)) {
            cachedFactors = adapter.factors(t);
            cachedTarget = t.baseTensor();
        }
        return cachedFactors;
    }

    private static float[] read(ByteBuffer b, int n) {
        float[] f = new float[n];
        b.duplicate().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(f);
        return f;
    }

    private static ByteBuffer toBuffer(float[] f) {
        ByteBuffer b = ByteBuffer.allocateDirect(f.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(f);
        return b;
    }

    private static ByteBuffer toHalf(float[] f) {
        ByteBuffer b = ByteBuffer.allocateDirect(f.length * 2).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < f.length; i++) b.putShort(i << 1, HalfFloats.floatToF16Clamped(f[i]));
        return b;
    }

    @Override
    public String toString() {
        return base + " + adapter " + adapter.directory();
    }
}
