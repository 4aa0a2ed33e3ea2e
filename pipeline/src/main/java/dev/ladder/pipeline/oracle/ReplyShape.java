package dev.ladder.pipeline.oracle;

/** The form a call asks its answer in; format noise is drawn among the kinds that fit it. */
public enum ReplyShape {
    /** one SQL statement, bare (a completion prompt ending in {@code SQL:}) */
    SQL,
    /** one SQL statement in a {@code ```sql} block */
    SQL_BLOCK,
    /** one JSON object */
    JSON,
    /** lines of text (a list) */
    LINES,
    /** a judge's {@code CORRECT: YES|NO} and {@code REASONING:} */
    VERDICT
}
