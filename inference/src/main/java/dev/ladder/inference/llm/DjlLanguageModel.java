package dev.ladder.inference.llm;

import dev.ladder.inference.device.EngineLimits;
import ai.djl.Device;
import ai.djl.engine.EngineException;
import dev.ladder.inference.EngineFailureException;
import dev.ladder.inference.device.Placement;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import dev.ladder.inference.Candidate;
import dev.ladder.inference.Completion;
import dev.ladder.inference.FinishReason;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.Weights;
import dev.ladder.inference.text.PromptFormats;
import dev.ladder.inference.text.Tokenizer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;

/**
 * The {@code djl} engine: a {@link LlamaModel} plus the generation loop.
 *
 * <p>Per call, requests are grouped into batches of at most {@link Options#maxBatchRows} candidate rows (a request's
 * {@code n} candidates always stay together). For each batch: the prompts are prefilled (left-padded, in chunks of at
 * most {@link Options#prefillTokens} padded tokens), each prompt's keys/values are copied into the cache rows of its
 * {@code n} candidates, and then every decode step runs the live rows together. Finished rows leave the batch
 * (see {@link KvCache}).
 *
 * <p>Determinism: candidate {@code i} (0-based) of a request with seed {@code s} draws from its own
 * {@code SplittableRandom(s + i)}, so its tokens do not depend on the other rows of the batch, and candidate {@code i}
 * of an {@code n}-candidate request equals the single candidate of the same request with seed {@code s + i}.
 *
 * <p>Stops: the config's end-of-sequence ids and the request's stop ids end a candidate (the id is not kept);
 * stop strings are searched in the decoded generated text only, and the text is cut before the earliest one (the
 * ids and log-probs keep the token that completed it). A candidate whose sequence reaches the context window ends
 * with {@link FinishReason#CONTEXT}; a prompt longer than the window gives an empty CONTEXT candidate.
 */
public final class DjlLanguageModel implements LanguageModel {

    /**
     * @param model         model options (precision, int8, context window)
     * @param maxBatchRows  most candidate rows decoded together
     * @param prefillTokens most padded prompt tokens prefilled in one forward pass
     * @param threads       PyTorch intra-op threads (0 = leave PyTorch's default)
     */
    public record Options(LlamaModel.Options model, int maxBatchRows, int prefillTokens, int threads) {
        public static final Options DEFAULT = new Options(LlamaModel.Options.DEFAULT,
                EngineLimits.MAX_BATCH_ROWS, EngineLimits.PREFILL_TOKENS, 0);

        public Options {
            Objects.requireNonNull(model, "model");
            if (maxBatchRows < 1) throw new IllegalArgumentException("maxBatchRows must be >= 1");
            if (prefillTokens < 1) throw new IllegalArgumentException("prefillTokens must be >= 1");
            if (threads < 0) throw new IllegalArgumentException("threads must be >= 0");
        }

        public Options withMaxBatchRows(int rows) {
            return new Options(model, rows, prefillTokens, threads);
        }

        public Options withThreads(int t) {
            return new Options(model, maxBatchRows, prefillTokens, t);
        }
    }

    private final LlamaModel model;
    private final TokenCodec codec;
    private final String name;
    private final PromptFormat format;
    private final Options options;
    private final Set<Integer> eosIds;
    private Tokenizer onClose;

    /**
     * Wraps a loaded model; takes ownership of it (closed with this).
     *
     * @param codec  tokenizer for text prompts, stop strings and candidate text; may be null when every request
     *               gives prompt ids and no stop strings (texts are then empty)
     * @param format the prompt format to report (may be null)
     */
    public DjlLanguageModel(LlamaModel model, TokenCodec codec, String name, PromptFormat format, Options options) {
        this.model = Objects.requireNonNull(model, "model");
        this.codec = codec;
        this.name = Objects.requireNonNull(name, "name");
        this.format = format;
        this.options = Objects.requireNonNull(options, "options");
        Set<Integer> eos = new HashSet<>(model.config().eosTokenIds());
        if (codec != null) eos.addAll(codec.eosIds());
        this.eosIds = Set.copyOf(eos);
        if (options.threads() > 0) {
            JniUtils.setNumThreads(options.threads());
        }
    }

    /**
     * The threads libtorch's CPU operators use (intra-op; {@code OMP_NUM_THREADS}, else one per core, unless
     * {@link Options#threads()} set it). Another count sums in another order: f32 results may differ in their last
     * bits, and a near-tie may then decode another token, so a run records it.
     */
    public static int cpuThreads() {
        return JniUtils.getNumThreads();
    }

    /**
     * Loads a Hugging Face model directory: {@code config.json} (+ {@code generation_config.json}),
     * {@code *.safetensors}, {@code tokenizer.json}; the prompt format comes from {@code tokenizer_config.json}.
     *
     * @throws dev.ladder.inference.model.ModelException for a missing or malformed file
     */
    public static DjlLanguageModel load(Path modelDir, Device device, Options options) {
        return load(modelDir, UnaryOperator.identity(), device, options);
    }

    /** As {@link #load(Path, Device, Options)} on a placement. */
    public static DjlLanguageModel load(Path modelDir, Placement placement, Options options) {
        return load(modelDir, placement.toDjl(), options);
    }

    /**
     * As {@link #load(Path, Device, Options)}, with the weights read through {@code wrap} (e.g. LoRA adapters merged
     * at load time); config, tokenizer and prompt format still come from {@code modelDir}.
     */
    public static DjlLanguageModel load(Path modelDir, UnaryOperator<WeightSource> wrap, Device device,
                                        Options options) {
        ModelConfig config = ModelConfig.read(modelDir);
        PromptFormat format = PromptFormats.forModel(modelDir);
        Tokenizer tokenizer = Tokenizer.load(modelDir);
        try {
            LlamaModel model;
            try (Weights weights = Weights.open(modelDir)) {
                model = LlamaModel.load(config, wrap.apply(WeightSource.of(weights)), device, options.model());
            }
            TokenCodec codec = new TokenCodec() {
                @Override
                public int[] encode(String text) {
                    return tokenizer.encode(text);
                }

                @Override
                public String decode(List<Integer> ids) {
                    return tokenizer.decode(ids);
                }

                @Override
                public int vocabSize() {
                    return tokenizer.vocabSize();
                }

                @Override
                public List<Integer> eosIds() {
                    return tokenizer.eosIds();
                }
            };
            Path name = modelDir.toAbsolutePath().normalize().getFileName();
            DjlLanguageModel lm = new DjlLanguageModel(model, codec, name == null ? modelDir.toString() : name.toString(),
                    format, options);
            lm.onClose = tokenizer;
            return lm;
        } catch (RuntimeException e) {
            tokenizer.close();
            throw e;
        }
    }

    public LlamaModel model() {
        return model;
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
        boolean gpu = model.device().isGpu();
        try {
            model.close();
        } finally {
            if (onClose != null) onClose.close();
            // hand the freed blocks back to the driver: the next model (e.g. base then QLoRA) needs the room
            if (gpu) JniUtils.emptyCudaCache();
        }
    }

    // ------------------------------------------------------------------------------------------------- generation

    /** Runs the requests (one call at a time: calls from several threads are serialised). */
    @Override
    public synchronized List<Completion> generate(List<GenerationRequest> requests) {
        try {
            return generateOnEngine(requests);
        } catch (EngineException e) {
            throw new EngineFailureException(e.getMessage(), e);
        }
    }

    private List<Completion> generateOnEngine(List<GenerationRequest> requests) {
        // PyTorch's grad mode is per thread and DJL turns it off only on the thread that started the engine; on any
        // other thread (ladder serve's scheduler) every op would go through autograd's dispatch
        JniUtils.setGradMode(false);
        int nReq = requests.size();
        int[][] prompts = new int[nReq][];
        List<List<CandidateRow>> rowsByRequest = new ArrayList<>();
        for (int i = 0; i < nReq; i++) {
            GenerationRequest r = requests.get(i);
            if (r.promptIds() != null) {
                prompts[i] = r.promptIds().stream().mapToInt(Integer::intValue).toArray();
            } else {
                if (codec == null) throw new IllegalArgumentException("request " + i + " has a text prompt but the model has no tokenizer");
                prompts[i] = codec.encode(r.prompt());
            }
            if (prompts[i].length == 0) throw new IllegalArgumentException("request " + i + " has an empty prompt");
            if (!r.stopStrings().isEmpty() && codec == null) {
                throw new IllegalArgumentException("request " + i + " has stop strings but the model has no tokenizer");
            }
            List<CandidateRow> rows = new ArrayList<>();
            for (int c = 0; c < r.n(); c++) {
                CandidateRow row = new CandidateRow(i, c, r, prompts[i], model.contextLength(), eosIds,
                        codec == null ? null : codec::decode);
                rows.add(row);
            }
            rowsByRequest.add(rows);
        }
        long[] prefillMillis = new long[nReq];
        long[] decodeMillis = new long[nReq];

        // group whole requests into batches of at most maxBatchRows candidate rows
        for (List<Integer> batch : CandidateRow.batches(rowsByRequest, options.maxBatchRows())) {
            runBatch(batch, rowsByRequest, prompts, prefillMillis, decodeMillis);
        }

        List<Completion> out = new ArrayList<>(nReq);
        for (int i = 0; i < nReq; i++) {
            List<Candidate> cands = rowsByRequest.get(i).stream().map(CandidateRow::toCandidate).toList();
            out.add(new Completion(cands, prompts[i].length, prefillMillis[i], decodeMillis[i]));
        }
        return out;
    }

    private void runBatch(List<Integer> reqs, List<List<CandidateRow>> rowsByRequest, int[][] prompts, long[] prefillMillis,
                          long[] decodeMillis) {
        List<CandidateRow> all = new ArrayList<>();
        int maxPrompt = 0;
        int maxLimit = 0;
        for (int r : reqs) {
            all.addAll(rowsByRequest.get(r));
            maxPrompt = Math.max(maxPrompt, prompts[r].length);
            for (CandidateRow row : rowsByRequest.get(r)) maxLimit = Math.max(maxLimit, row.limit);
        }
        int columns = maxPrompt + Math.max(0, maxLimit - 1);   // the last generated token is never fed back
        CandidateRow[] slots = all.toArray(new CandidateRow[0]);
        int[] pads = new int[slots.length];
        for (int s = 0; s < slots.length; s++) {
            slots[s].pad = maxPrompt - slots[s].prompt.length;
            pads[s] = slots[s].pad;
        }
        // ids past the tokenizer's vocabulary (padding rows of the embedding) are never chosen
        int vocab = codec == null ? model.config().vocabSize() : Math.min(model.config().vocabSize(), codec.vocabSize());
        try (KvCache cache = new KvCache(model, slots.length, columns, pads)) {
            // ---- prefill, in chunks of whole requests
            int slot = 0;
            int ri = 0;
            while (ri < reqs.size()) {
                long t0 = System.nanoTime();
                int chunkStart = ri;
                int chunkLen = prompts[reqs.get(ri)].length;
                ri++;
                while (ri < reqs.size()) {
                    int len = Math.max(chunkLen, prompts[reqs.get(ri)].length);
                    if ((long) len * (ri - chunkStart + 1) > options.prefillTokens()) break;
                    chunkLen = len;
                    ri++;
                }
                int nChunk = ri - chunkStart;
                long[] tokens = new long[nChunk * chunkLen];
                long[] positions = new long[nChunk * chunkLen];
                float[] mask = new float[nChunk * chunkLen];
                List<Integer> source = new ArrayList<>();
                boolean identity = true;
                boolean padded = false;
                for (int c = 0; c < nChunk; c++) {
                    int[] p = prompts[reqs.get(chunkStart + c)];
                    int off = chunkLen - p.length;
                    padded |= off > 0;
                    for (int j = 0; j < chunkLen; j++) {
                        tokens[c * chunkLen + j] = j < off ? 0 : p[j - off];
                        positions[c * chunkLen + j] = Math.max(0, j - off);
                        mask[c * chunkLen + j] = j < off ? LlamaModel.MASKED : 0f;
                    }
                    int n = rowsByRequest.get(reqs.get(chunkStart + c)).size();
                    identity &= n == 1;
                    for (int k = 0; k < n; k++) source.add(c);
                }
                int firstSlot = slot;
                int chunkRows = source.size();
                try (NDManager step = model.manager().newSubManager()) {
                    NDArray tok = step.create(tokens, new Shape(nChunk, chunkLen));
                    NDArray pos = step.create(positions, new Shape(nChunk, chunkLen));
                    NDArray m = padded ? step.create(mask, new Shape(nChunk, 1, 1, 1, chunkLen)) : null;
                    int[] src = identity ? null : source.stream().mapToInt(Integer::intValue).toArray();
                    NDArray logits = model.forward(tok, pos, m, true,
                            cache.prefillSink(firstSlot, src, maxPrompt - chunkLen), false);
                    if (src != null) logits = LlamaModel.Ops.rows(logits, step.create(Arrays.stream(src).asLongStream().toArray()));
                    choose(logits, Arrays.copyOfRange(slots, firstSlot, firstSlot + chunkRows), vocab);
                }
                slot += chunkRows;
                long ms = (System.nanoTime() - t0) / 1_000_000;
                for (int c = chunkStart; c < ri; c++) prefillMillis[reqs.get(c)] = ms;
            }

            // ---- decode: all live rows advance one column per step
            long t0 = System.nanoTime();
            int live = compact(cache, slots, slots.length, maxPrompt);
            int column = maxPrompt;
            while (live > 0) {
                try (NDManager step = model.manager().newSubManager()) {
                    long[] tokens = new long[live];
                    long[] positions = new long[live];
                    boolean padded = false;
                    for (int s = 0; s < live; s++) {
                        tokens[s] = slots[s].last;
                        positions[s] = column - slots[s].pad;
                        padded |= slots[s].pad > 0;
                    }
                    NDArray tok = step.create(tokens, new Shape(live, 1));
                    NDArray pos = step.create(positions, new Shape(live, 1));
                    NDArray m = padded ? cache.maskView(step, live, column + 1) : null;
                    NDArray logits = model.forward(tok, pos, m, false, cache.decodeSink(live, column), false);
                    choose(logits, Arrays.copyOf(slots, live), vocab);
                }
                column++;
                live = compact(cache, slots, live, column);
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            for (int r : reqs) decodeMillis[r] = ms;
        }
    }

    /** Moves finished rows out of the leading live block (last live row into the hole); returns the new live count. */
    private static int compact(KvCache cache, CandidateRow[] slots, int live, int writtenColumns) {
        int i = 0;
        while (i < live) {
            if (slots[i].done()) {
                live--;
                if (i != live) {
                    cache.moveRow(live, i, writtenColumns);
                    CandidateRow tmp = slots[i];
                    slots[i] = slots[live];
                    slots[live] = tmp;
                }
            } else {
                i++;
            }
        }
        return live;
    }

    /** Picks the next token of every row from its logits row ({@code [rows, vocab]} float32). */
    private static void choose(NDArray logits, CandidateRow[] rows, int vocab) {
        if (logits.getShape().get(1) > vocab) logits = logits.get(":, :" + vocab);
        boolean allGreedy = true;
        for (CandidateRow r : rows) allGreedy &= r.sampling.greedy();
        if (allGreedy) {
            // on the device: arg-max and log p(arg-max) = -log(sum(exp(l - max))); only 2 x rows numbers come back
            NDArray max = logits.max(new int[] {1}, true);
            NDArray lp = logits.sub(max).exp().sum(new int[] {1}).log().neg();
            long[] ids = logits.argMax(1).toLongArray();
            float[] lps = lp.toType(DataType.FLOAT32, false).toFloatArray();
            for (int i = 0; i < rows.length; i++) rows[i].accept((int) ids[i], lps[i]);
            return;
        }
        float[] host = logits.toFloatArray();
        for (int i = 0; i < rows.length; i++) {
            Sampler.Choice c = Sampler.choose(host, i * vocab, vocab, rows[i].sampling, rows[i].rng);
            rows[i].accept(c.token(), c.logProb());
        }
    }
}
