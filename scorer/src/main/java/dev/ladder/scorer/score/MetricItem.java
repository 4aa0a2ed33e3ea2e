package dev.ladder.scorer.score;

import java.util.List;
import java.util.Objects;

/**
 * What a metric knows of the benchmark item: its id, its category and its gold SQL.
 *
 * @param golds the gold first, then any alternative accepted as equivalent
 */
public record MetricItem(String id, String category, List<String> golds) {
    public MetricItem {
        Objects.requireNonNull(id, "id");
        golds = List.copyOf(golds);
        if (golds.isEmpty()) throw new IllegalArgumentException("item " + id + " has no gold");
    }
}
