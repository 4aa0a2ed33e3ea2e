package dev.ladder.pipeline.search;

import dev.ladder.pipeline.kit.SentenceEmbedder;
import dev.ladder.pipeline.strategy.RunCaches;
import dev.ladder.sql.db.ColumnValues;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.LadderPaths;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the structured search loads once per process: the sentence embedder, and each database's schema index (kept
 * in memory, and on disk under the cache directory's {@code schema-index/} by schema fingerprint).
 */
final class SearchResources {

    /** How many distinct sample values a text column adds to its index text when values are on. */
    static final int SAMPLE_VALUES = 3;

    private SearchResources() {}

    static SentenceEmbedder embedder() {
        return SentenceEmbedder.shared();
    }

    /** The schema's index, built (or read from the disk cache) once per run. */
    static SchemaIndex index(RunCaches caches, Schema schema, Database db, boolean values) {
        return caches.get(SchemaIndex.class, List.of("schema-index", SchemaIndex.fingerprint(schema), values),
                () -> SchemaIndex.cached(schema, embedder(), LadderPaths.cacheDir().resolve("schema-index"),
                        values ? sampleValues(db, schema) : null));
    }

    /** Up to {@link #SAMPLE_VALUES} distinct non-null values of each text column, by lower-case {@code table.column}. */
    static Map<String, List<String>> sampleValues(Database db, Schema schema) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (Table t : schema.tables()) {
            for (var c : t.columns()) {
                if (!ColumnValues.isText(c)) continue;
                List<String> values = new ArrayList<>();
                for (String v : ColumnValues.distinct(db, t.name(), c.name(), SAMPLE_VALUES)) {
                    values.add(v.length() > 40 ? v.substring(0, 40) : v);
                }
                out.put((t.name() + "." + c.name()).toLowerCase(Locale.ROOT), values);
            }
        }
        return out;
    }
}
