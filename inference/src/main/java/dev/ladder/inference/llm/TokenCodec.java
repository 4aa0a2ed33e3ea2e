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
}
