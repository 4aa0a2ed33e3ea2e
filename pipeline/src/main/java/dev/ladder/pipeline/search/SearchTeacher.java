package dev.ladder.pipeline.search;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.common.StableJson;
import dev.ladder.pipeline.oracle.GoldParts;
import dev.ladder.pipeline.oracle.OracleCall;
import dev.ladder.pipeline.oracle.OracleTeacher;
import dev.ladder.pipeline.oracle.ReplyShape;
import java.util.List;
import java.util.Set;

/**
 * How the oracle answers structured search: the sketch call (and its fix) with {@code k} candidates, each the gold (or
 * a corruption of it) with the tables, columns and joins it reads and no placeholders; the repair call with the gold
 * and its entities.
 */
public final class SearchTeacher implements OracleTeacher {

    public static final String SKETCHES = "search.sketches";
    public static final String REPAIR = "search.repair";
    /** The number of sketches the call asks for. */
    public static final String FACT_K = "k";

    private static final ObjectMapper JSON = StableJson.mapper();

    @Override
    public Set<String> kinds() {
        return Set.of(SKETCHES, REPAIR);
    }

    @Override
    public Reply answer(OracleCall call) {
        if (call.tag().kind().equals(REPAIR)) {
            ObjectNode o = JSON.createObjectNode();
            String sql = call.sql();
            o.put("sql", sql);
            declare(o, sql, call);
            o.put("confidence", 0.9);
            o.putArray("changes").add("rewrote the statement to answer the question as asked");
            return new Reply(o.toString(), ReplyShape.JSON);
        }
        int k = Math.max(1, Integer.parseInt(call.tag().facts().getOrDefault(FACT_K, "1")));
        ObjectNode root = JSON.createObjectNode();
        ArrayNode candidates = root.putArray("candidates");
        for (int i = 0; i < k; i++) {
            ObjectNode c = candidates.addObject();
            String sql = call.sql();
            c.put("sql", sql);
            declare(c, sql, call);
            c.putObject("placeholders");
            c.put("notes", "reads the question's values as the database writes them");
        }
        return new Reply(root.toString(), ReplyShape.JSON);
    }

    /** The tables, columns and joins {@code sql} reads, as the prompts ask a model to declare them. */
    private static void declare(ObjectNode c, String sql, OracleCall call) {
        GoldParts parts = GoldParts.of(sql, call.schema(), call.dialect());
        ArrayNode tables = c.putArray("tables");
        parts.tables().forEach(tables::add);
        ArrayNode columns = c.putArray("columns");
        for (String tc : parts.columns()) {
            int dot = tc.indexOf('.');
            columns.addArray().add(tc.substring(0, dot)).add(tc.substring(dot + 1));
        }
        ArrayNode joins = c.putArray("joins");
        for (List<String> j : parts.joins()) {
            joins.addObject().put("left", j.get(0)).put("right", j.get(1)).put("on", j.get(2));
        }
    }
}
