package dev.ladder.inference;

/** Why a candidate stopped. */
public enum FinishReason {
    /** a stop token id (the model's end of sequence or one the request named) */
    STOP_TOKEN,
    /** a stop string appeared in the generated text */
    STOP_STRING,
    /** max new tokens reached */
    LENGTH,
    /** the context window is full */
    CONTEXT
}
