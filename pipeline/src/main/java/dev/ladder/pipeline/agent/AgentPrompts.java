package dev.ladder.pipeline.agent;

import dev.ladder.inference.ChatMessage;
import dev.ladder.inference.PromptFormat;
import dev.ladder.pipeline.prompt.Example;
import dev.ladder.pipeline.prompt.PromptTemplate;
import dev.ladder.pipeline.prompt.PromptTemplates;
import dev.ladder.pipeline.prompt.SqlPrompt;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The agent's two extra prompts, both with the standard system instruction ({@code system.txt}):
 *
 * <ul>
 *   <li><b>tabular</b> ({@code user-tabular.txt}): the question's schema subset (the tables {@code SchemaSubset}
 *   picks; every table when the schema subset is off), each table as a small table of its columns with type and key,
 *   then the join hints, then the same exemplar block and question as the standard prompt;</li>
 *   <li><b>repair</b> ({@code repair.txt}): the full schema summary, the question, the failed SQL and the error.</li>
 * </ul>
 */
public final class AgentPrompts {

    public static final String TABULAR = "user-tabular";
    public static final String REPAIR = "repair";

    private AgentPrompts() {}

    /**
     * @param tables     the subset's table names (an unknown name is skipped; none known means every table)
     * @param joinHints  the subset's join hints, one per line
     */
    public static String tabular(PromptFormat format, Schema schema, List<String> tables, List<String> joinHints,
                                 List<Example> exemplars, String question) {
        SqlPrompt standard = SqlPrompt.of(format);
        PromptTemplate user = PromptTemplates.load(TABULAR);
        String text = user.fill(Map.of(
                "tables", tableListing(schema, tables),
                "joins", joinHints.isEmpty() ? "(one table: no joins)" : String.join("\n", joinHints),
                "exemplars", standard.exemplarBlock(exemplars),
                "question", question.strip()));
        return format.format(List.of(ChatMessage.system(PromptTemplates.load(SqlPrompt.SYSTEM).text()),
                ChatMessage.user(text)));
    }

    /** The repair prompt for a failed SQL text and the reason it failed. */
    public static String repair(PromptFormat format, String schemaSummary, String question, String failedSql,
                                String error) {
        String text = PromptTemplates.load(REPAIR).fill(Map.of(
                "schema", schemaSummary.stripTrailing(),
                "question", question.strip(),
                "sql", failedSql.strip(),
                "error", error.strip()));
        return format.format(List.of(ChatMessage.system(PromptTemplates.load(SqlPrompt.SYSTEM).text()),
                ChatMessage.user(text)));
    }

    /**
     * Each table as a heading line ({@code name (N rows)}) and a pipe table of column, type and key, tables separated
     * by a blank line. Keys: {@code PK}, {@code -> table.column} for a single-column foreign key.
     */
    static String tableListing(Schema schema, List<String> names) {
        List<Table> chosen = new ArrayList<>();
        for (String n : names) schema.table(n).filter(t -> !chosen.contains(t)).ifPresent(chosen::add);
        if (chosen.isEmpty()) chosen.addAll(schema.tables());
        List<String> blocks = new ArrayList<>();
        for (Table t : chosen) {
            StringBuilder sb = new StringBuilder();
            sb.append(t.name()).append(" (").append(t.rowCount()).append(t.rowCount() == 1 ? " row" : " rows").append(")\n");
            sb.append("| column | type | key |\n|---|---|---|");
            for (Column c : t.columns()) {
                List<String> keys = new ArrayList<>();
                if (t.primaryKey().contains(c.name())) keys.add("PK");
                for (ForeignKey fk : schema.foreignKeysOf(t.name())) {
                    if (fk.columns().size() == 1 && fk.columns().get(0).equals(c.name())) {
                        keys.add("-> " + fk.referencedTable() + "." + fk.referencedColumns().get(0));
                    }
                }
                sb.append("\n| ").append(c.name()).append(" | ").append(c.type()).append(" | ")
                        .append(String.join(", ", keys)).append(keys.isEmpty() ? "|" : " |");
            }
            blocks.add(sb.toString());
        }
        return String.join("\n\n", blocks);
    }
}
