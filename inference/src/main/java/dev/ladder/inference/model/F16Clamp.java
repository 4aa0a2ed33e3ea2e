package dev.ladder.inference.model;

import java.util.Locale;

/**
 * Values of one tensor that lay beyond the float16 range ({@code |x| > 65504}, finite) when it was narrowed to
 * float16, and were clamped to {@code ±65504}. Clamped rather than turned into infinity: one infinite weight makes
 * every dot product it enters infinite and the next subtraction NaN, poisoning all later activations, while a clamped
 * weight is one bounded error. Infinities and NaNs already in the source stay what they are.
 *
 * @param tensor name of the tensor
 * @param count  values clamped
 * @param maxAbs the largest {@code |x|} among them
 */
public record F16Clamp(String tensor, long count, float maxAbs) {

    /** Largest finite float16. */
    public static final float F16_MAX = 65504f;

    public F16Clamp {
        if (count < 1) throw new IllegalArgumentException("count must be >= 1, got " + count);
    }

    /** This and another part of the same tensor together. */
    public F16Clamp plus(F16Clamp other) {
        if (!tensor.equals(other.tensor)) throw new IllegalArgumentException(other.tensor + " is not " + tensor);
        return new F16Clamp(tensor, count + other.count, Math.max(maxAbs, other.maxAbs));
    }

    /** One line for a user: which tensor, how many values, how large. */
    public String message() {
        return String.format(Locale.ROOT, "tensor '%s': %d value%s beyond the f16 range (max |x| %.3g) clamped to ±65504",
                tensor, count, count == 1 ? "" : "s", maxAbs);
    }
}
