package dev.ladder.pipeline.soft;

import dev.ladder.inference.PromptFormat;
import dev.ladder.pipeline.prompt.Example;
import dev.ladder.pipeline.prompt.PromptTemplates;
import dev.ladder.sql.Dialect;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Stage 3: the soft mask in the prompt, two ways, each switchable: an inline {@code -- attention: w} comment on every
 * table and column of a {@code CREATE TABLE} rendering, and a standalone {@code ### Schema attention weights} block
 * (every table, and the columns whose weight rose above the unmatched baseline). With both off the prompt is the
 * plain {@code CREATE TABLE} rendering: the weights-off ablation.
 */
final class AttentionPrompt {

    static final String FOLDER = "dev/ladder/pipeline/soft/";
    static final String BLOCK_HEADING = "### Schema attention weights";

    private AttentionPrompt() {}

    /**
     * {@code CREATE TABLE} statements; with {@code weights}, each line ends in its element's attention comment.
     * Rendered for each prompt (cheap), so nothing is kept between questions or runs.
     */
    static String schema(Schema schema, AttentionWeights.Weights weights) {
        return render(schema, weights);
    }

    private static String render(Schema schema, AttentionWeights.Weights weights) {
        StringBuilder sb = new StringBuilder();
        for (Table t : schema.tables()) {
            sb.append("CREATE TABLE ").append(t.name()).append(" (").append(comment(weights, t.name(), null)).append('\n');
            List<String> lines = new ArrayList<>();
            List<String> comments = new ArrayList<>();
            for (Column c : t.columns()) {
                lines.add("  " + c.name() + " " + c.type() + (c.nullable() ? "" : " NOT NULL"));
                comments.add(comment(weights, t.name(), c.name()));
            }
            if (!t.primaryKey().isEmpty()) {
                lines.add("  PRIMARY KEY (" + String.join(", ", t.primaryKey()) + ")");
                comments.add("");
            }
            for (ForeignKey fk : schema.foreignKeysOf(t.name())) {
                lines.add("  FOREIGN KEY (" + String.join(", ", fk.columns()) + ") REFERENCES " + fk.referencedTable()
                        + " (" + String.join(", ", fk.referencedColumns()) + ")");
                comments.add("");
            }
            for (int i = 0; i < lines.size(); i++) {
                sb.append(lines.get(i)).append(i + 1 < lines.size() ? "," : "").append(comments.get(i)).append('\n');
            }
            sb.append(");\n");
        }
        return sb.toString();
    }

    private static String comment(AttentionWeights.Weights w, String table, String column) {
        return w == null ? "" : " -- attention: " + fmt(w.of(table, column));
    }

    /** The standalone block: every table's weight, then the columns above the lowest column weight, by weight. */
    static String block(AttentionWeights.Weights w) {
        List<String> lines = new ArrayList<>();
        lines.add(BLOCK_HEADING);
        double floor = w.weights().entrySet().stream().filter(e -> e.getKey().column() != null)
                .mapToDouble(Map.Entry::getValue).min().orElse(0);
        w.weights().forEach((k, v) -> {
            if (k.column() == null) lines.add(k + ": " + fmt(v));
        });
        w.weights().entrySet().stream().filter(e -> e.getKey().column() != null && e.getValue() > floor)
                .sorted((a, b) -> Double.compare(b.getValue(), a.getValue()))
                .forEach(e -> lines.add(e.getKey() + ": " + fmt(e.getValue())));
        lines.add("(other columns: " + fmt(floor) + ")");
        return String.join("\n", lines);
    }

    static String fmt(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    /**
     * The first attempt's prompt.
     *
     * @param weights null: no weights anywhere (both forms off)
     */
    static String generate(PromptFormat format, Dialect dialect, Schema schema, AttentionWeights.Weights weights,
                           SoftSettings s, Example exemplar, String question) {
        return chat(format, "generate", Map.of(
                "dialect", dialect.label(),
                "schema", schema(schema, s.inlineWeights() ? weights : null).stripTrailing(),
                "weights", weightsText(weights, s),
                "exemplar", exemplar == null ? "" : "\nExample question: " + exemplar.question().strip()
                        + "\nExample SQL:\n```sql\n" + exemplar.sql().strip() + "\n```\n",
                "question", question.strip(),
                "instruction", instruction(dialect, s)));
    }

    static String refine(PromptFormat format, Dialect dialect, Schema schema, AttentionWeights.Weights weights,
                         SoftSettings s, String question, String history, String feedback) {
        return chat(format, "refine", Map.of(
                "dialect", dialect.label(),
                "schema", schema(schema, s.inlineWeights() ? weights : null).stripTrailing(),
                "weights", weightsText(weights, s),
                "question", question.strip(), "history", history, "feedback", feedback,
                "instruction", instruction(dialect, s)));
    }

    private static String weightsText(AttentionWeights.Weights weights, SoftSettings s) {
        if (weights == null || (!s.inlineWeights() && !s.blockWeights())) return "";
        String note = PromptTemplates.load(FOLDER, "weights-note").text();
        return "\n" + (s.blockWeights() ? block(weights) + "\n" : "") + note + "\n";
    }

    private static String instruction(Dialect d, SoftSettings s) {
        return PromptTemplates.load(FOLDER, s.chainOfThought() ? "instruction-reasoning" : "instruction-direct")
                .fill(Map.of("dialect", d.label()));
    }


    static String chat(PromptFormat format, String template, Map<String, String> values) {
        return PromptTemplates.chat(format, FOLDER, template, values);
    }
}
