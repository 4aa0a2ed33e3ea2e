package dev.ladder.scorer.score;

/** How two query results are compared for EX (see docs/scoring.md). */
public enum ExMode {
    /**
     * The Spider test-suite evaluator's {@code exec_eval}: rows as a multiset (a sequence when the
     * gold has ORDER BY), columns matched up to a permutation, DISTINCT removed from both queries.
     */
    SPIDER,
    /** BIRD's evaluator: the sets of row tuples are equal; column order counts, duplicates and row order do not. */
    BIRD
}
