package dev.ladder.pipeline.gsr;

import dev.ladder.pipeline.search.SentenceEmbedder;
import dev.ladder.sql.db.Database;
import java.util.HashMap;
import java.util.Map;
import java.util.WeakHashMap;

/** One {@link ValueIndex} per open database and value limit, so a run indexes each column once. */
final class ValueIndexes {

    private static final Map<Database, Map<Integer, ValueIndex>> INDEXES = new WeakHashMap<>();

    private ValueIndexes() {}

    static synchronized ValueIndex of(Database db, int maxValues) {
        return INDEXES.computeIfAbsent(db, d -> new HashMap<>())
                .computeIfAbsent(maxValues, m -> new ValueIndex(db, m, SentenceEmbedder.shared()));
    }
}
