package dev.ladder.eval.experiment;

import dev.ladder.scorer.score.ExMode;
import dev.ladder.scorer.score.ExOptions;
import dev.ladder.scorer.score.em.EmMode;
import dev.ladder.scorer.testsuite.ScoringSetup;
import java.nio.file.Path;
import java.util.Locale;
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
 * @param alsoExMode   a second EX mode scored beside the first ({@code ex_mode: [spider, bird]}), or null
 * @param judge        the id of the model (in {@code models}) that judges every prediction ({@code scorers.judge}),
 *                     or null for no judge
 */
public record ScorerSpec(ExMode exMode, boolean keepDistinct, double tolerance, Ts ts, Path suite, EmMode emMode,
                         ExMode alsoExMode, String judge) {

    /** TS source. */
    public enum Ts {
        /**
         * the stored (or the named) test suite; when none is stored and the ladder has agent rungs, it is built before
         * the run (agents execute on the database that judges EX: TS is what catches their coincidences)
         */
        SUITE,
        /** the stored (or the named) test suite when one applies, never built; TS is reported missing otherwise */
        STORED,
        /** no TS */
        NONE
    }

    public static final ScorerSpec DEFAULT = new ScorerSpec(ExOptions.DEFAULT.mode(), ExOptions.DEFAULT.keepDistinct(),
            ExOptions.DEFAULT.tolerance(), Ts.SUITE, null, ExOptions.DEFAULT.emMode(), null, null);

    /** No judge. */
    public ScorerSpec(ExMode exMode, boolean keepDistinct, double tolerance, Ts ts, Path suite, EmMode emMode,
                      ExMode alsoExMode) {
        this(exMode, keepDistinct, tolerance, ts, suite, emMode, alsoExMode, null);
    }

    /** The default EM mode. */
    public ScorerSpec(ExMode exMode, boolean keepDistinct, double tolerance, Ts ts, Path suite) {
        this(exMode, keepDistinct, tolerance, ts, suite, EmMode.SEMANTIC, null);
    }

    /** One EX mode. */
    public ScorerSpec(ExMode exMode, boolean keepDistinct, double tolerance, Ts ts, Path suite, EmMode emMode) {
        this(exMode, keepDistinct, tolerance, ts, suite, emMode, null);
    }

    public ScorerSpec {
        Objects.requireNonNull(exMode, "exMode");
        Objects.requireNonNull(ts, "ts");
        Objects.requireNonNull(emMode, "emMode");
        if (alsoExMode == exMode) alsoExMode = null;
        if (!(tolerance >= 0) || Double.isInfinite(tolerance)) throw new IllegalArgumentException("tolerance must be >= 0");
    }

    public ExOptions exOptions() {
        return new ExOptions(exMode, keepDistinct, tolerance, emMode);
    }

    /** The options of the second EX mode, or null. */
    public ExOptions alsoExOptions() {
        return alsoExMode == null ? null : new ExOptions(alsoExMode, keepDistinct, tolerance, emMode);
    }

    /** The EX modes scored, first the one EX means: e.g. {@code spider} or {@code spider,bird}. */
    public String exModesLabel() {
        String first = exMode.name().toLowerCase(Locale.ROOT);
        return alsoExMode == null ? first : first + "," + alsoExMode.name().toLowerCase(Locale.ROOT);
    }

    public ScoringSetup.Suite suiteMode() {
        return ts == Ts.NONE ? ScoringSetup.Suite.NONE : ScoringSetup.Suite.STORED;
    }
}
