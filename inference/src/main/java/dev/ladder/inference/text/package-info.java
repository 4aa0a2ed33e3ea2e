/**
 * Text side of a model: the {@link dev.ladder.inference.text.Tokenizer} (HuggingFace {@code tokenizer.json} through
 * DJL, truncation off, no special tokens added behind the caller's back), the
 * {@link dev.ladder.inference.text.IncrementalDetokenizer} for streaming and stop strings, and the prompt formats
 * ({@link dev.ladder.inference.text.PromptFormats}).
 */
package dev.ladder.inference.text;
