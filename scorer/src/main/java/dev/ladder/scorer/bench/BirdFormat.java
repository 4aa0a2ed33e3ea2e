package dev.ladder.scorer.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ladder.sql.Dialect;
import dev.ladder.sql.db.UserError;
import dev.ladder.sql.read.Query;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON question files: BIRD's ({@code db_id, question, evidence, SQL}, databases in
 * {@code <db_dir>/<db>/<db>.sqlite}) and plain arrays of {@code {question|nlq, sql|query}} against one
 * named database.
 */
public final class BirdFormat {

    private static final List<String> DB_DIR_NAMES = List.of("dev_databases", "train_databases", "databases", "database");

    private BirdFormat() {}

    /**
     * @param file     a JSON array
     * @param database for plain arrays (items without db_id): the database they run on; null means classicmodels
     */
    public static Benchmark importFile(Path file, String database) {
        JsonNode root = SpiderFormat.readJson(file);
        if (!root.isArray() || root.isEmpty()) throw new UserError(file + ": expected a non-empty JSON array of questions");
        String split = Benchmarks.stem(file);
        boolean bird = root.get(0).has("db_id");
        List<BenchmarkItem> items = new ArrayList<>();
        Map<String, String> databases = new LinkedHashMap<>();
        int i = 0;
        for (JsonNode q : root) {
            String where = file + " item " + i;
            String question = q.has("question") ? SpiderFormat.text(q, "question", where) : SpiderFormat.text(q, "nlq", where);
            String sql = firstPresent(q, where, "SQL", "sql", "query");
            String id = q.has("question_id") ? split + "-" + q.get("question_id").asText() : split + "-" + (i + 1);
            String db = "";
            String evidence = q.has("evidence") ? q.get("evidence").asText("") : "";
            if (bird) {
                db = SpiderFormat.text(q, "db_id", where);
                databases.computeIfAbsent(db, d -> locateDatabase(file, d));
            }
            items.add(new BenchmarkItem(id, question, sql, "imported", Benchmarks.difficultyOf(sql),
                    Query.read(sql, Dialect.SQLITE).ordersRows(), List.of(), db, evidence));
            i++;
        }
        String defaultDb = bird ? databases.values().iterator().next() : (database == null ? "classicmodels" : database);
        return new Benchmark(split, defaultDb, databases, Map.of(split, items));
    }

    private static String firstPresent(JsonNode q, String where, String... fields) {
        for (String f : fields) {
            if (q.has(f)) return SpiderFormat.text(q, f, where);
        }
        throw new UserError(where + ": missing SQL (one of " + String.join(", ", fields) + ")");
    }

    private static String locateDatabase(Path file, String db) {
        Path dir = file.toAbsolutePath().getParent();
        for (String name : DB_DIR_NAMES) {
            Path p = dir.resolve(name).resolve(db).resolve(db + ".sqlite");
            if (Files.isRegularFile(p)) return p.toString();
        }
        throw new UserError(file + ": database '" + db + "' not found as <dir>/" + db + "/" + db + ".sqlite under "
                + dir + " (looked in " + DB_DIR_NAMES + ")");
    }
}
