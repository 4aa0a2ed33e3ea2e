package dev.ladder.pipeline.strategy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonReplyTest {

    @Test
    void aRawLineBreakInsideAStringReadsAsOne() {
        JsonReply.Parsed p = JsonReply.parse("```json\n{\"sql\": \"SELECT a\nFROM t\twhere x = 1\"}\n```");
        assertThat(p.ok()).as(p.error()).isTrue();
        assertThat(JsonReply.text(p.object(), "sql")).isEqualTo("SELECT a\nFROM t\twhere x = 1");
    }

    @Test
    void whatStaysStrict() {
        assertThat(JsonReply.parse("{\"a\": 1,}").ok()).isFalse();
        assertThat(JsonReply.parse("{'a': 1}").ok()).isFalse();
        assertThat(JsonReply.parse("{\"a\": 1, \"a\": 2}").ok()).isFalse();
        assertThat(JsonReply.parse("{\"a\": [1, 2").error()).contains("not closed");
    }

    @Test
    void aCutReplyGivesTheElementsWrittenWhole() {
        String cut = "{\"candidates\": [{\"sql\": \"SELECT '}' FROM t\"}, \"a note {\", {\"sql\": \"SELECT 2\", \"tables\": [\"t\"]},"
                + " {\"sql\": \"SELECT 3 FR";
        List<JsonNode> whole = JsonReply.completeElements(cut, "candidates");
        assertThat(whole).extracting(n -> n.get("sql").asText()).containsExactly("SELECT '}' FROM t", "SELECT 2");
        assertThat(JsonReply.completeElements("{\"other\": [{\"a\": 1}", "candidates")).isEmpty();
        assertThat(JsonReply.completeElements("{\"candidates\": [{\"sql\": \"SEL", "candidates")).isEmpty();
    }
}
