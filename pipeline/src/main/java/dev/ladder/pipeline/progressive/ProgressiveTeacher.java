package dev.ladder.pipeline.progressive;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.common.StableJson;
import dev.ladder.pipeline.oracle.GoldParts;
import dev.ladder.pipeline.oracle.OracleCall;
import dev.ladder.pipeline.oracle.OracleTeacher;
import dev.ladder.pipeline.oracle.ReplyShape;
import dev.ladder.pipeline.oracle.SqlTeacher;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * How the oracle answers the progressive pipeline: sub-tasks taken from the gold's clauses (the tables and what they
 * return first, then each condition, grouping, ordering and limit, each depending on the one before; an alternative
 * decomposition is answered alike, from the call's own draw), the three-step plan from the same parts, and re-scoring
 * that is confident in every open sub-task. Each step's extension is a {@code sql-block} call the core answers with
 * the whole gold: a perfect model writes the full answer at the first step and keeps it. The judge is the judge
 * package's.
 */
public final class ProgressiveTeacher implements OracleTeacher {

    public static final String SUBTASKS = "progressive.subtasks";
    public static final String RESCORE = "progressive.rescore";
    public static final String PLAN = "progressive.plan";
    public static final String SQL_BLOCK = SqlTeacher.SQL_BLOCK;
    /** The ids of the sub-tasks to re-score, comma-separated. */
    public static final String FACT_TASKS = "tasks";

    private static final ObjectMapper JSON = StableJson.mapper();

    @Override
    public Set<String> kinds() {
        return Set.of(SUBTASKS, RESCORE, PLAN);
    }

    @Override
    public Reply answer(OracleCall call) {
        if (call.tag().kind().equals(RESCORE)) {
            ObjectNode root = JSON.createObjectNode();
            ObjectNode confidences = root.putObject("confidences");
            for (String id : call.tag().facts().getOrDefault(FACT_TASKS, "").split(",")) {
                if (!id.isBlank()) confidences.put(id.strip(), 0.95);
            }
            return new Reply(root.toString(), ReplyShape.JSON);
        }
        GoldParts p = GoldParts.of(call.sql(), call.schema(), call.dialect());
        if (call.tag().kind().equals(PLAN)) {
            ObjectNode root = JSON.createObjectNode();
            p.tables().forEach(root.putArray("tables")::add);
            ArrayNode operations = root.putArray("operations");
            p.joins().forEach(j -> operations.add("join " + j.get(0) + " and " + j.get(1) + " on " + j.get(2)));
            p.conditions().forEach(c -> operations.add("keep the rows where " + c));
            if (!p.groupBy().isEmpty()) operations.add(p.groupBy());
            if (!p.having().isEmpty()) operations.add(p.having());
            if (!p.orderBy().isEmpty()) operations.add(p.orderBy());
            if (!p.limit().isEmpty()) operations.add(p.limit());
            root.putArray("columns").add(p.select());
            return new Reply(root.toString(), ReplyShape.JSON);
        }
        List<String[]> tasks = new ArrayList<>();
        tasks.add(new String[] {"read " + String.join(", ", p.tables()) + " and return what the question asks for",
                "SELECT " + p.select() + (p.from().isEmpty() ? "" : " FROM " + p.from())});
        p.conditions().forEach(c -> tasks.add(new String[] {"keep the rows where " + c, "WHERE " + c}));
        if (!p.groupBy().isEmpty()) tasks.add(new String[] {"group the rows", p.groupBy()});
        if (!p.having().isEmpty()) tasks.add(new String[] {"keep the groups that qualify", p.having()});
        if (!p.orderBy().isEmpty()) tasks.add(new String[] {"order the result", p.orderBy()});
        if (!p.limit().isEmpty()) tasks.add(new String[] {"keep the first rows", p.limit()});
        ObjectNode root = JSON.createObjectNode();
        ArrayNode list = root.putArray("subtasks");
        for (int i = 0; i < tasks.size(); i++) {
            ObjectNode t = list.addObject();
            t.put("id", "t" + (i + 1));
            t.put("description", tasks.get(i)[0]);
            t.put("fragment", tasks.get(i)[1]);
            t.put("confidence", 0.9);
            ArrayNode deps = t.putArray("depends_on");
            if (i > 0) deps.add("t" + i);
        }
        return new Reply(root.toString(), ReplyShape.JSON);
    }
}
