package dev.ladder.inference.model;

import java.util.Locale;

/**
 * Element types of safetensors files, named exactly as in the safetensors header ({@code "F32"}, {@code "BF16"}, ...).
 */
public enum DType {
    F64(8), F32(4), F16(2), BF16(2),
    F8_E4M3(1), F8_E5M2(1),
    I64(8), I32(4), I16(2), I8(1),
    U64(8), U32(4), U16(2), U8(1),
    BOOL(1);

    private final int byteSize;

    DType(int byteSize) {
        this.byteSize = byteSize;
    }

    /** Bytes per element. */
    public int byteSize() {
        return byteSize;
    }

    /** The name used in safetensors headers. */
    public String safetensorsName() {
        return name();
    }

    /** True for F64, F32, F16, BF16 (the types {@link Weights} converts to float). */
    public boolean isFloat() {
        return this == F64 || this == F32 || this == F16 || this == BF16;
    }

    /**
     * The dtype for a safetensors header name.
     *
     * @throws IllegalArgumentException for a name that is not a safetensors dtype
     */
    public static DType fromSafetensorsName(String name) {
        try {
            return valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("unknown safetensors dtype '" + name + "'");
        }
    }

    /** The dtype for a Hugging Face {@code torch_dtype} string ("float32", "bfloat16", "float16"), or null. */
    public static DType fromTorchName(String torchDtype) {
        if (torchDtype == null) {
            return null;
        }
        return switch (torchDtype.toLowerCase(Locale.ROOT).replace("torch.", "")) {
            case "float32", "float" -> F32;
            case "float16", "half" -> F16;
            case "bfloat16" -> BF16;
            case "float64", "double" -> F64;
            default -> null;
        };
    }

    /** The Hugging Face {@code torch_dtype} name of a float dtype ("float32", "float16", "bfloat16", "float64"). */
    public String torchName() {
        return switch (this) {
            case F32 -> "float32";
            case F16 -> "float16";
            case BF16 -> "bfloat16";
            case F64 -> "float64";
            default -> name().toLowerCase(Locale.ROOT);
        };
    }
}
