package dev.ladder.inference.device;

import dev.ladder.inference.model.ModelConfig;

import java.util.Objects;

/**
 * What a {@link MemoryPlan} is for: how the weights are held, where, and how much is decoded at once.
 *
 * @param format        weight format
 * @param device        cpu or cuda
 * @param rows          candidate rows decoded together ({@code DjlLanguageModel.Options.maxBatchRows})
 * @param context       tokens per row, prompt and generated ({@code LlamaModel.Options.maxContext}); also the length
 *                      of the RoPE tables
 * @param prefillTokens most padded prompt tokens prefilled in one pass ({@code DjlLanguageModel.Options.prefillTokens})
 */
public record MemoryRequest(WeightFormat format, DeviceKind device, int rows, int context, int prefillTokens) {

    public MemoryRequest {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(device, "device");
        if (rows < 1) throw new IllegalArgumentException("rows must be at least 1, got " + rows);
        // one prompt token and one generated token at the least
        if (context < 2) throw new IllegalArgumentException("context must be at least 2 tokens, got " + context);
        if (prefillTokens < 1) throw new IllegalArgumentException("prefill tokens must be at least 1, got " + prefillTokens);
    }

    /** The engine's defaults: 16 rows, context min(max positions, 8192), prefill chunks of 4096 tokens. */
    public static MemoryRequest defaults(ModelConfig config, WeightFormat format, DeviceKind device) {
        return new MemoryRequest(format, device, EngineLimits.MAX_BATCH_ROWS, EngineLimits.defaultContext(config),
                EngineLimits.PREFILL_TOKENS);
    }

    public MemoryRequest withFormat(WeightFormat f) {
        return new MemoryRequest(f, device, rows, context, prefillTokens);
    }

    public MemoryRequest withRows(int r) {
        return new MemoryRequest(format, device, r, context, prefillTokens);
    }

    public MemoryRequest withContext(int c) {
        return new MemoryRequest(format, device, rows, c, prefillTokens);
    }
}
