package dev.ladder.pipeline.search;

import java.util.List;
import java.util.Map;

/**
 * A candidate after entity extraction, retrieval, validation and scoring.
 *
 * @param source    {@code sketch-2}, {@code repair-1} ...
 * @param sql       the SQL as judged (post-processed when the post-processor accepts it)
 * @param warnings  the entity channels' disagreements
 * @param verdicts  the validation levels that ran, in order
 * @param parts     the score's parts before penalties ({@code table}, {@code column}, {@code join})
 * @param penalties each penalty, in words with its amount
 * @param score     weighted parts minus penalties
 * @param valid     schema-valid: L0 passes, and L1 when it runs
 */
public record Evaluated(String source, String sql, Entities declared, Entities fromSql, List<String> warnings,
                        Evidence evidence, List<Validation.Verdict> verdicts, Map<String, Double> parts,
                        List<String> penalties, double score, boolean valid) {

    /** Every violation of every level, each prefixed with its level. */
    public List<String> violations() {
        return verdicts.stream().flatMap(v -> v.violations().stream().map(x -> v.level() + ": " + x)).toList();
    }

    /** Every validation warning (legal but suspect: costs score, does not invalidate), each prefixed with its level. */
    public List<String> validationWarnings() {
        return verdicts.stream().flatMap(v -> v.warnings().stream().map(x -> v.level() + ": " + x)).toList();
    }

    /** Whether this one is better than {@code other}: valid first, then the higher score (a tie keeps the other). */
    boolean beats(Evaluated other) {
        if (other == null) return true;
        if (valid != other.valid) return valid;
        return score > other.score + 1e-9;
    }
}
