package dev.ladder.inference.llm;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import dev.ladder.inference.llm.LlamaModel.Ops;

/** A projection {@code y = x W^T (+ b)} of a {@link LlamaModel}: float weights, or int8 ones with per-row scales. */
sealed interface Linear permits Linear.Dense, Linear.Int8 {
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

    /** Int8 weights, one scale per output row: {@code y = (x (q)^T) * scale (+ b)}. */
    record Int8(NDArray q, NDArray scale, NDArray bias, DataType dtype) implements Linear {
        @Override
        public NDArray apply(NDArray x, SmallBatchLinear.Plan plan) {
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
}
