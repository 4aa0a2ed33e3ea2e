package dev.ladder.pipeline.search;

import java.util.List;

/**
 * The evidence package of one candidate: what retrieval found for the names it uses, and what it suggests.
 *
 * @param source          the candidate
 * @param recalledTables  phase 1: the schema tables nearest to those the candidate's sketch predicts, then the tables
 *                        most similar to the question (each scored by its similarity to the question)
 * @param alignedColumns  phase 2: the columns most similar to the question within the recalled and used tables
 * @param alignedJoins    the foreign-key edges most similar to the question (the index embeds each edge), best first
 * @param tables          each table the candidate reads: in the schema or not, and its evidence (0 when not)
 * @param columns         each column it uses outside join conditions (all of them when it uses none other)
 * @param joins           each column equality between two tables: along a foreign key or not
 * @param replacements    for each name not in the schema, the nearest legal name
 * @param joinSuggestions for tables the candidate reads but does not join, the shortest foreign-key path to the rest
 * @param allowedJoins    the foreign-key joins among the tables in play (used, recalled, and those that connect them)
 * @param tableScore      average table evidence (0 with no table)
 * @param columnScore     average column evidence (0 with no column)
 * @param joinScore       average join evidence (1 with no join: nothing illegal)
 */
public record Evidence(String source, List<Aligned> recalledTables, List<Aligned> alignedColumns,
                       List<AlignedJoin> alignedJoins, List<TableHit> tables,
                       List<ColumnHit> columns, List<JoinHit> joins, List<Replacement> replacements,
                       List<JoinSuggestion> joinSuggestions, List<String> allowedJoins, double tableScore,
                       double columnScore, double joinScore) {

    /**
     * A retrieved table ({@code column} null) or column and its similarity to the question, relative to the best of
     * its kind (the best table scores 1).
     */
    public record Aligned(String table, String column, double score) {}

    /** A foreign-key edge's join condition and its similarity to the question, relative to the best edge's. */
    public record AlignedJoin(String condition, double score) {}

    public record TableHit(String table, boolean legal, double score) {}

    public record ColumnHit(String table, String column, boolean legal, double score) {}

    public record JoinHit(String condition, boolean legal, double score) {}

    /** A name not in the schema, the nearest legal one, and their similarity. */
    public record Replacement(String written, String suggestion, double similarity) {}

    /**
     * @param path the joins of the shortest foreign-key path, empty when none connects the tables
     */
    public record JoinSuggestion(String table, String connectTo, List<String> path) {}
}
