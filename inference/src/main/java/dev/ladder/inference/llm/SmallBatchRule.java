package dev.ladder.inference.llm;

import dev.ladder.inference.llm.SmallBatchLinear.Form;
import java.util.Arrays;

/**
 * The one rule for measuring the small-batch forms ({@link SmallBatchCalibration} runs it, {@code ladder bench
 * linear} shows it): which form a measurement picks, which measurement may be kept for later loads, and when a kept
 * form gives way. Why a rule about load: a measurement taken while other processes hold the CPUs says more about them
 * than about the forms, and a form kept from it ran forever (on a loaded 2-core machine a kept form decoded the
 * SmolLM2 shape at 0.6 tok/s against 3.0 with the forms off). So:
 * <ol>
 *   <li>a measurement picks, per row class, the fastest form where it beats the default rule's by {@link #MARGIN}
 *       ({@link #choose}), and keeps a blocked pick only where it holds against F.linear at its second-best round
 *       too ({@link #pick}), so one lucky round under load does not put a form in place;</li>
 *   <li>it is stored for later loads only when it was quiet: others took at most {@link #SLACK_CORES} more than the
 *       cores this process's threads leave free ({@link #quiet}), and its repeated timings agreed within
 *       {@link #MAX_SPREAD} ({@link #storable}); otherwise it serves this load only;</li>
 *   <li>a stored form is confirmed at every later load against F.linear (the forms off) and, where F.linear beats it
 *       by the margin ({@link #loses}), F.linear runs instead for that load; a loss at a quiet load drops the stored
 *       forms and the shape is measured again ({@link #remeasure}), so a bad decision cannot persist; a loss under
 *       load keeps them for the next load to confirm.</li>
 * </ol>
 */
final class SmallBatchRule {
    private SmallBatchRule() {}

    /**
     * A measured form replaces the default rule's, and F.linear replaces a stored form at a confirmation, only when
     * this much faster (10%), so near-ties keep what there is and loads do not flip between forms.
     */
    static final double MARGIN = 0.9;
    /** Timed passes per form and row class at a measurement, over the forms in turn; each form's best counts. */
    static final int ROUNDS = 3;
    /** Timed passes of the stored form and of F.linear per row class at a confirmation: 2 x 2 against 3 x 3. */
    static final int CONFIRM_ROUNDS = 2;
    /**
     * Weight bytes per shape a confirmation passes over (the first layers' weights; all of them when fewer): several
     * times a server CPU's L3, so no weight is still cached when it is read again. A 1B model's confirmation reads
     * 2.1 of its 4.9 GB per pass.
     */
    static final long CONFIRM_BYTES = 256L << 20;
    /**
     * Other processes' CPU use, in cores, beyond the cores this process's threads leave free, up to which a measurement
     * counts as quiet: room for the odd daemon or shell command, not for a competing compute job (on the 2-core
     * reference with 2 threads: a quarter of a core).
     */
    static final double SLACK_CORES = 0.25;
    /**
     * The largest spread of repeated timings (a timing's second-best round over its best, less 1) a stored
     * measurement may have: timings that repeat within the margin's 10% can tell forms 10% apart.
     */
    static final double MAX_SPREAD = 0.10;

    /**
     * The form for {@code rows} rows given each form's time ({@code ms} indexed by ordinal): the fastest where it beats
     * the default rule's by {@link #MARGIN}, else the rule's; past {@link SmallBatchLinear#MAX_ROWS}, always sgemm.
     */
    static Form choose(long rows, double[] ms) {
        if (rows > SmallBatchLinear.MAX_ROWS) return Form.LINEAR;
        Form rule = SmallBatchLinear.formFor(rows);
        Form best = rule;
        for (Form f : Form.values()) if (ms[f.ordinal()] < ms[best.ordinal()]) best = f;
        return ms[best.ordinal()] < MARGIN * ms[rule.ordinal()] ? best : rule;
    }

    /**
     * The form a measurement picks for {@code rows} rows from each form's rounds ({@code rounds[ordinal][round]}):
     * {@link #choose} on each form's best round, then F.linear instead of a blocked pick that {@link #loses} to
     * F.linear's best at its own second-best round. On a quiet machine rounds agree and this is {@link #choose}; under
     * load it takes a form that won consistently, and the forms off where none did.
     */
    static Form pick(long rows, double[][] rounds) {
        double[] best = new double[rounds.length];
        for (int f = 0; f < rounds.length; f++) best[f] = Arrays.stream(rounds[f]).min().orElseThrow();
        Form chosen = choose(rows, best);
        if (chosen == Form.LINEAR) return chosen;
        double[] sorted = rounds[chosen.ordinal()].clone();
        Arrays.sort(sorted);
        double secondBest = sorted[Math.min(1, sorted.length - 1)];
        return loses(secondBest, best[Form.LINEAR.ordinal()]) ? Form.LINEAR : chosen;
    }

    /** Whether a stored form taking {@code formMs} loses to F.linear taking {@code linearMs}: by more than the margin. */
    static boolean loses(double formMs, double linearMs) {
        return linearMs < MARGIN * formMs;
    }

    /**
     * Whether others left this process's {@code threads} their cores during a measurement (see {@link #SLACK_CORES}).
     * An unknown load (no {@code /proc}, or a window too short to tell) counts as quiet: the spread alone decides.
     */
    static boolean quiet(MachineLoad.Load load, int threads) {
        if (!load.known()) return true;
        return load.othersCores() <= Math.max(0, load.cores() - threads) + SLACK_CORES;
    }

    /** Whether a measurement with {@code spread} (its largest, {@link #spread}) may be stored for later loads. */
    static boolean storable(MachineLoad.Load load, int threads, double spread) {
        return quiet(load, threads) && spread <= MAX_SPREAD;
    }

    /**
     * Whether a stored shape's forms are dropped from the store: they lost at some row class to F.linear at a quiet
     * confirmation (a bad decision). Under load they stay for a quiet load to judge.
     */
    static boolean drops(boolean lost, MachineLoad.Load confirmation, int threads) {
        return lost && quiet(confirmation, threads);
    }

    /**
     * Whether a stored shape is measured again at this load: it is dropped ({@link #drops}), or it is provisional
     * (from a file that recorded no load) and the confirmation was quiet, so a measurement now may be stored.
     */
    static boolean remeasure(boolean lost, boolean provisional, MachineLoad.Load confirmation, int threads) {
        return (lost || provisional) && quiet(confirmation, threads);
    }

    /** A timing's spread over its rounds: second-best over best, less 1 (0 for one round). */
    static double spread(double[] rounds) {
        if (rounds.length < 2) return 0;
        double[] s = rounds.clone();
        Arrays.sort(s);
        return s[1] / s[0] - 1;
    }
}
