package dev.ladder.inference.device;

import java.util.Locale;

/** How the engine holds a model's weights ({@code LlamaModel.Options} precision and int8). */
public enum WeightFormat {
    /** float32 weights and activations */
    F32,
    /** float16 weights and activations */
    F16,
    /**
     * int8 weight-only q/k/v/o and MLP projections (one scale per output row); embeddings, LM head, norms and
     * activations in the device's default compute type (float16 on CUDA, float32 on CPU)
     */
    INT8;

    /** Bytes of one activation / KV-cache / non-quantised weight element on {@code device}. */
    public int computeBytes(DeviceKind device) {
        return switch (this) {
            case F32 -> 4;
            case F16 -> 2;
            case INT8 -> device == DeviceKind.CUDA ? 2 : 4;
        };
    }

    /** The lower-case name the CLI uses (f32, f16, int8). */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @throws IllegalArgumentException (one line) for anything but f32, f16, int8 */
    public static WeightFormat parse(String text) {
        String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        return switch (t) {
            case "f32", "float32" -> F32;
            case "f16", "float16" -> F16;
            case "int8" -> INT8;
            default -> throw new IllegalArgumentException("weight format must be f32, f16 or int8, got '" + text + "'");
        };
    }
}
