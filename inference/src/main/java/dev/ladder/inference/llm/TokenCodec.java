package dev.ladder.inference.llm;

import java.util.List;

/**
 * The minimum {@link DjlLanguageModel} needs from a tokenizer: prompt text to ids (no special tokens added; prompt
 * formats write their own BOS) and generated ids back to text. The real tokenizer plugs in here.
 */
public interface TokenCodec {

    /** Ids of the text, exactly as written (no BOS added). */
    int[] encode(String text);

    /** Text of the ids (special tokens skipped or not, as the tokenizer decides). */
    String decode(List<Integer> ids);

    /**
     * Ids the tokenizer can decode: a model may have more embedding rows than its tokenizer has tokens (padding
     * rows, e.g. Qwen2.5), and those ids are never generated.
     */
    default int vocabSize() {
        return Integer.MAX_VALUE;
    }

    /**
     * End-of-sequence ids the tokenizer files name ({@code eos_token}, {@code <|eot_id|>} ...): they stop generation
     * together with the config's, so a base Llama-3 or an older instruct snapshot still stops at {@code <|eot_id|>}.
     */
    default List<Integer> eosIds() {
        return List.of();
    }
}
