package dev.ladder.inference.serve;

import dev.ladder.inference.LanguageModel;

import java.util.List;
import java.util.Objects;

/**
 * The model a server answers for, and what the server needs to know about it beyond {@link LanguageModel}.
 *
 * @param model       the engine; the server calls it from one thread only and never closes it (its owner does)
 * @param name        the name clients put in {@code "model"} ({@code --served-name}, else the model's name)
 * @param engine      the engine's name, reported by {@code /v1/models} (e.g. {@code djl})
 * @param fingerprint identifies the weights and how they were loaded (model files, dtype, device, adapter), reported
 *                    by {@code /v1/models} so that a client can record what answered it
 * @param bos         the BOS text {@code add_special_tokens} prepends to a text prompt (the model's own tokenizer would
 *                    add it), or null when its tokenizer adds none
 * @param decoder     token ids to text, for the per-token texts of log-probs and for which stop string ended a
 *                    candidate; null when there is none (log-prob tokens are then always {@code token_id:<id>})
 * @param vocabSize   ids a token-id prompt may use ({@code [0, vocabSize)}), or 0 when unknown (not checked)
 */
public record ServedModel(LanguageModel model, String name, String engine, String fingerprint, String bos,
                          TokenDecoder decoder, int vocabSize) {

    public ServedModel {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(fingerprint, "fingerprint");
        if (name.isBlank()) throw new IllegalArgumentException("the served name is blank");
        if (bos != null && bos.isEmpty()) bos = null;
        if (vocabSize < 0) throw new IllegalArgumentException("vocabSize must be >= 0, got " + vocabSize);
    }

    /** Decodes generated ids (special tokens kept, as the engine's candidate text does). */
    @FunctionalInterface
    public interface TokenDecoder {
        String decode(List<Integer> ids);
    }
}
