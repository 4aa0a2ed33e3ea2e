package dev.ladder.inference.llm;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import dev.ladder.inference.llm.LlamaModel.Ops;
import dev.ladder.inference.nativeext.NativeOps;

/**
 * A projection {@code y = x W^T (+ b)} of a {@link LlamaModel}: float weights, int8 ones with per-row scales, or
 * packed 4-bit ones with group-wise scales. The quantised forms run the native extension's product where the load
 * found it usable ({@code nativeKernel}) and the call has few enough rows; their Java path (the weight widened to the
 * compute type, then one matmul) is the reference and the fallback.
 */
sealed interface Linear permits Linear.Dense, Linear.Int8, Linear.Int4 {
    /** @param plan the small-batch forms to use where this projection has them; null: always F.linear */
    NDArray apply(NDArray x, SmallBatchLinear.Plan plan);

    long bytes();

    /** A float projection; {@code blocked} (null when off) runs the few rows of a decode step (SmallBatchLinear). */
    record Dense(NDArray w, NDArray bias, SmallBatchLinear.Blocked blocked) implements Linear {
        @Override
        public NDArray apply(NDArray x, SmallBatchLinear.Plan plan) {
            if (blocked == null || plan == null) return Ops.linear(x, w, bias);
            long rows = x.getShape().size() / w.getShape().get(1);
            SmallBatchLinear.Form form = plan.formFor(blocked, rows);
            if (form == SmallBatchLinear.Form.LINEAR) return Ops.linear(x, w, bias);
            NDArray y = blocked.apply(x, form);
            return bias == null ? y : y.add(bias);
        }

        @Override
        public long bytes() {
            return w.size() * w.getDataType().getNumOfBytes() + (bias == null ? 0 : bias.size() * bias.getDataType().getNumOfBytes());
        }
    }

    /**
     * Int8 weights, one scale per output row: {@code y = (x (q)^T) * scale (+ b)}.
     *
     * @param nativeKernel the native extension's product runs calls of up to {@link NativeOps#maxRows()} rows (it
     *                     reads each weight byte once; the Java path converts the whole matrix first)
     */
    record Int8(NDArray q, NDArray scale, NDArray bias, DataType dtype, boolean nativeKernel) implements Linear {
        @Override
        public NDArray apply(NDArray x, SmallBatchLinear.Plan plan) {
            if (nativeKernel && rows(x, q) <= NativeOps.maxRows()) return NativeOps.int8Linear(x, q, scale, bias);
            return javaPath(x);
        }

        /** The reference: the int8 matrix converted to the compute type, one matmul, the scales on its output. */
        NDArray javaPath(NDArray x) {
            NDArray w = q.toType(dtype, false);
            w.attach(x.getManager());
            NDArray y = Ops.linear(x, w, null).mul(scale);
            return bias == null ? y : y.add(bias);
        }

        @Override
        public long bytes() {
            return q.size() + scale.size() * scale.getDataType().getNumOfBytes()
                    + (bias == null ? 0 : bias.size() * bias.getDataType().getNumOfBytes());
        }
    }

    /**
     * Packed 4-bit weights with group-wise scales: {@code W[o, i] = (code(n) - zero[o, g]) * scale[o, g]}, {@code n} the
     * 4-bit value of weight {@code (o, i)}, {@code g = i / group}. One format for the usual schemes: symmetric int4
     * ({@code codes} -8..7, no zeros), asymmetric int4 with zero points ({@code codes} null: {@code code(n) = n}) and
     * NF4 ({@code codes} the 16 NormalFloat values, {@code scale} the block's absmax, no zeros).
     *
     * @param packed uint8 {@code [out, ceil(in / 2)]}: weight {@code 2k} of a row in the low nibble of byte {@code k},
     *               {@code 2k + 1} in the high one
     * @param scales float32 {@code [out, ceil(in / group)]}
     * @param zeros  float32 like {@code scales}, or null (0)
     * @param codes  float32 {@code [16]}, or null ({@code code(n) = n})
     */
    record Int4(NDArray packed, NDArray scales, NDArray zeros, NDArray codes, NDArray bias, long in, long group,
                boolean nativeKernel) implements Linear {
        @Override
        public NDArray apply(NDArray x, SmallBatchLinear.Plan plan) {
            if (nativeKernel && rows(x, in) <= NativeOps.maxRows()) {
                return NativeOps.int4Linear(x, packed, in, group, scales, zeros, codes, bias);
            }
            return javaPath(x);
        }

        /** The reference: the whole matrix dequantised in float32 on x's manager, then one matmul. */
        NDArray javaPath(NDArray x) {
            return Ops.linear(x, dequantised(x.getManager()), bias);
        }

        /** {@code W} as float32 {@code [out, in]}, on {@code m}. */
        NDArray dequantised(NDManager m) {
            long out = packed.getShape().get(0);
            long bytes = packed.getShape().get(1);
            NDArray p = step(packed.toType(DataType.FLOAT32, false), m);
            NDArray low = p.mod(16f);
            NDArray high = p.sub(low).div(16f);
            NDArray n = NDArrays.stack(new NDList(low, high), 2).reshape(out, 2 * bytes);
            if (2 * bytes != in) n = Ops.slice(n, 1, 0, in);
            NDArray code = codes == null ? n
                    : Ops.embedding(n.toType(DataType.INT64, false), step(codes.reshape(16, 1), m)).reshape(out, in);
            NDArray w = zeros == null ? code : code.sub(perWeight(zeros, m));
            return w.mul(perWeight(scales, m));
        }

        /** A per-group array {@code [out, groups]} spread to every weight of its group, {@code [out, in]}, on {@code m}. */
        private NDArray perWeight(NDArray perGroup, NDManager m) {
            long out = perGroup.getShape().get(0);
            long groups = perGroup.getShape().get(1);
            NDArray spread = step(perGroup.reshape(out, groups, 1), m).repeat(2, group).reshape(out, groups * group);
            return groups * group == in ? spread : Ops.slice(spread, 1, 0, in);
        }

        @Override
        public long bytes() {
            return packed.size() + 4 * scales.size() + (zeros == null ? 0 : 4 * zeros.size())
                    + (codes == null ? 0 : 4 * codes.size())
                    + (bias == null ? 0 : bias.size() * bias.getDataType().getNumOfBytes());
        }
    }

    /** Rows of x for a weight whose input size is {@code in} (x's elements over it). */
    static long rows(NDArray x, long in) {
        return x.size() / in;
    }

    static long rows(NDArray x, NDArray weight) {
        return rows(x, weight.getShape().get(1));
    }

    /** {@code a} moved to the step's manager {@code m}: a weight's derived arrays would otherwise live as long as it. */
    static NDArray step(NDArray a, NDManager m) {
        a.attach(m);
        return a;
    }
}
