package dev.ladder.inference.model;

import java.util.List;

/**
 * The architecture of a decoder-only model, as read from a Hugging Face {@code config.json}.
 *
 * @param architecture      LLAMA (Llama 3 / 3.1 / 3.2, SmolLM2 and other Llama-architecture models) or QWEN2
 * @param hiddenSize        model width
 * @param intermediateSize  SwiGLU width
 * @param numLayers         decoder layers
 * @param numHeads          query heads
 * @param numKvHeads        key/value heads (grouped-query attention when fewer than numHeads)
 * @param headDim           per-head width (hiddenSize / numHeads unless config says otherwise)
 * @param vocabSize         rows of the embedding
 * @param maxPositions      max_position_embeddings
 * @param rmsNormEps        RMSNorm epsilon
 * @param ropeTheta         RoPE base
 * @param ropeScaling       Llama-3 style rope scaling, or null
 * @param tieWordEmbeddings the LM head is the embedding matrix
 * @param attentionBias     q/k/v projections have biases (Qwen2)
 * @param bosTokenId        begin-of-sequence id, or -1
 * @param eosTokenIds       end-of-sequence ids (config.json and generation_config.json together)
 * @param torchDtype        dtype the weights are stored in (e.g. bfloat16)
 */
public record ModelConfig(Architecture architecture, int hiddenSize, int intermediateSize, int numLayers, int numHeads,
                          int numKvHeads, int headDim, int vocabSize, int maxPositions, double rmsNormEps,
                          double ropeTheta, RopeScaling ropeScaling, boolean tieWordEmbeddings, boolean attentionBias,
                          int bosTokenId, List<Integer> eosTokenIds, String torchDtype) {

    public enum Architecture { LLAMA, QWEN2 }

    /**
     * {@code rope_scaling} with {@code rope_type: llama3}.
     */
    public record RopeScaling(double factor, double lowFreqFactor, double highFreqFactor, int originalMaxPositions) {}

    public ModelConfig {
        eosTokenIds = List.copyOf(eosTokenIds);
    }
}
