package dev.ladder.pipeline.gsr;

import dev.ladder.pipeline.oracle.GoldParts;
import dev.ladder.pipeline.oracle.OracleCall;
import dev.ladder.pipeline.oracle.OracleTeacher;
import dev.ladder.pipeline.oracle.ReplyShape;
import dev.ladder.pipeline.oracle.SqlTeacher;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * How the oracle answers GSR's own calls: the clauses of the question (one per part of the gold: what it returns, where
 * from, each condition, grouping, ordering, limit) and the exploration of the masked schema (the gold's tables and
 * columns the draft does not use, or {@code none}). Its SQL calls (Pre-SQL, correction, refinement, format fix) are
 * {@code sql-block} calls, answered by the oracle's core.
 */
public final class GsrTeacher implements OracleTeacher {

    public static final String CLAUSES = "gsr.clauses";
    public static final String EXPLORE = "gsr.explore";
    public static final String SQL_BLOCK = SqlTeacher.SQL_BLOCK;
    /** The draft the exploration is for, and the most lines it may list. */
    public static final String FACT_DRAFT = "draft";
    public static final String FACT_LIMIT = "limit";

    @Override
    public Set<String> kinds() {
        return Set.of(CLAUSES, EXPLORE);
    }

    @Override
    public Reply answer(OracleCall call) {
        if (call.tag().kind().equals(EXPLORE)) return explore(call);
        GoldParts p = GoldParts.of(call.sql(), call.schema(), call.dialect());
        List<String> lines = new ArrayList<>();
        lines.add("- return " + p.select());
        if (!p.from().isEmpty()) lines.add("- from " + p.from());
        p.conditions().forEach(c -> lines.add("- where " + c));
        for (String c : List.of(p.groupBy(), p.having(), p.orderBy(), p.limit())) if (!c.isEmpty()) lines.add("- " + c);
        return new Reply(String.join("\n", lines), ReplyShape.LINES);
    }

    private static Reply explore(OracleCall call) {
        GoldParts gold = GoldParts.of(call.sql(), call.schema(), call.dialect());
        String draft = call.tag().fact(FACT_DRAFT);
        Set<String> used = new LinkedHashSet<>();
        if (draft != null) {
            GoldParts d = GoldParts.of(draft, call.schema(), call.dialect());
            used.addAll(d.columns());
            used.addAll(d.tables());
        }
        int limit = Integer.parseInt(call.tag().facts().getOrDefault(FACT_LIMIT, "10"));
        List<String> lines = new ArrayList<>();
        for (String t : gold.tables()) if (!used.contains(t)) lines.add(t);
        for (String c : gold.columns()) if (!used.contains(c)) lines.add(c);
        List<String> kept = lines.subList(0, Math.min(limit, lines.size()));
        return new Reply(kept.isEmpty() ? "none" : String.join("\n", kept), ReplyShape.LINES);
    }
}
