package dev.ladder.pipeline.soft;

import dev.ladder.pipeline.oracle.GoldParts;
import dev.ladder.pipeline.oracle.OracleCall;
import dev.ladder.pipeline.oracle.OracleTeacher;
import dev.ladder.pipeline.oracle.ReplyShape;
import dev.ladder.pipeline.oracle.SqlTeacher;
import java.util.Set;

/**
 * How the oracle answers soft attention's chain-of-thought attempts: a short reasoning over the tables and columns the
 * statement reads, then the statement in a {@code ```sql} block. Direct attempts are {@code sql-block} calls.
 */
public final class SoftTeacher implements OracleTeacher {

    public static final String REASONED = "soft.reasoned";
    public static final String SQL_BLOCK = SqlTeacher.SQL_BLOCK;

    @Override
    public Set<String> kinds() {
        return Set.of(REASONED);
    }

    @Override
    public Reply answer(OracleCall call) {
        String sql = call.sql();
        GoldParts p = GoldParts.of(sql, call.schema(), call.dialect());
        String reasoning = "The question needs the table" + (p.tables().size() == 1 ? " " : "s ")
                + String.join(", ", p.tables()) + (p.columns().isEmpty() ? "" : ", using " + String.join(", ", p.columns()))
                + (p.joins().isEmpty() ? "." : ", joined on " + String.join(" and ", p.joins().stream().map(j -> j.get(2)).toList()) + ".");
        return new Reply(reasoning + "\n\n" + SqlTeacher.block(sql), ReplyShape.SQL_BLOCK);
    }
}
