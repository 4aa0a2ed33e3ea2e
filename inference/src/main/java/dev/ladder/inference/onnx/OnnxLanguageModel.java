package dev.ladder.inference.onnx;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.ladder.inference.Completion;
import dev.ladder.inference.FinishReason;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.llm.CandidateRow;
import dev.ladder.inference.llm.Sampler;
import dev.ladder.inference.model.ModelException;
import dev.ladder.inference.text.PromptFormats;
import dev.ladder.inference.text.Tokenizer;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The {@code onnx} engine: a decoder exported to ONNX ({@link OnnxLayout}: Optimum's or ONNX Runtime GenAI's layout)
 * run by ONNX Runtime, with the {@code djl} engine's generation semantics, so strategies do not know which engine
 * they run on:
 * <ul>
 *   <li>requests are batched (a request's {@code n} candidates always together, at most {@link Options#maxBatchRows}
 *   rows); each prompt is prefilled once, its cache copied to its candidates' rows, left-padded to the batch's longest
 *   prompt (the attention mask hides the padding, positions count from each row's first real token);</li>
 *   <li>candidate {@code i} of a request with seed {@code s} draws from {@code SplittableRandom(s + i)} through the
 *   same {@link Sampler};</li>
 *   <li>end-of-sequence and request stop ids end a candidate (the id is not kept); stop strings are searched in the
 *   decoded text, which is cut before the earliest; log-probs of every kept token; the context window ends a
 *   candidate with {@link FinishReason#CONTEXT}.</li>
 * </ul>
 * The Java API of ONNX Runtime has no IO binding, so the cache crosses between host and device every step on a GPU.
 * On the host it does not: each step's present key/value tensors (ORT-owned) are fed back as the next step's past
 * without copying them into Java arrays; only the prefill cache is assembled once per batch.
 */
public final class OnnxLanguageModel implements LanguageModel {

    /**
     * @param maxBatchRows most candidate rows decoded together
     * @param threads      ONNX Runtime intra-op threads (0: its default)
     * @param cuda         run on the CUDA execution provider (needs the onnxruntime_gpu jar instead of onnxruntime)
     */
    public record Options(int maxBatchRows, int threads, boolean cuda) {
        public static final Options DEFAULT = new Options(16, 0, false);

        public Options {
            if (maxBatchRows < 1) throw new IllegalArgumentException("maxBatchRows must be >= 1");
            if (threads < 0) throw new IllegalArgumentException("threads must be >= 0");
        }
    }

    private final OrtEnvironment env;
    private final OrtSession session;
    private final OnnxLayout layout;
    private final Tokenizer tokenizer;
    private final PromptFormat format;
    private final String name;
    private final Options options;
    private final Set<Integer> eosIds;
    private final int vocab;

    private OnnxLanguageModel(OrtEnvironment env, OrtSession session, OnnxLayout layout, Tokenizer tokenizer,
                              PromptFormat format, String name, Options options) {
        this.env = env;
        this.session = session;
        this.layout = layout;
        this.tokenizer = tokenizer;
        this.format = format;
        this.name = name;
        this.options = options;
        Set<Integer> eos = new HashSet<>(layout.eosIds());
        eos.addAll(tokenizer.eosIds());
        this.eosIds = Set.copyOf(eos);
        this.vocab = tokenizer.vocabSize();
    }

    /** Checks without loading that a folder holds a decoder export (one of the two layouts' model files). */
    public static void check(Path dir) {
        if (!Files.isDirectory(dir)) throw new ModelException("model directory not found: " + dir);
        Path file = OnnxLayout.modelFile(dir);
        if (!Files.isRegularFile(file)) throw new ModelException(dir + ": " + file.getFileName() + " is missing");
        if (!Files.isRegularFile(dir.resolve("tokenizer.json"))) {
            throw new ModelException(dir + ": no tokenizer.json beside the ONNX decoder");
        }
    }

    /**
     * Loads an export folder: the ONNX decoder, {@code tokenizer.json} and the prompt format from the same folder.
     *
     * @throws ModelException one line naming the folder and what is missing or wrong
     */
    public static OnnxLanguageModel load(Path dir, Options options) {
        if (!Files.isDirectory(dir)) throw new ModelException("model directory not found: " + dir);
        Path file = OnnxLayout.modelFile(dir);
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        OrtSession session = null;
        Tokenizer tokenizer = null;
        try {
            OrtSession.SessionOptions so = new OrtSession.SessionOptions();
            if (options.threads() > 0) so.setIntraOpNumThreads(options.threads());
            if (options.cuda()) so.addCUDA(0);
            session = env.createSession(file.toString(), so);
            OnnxLayout layout = OnnxLayout.of(dir, file, session);
            tokenizer = Tokenizer.load(dir);
            PromptFormat format = PromptFormats.forModel(dir);
            Path n = dir.toAbsolutePath().normalize().getFileName();
            return new OnnxLanguageModel(env, session, layout, tokenizer, format, n == null ? dir.toString() : n.toString(), options);
        } catch (OrtException e) {
            close(session, tokenizer);
            throw new ModelException(file + ": ONNX Runtime cannot load it: " + firstLine(e.getMessage()));
        } catch (RuntimeException e) {
            close(session, tokenizer);
            throw e;
        }
    }

    private static void close(OrtSession session, Tokenizer tokenizer) {
        try {
            if (session != null) session.close();
        } catch (OrtException ignored) {
            // already failing
        }
        if (tokenizer != null) tokenizer.close();
    }

    private static String firstLine(String s) {
        String line = s == null ? "" : s.strip().lines().findFirst().orElse("");
        return line.length() > 300 ? line.substring(0, 300) + "..." : line;
    }

    /** The tokenizer's vocabulary size (ids the engine may choose). */
    public int vocabSize() {
        return vocab;
    }

    /** The layout read from the folder ({@code optimum} or {@code onnxruntime-genai}). */
    public String layout() {
        return layout.kind();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public PromptFormat promptFormat() {
        return format;
    }

    @Override
    public void close() {
        close(session, tokenizer);
    }

    // ------------------------------------------------------------------------------------------------ generation

    @Override
    public synchronized List<Completion> generate(List<GenerationRequest> requests) {
        int nReq = requests.size();
        int[][] prompts = new int[nReq][];
        List<List<CandidateRow>> rows = new ArrayList<>();
        for (int i = 0; i < nReq; i++) {
            GenerationRequest r = requests.get(i);
            prompts[i] = r.promptIds() != null ? r.promptIds().stream().mapToInt(Integer::intValue).toArray()
                    : tokenizer.encode(r.prompt());
            if (prompts[i].length == 0) throw new IllegalArgumentException("request " + i + " has an empty prompt");
            List<CandidateRow> rs = new ArrayList<>();
            for (int c = 0; c < r.n(); c++) {
                CandidateRow row = new CandidateRow(i, c, r, prompts[i], layout.context(), eosIds, tokenizer::decode);
                rs.add(row);
            }
            rows.add(rs);
        }
        long[] prefillMillis = new long[nReq];
        long[] decodeMillis = new long[nReq];
        try {
            for (List<Integer> batch : CandidateRow.batches(rows, options.maxBatchRows())) {
                runBatch(batch, rows, prompts, prefillMillis, decodeMillis);
            }
        } catch (OrtException e) {
            throw new IllegalStateException("ONNX Runtime failed on " + name + ": " + firstLine(e.getMessage()), e);
        }
        List<Completion> out = new ArrayList<>();
        for (int i = 0; i < nReq; i++) {
            out.add(new Completion(rows.get(i).stream().map(CandidateRow::toCandidate).toList(), prompts[i].length,
                    prefillMillis[i], decodeMillis[i]));
        }
        return out;
    }

    private void runBatch(List<Integer> reqs, List<List<CandidateRow>> rowsByRequest, int[][] prompts, long[] prefillMillis,
                          long[] decodeMillis) throws OrtException {
        int layers = layout.keyIn().size();
        int h = layout.kvHeads();
        int d = layout.headDim();
        List<CandidateRow> all = new ArrayList<>();
        int maxPrompt = 0;
        for (int r : reqs) {
            all.addAll(rowsByRequest.get(r));
            maxPrompt = Math.max(maxPrompt, prompts[r].length);
        }
        int b = all.size();
        // the prefill: each prompt alone; its cache goes right-aligned into its candidates' rows
        float[][] keys = new float[layers][b * h * maxPrompt * d];
        float[][] values = new float[layers][b * h * maxPrompt * d];
        int slot = 0;
        for (int r : reqs) {
            long t0 = System.nanoTime();
            int[] p = prompts[r];
            List<CandidateRow> rs = rowsByRequest.get(r);
            try (Step step = run(new long[][] {toLong(p)}, ones(1, p.length), positions(1, p.length, 0, new int[1]),
                    emptyCache(1))) {
                float[] logits = step.lastLogits(1, p.length);
                for (CandidateRow row : rs) {
                    row.pad = maxPrompt - p.length;
                    Sampler.Choice c = Sampler.choose(logits, 0, vocab, row.sampling, row.rng);
                    row.accept(c.token(), c.logProb());
                }
                for (int l = 0; l < layers; l++) {
                    float[] k = step.floats(layout.keyOut().get(l));
                    float[] v = step.floats(layout.valueOut().get(l));
                    for (int c = 0; c < rs.size(); c++) {
                        int rowIndex = slot + c;
                        int pad = maxPrompt - p.length;
                        for (int head = 0; head < h; head++) {
                            int src = head * p.length * d;
                            int dst = ((rowIndex * h + head) * maxPrompt + pad) * d;
                            System.arraycopy(k, src, keys[l], dst, p.length * d);
                            System.arraycopy(v, src, values[l], dst, p.length * d);
                        }
                    }
                }
            }
            slot += rs.size();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            prefillMillis[r] = ms;
        }
        // the decode: every row one token per step; the present tensors are the next step's past
        long t0 = System.nanoTime();
        Map<String, OnnxTensor> past = new HashMap<>();
        for (int l = 0; l < layers; l++) {
            past.put(layout.keyIn().get(l), OnnxTensor.createTensor(env, FloatBuffer.wrap(keys[l]), new long[] {b, h, maxPrompt, d}));
            past.put(layout.valueIn().get(l), OnnxTensor.createTensor(env, FloatBuffer.wrap(values[l]), new long[] {b, h, maxPrompt, d}));
        }
        int[] pads = new int[b];
        for (int i = 0; i < b; i++) pads[i] = all.get(i).pad;
        Step previous = null;
        int length = maxPrompt;
        try {
            while (all.stream().anyMatch(row -> !row.done())) {
                long[][] ids = new long[b][1];
                for (int i = 0; i < b; i++) ids[i][0] = all.get(i).done() ? 0 : all.get(i).last;
                long[] mask = new long[b * (length + 1)];
                for (int i = 0; i < b; i++) {
                    for (int j = 0; j <= length; j++) mask[i * (length + 1) + j] = j < pads[i] ? 0 : 1;
                }
                Step step = run(ids, new Mask(mask, b, length + 1), positions(b, 1, length, pads), past);
                if (previous != null) previous.close();
                else past.values().forEach(OnnxTensor::close);
                previous = step;
                float[] logits = step.lastLogits(b, 1);
                int v = step.vocab;
                for (int i = 0; i < b; i++) {
                    CandidateRow row = all.get(i);
                    if (row.done()) continue;
                    Sampler.Choice c = Sampler.choose(logits, i * v, vocab, row.sampling, row.rng);
                    row.accept(c.token(), c.logProb());
                }
                past = step.presentsAsPast();
                length++;
            }
        } finally {
            if (previous != null) previous.close();
            else past.values().forEach(OnnxTensor::close);
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        for (int r : reqs) decodeMillis[r] = ms;
    }

    /** The logits after a prompt (its last position), from one prefill: for checks of a model against another. */
    synchronized float[] promptLogits(int[] ids) {
        try (Step step = run(new long[][] {toLong(ids)}, ones(1, ids.length), positions(1, ids.length, 0, new int[1]),
                emptyCache(1))) {
            return step.lastLogits(1, ids.length);
        } catch (OrtException e) {
            throw new IllegalStateException("ONNX Runtime failed on " + name + ": " + firstLine(e.getMessage()), e);
        }
    }

    private record Mask(long[] data, int rows, int columns) {}

    private static long[] toLong(int[] p) {
        long[] out = new long[p.length];
        for (int i = 0; i < p.length; i++) out[i] = p[i];
        return out;
    }

    private static Mask ones(int rows, int columns) {
        long[] m = new long[rows * columns];
        Arrays.fill(m, 1);
        return new Mask(m, rows, columns);
    }

    /** Positions of {@code t} new tokens starting at column {@code start}, counted from each row's first real token. */
    private static long[][] positions(int rows, int t, int start, int[] pads) {
        long[][] out = new long[rows][t];
        for (int i = 0; i < rows; i++) for (int j = 0; j < t; j++) out[i][j] = start + j - pads[i];
        return out;
    }

    private Map<String, OnnxTensor> emptyCache(int rows) throws OrtException {
        Map<String, OnnxTensor> m = new HashMap<>();
        long[] shape = {rows, layout.kvHeads(), 0, layout.headDim()};
        for (int l = 0; l < layout.keyIn().size(); l++) {
            m.put(layout.keyIn().get(l), OnnxTensor.createTensor(env, FloatBuffer.allocate(0), shape));
            m.put(layout.valueIn().get(l), OnnxTensor.createTensor(env, FloatBuffer.allocate(0), shape));
        }
        return m;
    }

    /** One forward pass; owns its inputs' ids, mask and positions tensors and the session's result. */
    private Step run(long[][] ids, Mask mask, long[][] positions, Map<String, OnnxTensor> past) throws OrtException {
        int rows = ids.length;
        int t = ids[0].length;
        long[] flatIds = new long[rows * t];
        long[] flatPos = new long[rows * t];
        for (int i = 0; i < rows; i++) {
            System.arraycopy(ids[i], 0, flatIds, i * t, t);
            System.arraycopy(positions[i], 0, flatPos, i * t, t);
        }
        Map<String, OnnxTensor> inputs = new HashMap<>(past);
        OnnxTensor idsT = OnnxTensor.createTensor(env, LongBuffer.wrap(flatIds), new long[] {rows, t});
        OnnxTensor maskT = OnnxTensor.createTensor(env, LongBuffer.wrap(mask.data()), new long[] {mask.rows(), mask.columns()});
        OnnxTensor posT = layout.positionIds() == null ? null
                : OnnxTensor.createTensor(env, LongBuffer.wrap(flatPos), new long[] {rows, t});
        inputs.put(layout.inputIds(), idsT);
        inputs.put(layout.attentionMask(), maskT);
        if (posT != null) inputs.put(layout.positionIds(), posT);
        boolean withPast = past.values().stream().anyMatch(x -> x.getInfo().getShape()[2] > 0);
        OnnxTensor branchT = layout.useCacheBranch() == null ? null
                : OnnxTensor.createTensor(env, new boolean[] {withPast});
        if (branchT != null) inputs.put(layout.useCacheBranch(), branchT);
        OrtSession.Result result;
        try {
            result = session.run(inputs);
        } finally {
            idsT.close();
            maskT.close();
            if (posT != null) posT.close();
            if (branchT != null) branchT.close();
            if (past.values().stream().anyMatch(x -> x.getInfo().getShape()[2] == 0)) past.values().forEach(OnnxTensor::close);
        }
        return new Step(result);
    }

    /** A session result: logits and present tensors, closed together. */
    private final class Step implements AutoCloseable {
        final OrtSession.Result result;
        int vocab;

        Step(OrtSession.Result result) {
            this.result = result;
        }

        /** The last position's logits of each row, rows one after another ({@link #vocab} each). */
        float[] lastLogits(int rows, int t) throws OrtException {
            OnnxTensor logits = (OnnxTensor) result.get(layout.logits()).orElseThrow();
            long[] shape = logits.getInfo().getShape();
            vocab = (int) shape[2];
            FloatBuffer all = logits.getFloatBuffer();
            float[] out = new float[rows * vocab];
            for (int i = 0; i < rows; i++) {
                all.position((i * t + t - 1) * vocab);
                all.get(out, i * vocab, vocab);
            }
            return out;
        }

        float[] floats(String output) {
            OnnxTensor x = (OnnxTensor) result.get(output).orElseThrow();
            FloatBuffer f = x.getFloatBuffer();
            float[] out = new float[f.remaining()];
            f.get(out);
            return out;
        }

        Map<String, OnnxTensor> presentsAsPast() {
            Map<String, OnnxTensor> m = new HashMap<>();
            for (int l = 0; l < layout.keyIn().size(); l++) {
                m.put(layout.keyIn().get(l), (OnnxTensor) result.get(layout.keyOut().get(l)).orElseThrow());
                m.put(layout.valueIn().get(l), (OnnxTensor) result.get(layout.valueOut().get(l)).orElseThrow());
            }
            return m;
        }

        @Override
        public void close() {
            result.close();
        }
    }

    @Override
    public String toString() {
        return name + " (onnx, " + layout.kind() + ")";
    }
}
