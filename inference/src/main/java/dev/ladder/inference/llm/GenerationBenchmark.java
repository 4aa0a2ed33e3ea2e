package dev.ladder.inference.llm;

import ai.djl.Device;
import ai.djl.pytorch.jni.JniUtils;
import dev.ladder.inference.Completion;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.Sampling;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.Weights;

import java.io.IOException;
import java.nio.file.Files;
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

/**
 * Throughput of the {@code djl} engine on one model: prefill tokens/s for a 128-token prompt, decode tokens/s at
 * batch 1, 4 and 16 (greedy, prompt 128, through {@link DjlLanguageModel#generate}), peak resident memory, and the
 * batch-1 decode rate as a share of the memory roofline (weight bytes read per step over a measured read bandwidth).
 * Not a test: the CLI calls {@link #run} and prints {@link Result#table()}.
 */
public final class GenerationBenchmark {
    private GenerationBenchmark() {}

    public static final int PROMPT = 128;
    public static final List<Integer> BATCHES = List.of(1, 4, 16);

    /**
     * @param weightBytesPerStep  weight bytes one decode step reads
     * @param bandwidthGBs        measured host read bandwidth with {@code threads} threads, GB/s (1e9)
     * @param prefillTokensPerSec prompt tokens per second for one 128-token prompt
     * @param decodeTokensPerSec  generated tokens per second by batch size
     * @param peakRssBytes        VmHWM of this process after the run (-1 when unknown)
     */
    public record Result(String model, String device, int threads, int promptTokens, long weightBytesPerStep,
                         double bandwidthGBs, double prefillTokensPerSec, Map<Integer, Double> decodeTokensPerSec,
                         long peakRssBytes) {

        /** Batch-1 decode steps per second the bandwidth allows. */
        public double rooflineTokensPerSec() {
            return bandwidthGBs * 1e9 / weightBytesPerStep;
        }

        /** Measured batch-1 decode rate over the roofline. */
        public double rooflineRatio() {
            Double b1 = decodeTokensPerSec.get(1);
            return b1 == null ? Double.NaN : b1 / rooflineTokensPerSec();
        }

        public String table() {
            StringBuilder sb = new StringBuilder();
            sb.append(String.format(Locale.ROOT, "model %s on %s, %d threads%n", model, device, threads));
            sb.append(String.format(Locale.ROOT, "%-34s %12s%n", "metric", "value"));
            sb.append(String.format(Locale.ROOT, "%-34s %12.1f%n", "weights read per step (MB)", weightBytesPerStep / 1e6));
            sb.append(String.format(Locale.ROOT, "%-34s %12.1f%n", "read bandwidth (GB/s)", bandwidthGBs));
            sb.append(String.format(Locale.ROOT, "%-34s %12.1f%n", "prefill, prompt " + promptTokens + " (tok/s)", prefillTokensPerSec));
            for (Map.Entry<Integer, Double> e : decodeTokensPerSec.entrySet()) {
                sb.append(String.format(Locale.ROOT, "%-34s %12.1f%n", "decode, batch " + e.getKey() + " (tok/s)", e.getValue()));
            }
            sb.append(String.format(Locale.ROOT, "%-34s %12.1f%n", "roofline, batch 1 (tok/s)", rooflineTokensPerSec()));
            sb.append(String.format(Locale.ROOT, "%-34s %11.0f%%%n", "batch-1 decode / roofline", 100 * rooflineRatio()));
            Double b1 = decodeTokensPerSec.get(1);
            Double b16 = decodeTokensPerSec.get(16);
            if (b1 != null && b16 != null) {
                sb.append(String.format(Locale.ROOT, "%-34s %11.1fx%n", "batch 16 / batch 1", b16 / b1));
            }
            sb.append(String.format(Locale.ROOT, "%-34s %12.0f%n", "peak RSS (MB)", peakRssBytes / 1e6));
            return sb.toString();
        }
    }

    /** Loads {@code modelDir} on {@code device} with {@code threads} intra-op threads and measures it. */
    public static Result run(Path modelDir, Device device, int threads, int decodeSteps) {
        return run(modelDir, device, threads, BATCHES, PROMPT, decodeSteps);
    }

    /** As {@link #run(Path, Device, int, int)} with other batch sizes and prompt length. */
    public static Result run(Path modelDir, Device device, int threads, List<Integer> batches, int promptTokens,
                             int decodeSteps) {
        if (batches.isEmpty() || batches.stream().anyMatch(b -> b < 1)) throw new IllegalArgumentException("batch sizes must be >= 1: " + batches);
        if (promptTokens < 1) throw new IllegalArgumentException("prompt tokens must be >= 1, got " + promptTokens);
        int maxBatch = batches.stream().mapToInt(Integer::intValue).max().orElse(16);
        DjlLanguageModel.Options opts = DjlLanguageModel.Options.DEFAULT.withThreads(threads).withMaxBatchRows(Math.max(16, maxBatch));
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
        if (threads > 0) JniUtils.setNumThreads(threads);
        int vocab = lm.model().config().vocabSize();
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
        Map<Integer, Double> decode = new LinkedHashMap<>();
        for (int b : batches) {
            List<Completion> out = lm.generate(batch(rnd, vocab, promptTokens, b, decodeSteps));
            long tokens = 0;
            for (Completion c : out) tokens += c.candidates().get(0).tokenIds().size();
            long ms = Math.max(1, out.get(0).decodeMillis());
            // the first token of each row comes from the prefill, the decode loop makes the rest
            decode.put(b, (tokens - b) / (ms / 1e3));
        }
        long rss = peakRss();   // before the bandwidth probe's 512 MB array
        double bw = readBandwidthGBs(Math.max(1, threads));
        return new Result(lm.name(), lm.model().device().toString(), threads > 0 ? threads : JniUtils.getNumThreads(),
                promptTokens, lm.model().weightBytesPerToken(), bw, prefill, decode, rss);
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

    /** VmHWM (peak resident set) of this process in bytes, or -1. */
    public static long peakRss() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
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
