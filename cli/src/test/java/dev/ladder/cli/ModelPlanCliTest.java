package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.cli.LadderCliTest.Run;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ladder model plan}: on a directory holding only config.json; exit 0 fits, 1 does not, 2 user error. */
class ModelPlanCliTest {

    @TempDir Path tmp;

    /** Qwen/Qwen2.5-0.5B-Instruct's config.json (public), trimmed of fields the engine does not read. */
    private static final String QWEN25_05B = """
            {
              "architectures": ["Qwen2ForCausalLM"],
              "bos_token_id": 151643,
              "eos_token_id": 151645,
              "hidden_size": 896,
              "intermediate_size": 4864,
              "max_position_embeddings": 32768,
              "model_type": "qwen2",
              "num_attention_heads": 14,
              "num_hidden_layers": 24,
              "num_key_value_heads": 2,
              "rms_norm_eps": 1e-06,
              "rope_theta": 1000000.0,
              "tie_word_embeddings": true,
              "torch_dtype": "bfloat16",
              "use_sliding_window": false,
              "vocab_size": 151936
            }
            """;

    private Path configOnly() throws IOException {
        Path dir = tmp.resolve("Qwen2.5-0.5B-Instruct");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("config.json"), QWEN25_05B);
        return dir;
    }

    @Test
    void fitsOnAT4() throws IOException {
        Path dir = configOnly();
        Run r = LadderCliTest.run("model", "plan", dir.toString(), "--device", "cuda", "--gpu-memory", "15GiB",
                "--rows", "4", "--context", "2048");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).isEmpty();
        assertThat(r.out()).contains("model    " + dir.toAbsolutePath().normalize() + " (494.0M parameters)")
                .contains("device   cuda, budget 15.0 GiB (--gpu-memory 15GiB)")
                .contains("weights  f16 (--dtype auto)")
                // 2 x 24 x 2 x 64 x 2 = 12 KiB per token x 4 x 2048
                .containsPattern("(?m)^KV cache +96\\.\\d MiB +4 rows x 2048 tokens, 12\\.0 KiB per token$")
                .containsPattern("(?m)^workspace +[\\d.]+ [MG]iB +prefill of 2 x 2047 tokens")
                .containsPattern("(?m)^overhead +900\\.0 MiB")
                .containsPattern("(?m)^fits +yes$")
                .doesNotContain("instead");
    }

    @Test
    void doesNotFitSaysWhatWouldAndExitsOne() throws IOException {
        Path dir = configOnly();
        Run r = LadderCliTest.run("model", "plan", dir.toString(), "--device", "cuda", "--gpu-memory", "4GiB",
                "--dtype", "f32", "--context", "2048");
        assertThat(r.code()).as(r.err()).isEqualTo(1);
        assertThat(r.out()).containsPattern("(?m)^weights +f32$")
                .containsPattern("(?m)^KV cache .* 16 rows x 2048 tokens, 24\\.0 KiB per token$")
                .containsPattern("(?m)^fits +no$")
                .containsPattern("(?m)^instead +use int8 weights \\(16 rows x 2048 tokens, [\\d.]+ GiB\\), or at most \\d+ rows? "
                        + "\\(\\d+ rows? x 2048 tokens, [\\d.]+ GiB\\), or a context of at most (\\d+) tokens \\(16 rows x \\1 tokens, [\\d.]+ GiB\\)$");
    }

    @Test
    void theDefaultWorkloadIsTheExperimentsOwn() throws IOException {
        Path dir = configOnly();
        // the shipped ladder decodes at most 6 rows together (agent-2 on: standard + tabular prompt + 4 candidates), each
        // of the prompt budget (1024) + max_new_tokens (256)
        Run r = LadderCliTest.run("model", "plan", dir.toString(), "--device", "cuda", "--gpu-memory", "15GiB",
                "--experiment", "../experiments/classicmodels-ladder.yaml");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("(?m)^workload 6 rows x 1280 tokens \\(classicmodels-ladder.yaml's rungs\\)$")
                .containsPattern("(?m)^KV cache .* 6 rows x 1280 tokens, ");
        Run explicit = LadderCliTest.run("model", "plan", dir.toString(), "--device", "cuda", "--gpu-memory", "15GiB",
                "--experiment", "../experiments/classicmodels-ladder.yaml", "--rows", "2", "--context", "512");
        assertThat(explicit.out()).containsPattern("(?m)^workload 2 rows x 512 tokens \\(--rows, --context\\)$");
        Run missing = LadderCliTest.run("model", "plan", dir.toString(), "--experiment", tmp.resolve("none.yaml").toString());
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err().strip()).doesNotContain("\n").contains("none.yaml");
    }

    @Test
    void userErrorsAreOneLine() throws IOException {
        Path dir = configOnly();
        ModelCliTest.assertUserError(LadderCliTest.run("model", "plan", dir.toString(), "--device", "cuda",
                "--gpu-memory", "16G"), "bad memory size '16G': use a number with a unit B, KB, MB, GB, TB");
        ModelCliTest.assertUserError(LadderCliTest.run("model", "plan", dir.toString(), "--device", "cuda"),
                "--gpu-memory is required with --device cuda");
        ModelCliTest.assertUserError(LadderCliTest.run("model", "plan", dir.toString(), "--rows", "0"),
                "--rows must be >= 1, got 0");
        ModelCliTest.assertUserError(LadderCliTest.run("model", "plan", dir.toString(), "--dtype", "bf16"),
                "weight format must be f32, f16 or int8, got 'bf16'");
        ModelCliTest.assertUserError(LadderCliTest.run("model", "plan", dir.toString(), "--context", "40000"),
                "--context 40000 is more than the model's 32768 max positions");
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        ModelCliTest.assertUserError(LadderCliTest.run("model", "plan", empty.toString()),
                "not a model directory: " + empty + " (no config.json)");
    }

    @Test
    void onACpuTheBudgetIsPhysicalMemory() throws IOException {
        Run r = LadderCliTest.run("model", "plan", configOnly().toString(), "--rows", "1", "--context", "256");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("(physical memory, MemTotal of /proc/meminfo)")
                .containsPattern("(?m)^weights +f32 \\(--dtype auto\\)$");
    }
}
