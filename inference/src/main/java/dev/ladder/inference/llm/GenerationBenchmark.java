package dev.ladder.inference.llm;

import ai.djl.Device;
import dev.ladder.inference.device.Placement;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.util.cuda.CudaUtils;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.inference.Completion;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.Sampling;
import dev.ladder.inference.device.DeviceChoice;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.Weights;
import java.lang.management.MemoryUsage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * Throughput of the {@code djl} engine on one model: prefill tokens/s for a 128-token prompt, decode tokens/s at
 * batch 1, 4 and 16 (greedy, prompt 128, through {@link DjlLanguageModel#generate}), memory (the load's
 * {@link LoadReport}, peak resident memory, GPU memory on a GPU), and the batch-1 decode rate as a share of the
 * memory roofline: bytes one decode step reads (weights plus the KV cache at the benchmark's mean context) over a
 * measured bandwidth. The same code runs on a CPU and on a CUDA device; only the bandwidth probe differs
 * ({@link #measureBandwidth}). Not a test: the CLI calls {@link #run} and prints {@link Result#table()}.
 */
public final class GenerationBenchmark {
    private GenerationBenchmark() {}

    public static final int PROMPT = 128;
    public static final List<Integer> BATCHES = List.of(1, 4, 16);
    /** Rounds of decode with the small-batch forms on and off, alternating, where both are measured; best of each. */
    static final int FORM_ROUNDS = 2;
    /** Size of the device-copy probe's array on a GPU (less when the device has less free memory). */
    static final long DEVICE_PROBE_BYTES = 1L << 30;

    /**
     * A measured memory bandwidth.
     *
     * @param probe  how it was measured, for the table
     * @param gbPerS bytes moved per second / 1e9
     */
    public record Bandwidth(String probe, double gbPerS) {}

    /**
     * GPU memory as CUDA reports it ({@code cudaMemGetInfo}) after the run. PyTorch keeps freed blocks cached, so
     * "used" after the run is close to the peak PyTorch reserved (DJL exposes no allocator statistics).
     */
    public record GpuMemory(long totalBytes, long usedBytes) {}

    /**
     * @param weightBytesPerStep  weight bytes one decode step reads
     * @param kvBytesPerToken     KV-cache bytes per token of context (keys and values, all layers)
     * @param rooflineContext     context the roofline's KV read is taken at: prompt plus half the decoded tokens,
     *                            the mean over a batch-1 decode
     * @param bandwidth           measured bandwidth of the memory the weights live in
     * @param prefillTokensPerSec prompt tokens per second for one prompt
     * @param decodeTokensPerSec  generated tokens per second by batch size
     * @param decodePlainTokensPerSec the same with the small-batch forms off (one {@code F.linear} per projection),
     *                            measured on the same loaded model in rounds alternating with the forms on (best of
     *                            {@link #FORM_ROUNDS} each); empty where the forms do not apply
     *                            (a GPU, float16, int8) or were not compared
     * @param smallBatchPlan      the forms the model's load measured and kept, one line per weight shape (empty: none)
     * @param smallBatchOrigins   per weight shape, how the load came to those forms: measured or stored and confirmed,
     *                            under what load, what was stored (empty: none)
     * @param decodeLoad          other processes' load on the machine while decode was measured (forms on and off)
     * @param peakRssBytes        VmHWM of this process after the run (-1 when unknown)
     * @param load                the model's load report (null when the model came loaded from elsewhere)
     * @param gpuMemory           GPU memory after the run, null on a CPU or when CUDA cannot say
     */
    public record Result(String model, String device, int threads, int promptTokens, long weightBytesPerStep,
                         long kvBytesPerToken, int rooflineContext, Bandwidth bandwidth, double prefillTokensPerSec,
                         Map<Integer, Double> decodeTokensPerSec, Map<Integer, Double> decodePlainTokensPerSec,
                         List<String> smallBatchPlan, List<String> smallBatchOrigins, MachineLoad.Load decodeLoad,
                         long peakRssBytes, LoadReport load, GpuMemory gpuMemory) {

        public Result {
            decodePlainTokensPerSec = Map.copyOf(decodePlainTokensPerSec);
            smallBatchPlan = List.copyOf(smallBatchPlan);
            smallBatchOrigins = List.copyOf(smallBatchOrigins);
        }

        /** KV-cache bytes one batch-1 decode step reads at {@link #rooflineContext}. */
        public long kvBytesPerStep() {
            return kvBytesPerToken * rooflineContext;
        }

        /** All bytes one batch-1 decode step reads: weights and KV cache. */
        public long bytesPerStep() {
            return weightBytesPerStep + kvBytesPerStep();
        }

        /** Batch-1 decode steps per second the bandwidth allows. */
        public double rooflineTokensPerSec() {
            return bandwidth.gbPerS() * 1e9 / bytesPerStep();
        }

        /** Measured batch-1 decode rate over the roofline. */
        public double rooflineRatio() {
            Double b1 = decodeTokensPerSec.get(1);
            return b1 == null ? Double.NaN : b1 / rooflineTokensPerSec();
        }

        /**
         * One JSON object of the measurements (the fields scripts/gpu-check reads), with GPU memory before the load
         * and after the model closed where known (either may be null).
         */
        public String json(GpuMemory before, GpuMemory after) {
            var mapper = new ObjectMapper();
            var o = mapper.createObjectNode();
            o.put("model", model);
            o.put("device", device);
            o.put("threads", threads);
            o.put("prompt_tokens", promptTokens);
            o.put("weight_bytes_per_step", weightBytesPerStep);
            o.put("kv_bytes_per_step", kvBytesPerStep());
            o.put("bandwidth_gb_per_s", bandwidth.gbPerS());
            o.put("bandwidth_probe", bandwidth.probe());
            o.put("prefill_tok_per_s", prefillTokensPerSec);
            var decode = o.putObject("decode_tok_per_s");
            decodeTokensPerSec.forEach((b, v) -> decode.put(String.valueOf(b), v));
            if (!decodePlainTokensPerSec.isEmpty()) {
                var plain = o.putObject("decode_plain_linear_tok_per_s");
                decodeTokensPerSec.keySet().forEach(b -> plain.put(String.valueOf(b), decodePlainTokensPerSec.get(b)));
            }
            if (decodeLoad.known()) o.put("decode_others_cores", decodeLoad.othersCores());
            o.put("roofline_tok_per_s", rooflineTokensPerSec());
            o.put("batch1_roofline_share", rooflineRatio());
            o.put("peak_rss_bytes", peakRssBytes);
            if (load != null) {
                o.put("load_seconds", load.millis() / 1e3);
                o.put("weight_bytes", load.weightBytes());
                o.put("load_peak_anon_rss_bytes", load.peakAnonRssBytes());
                o.put("load_warnings", load.warnings().size());
            }
            if (gpuMemory != null) {
                o.put("gpu_total_bytes", gpuMemory.totalBytes());
                o.put("gpu_used_after_run_bytes", gpuMemory.usedBytes());
            }
            if (before != null) o.put("gpu_used_before_load_bytes", before.usedBytes());
            if (after != null) o.put("gpu_used_after_close_bytes", after.usedBytes());
            try {
                return mapper.writeValueAsString(o);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }

        public String table() {
            StringBuilder sb = new StringBuilder();
            sb.append(String.format(Locale.ROOT, "model %s on %s, %d threads%n", model, device, threads));
            sb.append(String.format(Locale.ROOT, "%-44s %12s%n", "metric", "value"));
            row(sb, "weights read per step (MB)", "%12.1f", weightBytesPerStep / 1e6);
            row(sb, "KV cache read per step, context " + rooflineContext + " (MB)", "%12.1f", kvBytesPerStep() / 1e6);
            row(sb, "bytes read per decode step (MB)", "%12.1f", bytesPerStep() / 1e6);
            row(sb, "bandwidth (GB/s)", "%12.1f", bandwidth.gbPerS());
            sb.append(String.format(Locale.ROOT, "  (%s)%n", bandwidth.probe()));
            row(sb, "prefill, prompt " + promptTokens + " (tok/s)", "%12.1f", prefillTokensPerSec);
            for (Map.Entry<Integer, Double> e : decodeTokensPerSec.entrySet()) {
                row(sb, "decode, batch " + e.getKey() + " (tok/s)", "%12.1f", e.getValue());
            }
            sb.append(String.format(Locale.ROOT, "  (machine during decode: %s)%n", decodeLoad.describe()));
            if (!decodePlainTokensPerSec.isEmpty()) {
                sb.append(String.format(Locale.ROOT, "  (the same, small-batch forms off: one F.linear per projection; "
                        + "on and off in %d alternating rounds, best of each)%n", FORM_ROUNDS));
                for (int b : decodeTokensPerSec.keySet()) {
                    Double plain = decodePlainTokensPerSec.get(b);
                    row(sb, "decode, batch " + b + ", forms off (tok/s)", "%12.1f", plain);
                    row(sb, "  small-batch forms speed-up, batch " + b, "%11.2fx", decodeTokensPerSec.get(b) / plain);
                }
            }
            if (!smallBatchPlan.isEmpty()) {
                sb.append(String.format(Locale.ROOT, "  (forms kept at load, weight shape: rows form)%n"));
                for (String line : smallBatchPlan) sb.append("  ").append(line).append(System.lineSeparator());
                sb.append(String.format(Locale.ROOT, "  (how the load came to them)%n"));
                for (String line : smallBatchOrigins) sb.append("  ").append(line).append(System.lineSeparator());
            }
            row(sb, "roofline, batch 1 (tok/s)", "%12.1f", rooflineTokensPerSec());
            row(sb, "batch-1 decode / roofline", "%11.0f%%", 100 * rooflineRatio());
            Double b1 = decodeTokensPerSec.get(1);
            Double b16 = decodeTokensPerSec.get(16);
            Double b4 = decodeTokensPerSec.get(4);
            if (b1 != null && b4 != null) row(sb, "batch 4 / batch 1", "%11.1fx", b4 / b1);
            if (b1 != null && b16 != null) row(sb, "batch 16 / batch 1", "%11.1fx", b16 / b1);
            if (load != null) {
                row(sb, "load time (s)", "%12.1f", load.millis() / 1e3);
                row(sb, "weights on " + load.device() + " (MB)", "%12.1f", load.weightBytes() / 1e6);
                row(sb, "peak anonymous RSS while loading (MB)", "%12s", mb(load.peakAnonRssBytes()));
            }
            row(sb, "peak RSS, VmHWM (MB)", "%12s", mb(peakRssBytes));
            if (gpuMemory != null) {
                row(sb, "GPU memory total (MB)", "%12.0f", gpuMemory.totalBytes() / 1e6);
                row(sb, "GPU memory used after the run (MB)", "%12.0f", gpuMemory.usedBytes() / 1e6);
            }
            return sb.toString();
        }

        private static void row(StringBuilder sb, String metric, String valueFormat, Object value) {
            sb.append(String.format(Locale.ROOT, "%-44s " + valueFormat + "%n", metric, value));
        }

        private static String mb(long bytes) {
            return bytes < 0 ? "unknown" : String.format(Locale.ROOT, "%.0f", bytes / 1e6);
        }
    }

    /** Loads {@code modelDir} on {@code device} with {@code threads} intra-op threads and measures it. */
    public static Result run(Path modelDir, Device device, int threads, int decodeSteps) {
        return run(modelDir, device, threads, BATCHES, PROMPT, decodeSteps);
    }

    /** As {@link #run(Path, Device, int, int)} with other batch sizes and prompt length. */
    public static Result run(Path modelDir, Device device, int threads, List<Integer> batches, int promptTokens,
                             int decodeSteps) {
        return run(modelDir, device, threads, batches, promptTokens, decodeSteps, DjlLanguageModel.Options.DEFAULT.model());
    }

    /** As {@link #run(Path, Device, int, List, int, int)} with the weights' precision and format given. */
    public static Result run(Path modelDir, Device device, int threads, List<Integer> batches, int promptTokens,
                             int decodeSteps, LlamaModel.Options modelOptions) {
        if (batches.isEmpty() || batches.stream().anyMatch(b -> b < 1)) throw new IllegalArgumentException("batch sizes must be >= 1: " + batches);
        if (promptTokens < 1) throw new IllegalArgumentException("prompt tokens must be >= 1, got " + promptTokens);
        int maxBatch = batches.stream().mapToInt(Integer::intValue).max().orElse(16);
        DjlLanguageModel.Options base = DjlLanguageModel.Options.DEFAULT;
        DjlLanguageModel.Options opts = new DjlLanguageModel.Options(modelOptions, base.maxBatchRows(), base.prefillTokens(),
                base.threads()).withThreads(threads).withMaxBatchRows(Math.max(16, maxBatch));
        // ids only: no tokenizer needed (benchmark-shaped models may have a vocabulary their tokenizer does not cover)
        LlamaModel model;
        try (Weights w = Weights.open(modelDir)) {
            model = LlamaModel.load(ModelConfig.read(modelDir), WeightSource.of(w), device, opts.model());
        }
        Path name = modelDir.toAbsolutePath().normalize().getFileName();
        try (DjlLanguageModel lm = new DjlLanguageModel(model, null, String.valueOf(name), null, opts)) {
            return run(lm, threads, batches, promptTokens, decodeSteps);
        }
    }

    /** Measures a loaded model. */
    public static Result run(DjlLanguageModel lm, int threads, int decodeSteps) {
        return run(lm, threads, BATCHES, PROMPT, decodeSteps);
    }

    public static Result run(DjlLanguageModel lm, int threads, List<Integer> batches, int promptTokens, int decodeSteps) {
        return run(lm, threads, batches, promptTokens, decodeSteps, true);
    }

    /**
     * Measures a loaded model; with {@code compareForms}, where the model has small-batch forms, decode is measured
     * with them on and off in {@link #FORM_ROUNDS} alternating rounds per batch size (best of each), so the table shows
     * what they add in one run, and a machine whose load comes and goes slows both sides alike.
     */
    public static Result run(DjlLanguageModel lm, int threads, List<Integer> batches, int promptTokens, int decodeSteps,
                             boolean compareForms) {
        if (threads > 0) JniUtils.setNumThreads(threads);
        LlamaModel model = lm.model();
        int vocab = model.config().vocabSize();
        Random rnd = new Random(1);
        // warm-up: allocator, kernels, JIT
        lm.generate(List.of(request(rnd, vocab, promptTokens, 8)));
        lm.generate(batch(rnd, vocab, promptTokens, 4, 4));

        double prefill = 0;
        for (int i = 0; i < 3; i++) {
            long t0 = System.nanoTime();
            lm.generate(List.of(request(rnd, vocab, promptTokens, 1)));
            prefill = Math.max(prefill, promptTokens / ((System.nanoTime() - t0) / 1e9));
        }
        boolean compare = compareForms && model.smallBatchFormsActive();
        MachineLoad.Window window = MachineLoad.start(MachineLoad.proc());
        Map<Integer, Double> decode = new LinkedHashMap<>();
        Map<Integer, Double> plain = new LinkedHashMap<>();
        for (int b : batches) {
            // forms on and off in alternating rounds, best of each: a load that comes and goes hits both alike
            for (int round = 0; round < (compare ? FORM_ROUNDS : 1); round++) {
                decode.merge(b, decode(lm, rnd, vocab, b, promptTokens, decodeSteps), Math::max);
                if (compare) plain.merge(b, plainDecode(lm, rnd, vocab, b, promptTokens, decodeSteps), Math::max);
            }
        }
        MachineLoad.Load decodeLoad = window.end();
        long rss = HostMemory.peakRssBytes();   // before the bandwidth probe's array
        GpuMemory gpu = gpuMemory(model.device());  // before the probe too: its array is not the model's
        Bandwidth bw = measureBandwidth(model.manager(), Math.max(1, threads));
        int t = threads > 0 ? threads : JniUtils.getNumThreads();
        return new Result(lm.name(), DeviceChoice.label(model.device()), t, promptTokens, model.weightBytesPerToken(),
                kvBytesPerToken(model.config(), model.dtype().getNumOfBytes()), rooflineContext(promptTokens, decodeSteps),
                bw, prefill, decode, plain, model.smallBatchPlan(), model.smallBatchOrigins(), decodeLoad, rss,
                model.loadReport(), gpu);
    }

    /** Decode tokens per second of one greedy batch of {@code b} rows. */
    private static double decode(DjlLanguageModel lm, Random rnd, int vocab, int b, int promptTokens, int decodeSteps) {
        List<Completion> out = lm.generate(batch(rnd, vocab, promptTokens, b, decodeSteps));
        long tokens = 0;
        for (Completion c : out) tokens += c.candidates().get(0).tokenIds().size();
        long ms = Math.max(1, out.get(0).decodeMillis());
        // the first token of each row comes from the prefill, the decode loop makes the rest
        return (tokens - b) / (ms / 1e3);
    }

    /** {@link #decode} with the small-batch forms off. */
    private static double plainDecode(DjlLanguageModel lm, Random rnd, int vocab, int b, int promptTokens, int decodeSteps) {
        lm.model().smallBatchForms(false);
        try {
            return decode(lm, rnd, vocab, b, promptTokens, decodeSteps);
        } finally {
            lm.model().smallBatchForms(true);
        }
    }

    /** Keys and values of one token in every layer: {@code 2 · layers · kvHeads · headDim · bytes}. */
    static long kvBytesPerToken(ModelConfig c, int bytesPerValue) {
        return 2L * c.numLayers() * c.numKvHeads() * c.headDim() * bytesPerValue;
    }

    /**
     * Context of the mean batch-1 decode step: the step making token {@code j} (2..n; the first comes from the
     * prefill) attends over {@code prompt + j - 1} positions, which average {@code prompt + n / 2}.
     */
    static int rooflineContext(int promptTokens, int decodeSteps) {
        return promptTokens + decodeSteps / 2;
    }

    /**
     * Bandwidth of the memory the model's weights live in. On a GPU: a device-to-device copy of a large array
     * (1 GiB, or a third of the free memory if less), counting read plus write (2x its size), best of 5, each
     * synchronised by reading one element of the copy back. On a CPU: {@link #readBandwidthGBs}, a read-only probe,
     * because decode reads the weights and a copy would also count the write-allocate traffic of the destination.
     */
    public static Bandwidth measureBandwidth(NDManager manager, int threads) {
        Device device = manager.getDevice();
        if (!device.isGpu()) {
            double java = readBandwidthGBs(threads);
            double[] torch = torchReadBandwidthGBs(manager, threads);
            return new Bandwidth(String.format(Locale.ROOT, "host read of 512 MB, %d thread%s, the fastest of: Java long[] "
                    + "sum %.1f, PyTorch sum %.1f, blocked matrix-vector product %.1f GB/s", threads,
                    threads == 1 ? "" : "s", java, torch[0], torch[1]), Math.max(java, Math.max(torch[0], torch[1])));
        }
        JniUtils.emptyCudaCache();   // so that free memory counts PyTorch's cached blocks as free
        long bytes = DEVICE_PROBE_BYTES;
        GpuMemory mem = gpuMemory(device);
        if (mem != null) bytes = Math.max(64L << 20, Math.min(bytes, (mem.totalBytes() - mem.usedBytes()) / 3));
        bytes = bytes / (1 << 20) * (1 << 20);
        double best = 0;
        try (NDManager m = manager.newSubManager()) {
            NDArray a = m.ones(new Shape(bytes / 4), DataType.FLOAT32);
            sync(a);
            for (int rep = 0; rep < 6; rep++) {
                long t0 = System.nanoTime();
                NDArray copy = a.duplicate();
                sync(copy);
                double gbs = 2.0 * bytes / ((System.nanoTime() - t0) / 1e9) / 1e9;
                copy.close();
                if (rep > 0) best = Math.max(best, gbs);   // rep 0 warms the kernel and the allocator
            }
        }
        JniUtils.emptyCudaCache();
        return new Bandwidth(String.format(Locale.ROOT, "device copy of %d MiB on %s, read + write", bytes >> 20,
                DeviceChoice.label(device)), best);
    }

    /** Waits for the work producing {@code a}: reading one element back needs it done. */
    private static void sync(NDArray a) {
        try (NDArray first = a.get(0)) {
            first.toFloatArray();
        }
    }

    /** As {@link #run(Path, Device, int, List, int, int, LlamaModel.Options)} on a placement. */
    public static Result run(Path modelDir, Placement placement, int threads, List<Integer> batches, int promptTokens,
                             int decodeSteps, LlamaModel.Options modelOptions) {
        return run(modelDir, placement.toDjl(), threads, batches, promptTokens, decodeSteps, modelOptions);
    }

    /** GPU memory of a placement from CUDA, or null on a CPU or when CUDA cannot be asked. */
    public static GpuMemory gpuMemory(Placement placement) {
        return gpuMemory(placement.toDjl());
    }

    /** GPU memory of {@code device} from CUDA, or null on a CPU or when CUDA cannot be asked. */
    public static GpuMemory gpuMemory(Device device) {
        if (!device.isGpu()) return null;
        try {
            MemoryUsage u = CudaUtils.getGpuMemory(device);
            return new GpuMemory(u.getMax(), u.getUsed());
        } catch (RuntimeException | LinkageError e) {
            return null;   // the table then has no GPU rows rather than the run failing at its end
        }
    }

    private static List<GenerationRequest> batch(Random rnd, int vocab, int prompt, int b, int steps) {
        List<GenerationRequest> reqs = new ArrayList<>();
        for (int i = 0; i < b; i++) reqs.add(request(rnd, vocab, prompt, steps));
        return reqs;
    }

    private static GenerationRequest request(Random rnd, int vocab, int prompt, int maxNew) {
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < prompt; i++) ids.add(rnd.nextInt(Math.min(vocab, 500)));
        return new GenerationRequest(null, ids, maxNew, Sampling.GREEDY, 1, 0, Set.of(), List.of());
    }

    /**
     * Read bandwidth in GB/s: {@code threads} threads each summing their share of a 512 MB {@code long[]} (integer
     * sums vectorise, so this is memory-bound), best of 5.
     */
    public static double readBandwidthGBs(int threads) {
        long[] data = new long[64 << 20];
        for (int i = 0; i < data.length; i++) data[i] = i;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            double best = 0;
            for (int rep = 0; rep < 6; rep++) {
                long t0 = System.nanoTime();
                List<Future<Long>> parts = new ArrayList<>();
                int chunk = data.length / threads;
                for (int t = 0; t < threads; t++) {
                    int from = t * chunk;
                    int to = t == threads - 1 ? data.length : from + chunk;
                    parts.add(pool.submit(() -> {
                        long s = 0;
                        for (int i = from; i < to; i++) s += data[i];
                        return s;
                    }));
                }
                long sum = 0;
                for (Future<Long> f : parts) sum += f.get();
                double gbs = data.length * 8.0 / ((System.nanoTime() - t0) / 1e9) / 1e9;
                if (rep > 0 && sum != 0) best = Math.max(best, gbs);   // rep 0 warms the JIT
            }
            return best;
        } catch (Exception e) {
            throw new IllegalStateException("bandwidth measurement failed", e);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Read bandwidths in GB/s as PyTorch's own vectorised, multi-threaded code reads 512 MB of float32 on
     * {@code threads} intra-op threads, best of 5 each: {@code [sum of the array, one row times the array as a
     * [65536, 2048] matrix in SmallBatchLinear's blocked form]}. The Java probe alone understated what decode's
     * matrix-vector products read on the 2-core reference (44-47 GB/s against 51-56 GB/s: batch-1 decode came out at
     * 107% of its roofline), so the roofline takes the fastest of the three: what this machine is seen to read.
     */
    static double[] torchReadBandwidthGBs(NDManager manager, int threads) {
        int before = JniUtils.getNumThreads();
        JniUtils.setNumThreads(threads);
        long bytes = 512L << 20;
        try (NDManager m = manager.newSubManager()) {
            NDArray a = m.ones(new Shape(bytes / 4 / 2048, 2048), DataType.FLOAT32);
            SmallBatchLinear.Blocked matrix = SmallBatchLinear.Blocked.of(a);
            NDArray x = m.ones(new Shape(1, 2048), DataType.FLOAT32);
            double sum = best(bytes, () -> a.sum());
            double gemv = best(bytes, () -> matrix.apply(x, SmallBatchLinear.Form.WEIGHT_BLOCKS));
            return new double[] {sum, gemv};
        } finally {
            JniUtils.setNumThreads(before);
        }
    }

    /** GB/s of {@code bytes} read by {@code op}, best of 5 after one warm-up (pages, kernels). */
    private static double best(long bytes, Supplier<NDArray> op) {
        double best = 0;
        for (int rep = 0; rep < 6; rep++) {
            long t0 = System.nanoTime();
            try (NDArray r = op.get()) {
                r.toFloatArray();   // on a CPU the op is done when it returns; reading back keeps the JIT honest
            }
            double gbs = bytes / ((System.nanoTime() - t0) / 1e9) / 1e9;
            if (rep > 0) best = Math.max(best, gbs);
        }
        return best;
    }

    /** VmHWM (peak resident set) of this process in bytes, or -1. */
    public static long peakRss() {
        return HostMemory.peakRssBytes();
    }

    /** {@code GenerationBenchmark MODEL_DIR [THREADS] [DECODE_STEPS]} on the CPU. */
    public static void main(String[] args) {
        if (args.length < 1) {
            System.err.println("usage: GenerationBenchmark MODEL_DIR [THREADS] [DECODE_STEPS]");
            System.exit(2);
        }
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int steps = args.length > 2 ? Integer.parseInt(args[2]) : 32;
        System.out.print(run(Path.of(args[0]), Device.cpu(), threads, steps).table());
    }
}
