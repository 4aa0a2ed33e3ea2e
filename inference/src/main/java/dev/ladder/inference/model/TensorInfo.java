package dev.ladder.inference.model;

import java.util.Arrays;

/**
 * Name, element type and shape of one stored tensor.
 *
 * @param name  the tensor's name, as in the safetensors header (e.g. {@code model.layers.0.self_attn.q_proj.weight})
 * @param dtype element type as stored
 * @param shape dimensions, outermost first (a copy is kept and returned)
 * @param numel number of elements (product of the shape; 1 for a scalar)
 */
public record TensorInfo(String name, DType dtype, long[] shape, long numel) {

    public TensorInfo {
        shape = shape.clone();
        long n = 1;
        for (long d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("negative dimension in shape " + Arrays.toString(shape) + " of " + name);
            }
            n = Math.multiplyExact(n, d);
        }
        if (n != numel) {
            throw new IllegalArgumentException("numel " + numel + " does not match shape " + Arrays.toString(shape) + " of " + name);
        }
    }

    /** Info with numel computed from the shape. */
    public TensorInfo(String name, DType dtype, long[] shape) {
        this(name, dtype, shape, product(shape));
    }

    @Override
    public long[] shape() {
        return shape.clone();
    }

    /** Number of dimensions. */
    public int rank() {
        return shape.length;
    }

    /** One dimension. */
    public long dim(int i) {
        return shape[i];
    }

    /** Bytes of the stored data. */
    public long byteSize() {
        return numel * dtype.byteSize();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TensorInfo t && name.equals(t.name) && dtype == t.dtype && numel == t.numel
                && Arrays.equals(shape, t.shape);
    }

    @Override
    public int hashCode() {
        return (name.hashCode() * 31 + dtype.hashCode()) * 31 + Arrays.hashCode(shape);
    }

    @Override
    public String toString() {
        return name + " " + dtype + Arrays.toString(shape);
    }

    static long product(long[] shape) {
        long n = 1;
        for (long d : shape) {
            n = Math.multiplyExact(n, d);
        }
        return n;
    }
}
