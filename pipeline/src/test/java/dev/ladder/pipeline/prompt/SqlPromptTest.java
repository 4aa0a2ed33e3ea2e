package dev.ladder.pipeline.prompt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.inference.ChatMessage;
import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.text.CompletionFormat;
import dev.ladder.inference.text.PromptFormats;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The shared text-to-SQL prompt: templates by name, the k = 0 / k = 3 difference, answer turns per format. */
class SqlPromptTest {

    private static final String SCHEMA = "offices(officeCode varchar(10) PK, city varchar(50))\n"
            + "employees(employeeNumber int PK, officeCode varchar(10) -> offices.officeCode)\n";
    private static final List<Example> THREE = List.of(
            new Example("t1", "How many offices are there?", "SELECT COUNT(*) FROM offices"),
            new Example("t2", "List the office cities.", "SELECT city FROM offices"),
            new Example("t3", "Which employees work in Paris?",
                    "SELECT e.employeeNumber FROM employees e JOIN offices o ON o.officeCode = e.officeCode WHERE o.city = 'Paris'"));
    private static final String QUESTION = "How many employees are there?";

    @Test
    void templatesLoadByNameWithoutTheirFinalLineBreak() {
        PromptTemplate user = PromptTemplates.load("user");
        assertThat(user.placeholders()).containsExactly("schema", "exemplars", "question");
        assertThat(user.text()).endsWith("SQL:");
        assertThat(PromptTemplates.load("system").text()).contains("MySQL", "exactly one", "SELECT").doesNotEndWith("\n");
    }

    @Test
    void missingTemplateAndUnfilledOrUnknownPlaceholdersAreClearErrors() {
        assertThatThrownBy(() -> PromptTemplates.load("nope"))
                .hasMessageContaining("'nope'").hasMessageContaining("dev/ladder/pipeline/prompt/nope.txt");
        PromptTemplate t = new PromptTemplate("t", "a {{x}} b {{y}}");
        assertThatThrownBy(() -> t.fill(Map.of("x", "1"))).hasMessageContaining("'t'").hasMessageContaining("{{y}}");
        assertThatThrownBy(() -> t.fill(Map.of("x", "1", "y", "2", "z", "3"))).hasMessageContaining("{{z}}");
    }

    @Test
    void valuesAreInsertedOnceAndNeverRescanned() {
        PromptTemplate t = new PromptTemplate("t", "{{a}}|{{b}}");
        assertThat(t.fill(Map.of("a", "{{b}}", "b", "$1 \\n"))).isEqualTo("{{b}}|$1 \\n");
    }

    @Test
    void systemAndUserMessagesWithSchemaAndQuestion() {
        List<ChatMessage> m = SqlPrompt.of(PromptFormats.byName("llama3-chat")).messages(SCHEMA, List.of(), QUESTION);
        assertThat(m).extracting(ChatMessage::role).containsExactly(ChatMessage.Role.SYSTEM, ChatMessage.Role.USER);
        assertThat(m.get(0).content()).isEqualTo(PromptTemplates.load("system").text());
        assertThat(m.get(1).content())
                .contains(SCHEMA.strip() + "\n\nQuestion: " + QUESTION + "\nSQL:")
                .endsWith("SQL:")
                .doesNotContain("{{");
    }

    @Test
    void kZeroAndKThreeDifferOnlyInTheExemplarBlock() {
        SqlPrompt p = SqlPrompt.of(PromptFormats.byName("llama3-chat"));
        String k0 = p.messages(SCHEMA, List.of(), QUESTION).get(1).content();
        String k3 = p.messages(SCHEMA, THREE, QUESTION).get(1).content();
        String block = p.exemplarBlock(THREE);
        int at = k0.indexOf("Question: " + QUESTION);
        assertThat(k3).isEqualTo(k0.substring(0, at) + block + k0.substring(at));
        assertThat(block).startsWith(PromptTemplates.load("exemplars").text().replace("{{examples}}", "").strip())
                .contains("Question: List the office cities.\nSQL: SELECT city FROM offices\n\nQuestion: Which")
                .endsWith("o.city = 'Paris'\n\n");
        assertThat(p.messages(SCHEMA, List.of(), QUESTION).get(0)).isEqualTo(p.messages(SCHEMA, THREE, QUESTION).get(0));
    }

    @Test
    void llama3PromptPlusAnswerIsTheWholeConversationInMetasTemplate() {
        PromptFormat f = PromptFormats.byName("llama3-chat");
        SqlPrompt p = SqlPrompt.of(f);
        String sql = "SELECT COUNT(*) FROM employees";
        List<ChatMessage> conversation = new ArrayList<>(p.messages(SCHEMA, THREE, QUESTION));
        conversation.add(ChatMessage.assistant(sql));
        String whole = f.format(conversation); // ends with the header of a next assistant turn
        String next = "<|start_header_id|>assistant<|end_header_id|>\n\n";
        assertThat(p.prompt(SCHEMA, THREE, QUESTION) + p.answerTurn(sql)).isEqualTo(whole.substring(0, whole.length() - next.length()));
        assertThat(p.answerTurn(sql)).isEqualTo(sql + "<|eot_id|>");
    }

    @Test
    void answerTurnPerFormat() {
        String sql = "  SELECT 1 \n";
        assertThat(SqlPrompt.of(PromptFormats.byName("chatml")).answerTurn(sql)).isEqualTo("SELECT 1<|im_end|>");
        assertThat(SqlPrompt.of(PromptFormats.byName("completion")).answerTurn(sql)).isEqualTo(" SELECT 1<|end_of_text|>");
        assertThat(SqlPrompt.of(new CompletionFormat("")).answerTurn(sql)).isEqualTo(" SELECT 1");
        SqlPrompt chatml = SqlPrompt.of(PromptFormats.byName("chatml"));
        assertThat(chatml.prompt(SCHEMA, List.of(), QUESTION)).startsWith("<|im_start|>system\nYou write SQL")
                .endsWith("SQL:<|im_end|>\n<|im_start|>assistant\n");
        SqlPrompt completion = SqlPrompt.of(PromptFormats.byName("completion"));
        assertThat(completion.prompt(SCHEMA, List.of(), QUESTION)).startsWith("<|begin_of_text|>You write SQL")
                .contains("listed.\n\nDatabase tables").endsWith("Question: " + QUESTION + "\nSQL:");
        SqlPrompt.Training t = completion.training(SCHEMA, List.of(), QUESTION, sql);
        assertThat(t.prompt()).isEqualTo(completion.prompt(SCHEMA, List.of(), QUESTION));
        assertThat(t.completion()).isEqualTo(completion.answerTurn(sql));
    }
}
