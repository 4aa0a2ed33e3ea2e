package dev.ladder.eval.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A named set of splits of questions over one database (or, for imports, several).
 *
 * @param name     e.g. classicmodels
 * @param database how to open the default database (a name Databases knows, a URL or a SQLite path)
 * @param splits   split name to items, in file order
 */
public record Benchmark(String name, String database, Map<String, List<BenchmarkItem>> splits) {

    public Benchmark {
        Map<String, List<BenchmarkItem>> copy = new LinkedHashMap<>();
        splits.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        splits = java.util.Collections.unmodifiableMap(copy);
    }

    public List<BenchmarkItem> split(String split) {
        List<BenchmarkItem> items = splits.get(split);
        if (items == null) {
            throw new dev.ladder.pipeline.db.UserError("benchmark " + name + " has no split '" + split + "' (it has "
                    + splits.keySet() + ")");
        }
        return items;
    }
}
