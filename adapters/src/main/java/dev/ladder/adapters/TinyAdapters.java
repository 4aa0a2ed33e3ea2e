package dev.ladder.adapters;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.ModelException;
import dev.ladder.inference.model.SafetensorsWriter;
import dev.ladder.inference.model.TensorInfo;
import dev.ladder.inference.model.Weights;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

/**
 * Random PEFT LoRA adapters for a base model directory, laid out exactly as PEFT's {@code save_pretrained} writes
 * them ({@code adapter_config.json}, {@code adapter_model.safetensors} with F32 {@code lora_A [r, in]} and
 * {@code lora_B [out, r]}), so the adapter path (QLoRA rung, merge, export) runs without a trained adapter (CI, tiny
 * models). Unlike PEFT's initialisation, {@code lora_B} is not zero: the adapter must change the model's output.
 *
 * <p>The same base, spec and seed write byte-identical files: values come from {@link Random#nextGaussian} seeded with
 * the seed, drawn in the base's sorted tensor-name order.
 */
public final class TinyAdapters {

    /** Every projection of a Llama / Qwen2 block: what QLoRA recipes target. */
    public static final List<String> ALL_PROJECTIONS =
            List.of("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj");
    /** Standard deviation of the random LoRA factors. */
    static final double STD = 0.1;

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What to write.
     *
     * @param targets       target_modules (module-name suffixes, e.g. {@code q_proj})
     * @param rankPattern   rank_pattern (also decides the written tensors' ranks)
     * @param alphaPattern  alpha_pattern
     * @param modulesToSave base tensor names written whole with random values, e.g. {@code lm_head.weight}
     */
    public record Spec(long seed, List<String> targets, int r, double alpha, boolean rslora,
                       Map<String, Integer> rankPattern, Map<String, Double> alphaPattern, List<String> modulesToSave) {
        public Spec {
            if (r < 1) throw new IllegalArgumentException("rank must be >= 1, got " + r);
            targets = List.copyOf(targets);
            rankPattern = Collections.unmodifiableMap(new LinkedHashMap<>(rankPattern));
            alphaPattern = Collections.unmodifiableMap(new LinkedHashMap<>(alphaPattern));
            modulesToSave = List.copyOf(modulesToSave);
        }

        /** Rank {@code r} on every projection, {@code lora_alpha = 2r} (the usual QLoRA setting). */
        public static Spec allProjections(int r, long seed) {
            return new Spec(seed, ALL_PROJECTIONS, r, 2.0 * r, false, Map.of(), Map.of(), List.of());
        }
    }

    private TinyAdapters() {}

    /**
     * Writes a rank-{@code rank} LoRA adapter on every projection of {@code baseModelDir} into {@code outDir}
     * (created when missing).
     *
     * @throws AdapterException when the base cannot be read or the files cannot be written
     */
    public static void write(Path baseModelDir, Path outDir, int rank, long seed) {
        write(baseModelDir, outDir, Spec.allProjections(rank, seed));
    }

    public static void write(Path baseModelDir, Path outDir, Spec spec) {
        write(baseModelDir, outDir, spec, c -> {});
    }

    /** As {@link #write(Path, Path, Spec)}, with edits to {@code adapter_config.json} (tests write broken ones). */
    static void write(Path baseModelDir, Path outDir, Spec spec, Consumer<ObjectNode> configEdit) {
        Random rnd = new Random(spec.seed());
        PeftAdapter.Config rules = new PeftAdapter.Config("LORA", null, null, spec.r(), spec.alpha(), spec.rslora(),
                spec.targets(), null, spec.rankPattern(), spec.alphaPattern(), "none", List.of(), false, List.of());
        SafetensorsWriter w = new SafetensorsWriter().metadata("format", "pt");
        int adapted = 0;
        try (Weights base = Weights.open(baseModelDir)) {
            for (String name : base.names()) {
                if (!name.endsWith(".weight")) continue;
                String module = name.substring(0, name.length() - ".weight".length());
                TensorInfo info = base.info(name);
                if (info.rank() != 2 || !rules.targets(module) || module.endsWith("embed_tokens")
                        || module.equals("lm_head")) continue;
                int r = rules.rankOf(module);
                long out = info.dim(0);
                long in = info.dim(1);
                w.add(PeftAdapter.PREFIX + module + ".lora_A.weight", DType.F32, new long[] {r, in}, gaussian(rnd, r * in, STD));
                w.add(PeftAdapter.PREFIX + module + ".lora_B.weight", DType.F32, new long[] {out, r}, gaussian(rnd, out * r, STD));
                adapted++;
            }
            for (String t : spec.modulesToSave()) {
                w.add(PeftAdapter.PREFIX + t, DType.F32, base.info(t).shape(), gaussian(rnd, base.info(t).numel(), STD / 2));
            }
        } catch (ModelException e) {
            throw new AdapterException("cannot read base model " + baseModelDir + ": " + e.getMessage(), e);
        }
        if (adapted == 0 && spec.modulesToSave().isEmpty()) {
            throw new AdapterException("no module of " + baseModelDir + " matches target_modules " + spec.targets());
        }
        ObjectNode c = config(baseModelDir, spec);
        configEdit.accept(c);
        try {
            Files.createDirectories(outDir);
            Files.writeString(outDir.resolve(PeftAdapter.CONFIG_FILE), c.toPrettyString());
        } catch (IOException e) {
            throw new AdapterException("cannot write " + outDir.resolve(PeftAdapter.CONFIG_FILE) + ": " + e.getMessage(), e);
        }
        w.write(outDir.resolve(PeftAdapter.WEIGHTS_FILE));
    }

    /** {@code adapter_config.json} as PEFT writes it for a LoRA of a causal LM. */
    private static ObjectNode config(Path baseModelDir, Spec spec) {
        ObjectNode c = JSON.createObjectNode();
        c.put("peft_type", "LORA");
        c.put("task_type", "CAUSAL_LM");
        c.put("base_model_name_or_path", baseModelDir.toString());
        c.put("r", spec.r());
        c.put("lora_alpha", spec.alpha());
        c.put("lora_dropout", 0.05);
        c.put("bias", "none");
        c.put("use_rslora", spec.rslora());
        c.put("use_dora", false);
        c.put("fan_in_fan_out", false);
        c.put("init_lora_weights", true);
        c.putNull("layers_to_transform");
        c.putNull("layers_pattern");
        c.putNull("megatron_config");
        c.put("megatron_core", "megatron.core");
        var targets = c.putArray("target_modules");
        spec.targets().forEach(targets::add);
        var rp = c.putObject("rank_pattern");
        spec.rankPattern().forEach(rp::put);
        var ap = c.putObject("alpha_pattern");
        spec.alphaPattern().forEach(ap::put);
        if (spec.modulesToSave().isEmpty()) {
            c.putNull("modules_to_save");
        } else {
            // PEFT lists modules to save by their last name segment (lm_head.weight -> lm_head)
            var m = c.putArray("modules_to_save");
            spec.modulesToSave().forEach(t -> m.add(t.substring(t.lastIndexOf('.', t.length() - ".weight".length() - 1) + 1,
                    t.length() - ".weight".length())));
        }
        return c;
    }

    static float[] gaussian(Random rnd, long n, double std) {
        float[] f = new float[(int) n];
        for (int i = 0; i < f.length; i++) f[i] = (float) (rnd.nextGaussian() * std);
        return f;
    }
}
