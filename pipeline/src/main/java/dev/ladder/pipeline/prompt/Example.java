package dev.ladder.pipeline.prompt;

/** A solved question a prompt can show the model (a k-shot exemplar). */
public record Example(String id, String question, String sql) {}
