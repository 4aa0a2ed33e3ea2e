package dev.ladder.scorer.score;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.common.StableJson;
import dev.ladder.scorer.io.TextFiles;
import dev.ladder.sql.db.UserError;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Prediction and gold files the evaluator reads; every problem is a one-line {@link UserError} naming file and line. */
public final class Predictions {

    private static final ObjectMapper JSON = StableJson.mapper();

    private Predictions() {}

    /** A Spider gold line: {@code SQL<TAB>db_id}, and its line number in the file (from 1). */
    public record GoldLine(String sql, String db, int line) {}

    /**
     * Lines {@code {"id": ..., "sql": ...}}; {@code "sql": null} or {@code ""} is an empty prediction, a line
     * without {@code "sql"} an error (a writer that lost the field should not pass for a model that said nothing).
     * Returns id to SQL in file order; a file without predictions is an error.
     */
    public static Map<String, String> readJsonl(Path file) {
        Map<String, String> out = new LinkedHashMap<>();
        List<String> lines = lines(file);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) continue;
            String where = file + ":" + (i + 1);
            JsonNode node;
            try {
                node = JSON.readTree(line);
            } catch (JsonProcessingException e) {
                throw new UserError(where + ": not a JSON object: " + e.getOriginalMessage());
            }
            if (node == null || !node.isObject()) throw new UserError(where + ": not a JSON object");
            JsonNode id = node.get("id");
            if (id == null || !(id.isTextual() || id.isNumber())) throw new UserError(where + ": missing \"id\"");
            JsonNode sql = node.get("sql");
            if (sql == null) throw new UserError(where + ": missing \"sql\" (write \"sql\": null for no prediction)");
            if (!sql.isNull() && !sql.isTextual()) throw new UserError(where + ": \"sql\" must be a string");
            String key = id.asText();
            if (out.containsKey(key)) throw new UserError(where + ": duplicate id '" + key + "'");
            out.put(key, sql.isNull() ? "" : sql.asText());
        }
        if (out.isEmpty()) throw new UserError(file + ": no predictions (the file is empty)");
        return out;
    }

    /** Spider predictions: one SQL per line (an empty line is an empty prediction). */
    public static List<String> readSqlLines(Path file) {
        List<String> lines = new ArrayList<>(lines(file));
        // a trailing newline is not one more prediction
        while (!lines.isEmpty() && lines.get(lines.size() - 1).isBlank()) lines.remove(lines.size() - 1);
        if (lines.isEmpty()) throw new UserError(file + ": no predictions (the file is empty)");
        return lines.stream().map(String::strip).toList();
    }

    /** Spider gold: {@code SQL<TAB>db_id} per line; blank lines are skipped. */
    public static List<GoldLine> readGold(Path file) {
        List<GoldLine> out = new ArrayList<>();
        List<String> lines = lines(file);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank()) continue;
            int tab = line.lastIndexOf('\t');
            if (tab < 0) throw new UserError(file + ":" + (i + 1) + ": expected 'SQL<TAB>db_id'");
            String sql = line.substring(0, tab).strip();
            String db = line.substring(tab + 1).strip();
            if (sql.isEmpty() || db.isEmpty()) throw new UserError(file + ":" + (i + 1) + ": expected 'SQL<TAB>db_id'");
            out.add(new GoldLine(sql, db, i + 1));
        }
        if (out.isEmpty()) throw new UserError(file + ": no gold queries (the file is empty)");
        return out;
    }

    private static List<String> lines(Path file) {
        return TextFiles.lines(file);
    }
}
