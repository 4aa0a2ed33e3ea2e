package dev.ladder.inference.llm;

import dev.ladder.inference.model.ModelConfig;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Tiny random-weight models built in memory, plus a plain-Java reference forward pass to check against. */
final class TestModels {
    private TestModels() {}

    static ModelConfig llama(int vocab, int maxPositions) {
        return new ModelConfig(ModelConfig.Architecture.LLAMA, 64, 128, 2, 4, 2, 16, vocab, maxPositions, 1e-5, 10000.0,
                null, true, false, 1, List.of(2), "float32");
    }

    static ModelConfig qwen2(int vocab, int maxPositions) {
        return new ModelConfig(ModelConfig.Architecture.QWEN2, 64, 96, 2, 8, 2, 8, vocab, maxPositions, 1e-6, 1000000.0,
                null, false, true, -1, List.of(3), "float32");
    }

    static ModelConfig ropeScaled(int vocab, int maxPositions) {
        return new ModelConfig(ModelConfig.Architecture.LLAMA, 64, 128, 2, 4, 1, 16, vocab, maxPositions, 1e-5, 10000.0,
                new ModelConfig.RopeScaling(8.0, 1.0, 4.0, 32), false, false, 1, List.of(2), "float32");
    }

    /** Tensors by name, with their shapes. */
    record Tensors(Map<String, float[]> data, Map<String, long[]> shapes) {
        WeightSource source() {
            return WeightSource.inMemory(data, shapes);
        }

        float[] get(String name) {
            return data.get(name);
        }
    }

    static Tensors random(ModelConfig c, long seed) {
        Random rnd = new Random(seed);
        Map<String, float[]> d = new HashMap<>();
        Map<String, long[]> s = new HashMap<>();
        int h = c.hiddenSize();
        int q = c.numHeads() * c.headDim();
        int kv = c.numKvHeads() * c.headDim();
        int in = c.intermediateSize();
        put(d, s, rnd, "model.embed_tokens.weight", 1.0, c.vocabSize(), h);
        if (!c.tieWordEmbeddings()) put(d, s, rnd, "lm_head.weight", 1.5 / Math.sqrt(h), c.vocabSize(), h);
        norm(d, s, rnd, "model.norm.weight", h);
        for (int i = 0; i < c.numLayers(); i++) {
            String p = "model.layers." + i + ".";
            put(d, s, rnd, p + "self_attn.q_proj.weight", 1 / Math.sqrt(h), q, h);
            put(d, s, rnd, p + "self_attn.k_proj.weight", 1 / Math.sqrt(h), kv, h);
            put(d, s, rnd, p + "self_attn.v_proj.weight", 1 / Math.sqrt(h), kv, h);
            if (c.attentionBias()) {
                put(d, s, rnd, p + "self_attn.q_proj.bias", 0.1, q);
                put(d, s, rnd, p + "self_attn.k_proj.bias", 0.1, kv);
                put(d, s, rnd, p + "self_attn.v_proj.bias", 0.1, kv);
            }
            put(d, s, rnd, p + "self_attn.o_proj.weight", 1 / Math.sqrt(q), h, q);
            put(d, s, rnd, p + "mlp.gate_proj.weight", 1 / Math.sqrt(h), in, h);
            put(d, s, rnd, p + "mlp.up_proj.weight", 1 / Math.sqrt(h), in, h);
            put(d, s, rnd, p + "mlp.down_proj.weight", 1 / Math.sqrt(in), h, in);
            norm(d, s, rnd, p + "input_layernorm.weight", h);
            norm(d, s, rnd, p + "post_attention_layernorm.weight", h);
        }
        return new Tensors(d, s);
    }

    private static void put(Map<String, float[]> d, Map<String, long[]> s, Random rnd, String name, double std, long... shape) {
        long n = 1;
        for (long x : shape) n *= x;
        float[] f = new float[(int) n];
        for (int i = 0; i < f.length; i++) f[i] = (float) (rnd.nextGaussian() * std);
        d.put(name, f);
        s.put(name, shape);
    }

    private static void norm(Map<String, float[]> d, Map<String, long[]> s, Random rnd, String name, int h) {
        float[] f = new float[h];
        for (int i = 0; i < h; i++) f[i] = (float) (1 + 0.1 * rnd.nextGaussian());
        d.put(name, f);
        s.put(name, new long[] {h});
    }

    /**
     * Reference forward pass written from the paper, one scalar loop at a time, in double: logits {@code [T][V]}
     * for one sequence.
     */
    static double[][] referenceLogits(ModelConfig c, Tensors w, int[] tokens) {
        int h = c.hiddenSize();
        int hd = c.headDim();
        int nh = c.numHeads();
        int nkv = c.numKvHeads();
        int t = tokens.length;
        float[] inv = Rope.inverseFrequencies(c);
        double[][] x = new double[t][h];
        float[] emb = w.get("model.embed_tokens.weight");
        for (int i = 0; i < t; i++) for (int j = 0; j < h; j++) x[i][j] = emb[tokens[i] * h + j];
        for (int l = 0; l < c.numLayers(); l++) {
            String p = "model.layers." + l + ".";
            double[][] hn = rms(x, w.get(p + "input_layernorm.weight"), c.rmsNormEps());
            double[][] q = lin(hn, w.get(p + "self_attn.q_proj.weight"), w.get(p + "self_attn.q_proj.bias"), nh * hd);
            double[][] k = lin(hn, w.get(p + "self_attn.k_proj.weight"), w.get(p + "self_attn.k_proj.bias"), nkv * hd);
            double[][] v = lin(hn, w.get(p + "self_attn.v_proj.weight"), w.get(p + "self_attn.v_proj.bias"), nkv * hd);
            for (int i = 0; i < t; i++) {
                rope(q[i], nh, hd, i, inv);
                rope(k[i], nkv, hd, i, inv);
            }
            double[][] o = new double[t][nh * hd];
            for (int head = 0; head < nh; head++) {
                int kh = head / (nh / nkv);
                for (int i = 0; i < t; i++) {
                    double[] sc = new double[i + 1];
                    double mx = Double.NEGATIVE_INFINITY;
                    for (int j = 0; j <= i; j++) {
                        double dot = 0;
                        for (int e = 0; e < hd; e++) dot += q[i][head * hd + e] * k[j][kh * hd + e];
                        sc[j] = dot / Math.sqrt(hd);
                        mx = Math.max(mx, sc[j]);
                    }
                    double sum = 0;
                    for (int j = 0; j <= i; j++) {
                        sc[j] = Math.exp(sc[j] - mx);
                        sum += sc[j];
                    }
                    for (int j = 0; j <= i; j++) {
                        for (int e = 0; e < hd; e++) o[i][head * hd + e] += sc[j] / sum * v[j][kh * hd + e];
                    }
                }
            }
            double[][] ao = lin(o, w.get(p + "self_attn.o_proj.weight"), null, h);
            for (int i = 0; i < t; i++) for (int j = 0; j < h; j++) x[i][j] += ao[i][j];
            double[][] h2 = rms(x, w.get(p + "post_attention_layernorm.weight"), c.rmsNormEps());
            double[][] g = lin(h2, w.get(p + "mlp.gate_proj.weight"), null, c.intermediateSize());
            double[][] u = lin(h2, w.get(p + "mlp.up_proj.weight"), null, c.intermediateSize());
            for (int i = 0; i < t; i++) {
                for (int j = 0; j < g[i].length; j++) g[i][j] = g[i][j] / (1 + Math.exp(-g[i][j])) * u[i][j];
            }
            double[][] dn = lin(g, w.get(p + "mlp.down_proj.weight"), null, h);
            for (int i = 0; i < t; i++) for (int j = 0; j < h; j++) x[i][j] += dn[i][j];
        }
        double[][] fin = rms(x, w.get("model.norm.weight"), c.rmsNormEps());
        float[] head = c.tieWordEmbeddings() ? emb : w.get("lm_head.weight");
        return lin(fin, head, null, c.vocabSize());
    }

    private static double[][] rms(double[][] x, float[] wt, double eps) {
        double[][] out = new double[x.length][x[0].length];
        for (int i = 0; i < x.length; i++) {
            double ss = 0;
            for (double v : x[i]) ss += v * v;
            double r = 1 / Math.sqrt(ss / x[i].length + eps);
            for (int j = 0; j < x[i].length; j++) out[i][j] = x[i][j] * r * wt[j];
        }
        return out;
    }

    private static double[][] lin(double[][] x, float[] w, float[] b, int out) {
        int in = x[0].length;
        double[][] y = new double[x.length][out];
        for (int i = 0; i < x.length; i++) {
            for (int o = 0; o < out; o++) {
                double s = b == null ? 0 : b[o];
                for (int j = 0; j < in; j++) s += x[i][j] * w[o * in + j];
                y[i][o] = s;
            }
        }
        return y;
    }

    private static void rope(double[] x, int heads, int hd, int pos, float[] inv) {
        int half = hd / 2;
        for (int hh = 0; hh < heads; hh++) {
            for (int i = 0; i < half; i++) {
                double a = (float) pos * inv[i];
                double x1 = x[hh * hd + i];
                double x2 = x[hh * hd + half + i];
                x[hh * hd + i] = x1 * Math.cos(a) - x2 * Math.sin(a);
                x[hh * hd + half + i] = x2 * Math.cos(a) + x1 * Math.sin(a);
            }
        }
    }
}
