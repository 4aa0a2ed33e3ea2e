package dev.ladder.scorer.bench;

import dev.ladder.sql.db.UserError;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A named set of splits of questions.
 *
 * @param name            e.g. classicmodels
 * @param defaultDatabase how to open the database of items without their own {@code db}: a name
 *                        {@code Databases} knows, a JDBC URL or a SQLite path
 * @param databases       for multi-database benchmarks (Spider, BIRD): db id to SQLite path
 * @param splits          split name to items, in file order
 */
public record Benchmark(String name, String defaultDatabase, Map<String, String> databases,
                        Map<String, List<BenchmarkItem>> splits) {

    public Benchmark {
        databases = Map.copyOf(databases);
        Map<String, List<BenchmarkItem>> copy = new LinkedHashMap<>();
        splits.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        splits = Collections.unmodifiableMap(copy);
    }

    public List<BenchmarkItem> split(String split) {
        List<BenchmarkItem> items = splits.get(split);
        if (items == null) {
            throw new UserError("benchmark " + name + " has no split '" + split + "' (it has " + splits.keySet() + ")");
        }
        return items;
    }

    /** The database spec an item runs on. */
    public String databaseOf(BenchmarkItem item) {
        if (item.db().isEmpty()) return defaultDatabase;
        return databases.getOrDefault(item.db(), item.db());
    }
}
