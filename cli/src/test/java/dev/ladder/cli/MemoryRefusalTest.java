package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.cli.LadderCliTest.Run;
import dev.ladder.eval.run.ModelLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ladder run} and {@code ladder ask} refuse, before loading or making anything, a model whose memory plan does
 * not fit. The model is Llama-3-70B's public config.json alone (no weights): in f32 it needs about 280 GB, more than
 * any machine these tests run on.
 */
class MemoryRefusalTest {

    @TempDir static Path tmp;
    static Path model;

    @BeforeAll
    static void configOnly() throws IOException {
        LadderCliTest.dataDir();
        model = Files.createDirectories(tmp.resolve("Meta-Llama-3-70B-Instruct"));
        Files.writeString(model.resolve("config.json"), """
                {
                  "architectures": ["LlamaForCausalLM"],
                  "attention_bias": false,
                  "bos_token_id": 128000,
                  "eos_token_id": 128009,
                  "hidden_act": "silu",
                  "hidden_size": 8192,
                  "intermediate_size": 28672,
                  "max_position_embeddings": 8192,
                  "model_type": "llama",
                  "num_attention_heads": 64,
                  "num_hidden_layers": 80,
                  "num_key_value_heads": 8,
                  "rms_norm_eps": 1e-05,
                  "rope_theta": 500000.0,
                  "tie_word_embeddings": false,
                  "torch_dtype": "bfloat16",
                  "vocab_size": 128256
                }
                """);
    }

    @Test
    void runRefusesBeforeMakingTheRunDirectory() {
        Path out = tmp.resolve("run");
        Run r = LadderCliTest.run("run", "../experiments/smoke.yaml", "--model", model.toString(), "--dtype", "f32",
                "--out", out.toString(), "--no-progress", "--no-generation-cache");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip()).doesNotContain("\n").startsWith("ladder: Meta-Llama-3-70B-Instruct f32 on cpu, 1 row x 1280 tokens, needs ")
                .contains("but the budget is");
        assertThat(out).doesNotExist();
    }

    @Test
    void askRefusesBeforeLoading() {
        Run r = LadderCliTest.run("ask", "classicmodels", "How many offices are there?", "--strategy", "agent-2",
                "--model", model.toString(), "--dtype", "f32");
        assertThat(r.code()).isEqualTo(2);
        // agent-2 decodes the standard prompt, the tabular one and 4 samples together
        assertThat(r.err().strip()).doesNotContain("\n").startsWith("ladder: Meta-Llama-3-70B-Instruct f32 on cpu, 6 rows x 1280 tokens");
    }

    @Test
    void workloadFollowsTheRungs() {
        assertThat(ModelLoader.Workload.of(List.of("prompt-k0", "agent-1"), 4, true, 256))
                .isEqualTo(new ModelLoader.Workload(1, ModelLoader.PROMPT_BUDGET + 256));
        assertThat(ModelLoader.Workload.of(List.of("prompt-k0", "agent-3"), 4, true, 128).rows()).isEqualTo(6);
        assertThat(ModelLoader.Workload.of(List.of("agent-2"), 4, false, 128).rows()).isEqualTo(5);
        assertThat(ModelLoader.Workload.of(List.of("agent-2"), 40, true, 128).rows()).isEqualTo(16);   // the engine's batch cap
    }
}
