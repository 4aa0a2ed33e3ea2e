package dev.ladder.pipeline.gsr;

import dev.ladder.pipeline.kit.SentenceEmbedder;
import dev.ladder.pipeline.strategy.RunCaches;
import dev.ladder.sql.db.Database;
import java.util.List;

/** One {@link ValueIndex} per database and value limit while a run lasts, so a run indexes each column once. */
final class ValueIndexes {

    private ValueIndexes() {}

    static ValueIndex of(RunCaches caches, Database db, int maxValues) {
        return caches.get(ValueIndex.class, List.of("gsr-value-index", db, maxValues),
                () -> new ValueIndex(db, maxValues, SentenceEmbedder.shared()));
    }
}
