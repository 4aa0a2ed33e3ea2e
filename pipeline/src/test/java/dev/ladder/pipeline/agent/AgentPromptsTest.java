package dev.ladder.pipeline.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.inference.text.CompletionFormat;
import dev.ladder.inference.text.PromptFormats;
import dev.ladder.pipeline.prompt.Example;
import dev.ladder.pipeline.prompt.PromptTemplates;
import dev.ladder.pipeline.prompt.SqlPrompt;
import dev.ladder.sql.db.SchemaRenderer;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.schema.Schema;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The tabular and repair prompts: exact text, placeholders, formats. */
class AgentPromptsTest {

    static final Schema SCHEMA = TestData.classicModels().schema();
    static final CompletionFormat PLAIN = new CompletionFormat("");

    @Test
    void tabularPromptListsTheSubsetAsTablesWithJoinHintsThenExemplarsAndQuestion() {
        List<Example> ex = List.of(new Example("e1", "How many offices are there?", "SELECT COUNT(*) FROM offices"));
        String p = AgentPrompts.tabular(PLAIN, SCHEMA, List.of("offices", "EMPLOYEES", "nope", "offices"),
                List.of("employees.officeCode = offices.officeCode"), ex, "  Who works in Paris? ");
        String system = PromptTemplates.load(SqlPrompt.SYSTEM).text();
        assertThat(p).isEqualTo(system + "\n\n" + """
                Tables relevant to the question, one column per row (key: PK primary key, -> foreign key):

                offices (7 rows)
                | column | type | key |
                |---|---|---|
                | officeCode | varchar(10) | PK |
                | city | varchar(50) | |
                | phone | varchar(50) | |
                | addressLine1 | varchar(50) | |
                | addressLine2 | varchar(50) | |
                | state | varchar(50) | |
                | country | varchar(50) | |
                | postalCode | varchar(15) | |
                | territory | varchar(10) | |

                employees (23 rows)
                | column | type | key |
                |---|---|---|
                | employeeNumber | int | PK |
                | lastName | varchar(50) | |
                | firstName | varchar(50) | |
                | extension | varchar(10) | |
                | email | varchar(100) | |
                | officeCode | varchar(10) | -> offices.officeCode |
                | reportsTo | int | -> employees.employeeNumber |
                | jobTitle | varchar(50) | |

                How these tables join:
                employees.officeCode = offices.officeCode

                Examples of questions about this database and their SQL:

                Question: How many offices are there?
                SQL: SELECT COUNT(*) FROM offices

                Question: Who works in Paris?
                SQL:""");
    }

    @Test
    void tabularPromptWithoutKnownTablesListsAllAndSaysNoJoins() {
        String p = AgentPrompts.tabular(PLAIN, SCHEMA, List.of(), List.of(), List.of(), "q?");
        for (var t : SCHEMA.tables()) assertThat(p).contains("\n" + t.name() + " (" + t.rowCount() + " rows)\n");
        assertThat(p).contains("How these tables join:\n(one table: no joins)\n\nQuestion: q?\nSQL:");
    }

    @Test
    void repairPromptHoldsSchemaQuestionSqlAndError() {
        String p = AgentPrompts.repair(PromptFormats.byName("llama3-chat"), SchemaRenderer.summary(SCHEMA),
                "How many customers?", "SELECT COUNT(*) FROM customerz\n", "UNKNOWN_TABLE: Table 'customerz' doesn't exist");
        assertThat(p).startsWith("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n")
                .endsWith("Write a corrected MySQL SELECT statement that answers the question.\nSQL:<|eot_id|>"
                        + "<|start_header_id|>assistant<|end_header_id|>\n\n");
        assertThat(p).contains("Database tables (PK marks a primary key column, -> a foreign key):\ncustomers(")
                .contains("\n\nQuestion: How many customers?\n\nThis SQL was written for the question, but it cannot be used:\n"
                        + "SELECT COUNT(*) FROM customerz\n\nError: UNKNOWN_TABLE: Table 'customerz' doesn't exist\n\n");
    }
}
