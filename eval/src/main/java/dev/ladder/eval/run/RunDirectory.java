package dev.ladder.eval.run;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.common.StableJson;
import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.eval.experiment.Cell;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The layout of one run directory, and the writers of its derived files.
 *
 * <pre>
 * RUN/
 *   config.yaml             the resolved experiment
 *   environment.json        {@link Fingerprints#environment}
 *   results.sqlite          {@link ResultsStore} (+ results.sqlite.lock while a writer has it open)
 *   predictions/CELL.sql    Spider: one SQL per line, item order
 *   predictions/CELL.json   BIRD: {"ORDER": "SQL\t----- bird -----\tDB_ID", ...}
 *   predictions/CELL.jsonl  Ladder: {"id": ITEM_ID, "sql": SQL} per line (ladder eval --benchmark --pred)
 *   traces/CELL.jsonl       one trace JSON object per line, item order
 *   report/                 the report's files
 * </pre>
 *
 * Predictions and traces are regenerated from the results store alone, so a resumed run and an uninterrupted one
 * write the same bytes. Every file is written to a temporary name in its directory, forced to disk and moved into
 * place atomically.
 */
public final class RunDirectory {

    public static final String CONFIG = "config.yaml";
    public static final String ENVIRONMENT = "environment.json";
    public static final String RESULTS = "results.sqlite";
    public static final String PREDICTIONS = "predictions";
    public static final String TRACES = "traces";
    public static final String REPORT = "report";
    /** What BIRD's evaluator expects between the SQL and the database id. */
    public static final String BIRD_SEPARATOR = "\t----- bird -----\t";
    /**
     * Written for an empty prediction in the Spider file: the official evaluators drop blank lines (misaligning every
     * later item), and this never executes.
     */
    public static final String EMPTY_SPIDER_PREDICTION = "SELECT";

    /** Cell names become file names: a rung name, with {@code @seed} in a run of several seeds. */
    private static final Pattern SAFE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*(@-?[0-9]+)?");
    private static final ObjectMapper JSON = StableJson.mapper();
    private static final ObjectMapper PRETTY = StableJson.mapper().enable(SerializationFeature.INDENT_OUTPUT)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);

    private final Path dir;

    private RunDirectory(Path dir) {
        this.dir = dir;
    }

    /** The run directory at {@code dir}, created with its sub-directories when missing. */
    public static RunDirectory create(Path dir) {
        Path abs = dir.toAbsolutePath().normalize();
        try {
            Files.createDirectories(abs.resolve(PREDICTIONS));
            Files.createDirectories(abs.resolve(TRACES));
            Files.createDirectories(abs.resolve(REPORT));
        } catch (IOException e) {
            throw WriteFailures.orElse(abs, e, new UserError("cannot create run directory " + abs + ": " + e.getMessage(), e));
        }
        return new RunDirectory(abs);
    }

    public Path dir() {
        return dir;
    }

    public Path config() {
        return dir.resolve(CONFIG);
    }

    public Path environment() {
        return dir.resolve(ENVIRONMENT);
    }

    public Path results() {
        return dir.resolve(RESULTS);
    }

    public Path report() {
        return dir.resolve(REPORT);
    }

    public Path spiderPredictions(String cell) {
        return dir.resolve(PREDICTIONS).resolve(safe(cell) + ".sql");
    }

    public Path birdPredictions(String cell) {
        return dir.resolve(PREDICTIONS).resolve(safe(cell) + ".json");
    }

    public Path jsonlPredictions(String cell) {
        return dir.resolve(PREDICTIONS).resolve(safe(cell) + ".jsonl");
    }

    public Path traces(String cell) {
        return dir.resolve(TRACES).resolve(safe(cell) + ".jsonl");
    }

    private static String safe(String cell) {
        if (!SAFE_NAME.matcher(cell).matches()) {
            throw new UserError("cell name '" + cell + "' cannot name a file (use letters, digits, '.', '_', '-', "
                    + "starting with a letter or digit, and '@seed' at the end)");
        }
        return cell;
    }

    /** Opens this run's results store for writing. */
    public ResultsStore openResults() {
        return ResultsStore.open(results());
    }

    /** Writes {@code config.yaml} (the resolved experiment, as YAML text). */
    public void writeConfig(String yaml) {
        writeAtomically(config(), yaml.endsWith("\n") ? yaml : yaml + "\n");
    }

    /** Writes {@code environment.json}: the map as a JSON object, keys sorted. */
    public void writeEnvironment(Map<String, String> environment) {
        try {
            writeAtomically(environment(), PRETTY.writeValueAsString(environment) + "\n");
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The database id of each item as the Spider and BIRD files name it: the item's own {@code db}, else the
     * benchmark's name (as {@code ladder bench export} writes it).
     */
    public static Map<String, String> dbIds(Benchmark benchmark, List<BenchmarkItem> items) {
        Map<String, String> out = new LinkedHashMap<>();
        for (BenchmarkItem item : items) out.put(item.id(), item.db().isEmpty() ? benchmark.name() : item.db());
        return out;
    }

    /**
     * Writes the three prediction files of every cell in the store.
     *
     * @param dbIds item id to database id ({@link #dbIds}); every stored item must have one
     */
    public void writePredictions(ResultsStore store, Map<String, String> dbIds) {
        for (Cell cell : store.cells()) {
            List<ItemResult> results = store.results(cell.name());
            List<Integer> orders = store.itemOrders(cell.name());
            StringBuilder spider = new StringBuilder();
            ObjectNode bird = JSON.createObjectNode();
            StringBuilder jsonl = new StringBuilder();
            for (int i = 0; i < results.size(); i++) {
                ItemResult r = results.get(i);
                String db = dbIds.get(r.itemId());
                if (db == null) {
                    throw new UserError("item '" + r.itemId() + "' of cell '" + cell.name() + "' in " + store.file()
                            + " is not in the benchmark split being written (no database id for it)");
                }
                String sql = oneLine(r.predicted());
                spider.append(sql.isEmpty() ? EMPTY_SPIDER_PREDICTION : sql).append('\n');
                bird.put(Integer.toString(orders.get(i)), sql + BIRD_SEPARATOR + db);
                ObjectNode line = JSON.createObjectNode();
                line.put("id", r.itemId());
                line.put("sql", sql);
                jsonl.append(json(line)).append('\n');
            }
            writeAtomically(spiderPredictions(cell.name()), spider.toString());
            try {
                writeAtomically(birdPredictions(cell.name()), PRETTY.writeValueAsString(bird) + "\n");
            } catch (JsonProcessingException e) {
                throw new UncheckedIOException(e);
            }
            writeAtomically(jsonlPredictions(cell.name()), jsonl.toString());
        }
    }

    /** Writes {@code traces/CELL.jsonl} for every cell in the store: each stored trace on one line. */
    public void writeTraces(ResultsStore store) {
        for (Cell cell : store.cells()) {
            StringBuilder out = new StringBuilder();
            for (String trace : store.traces(cell.name())) {
                try {
                    JsonNode node = JSON.readTree(trace);
                    out.append(json(node)).append('\n');
                } catch (JsonProcessingException e) {
                    throw new UserError("stored trace of cell '" + cell.name() + "' is not JSON: " + e.getOriginalMessage(), e);
                }
            }
            writeAtomically(traces(cell.name()), out.toString());
            writePackages(cell.name(), store.traces(cell.name()));
        }
    }

    /**
     * A pipeline's per-item packages: for every trace with {@code evidence} or {@code review} stage steps (the
     * structured search's evidence package per candidate, and its review package when nothing validated), one JSON
     * file {@code packages/<cell>/<item>.json} with the item's id, answer, evidence packages and review package.
     */
    private void writePackages(String cell, List<String> traces) {
        for (String trace : traces) {
            JsonNode node;
            try {
                node = JSON.readTree(trace);
            } catch (JsonProcessingException e) {
                continue; // reported by writeTraces above
            }
            ObjectNode pkg = JSON.createObjectNode();
            ArrayNode evidence = JSON.createArrayNode();
            JsonNode review = null;
            for (JsonNode step : node.path("steps")) {
                if (!"stage".equals(step.path("kind").asText())) continue;
                String stage = step.path("stage").asText();
                if (stage.equals("evidence") && step.has("detail")) evidence.add(step.get("detail"));
                if (stage.equals("review") && step.has("detail")) review = step.get("detail");
            }
            if (evidence.isEmpty() && review == null) continue;
            String id = node.path("questionId").asText();
            pkg.put("item", id);
            pkg.put("strategy", node.path("strategy").asText());
            pkg.put("sql", node.path("sql").asText());
            pkg.put("chosen", node.path("chosen").asText());
            pkg.set("evidence", evidence);
            pkg.set("review", review);
            writeAtomically(packages(cell).resolve(id.replaceAll("[^A-Za-z0-9._-]", "_") + ".json"), json(pkg));
        }
    }

    /** The folder of a cell's per-item pipeline packages. */
    public Path packages(String cell) {
        return dir.resolve("packages").resolve(safe(cell));
    }

    private static String json(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whitespace runs (newlines and tabs included) to one space, trimmed: one line, safe for tab-separated files. */
    static String oneLine(String sql) {
        return sql.replaceAll("\\s+", " ").strip();
    }

    /** Makes the rename itself durable where the OS allows syncing a directory (Linux, macOS; not Windows). */
    private static void syncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException ignored) {
            // the file is complete either way; only its name may lag behind a power cut
        }
    }

    /**
     * Writes UTF-8 text to {@code file} so that it is either the old or the new content at any moment: a temporary
     * file in the same directory, forced to disk, then moved over {@code file} atomically.
     */
    public static void writeAtomically(Path file, String content) {
        Path parent = file.toAbsolutePath().getParent();
        Path tmp = null;
        try {
            Files.createDirectories(parent);
            // not createTempFile: its 0600 would stay with the file; CREATE_NEW gives the usual mode under the umask
            tmp = parent.resolve("." + file.getFileName() + "." + ProcessHandle.current().pid() + "-" + System.nanoTime() + ".tmp");
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW)) {
                ByteBuffer bytes = ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) ch.write(bytes);
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            tmp = null;
            syncDirectory(parent);
        } catch (IOException e) {
            throw WriteFailures.orElse(file, e, new UserError("cannot write " + file + ": " + e.getMessage(), e));
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // the write already failed; a stray hidden temp file is harmless
                }
            }
        }
    }
}
