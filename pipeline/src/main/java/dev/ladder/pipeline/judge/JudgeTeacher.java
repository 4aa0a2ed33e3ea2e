package dev.ladder.pipeline.judge;

import dev.ladder.pipeline.oracle.OracleCall;
import dev.ladder.pipeline.oracle.OracleTeacher;
import dev.ladder.pipeline.oracle.ReplyShape;
import java.util.Set;

/**
 * The oracle as a judge ({@link SqlJudge#KIND}): YES exactly when the SQL under judgement returns what the gold
 * returns (the run's EX). Semantic noise flips the verdict, as a fallible judge would.
 */
public final class JudgeTeacher implements OracleTeacher {

    @Override
    public Set<String> kinds() {
        return Set.of(SqlJudge.KIND);
    }

    @Override
    public Reply answer(OracleCall call) {
        String sql = call.tag().fact(SqlJudge.FACT_SQL);
        boolean right = sql != null && !sql.isBlank() && call.answers(sql);
        if (call.semanticDraw("judge_flip (the verdict is the opposite of what the gold says)")) right = !right;
        String text = right
                ? "CORRECT: YES\nREASONING: It returns the rows the question asks for, with the right columns."
                : "CORRECT: NO\nREASONING: It does not return what the question asks for: the rows or columns differ.";
        return new Reply(text, ReplyShape.VERDICT);
    }
}
