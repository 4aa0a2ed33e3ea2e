package dev.ladder.scorer.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.scorer.io.TextFiles;
import dev.ladder.sql.Dialect;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.SqliteExport;
import dev.ladder.sql.db.UserError;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Spider's on-disk format: question files (JSON arrays of {@code db_id, question, query}),
 * {@code tables.json}, and {@code database/<db>/<db>.sqlite}. Export writes what the official
 * Spider and test-suite evaluators read: also {@code <split>_gold.sql} ({@code query<TAB>db_id}).
 */
public final class SpiderFormat {

    private SpiderFormat() {}

    public static Benchmark importDirectory(Path dir) {
        Map<String, List<BenchmarkItem>> splits = new LinkedHashMap<>();
        Set<String> dbIds = new LinkedHashSet<>();
        List<Path> questionFiles;
        try (Stream<Path> files = Files.list(dir)) {
            questionFiles = files.filter(f -> f.toString().endsWith(".json") && !f.getFileName().toString().equals("tables.json"))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UserError("cannot read Spider folder " + dir + ": " + e.getMessage(), e);
        }
        for (Path f : questionFiles) {
            JsonNode root = readJson(f);
            // every .json here but tables.json is a split: one that is not an array must be named, not dropped
            if (!root.isArray()) {
                throw new UserError(f + ": not a JSON array (a Spider question file is an array of {db_id, question, query})");
            }
            List<BenchmarkItem> items = new ArrayList<>();
            int i = 0;
            for (JsonNode q : root) {
                String where = f + " item " + i;
                String db = text(q, "db_id", where);
                String question = text(q, "question", where);
                String sql = text(q, "query", where);
                dbIds.add(db);
                items.add(new BenchmarkItem(Benchmarks.stem(f) + "-" + (i + 1), question, sql, "imported",
                        Benchmarks.difficultyOf(sql), Query.read(sql, Dialect.SQLITE).ordersRows(), List.of(), db, ""));
                i++;
            }
            if (!items.isEmpty()) splits.put(Benchmarks.stem(f), items);
        }
        if (splits.isEmpty()) throw new UserError(dir + ": no Spider question files (JSON arrays with db_id, question, query)");
        Map<String, String> databases = new LinkedHashMap<>();
        for (String db : dbIds) {
            databases.put(db, databaseIn(dir.resolve("database"), db));
        }
        String first = databases.values().iterator().next();
        return new Benchmark(dir.getFileName().toString(), first, databases, splits);
    }

    /**
     * Writes {@code benchmark} in Spider's format under {@code out}. Databases are copied to
     * SQLite. Gold SQL is written as is (its dialect is the source database's).
     */
    /**
     * The SQLite file of database {@code dbId} in a Spider database folder, {@code <dir>/<db_id>/<db_id>.sqlite},
     * as an absolute path.
     */
    public static String databaseIn(Path dir, String dbId) {
        Path sqlite = dir.resolve(dbId).resolve(dbId + ".sqlite");
        if (dbId.contains("/") || dbId.contains("\\") || dbId.equals("..") || !Files.isRegularFile(sqlite)) {
            throw new UserError("database '" + dbId + "' not found: no " + sqlite);
        }
        return sqlite.toAbsolutePath().toString();
    }

    public static void export(Benchmark benchmark, Path out) {
        try {
            Files.createDirectories(out);
            Map<String, String> dbIdToSpec = new LinkedHashMap<>();
            for (List<BenchmarkItem> items : benchmark.splits().values()) {
                for (BenchmarkItem item : items) dbIdToSpec.putIfAbsent(dbId(benchmark, item), benchmark.databaseOf(item));
            }
            ArrayNode tables = JsonlBenchmarks.JSON.createArrayNode();
            for (Map.Entry<String, String> e : dbIdToSpec.entrySet()) {
                try (Database db = Databases.open(e.getValue())) {
                    tables.add(tablesEntry(e.getKey(), db.schema()));
                    Path sqlite = out.resolve("database").resolve(e.getKey()).resolve(e.getKey() + ".sqlite");
                    SqliteExport.copy(db, sqlite);
                }
            }
            write(out.resolve("tables.json"), tables);
            for (Map.Entry<String, List<BenchmarkItem>> split : benchmark.splits().entrySet()) {
                ArrayNode questions = JsonlBenchmarks.JSON.createArrayNode();
                StringBuilder gold = new StringBuilder();
                for (BenchmarkItem item : split.getValue()) {
                    ObjectNode q = questions.addObject();
                    String db = dbId(benchmark, item);
                    q.put("db_id", db);
                    q.put("question", item.question());
                    q.put("query", oneLine(item.sql()));
                    q.put("ladder_id", item.id());
                    gold.append(oneLine(item.sql())).append('\t').append(db).append('\n');
                }
                write(out.resolve(split.getKey() + ".json"), questions);
                Files.writeString(out.resolve(split.getKey() + "_gold.sql"), gold, StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new UserError("cannot write Spider export to " + out + ": " + e.getMessage(), e);
        }
    }

    private static String dbId(Benchmark b, BenchmarkItem item) {
        return item.db().isEmpty() ? b.name() : item.db();
    }

    static ObjectNode tablesEntry(String dbId, Schema schema) {
        ObjectNode t = JsonlBenchmarks.JSON.createObjectNode();
        t.put("db_id", dbId);
        ArrayNode tableOrig = t.putArray("table_names_original");
        ArrayNode tableNames = t.putArray("table_names");
        ArrayNode colOrig = t.putArray("column_names_original");
        ArrayNode colNames = t.putArray("column_names");
        ArrayNode colTypes = t.putArray("column_types");
        ArrayNode pks = t.putArray("primary_keys");
        ArrayNode fks = t.putArray("foreign_keys");
        colOrig.addArray().add(-1).add("*");
        colNames.addArray().add(-1).add("*");
        colTypes.add("text");
        Map<String, Integer> columnIndex = new LinkedHashMap<>();
        int index = 1;
        for (int ti = 0; ti < schema.tables().size(); ti++) {
            Table table = schema.tables().get(ti);
            tableOrig.add(table.name());
            tableNames.add(humanize(table.name()));
            for (Column c : table.columns()) {
                colOrig.addArray().add(ti).add(c.name());
                colNames.addArray().add(ti).add(humanize(c.name()));
                colTypes.add(spiderType(c.type()));
                columnIndex.put(key(table.name(), c.name()), index++);
            }
            for (String pk : table.primaryKey()) pks.add(columnIndex.get(key(table.name(), pk)));
        }
        for (ForeignKey fk : schema.foreignKeys()) {
            for (int i = 0; i < fk.columns().size(); i++) {
                fks.addArray().add(columnIndex.get(key(fk.table(), fk.columns().get(i))))
                        .add(columnIndex.get(key(fk.referencedTable(), fk.referencedColumns().get(i))));
            }
        }
        return t;
    }

    private static String key(String table, String column) {
        return table.toLowerCase(Locale.ROOT) + "." + column.toLowerCase(Locale.ROOT);
    }

    /** Spider's column type vocabulary: number, time, text, boolean, others. */
    static String spiderType(String type) {
        String t = type.toLowerCase(Locale.ROOT);
        if (t.matches("^(tinyint\\(1\\)|bool|boolean).*")) return "boolean";
        if (t.matches("^(tinyint|smallint|mediumint|int|integer|bigint|decimal|numeric|float|double|real).*")) return "number";
        if (t.matches("^(date|datetime|timestamp|time|year).*")) return "time";
        if (t.matches("^(char|varchar|text|tinytext|mediumtext|longtext|enum|set).*") || t.isEmpty()) return "text";
        return "others";
    }

    /** customerName, order_details: customer name, order details. */
    static String humanize(String name) {
        return name.replaceAll("([a-z0-9])([A-Z])", "$1 $2").replace('_', ' ').toLowerCase(Locale.ROOT).strip();
    }

    private static String oneLine(String sql) {
        return sql.replaceAll("\\s+", " ").strip();
    }

    static JsonNode readJson(Path f) {
        try {
            return JsonlBenchmarks.JSON.readTree(TextFiles.read(f));
        } catch (IOException e) {
            throw new UserError(f + ": not valid JSON: " + e.getMessage().lines().findFirst().orElse(""), e);
        }
    }

    static String text(JsonNode node, String field, String where) {
        JsonNode v = node.get(field);
        if (v == null || !v.isTextual() || v.asText().isBlank()) throw new UserError(where + ": missing text field '" + field + "'");
        return v.asText();
    }

    private static void write(Path file, JsonNode node) throws IOException {
        Files.writeString(file, JsonlBenchmarks.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node) + "\n",
                StandardCharsets.UTF_8);
    }
}
