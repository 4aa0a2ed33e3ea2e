package dev.ladder.inference.model;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ModelConfigTest {

    @TempDir
    Path dir;

    private static final String LLAMA31 = """
            {
              "architectures": ["LlamaForCausalLM"],
              "attention_bias": false,
              "bos_token_id": 128000,
              "eos_token_id": 128001,
              "hidden_act": "silu",
              "hidden_size": 4096,
              "intermediate_size": 14336,
              "max_position_embeddings": 131072,
              "mlp_bias": false,
              "model_type": "llama",
              "num_attention_heads": 32,
              "num_hidden_layers": 32,
              "num_key_value_heads": 8,
              "rms_norm_eps": 1e-05,
              "rope_scaling": {
                "factor": 8.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 8192,
                "rope_type": "llama3"
              },
              "rope_theta": 500000.0,
              "tie_word_embeddings": false,
              "torch_dtype": "bfloat16",
              "vocab_size": 128256
            }
            """;

    private Path write(String config, String generation) throws IOException {
        Files.writeString(dir.resolve("config.json"), config);
        if (generation != null) {
            Files.writeString(dir.resolve("generation_config.json"), generation);
        }
        return dir;
    }

    @Test
    void readsLlama31WithRopeScalingAndMergedEos() throws IOException {
        write(LLAMA31, """
                {"bos_token_id": 128000, "do_sample": true, "eos_token_id": [128001, 128008, 128009]}
                """);
        ModelConfig c = ModelConfig.read(dir);
        assertThat(c.architecture()).isEqualTo(ModelConfig.Architecture.LLAMA);
        assertThat(c.hiddenSize()).isEqualTo(4096);
        assertThat(c.intermediateSize()).isEqualTo(14336);
        assertThat(c.numLayers()).isEqualTo(32);
        assertThat(c.numHeads()).isEqualTo(32);
        assertThat(c.numKvHeads()).isEqualTo(8);
        assertThat(c.headDim()).isEqualTo(128);
        assertThat(c.vocabSize()).isEqualTo(128256);
        assertThat(c.maxPositions()).isEqualTo(131072);
        assertThat(c.rmsNormEps()).isEqualTo(1e-5);
        assertThat(c.ropeTheta()).isEqualTo(500000.0);
        assertThat(c.ropeScaling()).isEqualTo(new ModelConfig.RopeScaling(8.0, 1.0, 4.0, 8192));
        assertThat(c.tieWordEmbeddings()).isFalse();
        assertThat(c.attentionBias()).isFalse();
        assertThat(c.bosTokenId()).isEqualTo(128000);
        assertThat(c.eosTokenIds()).containsExactly(128001, 128008, 128009);
        assertThat(c.torchDtype()).isEqualTo("bfloat16");
        assertThat(c.storedDType()).isEqualTo(DType.BF16);
        assertThat(c.groupSize()).isEqualTo(4);
    }

    @Test
    void eosListInConfigAndNoGenerationConfig() throws IOException {
        write(LLAMA31.replace("\"eos_token_id\": 128001", "\"eos_token_id\": [128001, 128009]")
                .replace("\"rope_type\": \"llama3\"", "\"type\": \"llama3\""), null);
        ModelConfig c = ModelConfig.read(dir);
        assertThat(c.eosTokenIds()).containsExactly(128001, 128009);
        assertThat(c.ropeScaling()).isNotNull();
    }

    @Test
    void readsQwen2WithImplicitBias() throws IOException {
        String qwen = """
                {
                  "architectures": ["Qwen2ForCausalLM"],
                  "bos_token_id": 151643, "eos_token_id": 151645,
                  "hidden_size": 896, "intermediate_size": 4864, "max_position_embeddings": 32768,
                  "model_type": "qwen2", "num_attention_heads": 14, "num_hidden_layers": 24,
                  "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_scaling": null, "rope_theta": 1000000.0,
                  "sliding_window": 32768, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
                  "use_sliding_window": false, "vocab_size": 151936
                }
                """;
        write(qwen, "{\"eos_token_id\": [151645, 151643]}");
        ModelConfig c = ModelConfig.read(dir);
        assertThat(c.architecture()).isEqualTo(ModelConfig.Architecture.QWEN2);
        assertThat(c.attentionBias()).isTrue();
        assertThat(c.tieWordEmbeddings()).isTrue();
        assertThat(c.headDim()).isEqualTo(64);
        assertThat(c.ropeScaling()).isNull();
        assertThat(c.eosTokenIds()).containsExactly(151645, 151643);

        write(qwen.replace("\"model_type\"", "\"attention_bias\": false, \"model_type\""), null);
        assertThat(ModelConfig.read(dir).attentionBias()).isFalse();
    }

    @Test
    void modelTypeAloneIsEnoughAndHeadDimMayBeExplicit() throws IOException {
        write(LLAMA31.replace("\"architectures\": [\"LlamaForCausalLM\"],", "")
                .replace("\"hidden_act\"", "\"head_dim\": 64, \"hidden_act\"")
                .replace("\"rope_type\": \"llama3\"", "\"rope_type\": \"llama3\""), null);
        ModelConfig c = ModelConfig.read(dir);
        assertThat(c.architecture()).isEqualTo(ModelConfig.Architecture.LLAMA);
        assertThat(c.headDim()).isEqualTo(64);
        assertThat(c.eosTokenIds()).containsExactly(128001);
    }

    @Test
    void defaultRopeTypeMeansNoScaling() throws IOException {
        write(LLAMA31.replace("\"rope_type\": \"llama3\"", "\"rope_type\": \"default\""), null);
        assertThat(ModelConfig.read(dir).ropeScaling()).isNull();
    }

    @Test
    void unsupportedRopeScalingIsAClearError() throws IOException {
        for (String type : List.of("yarn", "linear", "dynamic")) {
            write(LLAMA31.replace("\"rope_type\": \"llama3\"", "\"rope_type\": \"" + type + "\""), null);
            assertThatThrownBy(() -> ModelConfig.read(dir))
                    .isInstanceOf(ModelException.class)
                    .hasMessage("unsupported rope_scaling type '" + type + "' in " + dir.resolve("config.json")
                            + "; supported: llama3 (or none/default)");
        }
    }

    @Test
    void unsupportedArchitectureNamesFileAndArchitecture() throws IOException {
        write(LLAMA31.replace("LlamaForCausalLM", "MistralForCausalLM"), null);
        assertThatThrownBy(() -> ModelConfig.read(dir))
                .isInstanceOf(ModelException.class)
                .hasMessage("unsupported architecture 'MistralForCausalLM' in " + dir.resolve("config.json")
                        + "; supported: LlamaForCausalLM, Qwen2ForCausalLM");
    }

    @Test
    void malformedJsonNamesTheFile() throws IOException {
        write("{\"hidden_size\": 64,,}", null);
        assertThatThrownBy(() -> ModelConfig.read(dir))
                .isInstanceOf(ModelException.class)
                .hasMessageStartingWith("malformed JSON in " + dir.resolve("config.json"))
                .hasMessageNotContaining("\n");
    }

    @Test
    void malformedGenerationConfigNamesThatFile() throws IOException {
        write(LLAMA31, "{\"eos_token_id\": [1, 2");
        assertThatThrownBy(() -> ModelConfig.read(dir))
                .isInstanceOf(ModelException.class)
                .hasMessageStartingWith("malformed JSON in " + dir.resolve("generation_config.json"));
    }

    @Test
    void missingConfigAndMissingField() throws IOException {
        assertThatThrownBy(() -> ModelConfig.read(dir))
                .isInstanceOf(ModelException.class)
                .hasMessage("model config not found: " + dir.resolve("config.json"));
        write(LLAMA31.replace("\"vocab_size\": 128256", "\"vocab\": 1"), null);
        assertThatThrownBy(() -> ModelConfig.read(dir))
                .isInstanceOf(ModelException.class)
                .hasMessage("missing 'vocab_size' in " + dir.resolve("config.json"));
    }

    @Test
    void badEosIdIsAnError() throws IOException {
        write(LLAMA31, "{\"eos_token_id\": \"</s>\"}");
        assertThatThrownBy(() -> ModelConfig.read(dir))
                .isInstanceOf(ModelException.class)
                .hasMessageContaining("eos_token_id");
    }
}
