package dev.ladder.adapters;

import java.util.Locale;

/** Which base weights the LoRA product is added to. */
public enum MergeBase {
    /** The base model's weights as stored (bf16/f16/f32), widened to float32. */
    FULL,
    /**
     * The base weights quantised to bitsandbytes NF4 (blocks of 64, one absmax per block) and dequantised again: the
     * weights a QLoRA adapter was trained against. Only the adapted matrices are replaced by their NF4 form.
     */
    NF4;

    /** {@code full} or {@code nf4}. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The value for a CLI name. */
    public static MergeBase parse(String s) {
        for (MergeBase b : values()) {
            if (b.cliName().equals(s.toLowerCase(Locale.ROOT))) return b;
        }
        throw new IllegalArgumentException("merge base must be full or nf4, got '" + s + "'");
    }
}
