package dev.ladder.inference.llm;

import dev.ladder.inference.model.F16Clamp;
import dev.ladder.inference.model.Weights;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Where {@link LlamaModel} reads its tensors from, by Hugging Face name. A thin seam so the model does not depend on
 * how weights are stored: {@link #of(Weights)} adapts the safetensors reader; tests use
 * {@link #inMemory(Map, Map)}.
 *
 * <p>Every buffer returned is new and owned by the caller: {@link LlamaModel} releases each one
 * ({@link dev.ladder.inference.model.DirectBuffers#free}) as soon as PyTorch has copied it, so an implementation must
 * never hand out a buffer it keeps or shares (no cached buffers, no views of a mapping it reuses).
 */
public interface WeightSource {

    /** Whether a tensor of this name exists. */
    boolean contains(String name);

    /** The tensor's shape, outermost first. */
    long[] shape(String name);

    /** The tensor as float32, a direct little-endian buffer positioned at 0. */
    ByteBuffer float32(String name);

    /**
     * The tensor as IEEE float16, a direct little-endian buffer, or null when the source has no cheaper way than
     * converting its float32 form (the model then converts on the device).
     */
    default ByteBuffer float16(String name) {
        return null;
    }

    /**
     * Rows {@code [firstRow, firstRow + rows)} along dimension 0 as float32: how a tensor too large for one buffer
     * (2 GiB, e.g. Llama-3-8B's embedding in float32) is loaded.
     */
    default ByteBuffer float32Rows(String name, long firstRow, long rows) {
        throw new UnsupportedOperationException(this + " cannot read tensor '" + name + "' in parts");
    }

    /** Rows along dimension 0 as float16, or null as for {@link #float16}. */
    default ByteBuffer float16Rows(String name, long firstRow, long rows) {
        return null;
    }

    /**
     * Tensors whose float16 form so far had values beyond the half range, clamped to ±65504 (one entry per tensor,
     * in the order read); empty when none, or when this source does not track it.
     */
    default List<F16Clamp> float16Clamps() {
        return List.of();
    }

    /** A safetensors model directory opened by {@link Weights}; the caller keeps it open while loading. */
    static WeightSource of(Weights weights) {
        Map<String, F16Clamp> clamps = new LinkedHashMap<>();
        // row blocks of one tensor report separately; conversions of one load run on one thread at a time
        Consumer<F16Clamp> sink = c -> {
            synchronized (clamps) {
                clamps.merge(c.tensor(), c, F16Clamp::plus);
            }
        };
        return new WeightSource() {
            @Override
            public boolean contains(String name) {
                return weights.contains(name);
            }

            @Override
            public long[] shape(String name) {
                return weights.info(name).shape();
            }

            @Override
            public ByteBuffer float32(String name) {
                return weights.toFloat32(name);
            }

            @Override
            public ByteBuffer float16(String name) {
                return weights.toFloat16(name, sink);
            }

            @Override
            public ByteBuffer float32Rows(String name, long firstRow, long rows) {
                return weights.toFloat32Rows(name, firstRow, rows);
            }

            @Override
            public ByteBuffer float16Rows(String name, long firstRow, long rows) {
                return weights.toFloat16Rows(name, firstRow, rows, sink);
            }

            @Override
            public List<F16Clamp> float16Clamps() {
                synchronized (clamps) {
                    return List.copyOf(clamps.values());
                }
            }

            @Override
            public String toString() {
                return weights.toString();
            }
        };
    }

    /** Tensors held in Java arrays (tests, tools). */
    static WeightSource inMemory(Map<String, float[]> data, Map<String, long[]> shapes) {
        Map<String, float[]> d = new HashMap<>(data);
        Map<String, long[]> s = new HashMap<>(shapes);
        return new WeightSource() {
            @Override
            public boolean contains(String name) {
                return d.containsKey(name);
            }

            @Override
            public long[] shape(String name) {
                long[] shape = s.get(name);
                if (shape == null) throw new IllegalArgumentException("no tensor '" + name + "'");
                return shape.clone();
            }

            @Override
            public ByteBuffer float32(String name) {
                float[] f = d.get(name);
                if (f == null) throw new IllegalArgumentException("no tensor '" + name + "'");
                ByteBuffer b = ByteBuffer.allocateDirect(f.length * 4).order(ByteOrder.LITTLE_ENDIAN);
                b.asFloatBuffer().put(f);
                return b;
            }

            @Override
            public ByteBuffer float32Rows(String name, long firstRow, long rows) {
                float[] f = d.get(name);
                if (f == null) throw new IllegalArgumentException("no tensor '" + name + "'");
                int row = (int) (f.length / s.get(name)[0]);
                ByteBuffer b = ByteBuffer.allocateDirect((int) (rows * row * 4)).order(ByteOrder.LITTLE_ENDIAN);
                b.asFloatBuffer().put(f, (int) (firstRow * row), (int) (rows * row));
                return b;
            }

            @Override
            public String toString() {
                return "in-memory weights " + Set.copyOf(d.keySet()).size() + " tensors";
            }
        };
    }
}
