package dev.ladder.inference.device;

import dev.ladder.inference.model.ModelConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.IntPredicate;

/**
 * How much memory the {@code djl} engine needs for a model, computed from {@code config.json} alone (no weights are
 * read), before anything is loaded.
 *
 * <p>Use:
 * <pre>{@code
 * ModelConfig config = ModelConfig.read(modelDir);                 // config.json is enough
 * WeightFormat f = MemoryPlan.autoFormat(config, DeviceKind.CUDA, budget, rows, context, prefillTokens);
 * MemoryPlan plan = MemoryPlan.of(name, config, new MemoryRequest(f, DeviceKind.CUDA, rows, context, prefillTokens),
 *         budget);
 * if (!plan.fits()) throw new UserError(plan.refusal());           // one line, with what would fit instead
 * }</pre>
 *
 * <p>The figures follow what {@code LlamaModel}, {@code KvCache} and {@code DjlLanguageModel} allocate; {@code c} is
 * the compute type's size (4 for f32; 2 for f16; int8 computes in f16 on CUDA, f32 on CPU):
 * <ul>
 *   <li><b>weights</b>: embedding {@code V x D x c}, plus the LM head {@code V x D x c} unless tied; per layer the
 *       fused q/k/v {@code (H + 2 KV) hd x D}, o {@code D x H hd}, fused gate/up {@code 2I x D}, down {@code D x I}, each
 *       {@code x c}, or in int8 1 byte per weight plus one scale per output row {@code x c}; q/k/v biases (Qwen2)
 *       {@code x c}; two norms per layer and the final norm in f32; RoPE cos and sin tables {@code context x hd x c};</li>
 *   <li><b>KV cache</b>: {@code 2 x layers x KV x hd x c x rows x context}, plus the f32 padding mask
 *       {@code rows x context x 4};</li>
 *   <li><b>workspace</b>: the largest forward pass. Everything a layer allocates is freed only when the layer ends, so
 *       a layer's transients add up: attention takes 12 bytes per score (scores in c, masked scores f32, f32 probs,
 *       and on f16 the probs again in f16), int8 holds the layer's four dequantised matrices in c, the norms hold f32
 *       copies. The engine prefills whole prompts (several per pass while they fit in {@code prefillTokens}, a longer
 *       one alone), so the worst prefill is a prompt of {@code context - 1} tokens; every prompt length up to that is
 *       tried, and the one decode step of all rows;</li>
 *   <li><b>overhead</b>: on CUDA a fixed {@value #CUDA_OVERHEAD_MIB} MiB for the CUDA context, kernels and allocator
 *       slack (not measured on a device in this code's tests: an estimate); on CPU {@value #CPU_OVERHEAD_MIB} MiB for
 *       the JVM and libtorch.</li>
 * </ul>
 *
 * @param model          name to print (e.g. the model directory's name)
 * @param config         the model's architecture
 * @param request        format, device, rows, context, prefill chunk
 * @param budgetBytes    memory available (GPU memory on cuda, physical memory on cpu)
 * @param weightBytes    weights as the engine holds them
 * @param kvCacheBytes   keys and values of every row over the whole context (and the padding mask)
 * @param workspaceBytes the largest transient memory of one forward pass
 * @param workspacePass  the pass that needs it
 * @param overheadBytes  runtime overhead
 */
public record MemoryPlan(String model, ModelConfig config, MemoryRequest request, long budgetBytes, long weightBytes,
                         long kvCacheBytes, long workspaceBytes, Pass workspacePass, long overheadBytes) {

    /**
     * CUDA context, kernel images and caching-allocator slack (docs/inference.md "Memory budget"). Measured on an H200
     * (scripts/gpu-check, docs/gpu.md): the process's CUDA context took 0.51 GiB and PyTorch reserved 0.2-0.35 GiB beyond
     * the plan's weights, KV cache and workspace; 600 MiB left the plan 0.7-1.4% under the measured peak, 900 covers it.
     */
    public static final long CUDA_OVERHEAD_MIB = 900;
    /**
     * JVM and libtorch on a CPU: {@code ladder generate} of a 16-token prompt on a 135M-parameter f32 model peaked at
     * 1,805 MiB resident, of which 513 MiB weights and about as much of the memory-mapped safetensors file (clean pages
     * the kernel can drop), leaving about 780 MiB.
     */
    public static final long CPU_OVERHEAD_MIB = 768;
    /** Below this much GPU memory, {@link #autoFormat} falls back to int8 when f16 does not fit. */
    public static final long AUTO_INT8_BELOW_BYTES = 20_000_000_000L;

    /**
     * One forward pass.
     *
     * @param prefill true for a prefill pass, false for a decode step
     * @param rows    batch rows of the pass (prompts for a prefill, candidate rows for a decode step)
     * @param tokens  new tokens per row (the prompt length for a prefill, 1 for a decode step)
     * @param keys    keys attended over per row
     */
    public record Pass(boolean prefill, int rows, int tokens, int keys) {
        /** "prefill of 1 x 8191 tokens", "decode step of 16 rows over 8192 keys". */
        public String describe() {
            return prefill ? "prefill of " + rows + " x " + tokens + " tokens"
                    : "decode step of " + rows + " rows over " + keys + " keys";
        }
    }

    public MemoryPlan {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(workspacePass, "workspacePass");
    }

    /** Weights, KV cache, workspace and overhead together. */
    public long totalBytes() {
        return weightBytes + kvCacheBytes + workspaceBytes + overheadBytes;
    }

    /** Whether the total is within the budget. */
    public boolean fits() {
        return totalBytes() <= budgetBytes;
    }

    // ------------------------------------------------------------------------------------------------ computing

    /**
     * The plan of {@code request} for {@code config}.
     *
     * @throws IllegalArgumentException (one line) when the context is longer than the model's max positions or the
     *                                  budget is not positive
     */
    public static MemoryPlan of(String model, ModelConfig config, MemoryRequest request, long budgetBytes) {
        if (request.context() > config.maxPositions()) {
            throw new IllegalArgumentException("a context of " + request.context() + " tokens is more than the model's "
                    + config.maxPositions() + " max positions");
        }
        if (budgetBytes <= 0) throw new IllegalArgumentException("the memory budget must be more than 0 bytes");
        int c = request.format().computeBytes(request.device());
        long workspace = -1;
        Pass worst = null;
        // every prompt length a row may have: the engine never splits a prompt, it only packs short ones together
        for (int t = 1; t < request.context(); t++) {
            int prompts = t > request.prefillTokens() ? 1 : Math.min(request.rows(), request.prefillTokens() / t);
            // fewer prompts than rows: some prompt's keys/values are copied (forked) to several candidate rows
            int forkRows = prompts < request.rows() ? request.rows() : 0;
            long bytes = passBytes(config, request, c, prompts, t, t, forkRows,
                    forkRows > 0 ? forkRows : prompts);
            if (bytes > workspace) {
                workspace = bytes;
                worst = new Pass(true, prompts, t, t);
            }
        }
        long decode = passBytes(config, request, c, request.rows(), 1, request.context(), 0, request.rows());
        if (decode > workspace) {
            workspace = decode;
            worst = new Pass(false, request.rows(), 1, request.context());
        }
        long overhead = (request.device() == DeviceKind.CUDA ? CUDA_OVERHEAD_MIB : CPU_OVERHEAD_MIB) * MemorySize.MIB;
        return new MemoryPlan(model, config, request, budgetBytes, weightBytes(config, request), kvCacheBytes(config, request),
                workspace, worst, overhead);
    }

    /** Bytes of the weights as {@code LlamaModel.load} holds them, RoPE tables included. */
    public static long weightBytes(ModelConfig config, MemoryRequest request) {
        long c = request.format().computeBytes(request.device());
        long d = config.hiddenSize();
        long hd = config.headDim();
        long q = (long) config.numHeads() * hd;
        long kv = (long) config.numKvHeads() * hd;
        long inter = config.intermediateSize();
        long embeddings = (long) config.vocabSize() * d * c * (config.tieWordEmbeddings() ? 1 : 2);
        long layer = linearBytes(request.format(), c, q + 2 * kv, d)
                + linearBytes(request.format(), c, d, q)
                + linearBytes(request.format(), c, 2 * inter, d)
                + linearBytes(request.format(), c, d, inter)
                + (config.attentionBias() ? (q + 2 * kv) * c : 0)   // biases stay in the compute type, also in int8
                + 2 * d * 4;                                         // norms: always f32
        long rope = 2L * request.context() * hd * c;
        return embeddings + config.numLayers() * layer + d * 4 + rope;
    }

    private static long linearBytes(WeightFormat f, long c, long out, long in) {
        return f == WeightFormat.INT8 ? out * in + out * c : out * in * c;
    }

    /** {@code 2 x layers x kvHeads x headDim x c x rows x context}, plus the f32 {@code [rows, context]} padding mask. */
    public static long kvCacheBytes(ModelConfig config, MemoryRequest request) {
        long c = request.format().computeBytes(request.device());
        long perToken = 2L * config.numLayers() * config.numKvHeads() * config.headDim() * c;
        long cells = (long) request.rows() * request.context();
        return perToken * cells + cells * 4;
    }

    /**
     * Peak bytes of one forward pass beyond weights and cache: what the step holds for the whole pass plus the larger
     * of one layer's transients and the logits stage.
     *
     * @param b         batch rows
     * @param t         new tokens per row
     * @param l         keys attended over per row
     * @param forkRows  cache rows the prefill copies keys/values into when they are not the batch rows themselves, or 0
     * @param logitRows rows whose logits are chosen from
     */
    private static long passBytes(ModelConfig cfg, MemoryRequest request, long c, long b, long t, long l, long forkRows,
                                  long logitRows) {
        WeightFormat f = request.format();
        long n = b * t;
        long d = cfg.hiddenSize();
        long hd = cfg.headDim();
        long heads = cfg.numHeads();
        long q = heads * hd;
        long kv = (long) cfg.numKvHeads() * hd;
        long inter = cfg.intermediateSize();
        long vocab = cfg.vocabSize();
        // for the whole pass: int64 ids and positions, the RoPE rows, and for a prefill the causal mask, the padding
        // mask and their sum (a decode step's mask is a view of the cache's)
        long step = 2 * n * 8 + 2 * n * hd * c + (t > 1 ? t * t * 4 + b * t * 4 + b * t * t * 4 : 0);
        // the causal mask is first built as a Java float[] (host memory: counts on a CPU only)
        if (t > 1 && request.device() == DeviceKind.CPU) step += t * t * 4;
        long layer = n * d * c                                    // input
                + normBytes(n, d, c)
                + linearPassBytes(f, c, n, q + 2 * kv, d, cfg.attentionBias())
                + 4 * n * (q + kv) * c                            // RoPE: swapped halves, x cos, x sin, sum
                + n * q * c                                       // queries regrouped per KV head (a copy)
                + (forkRows > 0 ? 2 * (n * kv + forkRows * t * kv) * c : 0) // k, v made contiguous and row-selected
                + n * q * c                                       // queries / sqrt(hd)
                // scores c, + mask f32, softmax f32, probs c (f16), for one block of queries at a time
                + b * heads * EngineLimits.queryBlock(b, heads, t, l, EngineLimits.ATTENTION_BLOCK_BYTES) * l * 12
                + 2 * n * q * c                                   // probs x values, heads merged (a copy)
                + (EngineLimits.queryBlock(b, heads, t, l, EngineLimits.ATTENTION_BLOCK_BYTES) < t ? n * q * c : 0) // the blocks joined
                + linearPassBytes(f, c, n, d, q, false)
                + n * d * c                                       // residual
                + normBytes(n, d, c)
                + linearPassBytes(f, c, n, 2 * inter, d, false)
                + 3 * n * inter * c                               // sigmoid(gate), gate x that, x up
                + linearPassBytes(f, c, n, d, inter, false)
                + n * d * c;                                      // layer output
        // last position's logits (in c, then f32), forked to the candidate rows, then max-subtracted and exp'd
        long logits = b * vocab * (c + (c == 4 ? 0 : 4)) + (forkRows > 0 ? logitRows * vocab * 4 : 0)
                + 2 * logitRows * vocab * 4;
        return step + Math.max(layer, logits);
    }

    /** RMSNorm: f32 copy (f16 only), square, x / rms, x w, and the result in c. */
    private static long normBytes(long n, long d, long c) {
        return c == 4 ? 3 * n * d * 4 + 3 * n * 4 : 4 * n * d * 4 + n * d * c + 3 * n * 4;
    }

    /** Output of one projection; int8 adds the dequantised matrix and the scaled output. */
    private static long linearPassBytes(WeightFormat f, long c, long n, long out, long in, boolean bias) {
        if (f != WeightFormat.INT8) return n * out * c;
        return out * in * c + 2 * n * out * c + (bias ? n * out * c : 0);
    }

    /** Parameters of the decoder: embeddings (and LM head unless tied), layers with q/k/v biases, final norm. */
    public static long parameters(ModelConfig config) {
        long d = config.hiddenSize();
        long q = (long) config.numHeads() * config.headDim();
        long kv = (long) config.numKvHeads() * config.headDim();
        long attention = d * q + 2 * d * kv + q * d + (config.attentionBias() ? q + 2 * kv : 0);
        long layer = attention + 3 * d * config.intermediateSize() + 2 * d;
        return (long) config.vocabSize() * d * (config.tieWordEmbeddings() ? 1 : 2) + config.numLayers() * layer + d;
    }

    // -------------------------------------------------------------------------------------------- choosing, refusing

    /**
     * The weight format {@code --dtype auto} picks: f32 on a CPU; f16 on CUDA, except int8 when the budget is under
     * {@link #AUTO_INT8_BELOW_BYTES} (20 GB) and f16 does not fit. On a larger GPU f16 stays even when it does not fit,
     * so the plan refuses rather than silently quantising.
     */
    public static WeightFormat autoFormat(ModelConfig config, DeviceKind device, long budgetBytes, int rows, int context,
                                          int prefillTokens) {
        if (device == DeviceKind.CPU) return WeightFormat.F32;
        if (budgetBytes >= AUTO_INT8_BELOW_BYTES) return WeightFormat.F16;
        MemoryPlan f16 = of("", config, new MemoryRequest(WeightFormat.F16, device, rows, context, prefillTokens),
                budgetBytes);
        return f16.fits() ? WeightFormat.F16 : WeightFormat.INT8;
    }

    /**
     * Plans that fit, each changing as little of the request as it can: int8 weights (when not int8 already), the
     * most rows that fit, the longest context that fits; when none of those fits alone, int8 with the most rows and
     * int8 with the longest context. Empty when the plan fits, or when nothing does.
     */
    public List<MemoryPlan> alternatives() {
        List<MemoryPlan> out = new ArrayList<>();
        if (fits()) return out;
        boolean int8 = request.format() == WeightFormat.INT8;
        if (!int8) {
            MemoryPlan p = with(request.withFormat(WeightFormat.INT8));
            if (p.fits()) out.add(p);
        }
        addSmaller(out, request);
        if (out.isEmpty() && !int8) addSmaller(out, request.withFormat(WeightFormat.INT8));
        return out;
    }

    private void addSmaller(List<MemoryPlan> out, MemoryRequest base) {
        int rows = largest(1, request.rows() - 1, r -> with(base.withRows(r)).fits());
        if (rows > 0) out.add(with(base.withRows(rows)));
        int context = largest(2, request.context() - 1, c -> with(base.withContext(c)).fits());
        if (context > 0) out.add(with(base.withContext(context)));
    }

    private MemoryPlan with(MemoryRequest r) {
        return of(model, config, r, budgetBytes);
    }

    /** The largest value in [lo, hi] for which {@code fits} holds (it holds for a prefix), or 0. */
    private static int largest(int lo, int hi, IntPredicate fits) {
        if (hi < lo || !fits.test(lo)) return 0;
        while (lo < hi) {
            int mid = lo + (hi - lo + 1) / 2;
            if (fits.test(mid)) lo = mid;
            else hi = mid - 1;
        }
        return lo;
    }

    /**
     * One line saying why the plan does not fit and what would, e.g. {@code Meta-Llama-3-8B-Instruct f16 on cuda,
     * 8 rows x 2048 tokens, needs 18.3 GiB (weights 15.0, KV 2.0, workspace 0.7, overhead 0.6) but the budget is
     * 15.0 GiB: use int8 weights (12.1 GiB), or at most 4 rows, or a context of at most 1024 tokens}.
     *
     * @throws IllegalStateException when the plan fits
     */
    public String refusal() {
        if (fits()) throw new IllegalStateException("the plan fits: nothing to refuse");
        return describe() + " needs " + breakdown() + " but the budget is " + MemorySize.format(budgetBytes) + ": "
                + suggestion();
    }

    /**
     * What would fit instead, as words: {@code use int8 weights (12.1 GiB), or at most 4 rows (14.2 GiB)}, or
     * {@code nothing fits, ...} (see {@link #alternatives}); empty when the plan fits.
     */
    public String suggestion() {
        if (fits()) return "";
        List<MemoryPlan> alts = alternatives();
        if (alts.isEmpty()) return "nothing fits, not even int8 weights with 1 row and a 2-token context";
        List<String> parts = new ArrayList<>();
        for (MemoryPlan a : alts) parts.add(change(a));
        return "use " + String.join(", or ", parts);
    }

    /**
     * What {@code alt} changes, in words, with the whole workload it plans for: "int8 weights (6 rows x 1280 tokens,
     * 12.1 GiB)", "a context of at most 1646 tokens (16 rows x 1646 tokens, 15.0 GiB)". Rows and context are always
     * named: a context alone reads as enough when the rows the run needs are more than the plan assumed.
     */
    public String change(MemoryPlan alt) {
        MemoryRequest a = alt.request;
        List<String> words = new ArrayList<>();
        if (a.format() != request.format()) words.add(a.format() == WeightFormat.INT8 ? "int8 weights" : a.format().cliName() + " weights");
        if (a.rows() != request.rows()) words.add("at most " + a.rows() + (a.rows() == 1 ? " row" : " rows"));
        if (a.context() != request.context()) words.add("a context of at most " + a.context() + " tokens");
        return String.join(" and ", words) + " (" + a.rows() + (a.rows() == 1 ? " row" : " rows") + " x " + a.context()
                + " tokens, " + MemorySize.format(alt.totalBytes()) + ")";
    }

    /** "Meta-Llama-3-8B-Instruct f16 on cuda, 16 rows x 8192 tokens," */
    private String describe() {
        return (model.isEmpty() ? "the model" : model) + " " + request.format().cliName() + " on "
                + request.device().cliName() + ", " + request.rows() + (request.rows() == 1 ? " row" : " rows") + " x "
                + request.context() + " tokens,";
    }

    /** "18.3 GiB (weights 15.0, KV 2.0, workspace 0.7, overhead 0.6)" */
    private String breakdown() {
        long total = totalBytes();
        return MemorySize.format(total) + " (weights " + MemorySize.formatLike(weightBytes, total) + ", KV "
                + MemorySize.formatLike(kvCacheBytes, total) + ", workspace " + MemorySize.formatLike(workspaceBytes, total)
                + ", overhead " + MemorySize.formatLike(overheadBytes, total) + ")";
    }
}
