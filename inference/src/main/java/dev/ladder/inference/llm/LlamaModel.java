package dev.ladder.inference.llm;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import dev.ladder.inference.model.ModelException;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import dev.ladder.inference.device.TorchRuntime;
import dev.ladder.inference.model.ModelConfig;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A Llama-architecture decoder (Llama 3 / 3.1 / 3.2, SmolLM2, Qwen2) run with DJL NDArray ops on the PyTorch engine.
 *
 * <p>Reads top to bottom like the paper: token embedding, then per layer {@code x += o(attn(rope(qkv(norm(x)))))} and
 * {@code x += down(silu(gate(norm(x))) * up(norm(x)))}, then the final norm and the LM head. Load-time choices:
 * <ul>
 *   <li>q/k/v are fused into one {@code [(H + 2 KV) * headDim, hidden]} matrix and gate/up into one
 *       {@code [2 * intermediate, hidden]} matrix, so each is a single matmul;</li>
 *   <li>weights stay {@code [out, in]} and go through {@code torch.nn.functional.linear} (no transposed copy);</li>
 *   <li>RoPE cos/sin tables are precomputed (with Llama-3 frequency scaling when the config has it) for the context
 *       window, and looked up by position id, so every row of a batch may sit at its own position;</li>
 *   <li>grouped-query attention never repeats K/V: the queries of the heads sharing one KV head are laid out as
 *       extra rows of one matmul ({@code [B, KV, G*T, d] x [B, KV, d, L]});</li>
 *   <li>compute precision: float32 on CPU; float16 weights and activations on a GPU with RMSNorm statistics,
 *       attention softmax and logits in float32;</li>
 *   <li>optional int8 weight-only quantisation of the linear layers: int8 weights with one scale per output
 *       channel ({@code w ~= q * scale}); the matmul runs on the int8 matrix converted to the compute type and the
 *       output is multiplied by the scales. Embeddings, LM head and norms stay in the compute type.</li>
 * </ul>
 *
 * <p>All op results attach to the manager of their input, so callers pass inputs created in a per-step sub-manager
 * and close it after the step; each layer's intermediates are freed at the end of the layer.
 */
public final class LlamaModel implements AutoCloseable {

    /** Weight and activation precision. */
    public enum Precision {
        /** float32 on CPU, float16 on GPU */
        AUTO,
        FLOAT32,
        FLOAT16
    }

    /**
     * @param precision  compute precision
     * @param int8       int8 weight-only quantisation of the q/k/v/o and MLP projections
     * @param maxContext context window in tokens; 0 = min(config max positions, 8192)
     */
    public record Options(Precision precision, boolean int8, int maxContext) {
        public static final Options DEFAULT = new Options(Precision.AUTO, false, 0);

        public Options {
            Objects.requireNonNull(precision, "precision");
            if (maxContext < 0) throw new IllegalArgumentException("maxContext must be >= 0");
        }
    }

    /** Where the attention of one forward pass gets its keys and values from. */
    public interface KvSink {
        /**
         * Called once per layer with the new keys and values ({@code [B, KV, T, headDim]}, RoPE applied) of the
         * tokens being run; returns the keys and values to attend over ({@code [B, KV, L, headDim]}), which must
         * end with the new ones. Arrays it keeps beyond the layer must be attached to a longer-lived manager.
         */
        NDArray[] attend(int layer, NDArray k, NDArray v);
    }

    private static final int DEFAULT_MAX_CONTEXT = 8192;
    /** Tensors larger than this are read in row blocks (one Java buffer holds at most 2 GiB); tests lower it. */
    static volatile long partBytes = 1L << 30;

    private final ModelConfig config;
    private final NDManager manager;
    private final DataType dtype;
    private final int contextLength;
    private final NDArray embed;
    private final NDArray lmHead;
    private final NDArray finalNorm;
    private final NDArray cos;
    private final NDArray sinSigned;
    private final Layer[] layers;
    private final long weightBytesPerToken;

    private record Layer(NDArray inNorm, Linear qkv, Linear o, NDArray postNorm, Linear gateUp, Linear down) {}

    private LlamaModel(ModelConfig config, NDManager manager, DataType dtype, int contextLength, NDArray embed,
                       NDArray lmHead, NDArray finalNorm, NDArray cos, NDArray sinSigned, Layer[] layers) {
        this.config = config;
        this.manager = manager;
        this.dtype = dtype;
        this.contextLength = contextLength;
        this.embed = embed;
        this.lmHead = lmHead;
        this.finalNorm = finalNorm;
        this.cos = cos;
        this.sinSigned = sinSigned;
        this.layers = layers;
        long bytes = lmHead.size() * lmHead.getDataType().getNumOfBytes() + finalNorm.size() * 4L;
        for (Layer l : layers) {
            bytes += l.qkv.bytes() + l.o.bytes() + l.gateUp.bytes() + l.down.bytes() + 2L * l.inNorm.size() * 4;
        }
        this.weightBytesPerToken = bytes;
    }

    /**
     * Loads the weights onto {@code device}.
     *
     * @throws ModelException when a tensor is missing or has the wrong shape
     */
    public static LlamaModel load(ModelConfig config, WeightSource weights, Device device, Options options) {
        // through TorchRuntime: the libtorch mode (bundled / pip / download) is applied before DJL starts
        Engine engine = TorchRuntime.engine();
        NDManager manager = engine.newBaseManager(device);
        try {
            DataType dtype = switch (options.precision()) {
                case FLOAT32 -> DataType.FLOAT32;
                case FLOAT16 -> DataType.FLOAT16;
                case AUTO -> device.isGpu() ? DataType.FLOAT16 : DataType.FLOAT32;
            };
            int ctx = options.maxContext() > 0 ? Math.min(options.maxContext(), config.maxPositions())
                    : defaultContext(config);
            Loader ld = new Loader(config, weights, manager, dtype, options.int8());
            int d = config.hiddenSize();
            int hd = config.headDim();
            int qOut = config.numHeads() * hd;
            int kvOut = config.numKvHeads() * hd;

            NDArray embed = ld.dense("model.embed_tokens.weight", config.vocabSize(), d);
            // an untied model without lm_head.weight is an incomplete checkpoint, not a tied one: dense() says so
            NDArray lmHead = config.tieWordEmbeddings() ? embed : ld.dense("lm_head.weight", config.vocabSize(), d);
            NDArray finalNorm = ld.norm("model.norm.weight");
            Layer[] layers = new Layer[config.numLayers()];
            for (int i = 0; i < layers.length; i++) {
                String p = "model.layers." + i + ".";
                Linear qkv = ld.linear(new String[] {p + "self_attn.q_proj", p + "self_attn.k_proj", p + "self_attn.v_proj"},
                        new int[] {qOut, kvOut, kvOut}, d, config.attentionBias());
                Linear o = ld.linear(new String[] {p + "self_attn.o_proj"}, new int[] {d}, qOut, false);
                Linear gateUp = ld.linear(new String[] {p + "mlp.gate_proj", p + "mlp.up_proj"},
                        new int[] {config.intermediateSize(), config.intermediateSize()}, d, false);
                Linear down = ld.linear(new String[] {p + "mlp.down_proj"}, new int[] {d}, config.intermediateSize(), false);
                layers[i] = new Layer(ld.norm(p + "input_layernorm.weight"), qkv, o,
                        ld.norm(p + "post_attention_layernorm.weight"), gateUp, down);
            }
            float[][] tables = Rope.tables(config, ctx);
            NDArray cos = ld.create(tables[0], new Shape(ctx, hd), dtype);
            NDArray sin = ld.create(tables[1], new Shape(ctx, hd), dtype);
            return new LlamaModel(config, manager, dtype, ctx, embed, lmHead, finalNorm, cos, sin, layers);
        } catch (RuntimeException e) {
            manager.close();
            throw e;
        }
    }

    /** The context window used when {@link Options#maxContext} is 0: min(config max positions, 8192). */
    public static int defaultContext(ModelConfig config) {
        return Math.min(config.maxPositions(), DEFAULT_MAX_CONTEXT);
    }

    public ModelConfig config() {
        return config;
    }

    /** The manager the weights live in; callers make their per-step sub-managers from it. */
    public NDManager manager() {
        return manager;
    }

    public Device device() {
        return manager.getDevice();
    }

    /** Activation / KV-cache type (float32 or float16). */
    public DataType dtype() {
        return dtype;
    }

    /** Tokens a sequence may hold (prompt and generated), the length of the RoPE tables. */
    public int contextLength() {
        return contextLength;
    }

    /** Bytes of weights one decode step reads (all layers, final norm and LM head; not the embedding rows). */
    public long weightBytesPerToken() {
        return weightBytesPerToken;
    }

    /**
     * One forward pass.
     *
     * @param tokens    {@code [B, T]} int64 ids, created in the caller's step manager
     * @param positions {@code [B, T]} int64 RoPE positions ({@code < contextLength})
     * @param mask      additive float32 attention mask broadcastable to {@code [B, 1, 1, T, L]} (0 = attend,
     *                  large negative = not), or null for no mask beyond {@code causal}
     * @param causal    add the causal mask for {@code T > 1} (keys are the T new tokens, so L == T)
     * @param kv        supplies keys/values to attend over
     * @param allLogits logits for every position ({@code [B, T, V]}) or only the last ({@code [B, V]})
     * @return float32 logits, attached to the manager of {@code tokens}
     */
    public NDArray forward(NDArray tokens, NDArray positions, NDArray mask, boolean causal, KvSink kv, boolean allLogits) {
        NDManager step = tokens.getManager();
        long b = tokens.getShape().get(0);
        long t = tokens.getShape().get(1);
        NDArray effMask = mask;
        if (causal && t > 1) {
            NDArray tri = causalMask(step, t);
            effMask = mask == null ? tri : mask.add(tri);
        }
        NDArray cosP = Ops.embedding(positions, cos).reshape(b, t, 1, config.headDim());
        NDArray sinP = Ops.embedding(positions, sinSigned).reshape(b, t, 1, config.headDim());
        NDArray x = Ops.embedding(tokens, embed);
        for (int i = 0; i < layers.length; i++) {
            try (NDManager lm = step.newSubManager()) {
                x.attach(lm);
                NDArray out = layer(i, layers[i], x, cosP, sinP, effMask, kv, b, t);
                out.attach(step);
                x = out;
            }
        }
        NDArray last = allLogits || t == 1 ? x : Ops.slice(x, 1, t - 1, t);
        NDArray h = rmsNorm(last, finalNorm);
        NDArray logits = Ops.linear(h, lmHead, null);
        if (logits.getDataType() != DataType.FLOAT32) logits = logits.toType(DataType.FLOAT32, false);
        return allLogits ? logits : logits.reshape(b, config.vocabSize());
    }

    private NDArray layer(int index, Layer l, NDArray x, NDArray cosP, NDArray sinP, NDArray mask, KvSink kv,
                          long b, long t) {
        int hd = config.headDim();
        int nh = config.numHeads();
        int nkv = config.numKvHeads();
        int groups = nh / nkv;

        NDArray h = rmsNorm(x, l.inNorm);
        NDArray qkv = l.qkv.apply(h);                                          // [B, T, (H + 2KV) hd]
        NDArray qk = Ops.slice(qkv, 2, 0, (long) (nh + nkv) * hd).reshape(b, t, nh + nkv, hd);
        NDArray v = Ops.slice(qkv, 2, (long) (nh + nkv) * hd, (long) (nh + 2 * nkv) * hd).reshape(b, t, nkv, hd);
        qk = rope(qk, cosP, sinP, hd);
        NDArray q = Ops.slice(qk, 2, 0, nh).transpose(0, 2, 1, 3).reshape(b, nkv, groups * t, hd);
        NDArray k = Ops.slice(qk, 2, nh, nh + nkv).transpose(0, 2, 1, 3);   // [B, KV, T, hd]
        v = v.transpose(0, 2, 1, 3);
        NDArray[] keysValues = kv.attend(index, k, v);
        NDArray keys = keysValues[0];
        NDArray values = keysValues[1];
        long len = keys.getShape().get(2);

        q = q.mul(1.0 / Math.sqrt(hd));
        NDArray keysT = keys.transpose(0, 1, 3, 2);
        long block = queryBlock(b, nh, t, len);
        NDArray heads;                                                           // [B, KV, G*T, hd]
        if (block >= t) {
            heads = attend(q, keysT, values, mask, b, nkv, groups, t, len);
        } else {
            // a long prefill attends in blocks of queries, each block's scores freed before the next: the scores
            // ([B, H, T, L], 12 bytes each with the mask and softmax copies) would otherwise dominate a GPU's memory
            NDManager layerManager = q.getManager();
            NDArray q5 = q.reshape(b, nkv, groups, t, hd);
            NDList blocks = new NDList();
            for (long from = 0; from < t; from += block) {
                long to = Math.min(t, from + block);
                try (NDManager bm = layerManager.newSubManager()) {
                    NDArray qb = Ops.slice(q5, 3, from, to).reshape(b, nkv, groups * (to - from), hd);
                    qb.attach(bm);
                    NDArray mb = mask == null ? null : rowsOf(mask, t, from, to);
                    if (mb != null) mb.attach(bm);
                    NDArray out = attend(qb, keysT, values, mb, b, nkv, groups, to - from, len)
                            .reshape(b, nkv, groups, to - from, hd);
                    out.attach(layerManager);
                    blocks.add(out);
                }
            }
            heads = ai.djl.ndarray.NDArrays.concat(blocks, 3);                 // [B, KV, G, T, hd]
            blocks.close();
        }
        NDArray attn = heads.reshape(b, nh, t, hd).transpose(0, 2, 1, 3).reshape(b, t, (long) nh * hd);
        NDArray x1 = x.add(l.o.apply(attn));

        NDArray h2 = rmsNorm(x1, l.postNorm);
        NDArray gu = l.gateUp.apply(h2);                                       // [B, T, 2I]
        long inter = config.intermediateSize();
        NDArray gate = Ops.slice(gu, 2, 0, inter);
        NDArray up = Ops.slice(gu, 2, inter, 2 * inter);
        NDArray act = gate.mul(Ops.sigmoid(gate)).mul(up);
        return x1.add(l.down.apply(act));
    }

    /**
     * Scaled-dot-product attention of queries {@code [B, KV, G*T, hd]} (already scaled) over {@code keysT}
     * {@code [B, KV, hd, L]}: scores in the compute type, masked and soft-maxed in float32, probabilities back in the
     * compute type. Results attach to the queries' manager.
     */
    private NDArray attend(NDArray q, NDArray keysT, NDArray values, NDArray mask, long b, long nkv, long groups,
                           long t, long len) {
        NDArray scores = q.matMul(keysT);                                         // [B, KV, G*T, L]
        if (mask != null) {
            scores = scores.reshape(b, nkv, groups, t, len).add(mask).reshape(b, nkv, groups * t, len);
        }
        NDArray probs = Ops.softmax(scores, -1, DataType.FLOAT32);
        if (dtype != DataType.FLOAT32) probs = probs.toType(dtype, false);
        return probs.matMul(values);
    }

    /** Rows {@code [from, to)} of the query axis of a mask broadcastable to {@code [B, 1, 1, T, L]}. */
    private static NDArray rowsOf(NDArray mask, long t, long from, long to) {
        int axis = mask.getShape().dimension() - 2;
        if (axis < 0 || mask.getShape().get(axis) != t) return mask.duplicate();   // one row for every query
        return Ops.slice(mask, axis, from, to);
    }

    /** Bytes of attention scores one query block may hold (12 per score: scores, mask sum, softmax, probabilities). */
    static volatile long attentionBlockBytes = 256L << 20;

    /**
     * Queries per attention block for {@code b} rows of {@code t} new tokens over {@code l} keys with {@code heads}
     * query heads: all of them when their scores fit {@link #attentionBlockBytes}, else as many as fit (at least 1).
     * The memory plan uses the same rule.
     */
    public static long queryBlock(long b, long heads, long t, long l) {
        long perQuery = b * heads * l * 12;
        return Math.max(1, Math.min(t, attentionBlockBytes / Math.max(1, perQuery)));
    }

    /** {@code x * rsqrt(mean(x^2) + eps) * w}, statistics in float32, result in the compute type. */
    private NDArray rmsNorm(NDArray x, NDArray weight) {
        NDArray xf = x.getDataType() == DataType.FLOAT32 ? x : x.toType(DataType.FLOAT32, false);
        NDArray inv = xf.square().mean(new int[] {-1}, true).add(config.rmsNormEps()).sqrt();
        NDArray normed = xf.div(inv).mul(weight);
        return normed.getDataType() == dtype ? normed : normed.toType(dtype, false);
    }

    /** Rotate-half RoPE: {@code x * cos + cat(x2, x1) * cat(-sin, sin)} over heads {@code [B, T, N, hd]}. */
    private static NDArray rope(NDArray x, NDArray cosP, NDArray sinSignedP, int hd) {
        NDList halves = Ops.split(x, hd / 2, 3);
        NDArray swapped = Ops.cat(halves.get(1), halves.get(0), 3);
        return x.mul(cosP).add(swapped.mul(sinSignedP));
    }

    private NDArray causalMask(NDManager m, long t) {
        float[] data = new float[(int) (t * t)];
        for (int i = 0; i < t; i++) {
            for (int j = i + 1; j < t; j++) data[(int) (i * t + j)] = MASKED;
        }
        return m.create(data, new Shape(t, t));
    }

    /** Additive mask value for keys a query may not see (finite, so fully padded rows stay NaN-free). */
    public static final float MASKED = -1e9f;

    @Override
    public void close() {
        manager.close();
    }

    // ------------------------------------------------------------------------------------------------ linear layers

    /** A projection {@code y = x W^T (+ b)}. */
    interface Linear {
        NDArray apply(NDArray x);

        long bytes();
    }

    private record Dense(NDArray w, NDArray bias) implements Linear {
        @Override
        public NDArray apply(NDArray x) {
            return Ops.linear(x, w, bias);
        }

        @Override
        public long bytes() {
            return w.size() * w.getDataType().getNumOfBytes() + (bias == null ? 0 : bias.size() * bias.getDataType().getNumOfBytes());
        }
    }

    /** Int8 weights, one scale per output row: {@code y = (x (q)^T) * scale (+ b)}. */
    private record Int8(NDArray q, NDArray scale, NDArray bias, DataType dtype) implements Linear {
        @Override
        public NDArray apply(NDArray x) {
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

    /** Reads, fuses, converts and (optionally) quantises tensors, staging on the CPU. */
    private static final class Loader {
        private final ModelConfig config;
        private final WeightSource weights;
        private final NDManager target;
        private final DataType dtype;
        private final boolean int8;

        Loader(ModelConfig config, WeightSource weights, NDManager target, DataType dtype, boolean int8) {
            this.config = config;
            this.weights = weights;
            this.target = target;
            this.dtype = dtype;
            this.int8 = int8;
        }

        /** The tensor on the CPU, as float16 when {@code half} and the source has it so, else float32. */
        private NDArray raw(NDManager m, String name, boolean half, long... shape) {
            if (!weights.contains(name)) throw new ModelException("the weights " + weights + " have no tensor '" + name + "'");
            long[] actual = weights.shape(name);
            if (!java.util.Arrays.equals(actual, shape)) {
                throw new ModelException("tensor '" + name + "' has shape " + java.util.Arrays.toString(actual)
                        + ", the config implies " + java.util.Arrays.toString(shape));
            }
            long numel = 1;
            for (long d : shape) numel *= d;
            if (numel * (half ? 2 : 4) > partBytes && shape.length > 0) return rawInParts(m, name, half, numel, shape);
            ByteBuffer f16 = half ? weights.float16(name) : null;
            if (f16 != null) return m.create(f16, new Shape(shape), DataType.FLOAT16);
            return m.create(weights.float32(name), new Shape(shape), DataType.FLOAT32);
        }

        /** A tensor too large for one Java buffer, read in row blocks and joined on the CPU. */
        private NDArray rawInParts(NDManager m, String name, boolean half, long numel, long[] shape) {
            long rowElems = numel / shape[0];
            long rowsPerPart = Math.max(1, partBytes / (rowElems * (half ? 2 : 4)));
            NDList parts = new NDList();
            try {
                for (long first = 0; first < shape[0]; first += rowsPerPart) {
                    long rows = Math.min(rowsPerPart, shape[0] - first);
                    long[] partShape = shape.clone();
                    partShape[0] = rows;
                    ByteBuffer f16 = half ? weights.float16Rows(name, first, rows) : null;
                    parts.add(f16 != null ? m.create(f16, new Shape(partShape), DataType.FLOAT16)
                            : m.create(weights.float32Rows(name, first, rows), new Shape(partShape), DataType.FLOAT32));
                }
                // parts of one tensor share a type: mixed only if the source offered f16 for some rows, never
                DataType type = parts.get(0).getDataType();
                for (int i = 1; i < parts.size(); i++) {
                    if (parts.get(i).getDataType() != type) parts.set(i, parts.get(i).toType(type, false));
                }
                return parts.size() == 1 ? parts.get(0).duplicate() : ai.djl.ndarray.NDArrays.concat(parts, 0);
            } finally {
                parts.close(); // concat copied; the parts only borrowed their staging buffers
            }
        }

        /**
         * A staged CPU array converted to {@code type} and moved to the target. Arrays created from Java buffers only
         * borrow that memory (and {@code to()} may return the same tensor), so an array that would otherwise still
         * alias the staging buffer is cloned into memory of its own.
         */
        private NDArray finish(NDArray cpu, DataType type) {
            NDArray typed = cpu.getDataType() == type ? cpu : cpu.toType(type, false);
            NDArray out = target.getDevice().equals(typed.getDevice())
                    ? (typed == cpu ? typed.duplicate() : typed)
                    : typed.toDevice(target.getDevice(), true);
            out.attach(target);
            return out;
        }

        NDArray dense(String name, long rows, long cols) {
            try (NDManager cpu = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
                return finish(raw(cpu, name, dtype == DataType.FLOAT16, rows, cols), dtype);
            }
        }

        NDArray norm(String name) {
            try (NDManager cpu = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
                return finish(raw(cpu, name, false, config.hiddenSize()), DataType.FLOAT32);
            }
        }

        NDArray create(float[] data, Shape shape, DataType type) {
            try (NDManager cpu = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
                return finish(cpu.create(data, shape), type);
            }
        }

        Linear linear(String[] prefixes, int[] outs, int in, boolean bias) {
            try (NDManager cpu = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
                NDList ws = new NDList();
                NDList bs = new NDList();
                for (int i = 0; i < prefixes.length; i++) {
                    boolean half = dtype == DataType.FLOAT16 && !int8;
                    ws.add(raw(cpu, prefixes[i] + ".weight", half, outs[i], in));
                    if (bias) bs.add(raw(cpu, prefixes[i] + ".bias", half, outs[i]));
                }
                NDArray w = ws.size() == 1 ? ws.get(0) : NDArrays.concat(ws, 0);
                NDArray b = !bias ? null : bs.size() == 1 ? bs.get(0) : NDArrays.concat(bs, 0);
                NDArray bOut = b == null ? null : finish(b, dtype);
                if (!int8) return new Dense(finish(w, dtype), bOut);
                // symmetric per-row int8: scale = max|w_row| / 127, q = round(w / scale)
                NDArray scale = w.abs().max(new int[] {1}, true).div(127f).maximum(1e-12f);
                NDArray q = w.div(scale).round().clip(-127, 127).toType(DataType.INT8, false);
                return new Int8(finish(q, DataType.INT8), finish(scale.reshape(-1), dtype), bOut, dtype);
            }
        }
    }

    /** Shortcut to {@code ai.djl.ndarray.NDArrays} so the name does not clash. */
    private static final class NDArrays {
        static NDArray concat(NDList list, int axis) {
            return ai.djl.ndarray.NDArrays.concat(list, axis);
        }
    }

    /** Thin wrappers over PyTorch ops that DJL's NDArray interface does not expose directly. */
    static final class Ops {
        private Ops() {}

        static PtNDArray pt(NDArray a) {
            return (PtNDArray) a;
        }

        static NDArray linear(NDArray x, NDArray w, NDArray b) {
            return JniUtils.linear(pt(x), pt(w), b == null ? null : pt(b));
        }

        static NDArray embedding(NDArray ids, NDArray table) {
            return JniUtils.embedding(pt(ids), pt(table), false);
        }

        /** A view of {@code [start, stop)} along {@code dim}. */
        static NDArray slice(NDArray x, long dim, long start, long stop) {
            return JniUtils.slice(pt(x), dim, start, stop, 1);
        }

        static NDList split(NDArray x, long size, long dim) {
            return JniUtils.split(pt(x), size, dim);
        }

        static NDArray cat(NDArray a, NDArray b, long dim) {
            return JniUtils.cat(new PtNDArray[] {pt(a), pt(b)}, dim);
        }

        /** {@code x[index]} along dimension 0 (an index_select, done as an embedding lookup over the flattened rows). */
        static NDArray rows(NDArray x, NDArray index) {
            Shape shape = x.getShape();
            long rowSize = shape.size() / shape.get(0);
            NDArray selected = embedding(index, x.reshape(shape.get(0), rowSize));
            long[] out = shape.getShape();
            out[0] = index.getShape().get(0);
            return selected.reshape(out);
        }

        static NDArray softmax(NDArray x, long dim, DataType type) {
            return JniUtils.softmax(pt(x), dim, type);
        }

        static NDArray sigmoid(NDArray x) {
            return JniUtils.sigmoid(pt(x));
        }
    }
}
