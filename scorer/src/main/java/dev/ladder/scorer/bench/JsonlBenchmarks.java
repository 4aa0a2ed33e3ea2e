package dev.ladder.scorer.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.scorer.io.TextFiles;
import dev.ladder.sql.db.UserError;
import dev.ladder.sql.read.Query;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Reads and writes the project's JSONL benchmark format, one item per line, with line-numbered errors. */
public final class JsonlBenchmarks {

    static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true)
            .configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, false);

    private JsonlBenchmarks() {}

    /** An item and the 1-based line it was read from. */
    public record Numbered(BenchmarkItem item, int line) {}

    /** @param origin file name for messages */
    public static List<BenchmarkItem> read(InputStream in, String origin) {
        return readNumbered(in, origin).stream().map(Numbered::item).toList();
    }

    /** As {@link #read}, keeping each item's line for messages that point into the file. */
    public static List<Numbered> readNumbered(InputStream in, String origin) {
        List<Numbered> items = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        List<String> lines = TextFiles.lines(in, origin);
        for (int n = 1; n <= lines.size(); n++) {
            String line = lines.get(n - 1);
            if (line.isBlank()) continue;
            BenchmarkItem item;
            try {
                JsonNode node = JSON.readTree(line);
                item = isPlain(node) ? plainItem(node, origin, n) : JSON.treeToValue(node, BenchmarkItem.class);
            } catch (JsonProcessingException e) {
                throw new UserError(origin + ":" + n + ": not a benchmark item: " + e.getOriginalMessage());
            }
            validate(item, origin + ":" + n);
            if (!ids.add(item.id())) throw new UserError(origin + ":" + n + ": duplicate id '" + item.id() + "'");
            items.add(new Numbered(item, n));
        }
        return items;
    }

    /** Fields of a plain line: a question ({@code nlq} or {@code question}) and its SQL, as published training files have. */
    private static final Set<String> PLAIN_FIELDS = Set.of("nlq", "question", "sql", "query");

    /** A line without an id is a plain {@code {"nlq"|"question", "sql"|"query"}} pair. */
    private static boolean isPlain(JsonNode node) {
        return node.isObject() && !node.has("id") && (node.has("nlq") || node.has("question"));
    }

    /** An imported item: id {@code <file stem>-<line>}, difficulty by the rule, order from the SQL. */
    private static BenchmarkItem plainItem(JsonNode node, String origin, int line) {
        String where = origin + ":" + line;
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!PLAIN_FIELDS.contains(f)) {
                throw new UserError(where + ": unknown field '" + f + "' in a line without an id (a plain line has "
                        + "nlq or question, and sql or query; it runs on the benchmark's database)");
            }
        }
        String question = text(node, node.has("nlq") ? "nlq" : "question", where);
        String sql = text(node, node.has("sql") ? "sql" : "query", where);
        String stem = Path.of(origin).getFileName().toString().replaceFirst("\\.[^.]*$", "");
        return new BenchmarkItem(stem + "-" + line, question, sql, "imported", Benchmarks.difficultyOf(sql),
                Query.read(sql).ordersRows(), List.of(), "", "");
    }

    private static String text(JsonNode node, String field, String where) {
        JsonNode v = node.get(field);
        if (v == null || !v.isTextual() || v.asText().isBlank()) {
            throw new UserError(where + ": missing field '" + field + "'" + (field.equals("query") ? " (or 'sql')" : ""));
        }
        return v.asText();
    }

    static void validate(BenchmarkItem item, String where) {
        require(item.id(), "id", where);
        require(item.question(), "question", where);
        require(item.sql(), "sql", where);
        require(item.category(), "category", where);
        require(item.difficulty(), "difficulty", where);
        if (!BenchmarkItem.CATEGORIES.contains(item.category()) && !BenchmarkItem.IMPORTED.contains(item.category())) {
            throw new UserError(where + ": unknown category '" + item.category() + "' (use one of "
                    + BenchmarkItem.CATEGORIES + ")");
        }
        if (!BenchmarkItem.DIFFICULTIES.contains(item.difficulty())) {
            throw new UserError(where + ": unknown difficulty '" + item.difficulty() + "' (use one of "
                    + BenchmarkItem.DIFFICULTIES + ")");
        }
    }

    private static void require(String value, String field, String where) {
        if (value == null || value.isBlank()) throw new UserError(where + ": missing field '" + field + "'");
    }

    public static String toLine(BenchmarkItem item) {
        try {
            return JSON.writeValueAsString(item);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes each split as {@code <split>.jsonl} under {@code dir}, plus {@code database.txt}. */
    public static void writeDirectory(Benchmark b, Path dir) {
        try {
            Files.createDirectories(dir);
            for (Map.Entry<String, List<BenchmarkItem>> split : b.splits().entrySet()) {
                StringBuilder sb = new StringBuilder();
                for (BenchmarkItem item : split.getValue()) sb.append(toLine(item)).append('\n');
                Files.writeString(dir.resolve(split.getKey() + ".jsonl"), sb, StandardCharsets.UTF_8);
            }
            Files.writeString(dir.resolve("database.txt"), b.defaultDatabase() + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UserError("cannot write " + dir + ": " + e.getMessage(), e);
        }
    }
}
