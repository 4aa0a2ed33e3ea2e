package dev.ladder.scorer.bench;

import dev.ladder.scorer.bench.fetch.FetchedBenchmarks;
import dev.ladder.scorer.io.TextFiles;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds benchmarks by name or path:
 * <ul>
 *   <li>{@code classicmodels}: the bundled benchmark (test and train splits)</li>
 *   <li>{@code spider-dev}, {@code bird-dev}: Spider's and BIRD's dev splits as {@code ladder bench fetch} lays
 *       them out ({@link FetchedBenchmarks})</li>
 *   <li>a folder of {@code *.jsonl} files (one per split) in the project's format, optionally with
 *       {@code database.txt} naming its database</li>
 *   <li>a Spider-format folder ({@code tables.json} + {@code database/<db>/<db>.sqlite} + question files)</li>
 *   <li>a BIRD-format JSON file (items with {@code SQL} and {@code evidence})</li>
 * </ul>
 * Plain JSON arrays of {@code {question|nlq, sql|query}} ({@link BirdFormat}) and single JSONL files (whose lines
 * may be such plain pairs, {@link JsonlBenchmarks}) run on classicmodels unless told otherwise.
 */
public final class Benchmarks {

    public static final Map<String, String> BUNDLED = Map.of("classicmodels", "classicmodels");
    static final List<String> BUNDLED_SPLITS = List.of("test", "train");

    private Benchmarks() {}

    public static Benchmark load(String nameOrPath) {
        return load(nameOrPath, null);
    }

    /** @param database for plain JSON arrays and single JSONL files: the database the questions run on (null: classicmodels) */
    public static Benchmark load(String nameOrPath, String database) {
        String key = nameOrPath.strip().toLowerCase(Locale.ROOT);
        if (BUNDLED.containsKey(key)) return bundled(key);
        Optional<Path> fetched = FetchedBenchmarks.benchmark(key);
        if (fetched.isPresent()) {
            // named as fetched, whatever its folder or question file is called
            Benchmark b = load(fetched.get().toString(), database);
            return new Benchmark(key, b.defaultDatabase(), b.databases(), b.splits());
        }
        Path p = Path.of(nameOrPath);
        if (Files.isDirectory(p)) {
            if (Files.isRegularFile(p.resolve("tables.json"))) return SpiderFormat.importDirectory(p);
            return jsonlDirectory(p);
        }
        if (Files.isRegularFile(p)) {
            if (p.toString().endsWith(".jsonl")) {
                return new Benchmark(stem(p), database == null ? "classicmodels" : database, Map.of(), Map.of(stem(p), readJsonl(p)));
            }
            return BirdFormat.importFile(p, database);
        }
        throw new UserError("unknown benchmark '" + nameOrPath + "': use one of " + BUNDLED.keySet()
                + ", spider-dev or bird-dev (after 'ladder bench fetch spider|bird'), a folder of JSONL splits, a Spider"
                + " folder or a BIRD JSON file");
    }

    static Benchmark bundled(String name) {
        Map<String, List<BenchmarkItem>> splits = new LinkedHashMap<>();
        for (String split : BUNDLED_SPLITS) {
            String resource = "/benchmarks/" + name + "/" + split + ".jsonl";
            try (InputStream in = Benchmarks.class.getResourceAsStream(resource)) {
                if (in == null) throw new IllegalStateException("missing bundled resource " + resource);
                splits.put(split, JsonlBenchmarks.read(in, resource));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        return new Benchmark(name, BUNDLED.get(name), Map.of(), splits);
    }

    private static Benchmark jsonlDirectory(Path dir) {
        Map<String, List<BenchmarkItem>> splits = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".jsonl")).sorted().toList()) {
                splits.put(stem(f), readJsonl(f));
            }
        } catch (IOException e) {
            throw new UserError("cannot read benchmark folder " + dir + ": " + e.getMessage(), e);
        }
        if (splits.isEmpty()) throw new UserError(dir + " has no *.jsonl splits, no tables.json (Spider): not a benchmark");
        String database = "classicmodels";
        Path dbFile = dir.resolve("database.txt");
        if (Files.isRegularFile(dbFile)) database = TextFiles.read(dbFile).strip();
        return new Benchmark(dir.getFileName().toString(), database, Map.of(), splits);
    }

    static List<BenchmarkItem> readJsonl(Path f) {
        try (InputStream in = Files.newInputStream(f)) {
            return JsonlBenchmarks.read(in, f.toString());
        } catch (IOException e) {
            throw new UserError("cannot read " + f + ": " + e.getMessage(), e);
        }
    }

    static String stem(Path p) {
        String n = p.getFileName().toString();
        int dot = n.lastIndexOf('.');
        return dot > 0 ? n.substring(0, dot) : n;
    }

    /** Difficulty of imported SQL by the project's rule; SQL JSqlParser cannot read counts as extra. */
    static String difficultyOf(String sql) {
        try {
            return SqlFeatures.of(sql).hardness();
        } catch (IllegalArgumentException e) {
            return "extra";
        }
    }
}
