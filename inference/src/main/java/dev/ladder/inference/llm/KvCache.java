package dev.ladder.inference.llm;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.engine.PtNDManager;
import ai.djl.pytorch.jni.JniUtils;
import dev.ladder.inference.model.ModelConfig;

/**
 * Keys and values of a batch of sequences, preallocated once per batch: per layer one key and one value array
 * {@code [rows, kvHeads, columns, headDim]}, written in place (PyTorch {@code index_put_} on a slice), never grown or
 * concatenated.
 *
 * <p><b>Layout: left padding.</b> All rows of a batch advance together: column {@code c} holds the token fed at
 * decode step {@code c} for every row, so one decode step writes one column for all rows with a single slice
 * assignment. A row whose prompt is shorter than the longest prompt {@code P} of its batch starts at column
 * {@code pad = P - promptLength}; columns before that are masked by the additive {@link #mask} row and never
 * attended to. RoPE positions are per row ({@code column - pad}), so padding does not change what a row computes.
 *
 * <p><b>Rows leave</b> the batch by {@link #moveRow}: the last live row is copied into the finished row's slot (only
 * the columns written so far), and the batch shrinks by one; the decode step then works on the leading
 * {@code live} rows only, so finished rows cost nothing.
 *
 * <p><b>Forking:</b> {@link #prefillSink} writes the keys/values of one prefilled prompt into every row of its
 * candidates ({@code index_select} on the batch dimension), so {@code n} candidates share one prefill.
 */
public final class KvCache implements AutoCloseable {

    private final NDManager manager;
    private final NDArray[] keys;
    private final NDArray[] values;
    private final NDArray mask;
    private final int rows;
    private final int columns;
    private final int kvHeads;
    private final int headDim;

    /**
     * @param pads per row, the number of leading columns that are padding
     */
    public KvCache(LlamaModel model, int rows, int columns, int[] pads) {
        ModelConfig c = model.config();
        this.rows = rows;
        this.columns = columns;
        this.kvHeads = c.numKvHeads();
        this.headDim = c.headDim();
        this.manager = model.manager().newSubManager();
        try {
            keys = new NDArray[c.numLayers()];
            values = new NDArray[c.numLayers()];
            Shape shape = new Shape(rows, kvHeads, columns, headDim);
            for (int i = 0; i < keys.length; i++) {
                // zeros, not empty: padding columns are multiplied by 0 probabilities and must not hold NaN
                keys[i] = manager.zeros(shape, model.dtype());
                values[i] = manager.zeros(shape, model.dtype());
            }
            float[] m = new float[rows * columns];
            for (int r = 0; r < rows; r++) {
                for (int j = 0; j < pads[r] && j < columns; j++) m[r * columns + j] = LlamaModel.MASKED;
            }
            mask = manager.create(m, new Shape(rows, columns));
        } catch (RuntimeException e) {
            manager.close();
            throw e;
        }
    }

    public int rows() {
        return rows;
    }

    public int columns() {
        return columns;
    }

    /** Bytes held by keys and values. */
    public long bytes() {
        long b = 0;
        for (int i = 0; i < keys.length; i++) {
            b += keys[i].size() * keys[i].getDataType().getNumOfBytes() * 2;
        }
        return b;
    }

    /**
     * A sink for the prefill of a chunk of prompts ({@code R} rows, {@code T} columns, left-padded): attention runs on
     * the new keys/values themselves; they are also copied into cache rows {@code firstRow ..} (row {@code i} of the
     * cache block gets prompt {@code source[i]}) at columns {@code [firstColumn, firstColumn + T)}.
     *
     * @param source for each cache row of the block, the prompt (row of the chunk) it copies, or null for identity
     */
    public LlamaModel.KvSink prefillSink(int firstRow, int[] source, int firstColumn) {
        return (layer, k, v) -> {
            long t = k.getShape().get(2);
            write(keys[layer], select(k, source), firstRow, firstColumn, t);
            write(values[layer], select(v, source), firstRow, firstColumn, t);
            return new NDArray[] {k, v};
        };
    }

    private static NDArray select(NDArray x, int[] source) {
        if (source == null) return x;
        return LlamaModel.Ops.rows(x, x.getManager().create(toLong(source)));
    }

    private void write(NDArray target, NDArray value, long firstRow, long firstColumn, long t) {
        long n = value.getShape().get(0);
        JniUtils.indexSet(pt(target), pt(value),
                new long[] {firstRow, 0, firstColumn, 0},
                new long[] {firstRow + n, kvHeads, firstColumn + t, headDim},
                new long[] {1, 1, 1, 1});
    }

    /**
     * A sink for one decode step of the leading {@code live} rows: writes the new key/value at {@code column} and
     * returns views of columns {@code [0, column]}.
     */
    public LlamaModel.KvSink decodeSink(int live, int column) {
        return (layer, k, v) -> {
            write(keys[layer], k, 0, column, 1);
            write(values[layer], v, 0, column, 1);
            PtNDManager m = (PtNDManager) k.getManager();
            return new NDArray[] {view(keys[layer], live, column + 1, m), view(values[layer], live, column + 1, m)};
        };
    }

    private NDArray view(NDArray a, long live, long len, PtNDManager m) {
        return JniUtils.index(pt(a), new long[] {0, 0, 0, 0}, new long[] {live, kvHeads, len, headDim},
                new long[] {1, 1, 1, 1}, m);
    }

    /** The additive mask of the leading {@code live} rows over columns {@code [0, len)}, shaped {@code [live, 1, 1, 1, len]}. */
    public NDArray maskView(NDManager m, int live, int len) {
        return JniUtils.index(pt(mask), new long[] {0, 0}, new long[] {live, len}, new long[] {1, 1}, (PtNDManager) m)
                .reshape(live, 1, 1, 1, len);
    }

    /** Copies row {@code from} into row {@code to} (columns {@code [0, len)} of keys and values, the whole mask row). */
    public void moveRow(int from, int to, int len) {
        if (from == to) return;
        try (NDManager m = manager.newSubManager()) {
            PtNDManager pm = (PtNDManager) m;
            for (int i = 0; i < keys.length; i++) {
                for (NDArray a : new NDArray[] {keys[i], values[i]}) {
                    NDArray src = JniUtils.index(pt(a), new long[] {from, 0, 0, 0}, new long[] {from + 1, kvHeads, len, headDim},
                            new long[] {1, 1, 1, 1}, pm);
                    JniUtils.indexSet(pt(a), pt(src), new long[] {to, 0, 0, 0}, new long[] {to + 1, kvHeads, len, headDim},
                            new long[] {1, 1, 1, 1});
                }
            }
            NDArray srcMask = JniUtils.index(pt(mask), new long[] {from, 0}, new long[] {from + 1, columns}, new long[] {1, 1}, pm);
            JniUtils.indexSet(pt(mask), pt(srcMask), new long[] {to, 0}, new long[] {to + 1, columns}, new long[] {1, 1});
        }
    }

    /** Type of the stored keys/values. */
    public DataType dtype() {
        return keys[0].getDataType();
    }

    @Override
    public void close() {
        manager.close();
    }

    private static PtNDArray pt(NDArray a) {
        return (PtNDArray) a;
    }

    private static long[] toLong(int[] a) {
        long[] l = new long[a.length];
        for (int i = 0; i < a.length; i++) l[i] = a[i];
        return l;
    }
}
