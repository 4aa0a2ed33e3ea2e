package dev.ladder.adapters;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.inference.llm.LlamaModel;
import dev.ladder.inference.llm.WeightSource;
import dev.ladder.inference.model.Weights;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

/** Test helpers around {@link TinyAdapters}: random PEFT LoRA adapters with broken-config edits, and reference merges. */
final class TestAdapters {

    /**
     * What to write.
     *
     * @param targets       target_modules (suffixes, e.g. {@code q_proj})
     * @param rankPattern   rank_pattern (also decides the written tensors' ranks)
     * @param alphaPattern  alpha_pattern
     * @param modulesToSave base tensor names written whole (random values), e.g. {@code lm_head.weight}
     * @param config        edits to adapter_config.json after it is built
     */
    record Spec(long seed, List<String> targets, int r, double alpha, boolean rslora, Map<String, Integer> rankPattern,
                Map<String, Double> alphaPattern, List<String> modulesToSave, Consumer<ObjectNode> config) {

        static Spec of(long seed, List<String> targets, int r, double alpha) {
            return new Spec(seed, targets, r, alpha, false, Map.of(), Map.of(), List.of(), c -> {});
        }

        Spec withRslora() {
            return new Spec(seed, targets, r, alpha, true, rankPattern, alphaPattern, modulesToSave, config);
        }

        Spec patterns(Map<String, Integer> ranks, Map<String, Double> alphas) {
            return new Spec(seed, targets, r, alpha, rslora, ranks, alphas, modulesToSave, config);
        }

        Spec save(List<String> tensors) {
            return new Spec(seed, targets, r, alpha, rslora, rankPattern, alphaPattern, tensors, config);
        }

        Spec config(Consumer<ObjectNode> edit) {
            return new Spec(seed, targets, r, alpha, rslora, rankPattern, alphaPattern, modulesToSave, edit);
        }
    }

    private TestAdapters() {}

    /** Writes {@code adapter_config.json} and {@code adapter_model.safetensors} for every targeted base module. */
    static void write(Path dir, Path baseDir, Spec spec) {
        TinyAdapters.write(baseDir, dir, new TinyAdapters.Spec(spec.seed(), spec.targets(), spec.r(), spec.alpha(),
                spec.rslora(), spec.rankPattern(), spec.alphaPattern(), spec.modulesToSave()), spec.config());
    }

    static float[] gaussian(Random rnd, long n, double std) {
        return TinyAdapters.gaussian(rnd, n, std);
    }

    /**
     * The merged weights computed independently, in double: every base tensor, with {@code W + scale · B · A} for
     * each LoRA pair in the adapter file (scale from the given function of the module name), and modules-to-save
     * tensors substituted.
     */
    static Map<String, float[]> expected(Path baseDir, Path adapterDir, java.util.function.ToDoubleFunction<String> scale,
                                         Map<String, long[]> shapes) {
        Map<String, float[]> out = new HashMap<>();
        try (Weights base = Weights.open(baseDir); Weights ad = Weights.open(adapterDir.resolve(PeftAdapter.WEIGHTS_FILE))) {
            for (String name : base.names()) {
                out.put(name, base.floats(name));
                shapes.put(name, base.info(name).shape());
            }
            for (String name : ad.names()) {
                String rest = name.substring(PeftAdapter.PREFIX.length());
                if (rest.endsWith(".lora_A.weight")) {
                    String module = rest.substring(0, rest.length() - ".lora_A.weight".length());
                    float[] a = ad.floats(name);
                    float[] b = ad.floats(PeftAdapter.PREFIX + module + ".lora_B.weight");
                    long[] sa = ad.info(name).shape();
                    int r = (int) sa[0];
                    int in = (int) sa[1];
                    float[] w = out.get(module + ".weight");
                    int rows = w.length / in;
                    double s = scale.applyAsDouble(module);
                    for (int i = 0; i < rows; i++) {
                        for (int j = 0; j < in; j++) {
                            double acc = 0;
                            for (int k = 0; k < r; k++) acc += (double) b[i * r + k] * a[k * in + j];
                            w[i * in + j] = (float) (w[i * in + j] + s * acc);
                        }
                    }
                } else if (!rest.contains("lora_")) {
                    out.put(rest, ad.floats(name));
                }
            }
        }
        return out;
    }

    static WeightSource source(Map<String, float[]> data, Map<String, long[]> shapes) {
        return WeightSource.inMemory(data, shapes);
    }

    /** Float32 logits of every position of one prompt, prefilled in one pass. */
    static float[][] prefillLogits(LlamaModel model, int[] tokens) {
        int t = tokens.length;
        try (NDManager step = model.manager().newSubManager()) {
            long[] ids = new long[t];
            long[] pos = new long[t];
            for (int i = 0; i < t; i++) {
                ids[i] = tokens[i];
                pos[i] = i;
            }
            NDArray logits = model.forward(step.create(ids, new Shape(1, t)), step.create(pos, new Shape(1, t)), null,
                    true, (layer, k, v) -> new NDArray[] {k, v}, true);
            float[] flat = logits.toFloatArray();
            int v = model.config().vocabSize();
            float[][] out = new float[t][v];
            for (int i = 0; i < t; i++) System.arraycopy(flat, i * v, out[i], 0, v);
            return out;
        }
    }

    static double maxDiff(float[][] a, float[][] b) {
        double m = 0;
        for (int i = 0; i < a.length; i++) {
            for (int j = 0; j < a[i].length; j++) m = Math.max(m, Math.abs(a[i][j] - b[i][j]));
        }
        return m;
    }

    static double maxDiff(float[] a, float[] b) {
        double m = 0;
        for (int i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
        return m;
    }

    static List<String> names(Weights w) {
        return new ArrayList<>(w.names());
    }
}
