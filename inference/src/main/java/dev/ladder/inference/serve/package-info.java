/**
 * {@code ladder serve}: any {@link dev.ladder.inference.LanguageModel} behind the subset of the OpenAI HTTP API that
 * Ladder's own {@code openai} engine uses ({@code /v1/models}, {@code /v1/completions}, {@code /v1/chat/completions},
 * vLLM's {@code /version}), on the JDK's {@code com.sun.net.httpserver}. Concurrent requests are merged into the
 * engine's batches by one scheduler thread ({@link dev.ladder.inference.serve.BatchScheduler}); docs/serve.md.
 */
package dev.ladder.inference.serve;
