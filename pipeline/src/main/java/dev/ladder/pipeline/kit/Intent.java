package dev.ladder.pipeline.kit;

/** What kind of answer a question asks for; decides which SQL structure a candidate may have. */
public enum Intent {
    /** Rows or values as they are ("list the customers in France", "what is the phone of ..."). */
    LOOKUP,
    /** One aggregate over everything that matches ("how many", "total", "average"). */
    AGGREGATE,
    /** An aggregate per group ("for each country", "per product line", "by office"). */
    GROUPED_AGGREGATE,
    /** The best or worst N by some measure ("top 5", "highest", "the most expensive"). */
    TOP_K
}
