package dev.ladder.eval.experiment;

import dev.ladder.eval.score.ExMode;
import dev.ladder.eval.score.ExOptions;
import dev.ladder.eval.score.ScoringSetup;
import dev.ladder.eval.score.em.EmMode;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The {@code scorers} block; mirrors the flags of {@code ladder eval} so a run scores as {@code ladder eval} would.
 *
 * @param exMode       EX semantics ({@code --ex-mode})
 * @param keepDistinct keep DISTINCT in EX and compare it in EM ({@code --keep-distinct})
 * @param tolerance    relative tolerance for numbers, 0 = exact ({@code --tolerance})
 * @param ts           where TS comes from ({@code --no-suite} is {@link Ts#NONE})
 * @param suite        an explicit test-suite directory ({@code --suite}), or null for each database's stored suite
 * @param emMode       how EM reads queries ({@code --em-mode}, YAML {@code em_mode})
 */
public record ScorerSpec(ExMode exMode, boolean keepDistinct, double tolerance, Ts ts, Path suite, EmMode emMode) {

    /** TS source. */
    public enum Ts {
        /** the stored (or the named) test suite when one applies; TS is reported missing otherwise */
        SUITE,
        /** no TS */
        NONE
    }

    public static final ScorerSpec DEFAULT = new ScorerSpec(ExOptions.DEFAULT.mode(), ExOptions.DEFAULT.keepDistinct(),
            ExOptions.DEFAULT.tolerance(), Ts.SUITE, null, ExOptions.DEFAULT.emMode());

    /** The default EM mode. */
    public ScorerSpec(ExMode exMode, boolean keepDistinct, double tolerance, Ts ts, Path suite) {
        this(exMode, keepDistinct, tolerance, ts, suite, EmMode.SEMANTIC);
    }

    public ScorerSpec {
        Objects.requireNonNull(exMode, "exMode");
        Objects.requireNonNull(ts, "ts");
        Objects.requireNonNull(emMode, "emMode");
        if (!(tolerance >= 0) || Double.isInfinite(tolerance)) throw new IllegalArgumentException("tolerance must be >= 0");
    }

    public ExOptions exOptions() {
        return new ExOptions(exMode, keepDistinct, tolerance, emMode);
    }

    public ScoringSetup.Suite suiteMode() {
        return ts == Ts.NONE ? ScoringSetup.Suite.NONE : ScoringSetup.Suite.STORED;
    }
}
