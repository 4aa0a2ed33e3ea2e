package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.cli.LadderCliTest.Run;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.SafetensorsWriter;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.inference.model.Weights;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ladder adapters info / merge} on the tiny model, and their one-line user errors. */
class AdaptersCliTest {

    @TempDir Path tmp;

    @BeforeAll
    static void offline() {
        System.setProperty("ai.djl.offline", "true");
    }

    static Run run(String... args) {
        return LadderCliTest.run(args);
    }

    /** A PEFT LoRA adapter (r 4, alpha 8) on q_proj and v_proj of both layers of the TINY model. */
    private Path adapter(Path dir, ObjectNode config) throws IOException {
        Random rnd = new Random(1);
        SafetensorsWriter w = new SafetensorsWriter();
        for (int l = 0; l < 2; l++) {
            for (String m : new String[] {"q_proj", "v_proj"}) {
                int out = m.equals("q_proj") ? 64 : 32;
                String p = "base_model.model.model.layers." + l + ".self_attn." + m;
                w.add(p + ".lora_A.weight", DType.F32, new long[] {4, 64}, random(rnd, 4 * 64));
                w.add(p + ".lora_B.weight", DType.F32, new long[] {out, 4}, random(rnd, out * 4));
            }
        }
        Files.createDirectories(dir);
        w.write(dir.resolve("adapter_model.safetensors"));
        Files.writeString(dir.resolve("adapter_config.json"), config.toPrettyString());
        return dir;
    }

    private static ObjectNode config() {
        ObjectNode c = new ObjectMapper().createObjectNode();
        c.put("peft_type", "LORA").put("task_type", "CAUSAL_LM").put("base_model_name_or_path", "tiny")
                .put("r", 4).put("lora_alpha", 8).put("use_rslora", false).put("bias", "none");
        c.putArray("target_modules").add("q_proj").add("v_proj");
        c.putObject("alpha_pattern").put("v_proj", 2);
        return c;
    }

    private static float[] random(Random rnd, int n) {
        float[] f = new float[n];
        for (int i = 0; i < n; i++) f[i] = (float) (rnd.nextGaussian() * 0.1);
        return f;
    }

    private Path tiny() {
        Path base = tmp.resolve("tiny");
        TinyModels.write(base, TinyModels.Shape.TINY, 1, DType.BF16);
        return base;
    }

    @Test
    void infoDescribesAndValidates() throws IOException {
        Path base = tiny();
        Path a = adapter(tmp.resolve("a"), config());
        Run r = run("adapters", "info", a.toString(), "--base", base.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("(?m)^peft type +LORA \\(CAUSAL_LM\\)$")
                .containsPattern("(?m)^base model +tiny$")
                .containsPattern("(?m)^r +4$")
                .containsPattern("(?m)^alpha +8$")
                .containsPattern("(?m)^scale +2 \\(alpha / r\\)$")
                .containsPattern("(?m)^rsLoRA +no$")
                .containsPattern("(?m)^target modules +q_proj, v_proj$")
                .containsPattern("(?m)^alpha pattern +\\{v_proj=2.0\\}$")
                .containsPattern("(?m)^LoRA modules +4 \\(q_proj x2, v_proj x2\\)$")
                .containsPattern("(?m)^  model.layers.0.self_attn.v_proj +r 4, alpha 2, scale 0.500000$")
                .containsPattern("(?m)^tensors +8, " + (2 * (4 * 64 + 64 * 4) + 2 * (4 * 64 + 32 * 4)) + " parameters")
                .containsPattern("(?m)^base check +ok: 4 modules and 0 replaced tensors fit ");
    }

    @Test
    void mergeWritesALoadableModel() throws IOException {
        Path base = tiny();
        Path a = adapter(tmp.resolve("a"), config());
        Path out = tmp.resolve("merged");
        Run r = run("adapters", "merge", "--base", base.toString(), "--adapter", a.toString(), "--out", out.toString(),
                "--dtype", "f32", "--shards", "2");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("merged 4 LoRA modules into " + base + " (f32, merge base full): ")
                .contains(" in 2 file(s), ");
        try (Weights w = Weights.open(out); Weights b = Weights.open(base)) {
            assertThat(w.names()).isEqualTo(b.names());
            assertThat(w.floats("model.layers.0.mlp.up_proj.weight")).containsExactly(b.floats("model.layers.0.mlp.up_proj.weight"));
            assertThat(w.floats("model.layers.0.self_attn.q_proj.weight")).isNotEqualTo(b.floats("model.layers.0.self_attn.q_proj.weight"));
        }
        JsonNode rec = new ObjectMapper().readTree(out.resolve("ladder-merge.json").toFile());
        assertThat(rec.path("merge_base").asText()).isEqualTo("full");
        assertThat(rec.path("ladder_version").asText()).isNotBlank();
        Run info = run("model", "info", out.toString());
        assertThat(info.code()).as(info.err()).isZero();
        assertThat(info.out()).containsPattern("(?m)^stored dtype +F32 \\(config: float32\\)$");

        // default dtype is the base's (bf16), nf4 merge base; an existing non-empty --out needs --force
        Run again = run("adapters", "merge", "--base", base.toString(), "--adapter", a.toString(), "--out", out.toString(),
                "--merge-base", "nf4");
        ModelCliTest.assertUserError(again, out + " is not empty (use --force");
        Run forced = run("adapters", "merge", "--base", base.toString(), "--adapter", a.toString(), "--out", out.toString(),
                "--merge-base", "nf4", "--force");
        assertThat(forced.code()).as(forced.err()).isZero();
        assertThat(forced.out()).contains("(bf16, merge base nf4)").contains(" in 1 file(s), ");
        assertThat(out.resolve("model-00001-of-00002.safetensors")).doesNotExist();
        assertThat(out.resolve("model.safetensors")).exists();
    }

    @Test
    void errorsAreOneLine() throws IOException {
        Path base = tiny();
        ModelCliTest.assertUserError(run("adapters", "info", tmp.resolve("none").toString()), "adapter directory not found: ");
        Path dora = adapter(tmp.resolve("dora"), config().put("use_dora", true));
        ModelCliTest.assertUserError(run("adapters", "info", dora.toString()), "use_dora: true in ");
        Path ia3 = adapter(tmp.resolve("ia3"), config().put("peft_type", "IA3"));
        ModelCliTest.assertUserError(run("adapters", "info", ia3.toString()), "peft_type 'IA3' in ");
        Path bin = adapter(tmp.resolve("bin"), config());
        Files.move(bin.resolve("adapter_model.safetensors"), bin.resolve("adapter_model.bin"));
        ModelCliTest.assertUserError(run("adapters", "info", bin.toString()), bin.resolve("adapter_model.bin")
                + " is a pickle");
        Path a = adapter(tmp.resolve("a"), config());
        Path qwen = tmp.resolve("qwen");
        TinyModels.write(qwen, TinyModels.Shape.QWEN2_TINY, 1, DType.F32);
        // the Qwen2 tiny model has the same shapes: the adapter fits; a module it lacks does not
        ObjectNode c = config();
        Path extra = adapter(tmp.resolve("extra"), c);
        SafetensorsWriter w = new SafetensorsWriter();
        try (Weights ew = Weights.open(extra.resolve("adapter_model.safetensors"))) {
            for (String n : ew.names()) w.add(n, DType.F32, ew.info(n).shape(), ew.floats(n));
        }
        w.add("base_model.model.model.layers.7.self_attn.q_proj.lora_A.weight", DType.F32, new long[] {4, 64}, new float[256]);
        w.add("base_model.model.model.layers.7.self_attn.q_proj.lora_B.weight", DType.F32, new long[] {64, 4}, new float[256]);
        w.write(extra.resolve("adapter_model.safetensors"));
        ModelCliTest.assertUserError(run("adapters", "info", extra.toString(), "--base", qwen.toString()),
                "module 'model.layers.7.self_attn.q_proj' of ");
        ModelCliTest.assertUserError(run("adapters", "merge", "--base", base.toString(), "--adapter", a.toString(),
                "--out", tmp.resolve("o").toString(), "--dtype", "f8"), "--dtype must be f32, f16 or bf16");
        ModelCliTest.assertUserError(run("adapters", "merge", "--base", base.toString(), "--adapter", a.toString(),
                "--out", tmp.resolve("o").toString(), "--merge-base", "int4"), "--merge-base must be full or nf4");
        ModelCliTest.assertUserError(run("adapters", "merge", "--base", tmp.resolve("nobase").toString(), "--adapter",
                a.toString(), "--out", tmp.resolve("o").toString()), "");
        assertThat(tmp.resolve("o")).doesNotExist();
    }
}
