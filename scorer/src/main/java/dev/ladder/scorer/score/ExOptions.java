package dev.ladder.scorer.score;

import dev.ladder.scorer.score.em.EmMode;
import java.util.Locale;
import java.util.Objects;

/**
 * Options of the EX and TS scorers (every score row records their {@link #label()}), and the EM mode.
 *
 * @param mode        comparison semantics
 * @param keepDistinct SPIDER mode only: keep DISTINCT in both queries instead of removing it
 * @param tolerance   0 for exact numbers; otherwise two numbers are equal when they differ by at most
 *                    {@code tolerance * max(1, |a|, |b|)}
 * @param emMode      how EM reads queries ({@code --em-mode}); tables name it beside EM
 */
public record ExOptions(ExMode mode, boolean keepDistinct, double tolerance, EmMode emMode) {

    public static final ExOptions DEFAULT = new ExOptions(ExMode.SPIDER, false, 0);

    public ExOptions {
        if (tolerance < 0 || Double.isNaN(tolerance)) throw new IllegalArgumentException("tolerance must be >= 0, got " + tolerance);
        Objects.requireNonNull(emMode, "emMode");
    }

    /** The default EM mode, {@link EmMode#SEMANTIC}. */
    public ExOptions(ExMode mode, boolean keepDistinct, double tolerance) {
        this(mode, keepDistinct, tolerance, EmMode.SEMANTIC);
    }

    public ExOptions withMode(ExMode m) {
        return new ExOptions(m, keepDistinct, tolerance, emMode);
    }

    public ExOptions withKeepDistinct(boolean k) {
        return new ExOptions(mode, k, tolerance, emMode);
    }

    public ExOptions withTolerance(double t) {
        return new ExOptions(mode, keepDistinct, t, emMode);
    }

    public ExOptions withEmMode(EmMode m) {
        return new ExOptions(mode, keepDistinct, tolerance, m);
    }

    /** Short description stored with each score, e.g. {@code spider} or {@code bird,tol=1e-06}. */
    public String label() {
        StringBuilder b = new StringBuilder(mode.name().toLowerCase(Locale.ROOT));
        if (keepDistinct && mode == ExMode.SPIDER) b.append(",keep-distinct");
        if (tolerance > 0) b.append(",tol=").append(tolerance);
        return b.toString();
    }
}
