package dev.ladder.inference.llm;

import ai.djl.Device;
import dev.ladder.inference.device.Placement;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import dev.ladder.inference.device.DeviceChoice;
import dev.ladder.inference.device.EngineLimits;
import dev.ladder.inference.device.TorchRuntime;
import dev.ladder.inference.model.F16Clamp;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.ModelException;
import dev.ladder.inference.nativeext.NativeOps;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * <p>Weights are streamed onto the device by {@link WeightLoader}; each projection is a {@link Linear}.
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
     * @param precision       compute precision
     * @param int8            int8 weight-only quantisation of the q/k/v/o and MLP projections
     * @param maxContext      context window in tokens; 0 = min(config max positions, 8192)
     * @param smallBatchForms float32 projections on a CPU with at most {@link SmallBatchLinear#MAX_ROWS} rows run in
     *                        the blocked forms of {@link SmallBatchLinear} (false: always one
     *                        {@code torch.nn.functional.linear}, to measure what the forms add)
     * @param nativeKernels   int8 projections run the native extension's product where it is loaded and runs the
     *                        device and type ({@link NativeOps}; false: always the Java path, the reference)
     */
    public record Options(Precision precision, boolean int8, int maxContext, boolean smallBatchForms,
                          boolean nativeKernels) {
        public static final Options DEFAULT = new Options(Precision.AUTO, false, 0, true, true);

        public Options {
            Objects.requireNonNull(precision, "precision");
            if (maxContext < 0) throw new IllegalArgumentException("maxContext must be >= 0");
        }

        /** With the small-batch forms and native kernels on. */
        public Options(Precision precision, boolean int8, int maxContext) {
            this(precision, int8, maxContext, true, true);
        }

        public Options withSmallBatchForms(boolean on) {
            return new Options(precision, int8, maxContext, on, nativeKernels);
        }

        public Options withNativeKernels(boolean on) {
            return new Options(precision, int8, maxContext, smallBatchForms, on);
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

    private final ModelConfig config;
    private final NDManager manager;
    private final DataType dtype;
    private final int contextLength;
    private final NDArray embed;
    private final NDArray lmHead;
    private final Linear lmHeadLinear;
    private final NDArray finalNorm;
    private final NDArray cos;
    private final NDArray sinSigned;
    private final Layer[] layers;
    private final long weightBytesPerToken;
    private final LoadReport loadReport;
    /** The small-batch forms measured at load (null where there are none: a GPU, float16, int8, or switched off). */
    private SmallBatchLinear.Plan calibratedPlan;
    /** Whether the int8 projections run the native extension's product. */
    private boolean nativeKernels;
    /** The plan the next forward passes use: the calibrated one, or null (the benchmark switches it off and on). */
    private volatile SmallBatchLinear.Plan plan;

    /**
     * One decoder layer (transformers' {@code LlamaDecoderLayer}): the RMSNorm before each block, self-attention and
     * the gated MLP.
     */
    private record Layer(NDArray inputNorm, Attention attention, NDArray postAttentionNorm, Mlp mlp) {
        List<Linear> projections() {
            return List.of(attention.qkv, attention.o, mlp.gateUp, mlp.down);
        }

        long projectionBytes() {
            return attention.qkv.bytes() + attention.o.bytes() + mlp.gateUp.bytes() + mlp.down.bytes();
        }
    }

    /** Self-attention's projections: q/k/v fused into one matrix, and the output. */
    private record Attention(Linear qkv, Linear o) {}

    /** The SwiGLU MLP's projections: gate/up fused into one matrix, and down. */
    private record Mlp(Linear gateUp, Linear down) {}

    private LlamaModel(ModelConfig config, NDManager manager, DataType dtype, int contextLength, NDArray embed,
                       NDArray lmHead, Linear lmHeadLinear, NDArray finalNorm, NDArray cos, NDArray sinSigned,
                       Layer[] layers, LoadReport loadReport) {
        this.config = config;
        this.manager = manager;
        this.dtype = dtype;
        this.contextLength = contextLength;
        this.embed = embed;
        this.lmHead = lmHead;
        this.lmHeadLinear = lmHeadLinear;
        this.finalNorm = finalNorm;
        this.cos = cos;
        this.sinSigned = sinSigned;
        this.layers = layers;
        long bytes = lmHead.size() * lmHead.getDataType().getNumOfBytes() + finalNorm.size() * 4L;
        for (Layer l : layers) bytes += l.projectionBytes() + 2L * l.inputNorm.size() * 4;
        this.weightBytesPerToken = bytes;
        this.loadReport = loadReport;
    }

    /** Bytes of all arrays a model holds: embedding, LM head when untied, layers, norms, RoPE tables. */
    private static long heldBytes(NDArray embed, NDArray lmHead, NDArray finalNorm, NDArray cos, NDArray sin,
                                  Layer[] layers) {
        long bytes = bytes(embed) + (lmHead == embed ? 0 : bytes(lmHead)) + bytes(finalNorm) + bytes(cos) + bytes(sin);
        for (Layer l : layers) bytes += bytes(l.inputNorm) + bytes(l.postAttentionNorm) + l.projectionBytes();
        return bytes;
    }

    private static long bytes(NDArray a) {
        return a.size() * a.getDataType().getNumOfBytes();
    }

    /**
     * Loads the weights onto {@code device}.
     *
     * @throws ModelException when a tensor is missing or has the wrong shape
     */
    public static LlamaModel load(ModelConfig config, WeightSource weights, Placement placement, Options options) {
        return load(config, weights, placement.toDjl(), options);
    }

    /** As {@link #load(ModelConfig, WeightSource, Placement, Options)} on an engine device. */
    public static LlamaModel load(ModelConfig config, WeightSource weights, Device device, Options options) {
        long t0 = System.nanoTime();
        // through TorchRuntime: the libtorch mode (bundled / pip / download) is applied before DJL starts
        Engine engine = TorchRuntime.engine();
        NDManager manager = engine.newBaseManager(device);
        try (HostMemory.PeakSampler memory = HostMemory.sampler(Duration.ofMillis(5));
             WeightLoader ld = new WeightLoader(config, weights, manager, dtypeFor(options.precision(), device), options.int8(),
                     !device.isGpu(), options.nativeKernels())) {
            DataType dtype = ld.dtype;
            int ctx = options.maxContext() > 0 ? Math.min(options.maxContext(), config.maxPositions())
                    : EngineLimits.defaultContext(config);
            int d = config.hiddenSize();
            int hd = config.headDim();
            int qOut = config.numHeads() * hd;
            int kvOut = config.numKvHeads() * hd;

            NDArray embed = ld.dense("model.embed_tokens.weight", config.vocabSize(), d);
            // an untied model without lm_head.weight is an incomplete checkpoint, not a tied one: dense() says so
            NDArray lmHead = config.tieWordEmbeddings() ? embed : ld.dense("lm_head.weight", config.vocabSize(), d);
            NDArray finalNorm = ld.norm("model.norm.weight");
            memory.sample();
            Layer[] layers = new Layer[config.numLayers()];
            for (int i = 0; i < layers.length; i++) {
                String p = "model.layers." + i + ".";
                Linear qkv = ld.linear(new String[] {p + "self_attn.q_proj", p + "self_attn.k_proj", p + "self_attn.v_proj"},
                        new int[] {qOut, kvOut, kvOut}, d, config.attentionBias());
                Linear o = ld.linear(new String[] {p + "self_attn.o_proj"}, new int[] {d}, qOut, false);
                Linear gateUp = ld.linear(new String[] {p + "mlp.gate_proj", p + "mlp.up_proj"},
                        new int[] {config.intermediateSize(), config.intermediateSize()}, d, false);
                Linear down = ld.linear(new String[] {p + "mlp.down_proj"}, new int[] {d}, config.intermediateSize(), false);
                layers[i] = new Layer(ld.norm(p + "input_layernorm.weight"), new Attention(qkv, o),
                        ld.norm(p + "post_attention_layernorm.weight"), new Mlp(gateUp, down));
                memory.sample();
            }
            Linear.Dense head = ld.dense(lmHead, null);
            SmallBatchLinear.Plan plan = null;
            if (options.smallBatchForms() && ld.smallBatchForms) {
                var byShape = blockedByShape(layers, head);
                long bytes = byShape.values().stream().flatMap(List::stream).mapToLong(bl -> bytes(bl.weight())).sum();
                // a machine stores a quiet measurement: later loads confirm its forms (tiny models measure in milliseconds)
                plan = SmallBatchCalibration.calibrate(byShape, manager,
                        bytes >= SmallBatchPlans.STORE_FROM_BYTES ? SmallBatchPlans.forThisMachine() : null);
            }
            float[][] tables = Rope.tables(config, ctx);
            NDArray cos = ld.create(tables[0], new Shape(ctx, hd), dtype);
            NDArray sin = ld.create(tables[1], new Shape(ctx, hd), dtype);
            memory.sample();
            List<String> warnings = weights.float16Clamps().stream().map(F16Clamp::message).toList();
            LoadReport report = new LoadReport((System.nanoTime() - t0) / 1_000_000, memory.startBytes(),
                    memory.peakBytes(), heldBytes(embed, lmHead, finalNorm, cos, sin, layers), DeviceChoice.label(device), warnings);
            LlamaModel model = new LlamaModel(config, manager, dtype, ctx, embed, lmHead, head, finalNorm, cos, sin,
                    layers, report);
            model.calibratedPlan = plan;
            model.nativeKernels = ld.nativeInt8;
            model.plan = plan;
            return model;
        } catch (RuntimeException e) {
            manager.close();
            throw e;
        }
    }

    /** The blocked weights of every float projection, grouped by shape (layers share shapes; the LM head is one). */
    private static Map<String, List<SmallBatchLinear.Blocked>> blockedByShape(Layer[] layers, Linear lmHead) {
        Map<String, List<SmallBatchLinear.Blocked>> byShape = new LinkedHashMap<>();
        List<Linear> all = new ArrayList<>();
        for (Layer l : layers) all.addAll(l.projections());
        all.add(lmHead);
        for (Linear linear : all) {
            if (linear instanceof Linear.Dense d && d.blocked() != null) {
                byShape.computeIfAbsent(d.blocked().shapeKey(), k -> new ArrayList<>()).add(d.blocked());
            }
        }
        return byShape;
    }

    private static DataType dtypeFor(Precision precision, Device device) {
        return switch (precision) {
            case FLOAT32 -> DataType.FLOAT32;
            case FLOAT16 -> DataType.FLOAT16;
            case AUTO -> device.isGpu() ? DataType.FLOAT16 : DataType.FLOAT32;
        };
    }

    /**
     * Turns the small-batch forms of {@link SmallBatchLinear} on or off for the next forward passes, so one loaded
     * model measures both (they only exist for float32 weights on a CPU; elsewhere this changes nothing).
     */
    void smallBatchForms(boolean on) {
        plan = on ? calibratedPlan : null;
    }

    /** Per weight shape, the forms the load measured and kept (empty where there are none). */
    public List<String> smallBatchPlan() {
        return calibratedPlan == null ? List.of() : calibratedPlan.describe();
    }

    /**
     * Per weight shape, how the load came to its forms: measured then or stored and confirmed, under what load, and
     * what was stored (empty where there are none).
     */
    public List<String> smallBatchOrigins() {
        return calibratedPlan == null ? List.of() : calibratedPlan.describeOrigins();
    }

    /** Whether some projection runs in a small-batch form now (float32 weights on a CPU, and the forms on). */
    public boolean smallBatchFormsActive() {
        return plan != null;
    }

    /** Whether the int8 projections run the native extension's product ({@link Options#nativeKernels()}). */
    public boolean nativeKernelsActive() {
        return nativeKernels;
    }

    /** Time, host memory and warnings of the load that made this model. */
    public LoadReport loadReport() {
        return loadReport;
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

    /** Where the weights are, as callers outside the engine see it. */
    public Placement placement() {
        return Placement.of(device());
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
     * Logits of every position of one causal prefill of {@code tokens} (no cache kept), float32, row-major
     * {@code [positions, vocab]}: what parity checks compare with another implementation.
     */
    public float[] prefillLogits(int[] tokens) {
        int t = tokens.length;
        try (NDManager step = manager.newSubManager()) {
            long[] ids = new long[t];
            long[] pos = new long[t];
            for (int i = 0; i < t; i++) {
                ids[i] = tokens[i];
                pos[i] = i;
            }
            return forward(step.create(ids, new Shape(1, t)), step.create(pos, new Shape(1, t)), null, true,
                    (layer, k, v) -> new NDArray[] {k, v}, true).toFloatArray();
        }
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
        SmallBatchLinear.Plan forms = plan;   // one plan for the whole pass, whatever a benchmark switches meanwhile
        for (int i = 0; i < layers.length; i++) {
            try (NDManager lm = step.newSubManager()) {
                x.attach(lm);
                NDArray out = layer(i, layers[i], x, cosP, sinP, effMask, kv, b, t, forms);
                out.attach(step);
                x = out;
            }
        }
        NDArray last = allLogits || t == 1 ? x : Ops.slice(x, 1, t - 1, t);
        NDArray h = rmsNorm(last, finalNorm);
        NDArray logits = lmHeadLinear.apply(h, forms);
        if (logits.getDataType() != DataType.FLOAT32) logits = logits.toType(DataType.FLOAT32, false);
        return allLogits ? logits : logits.reshape(b, config.vocabSize());
    }

    /**
     * One decoder layer, as transformers' {@code LlamaDecoderLayer} and llama3.java's {@code forward} read: input
     * norm, self-attention, residual; post-attention norm, MLP, residual.
     */
    private NDArray layer(int index, Layer l, NDArray x, NDArray cosP, NDArray sinP, NDArray mask, KvSink kv,
                          long b, long t, SmallBatchLinear.Plan forms) {
        NDArray attended = attention(index, l.attention, rmsNorm(x, l.inputNorm), cosP, sinP, mask, kv, b, t, forms);
        NDArray x1 = x.add(attended);
        return x1.add(mlp(l.mlp, rmsNorm(x1, l.postAttentionNorm), forms));
    }

    /**
     * Grouped-query self-attention of the normed hidden states {@code h} {@code [B, T, hidden]}: q/k/v projections,
     * RoPE on q and k, the new keys and values handed to {@code kv}, attention over what it returns, the output
     * projection. Returns {@code [B, T, hidden]}.
     */
    private NDArray attention(int index, Attention a, NDArray h, NDArray cosP, NDArray sinP, NDArray mask, KvSink kv,
                              long b, long t, SmallBatchLinear.Plan forms) {
        int hd = config.headDim();
        int nh = config.numHeads();
        int nkv = config.numKvHeads();
        int groups = nh / nkv;

        NDArray qkv = a.qkv.apply(h, forms);                        // [B, T, (H + 2KV) hd]
        NDArray qk = Ops.slice(qkv, 2, 0, (long) (nh + nkv) * hd).reshape(b, t, nh + nkv, hd);
        NDArray v = Ops.slice(qkv, 2, (long) (nh + nkv) * hd, (long) (nh + 2 * nkv) * hd).reshape(b, t, nkv, hd);
        qk = rope(qk, cosP, sinP, hd);
        NDArray q = Ops.slice(qk, 2, 0, nh).transpose(0, 2, 1, 3).reshape(b, nkv, groups * t, hd);
        NDArray k = Ops.slice(qk, 2, nh, nh + nkv).transpose(0, 2, 1, 3);   // [B, KV, T, hd]
        v = v.transpose(0, 2, 1, 3);
        NDArray[] keysValues = kv.attend(index, k, v);
        NDArray heads = attendInBlocks(q.mul(1.0 / Math.sqrt(hd)), keysValues[0], keysValues[1], mask, b, t);
        NDArray attn = heads.reshape(b, nh, t, hd).transpose(0, 2, 1, 3).reshape(b, t, (long) nh * hd);
        return a.o.apply(attn, forms);
    }

    /**
     * Attention of the scaled queries {@code [B, KV, G*T, hd]} over {@code keys} and {@code values}
     * {@code [B, KV, L, hd]}; returns the heads {@code [B, KV, G*T, hd]} (or {@code [B, KV, G, T, hd]}, the same
     * elements). A long prefill attends in blocks of queries, each block's scores freed before the next: the scores
     * ({@code [B, H, T, L]}, 12 bytes each with the mask and softmax copies) would otherwise dominate a GPU's memory.
     */
    private NDArray attendInBlocks(NDArray q, NDArray keys, NDArray values, NDArray mask, long b, long t) {
        int hd = config.headDim();
        int nh = config.numHeads();
        int nkv = config.numKvHeads();
        int groups = nh / nkv;
        long len = keys.getShape().get(2);
        NDArray keysT = keys.transpose(0, 1, 3, 2);
        long block = queryBlock(b, nh, t, len);
        if (block >= t) return attend(q, keysT, values, mask, b, nkv, groups, t, len);
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
        NDArray heads = NDArrays.concat(blocks, 3);                 // [B, KV, G, T, hd]
        blocks.close();
        return heads;
    }

    /** The SwiGLU MLP of the normed hidden states {@code h}: {@code down(silu(gate(h)) * up(h))}. */
    private NDArray mlp(Mlp m, NDArray h, SmallBatchLinear.Plan forms) {
        NDArray gu = m.gateUp.apply(h, forms);                      // [B, T, 2I]
        long inter = config.intermediateSize();
        NDArray gate = Ops.slice(gu, 2, 0, inter);
        NDArray up = Ops.slice(gu, 2, inter, 2 * inter);
        NDArray act = gate.mul(Ops.sigmoid(gate)).mul(up);
        return m.down.apply(act, forms);
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

    /** Bytes of attention scores one query block may hold ({@link EngineLimits#ATTENTION_BLOCK_BYTES}; tests lower it). */
    static volatile long attentionBlockBytes = EngineLimits.ATTENTION_BLOCK_BYTES;

    /** Queries per attention block under {@link #attentionBlockBytes}; the memory plan uses the same rule. */
    static long queryBlock(long b, long heads, long t, long l) {
        return EngineLimits.queryBlock(b, heads, t, l, attentionBlockBytes);
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
            long[] out = shape.getShape().clone();   // getShape() hands out the array x keeps
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
