package dev.ladder.pipeline.oracle;

import java.util.Set;

/**
 * The calls whose answer is one statement: {@code sql} (bare, the ladder's completion prompts and repairs) and
 * {@code sql-block} (in a {@code ```sql} block, as most pipelines ask). A call of a new pipeline that asks for a
 * statement needs no teacher of its own: it says one of these kinds.
 */
public final class SqlTeacher implements OracleTeacher {

    public static final String SQL = "sql";
    public static final String SQL_BLOCK = "sql-block";

    @Override
    public Set<String> kinds() {
        return Set.of(SQL, SQL_BLOCK);
    }

    @Override
    public Reply answer(OracleCall call) {
        String sql = call.sql();
        return call.tag().kind().equals(SQL) ? new Reply(sql, ReplyShape.SQL)
                : new Reply(block(sql), ReplyShape.SQL_BLOCK);
    }

    /** A statement in a {@code ```sql} block. */
    public static String block(String sql) {
        return "```sql\n" + sql.strip() + "\n```";
    }
}
