package dev.ladder.pipeline.search;

import dev.ladder.inference.PromptFormat;
import dev.ladder.pipeline.prompt.PromptTemplates;
import dev.ladder.sql.Dialect;
import java.util.Map;

/**
 * The structured search's prompts, from its own resource folder ({@code dev/ladder/pipeline/search/}), each with the
 * pipeline's system instruction ({@code system.txt}: reply with one JSON object):
 * <ul>
 *   <li>{@code sketch.txt}: the schema and question; K diverse candidates with their entities and placeholders;</li>
 *   <li>{@code sketch-fix.txt}: the one repair attempt for a sketch reply that is not valid JSON;</li>
 *   <li>{@code repair.txt}: a candidate, its entities, the evidence, the allowed joins, its violations and what was
 *   already tried; a minimal edit back.</li>
 * </ul>
 */
public final class SearchPrompts {

    public static final String FOLDER = "dev/ladder/pipeline/search/";

    private SearchPrompts() {}

    public static String sketch(PromptFormat format, Dialect dialect, String schemaSummary, String question, int k) {
        return chat(format, "sketch", Map.of("dialect", dialect.label(), "schema", schemaSummary.stripTrailing(),
                "question", question.strip(), "k", Integer.toString(k)));
    }

    public static String sketchFix(PromptFormat format, String reply, String error) {
        return chat(format, "sketch-fix", Map.of("reply", reply.strip(), "error", error.strip()));
    }

    /** Every list argument is already one text (one item per line; {@code (none)} when empty). */
    public static String repair(PromptFormat format, Dialect dialect, String schemaSummary, String question, String sql,
                                String tables, String columns, String allowedJoins, String evidence,
                                String violations, String tried) {
        return chat(format, "repair", Map.ofEntries(
                Map.entry("dialect", dialect.label()), Map.entry("schema", schemaSummary.stripTrailing()),
                Map.entry("question", question.strip()), Map.entry("sql", sql.strip()), Map.entry("tables", tables),
                Map.entry("columns", columns), Map.entry("allowed_joins", allowedJoins),
                Map.entry("evidence", evidence), Map.entry("violations", violations), Map.entry("tried", tried)));
    }

    static String chat(PromptFormat format, String template, Map<String, String> values) {
        return PromptTemplates.chat(format, FOLDER, template, values);
    }
}
