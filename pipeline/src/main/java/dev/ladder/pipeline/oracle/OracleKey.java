package dev.ladder.pipeline.oracle;

import java.util.Optional;

/**
 * What the oracle knows of a benchmark: each item's gold, and whether a SQL text answers an item as its gold does.
 * The experiment runner supplies it from the benchmark and its own EX scorer, so the oracle's judge agrees with the
 * metric the run reports.
 */
public interface OracleKey {

    /** The gold SQL of the item with this id (as the run names it), or empty when the item is not known. */
    Optional<String> gold(String itemId);

    /** Whether {@code sql} returns what the item's gold returns (the run's EX). */
    boolean answers(String itemId, String sql);
}
