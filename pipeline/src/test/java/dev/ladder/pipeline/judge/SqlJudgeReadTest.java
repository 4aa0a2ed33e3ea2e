package dev.ladder.pipeline.judge;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The verdict forms a chat model writes (Markdown emphasis, other separators) read as what they say. */
class SqlJudgeReadTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "CORRECT: YES\\nREASONING: the rows match | true",
            "**CORRECT**: YES\\n**REASONING**: it counts the right rows | true",
            "**CORRECT:** **No**\\nREASONING: wrong table | false",
            "Correct - yes. Reasoning: it filters the right year | true",
            "CORRECT = NO | false",
            "__Correct__: *YES* | true",
            "CORRECT: [NO] | false",
            "The answer. CORRECT:\\nYES | true"})
    void markdownAndOtherSeparatorsRead(String reply, boolean yes) {
        SqlJudge.Verdict v = SqlJudge.read(reply.replace("\\n", "\n"), "p", 0, 0);
        assertThat(v.correct()).as(reply).isEqualTo(yes);
    }

    @ParameterizedTest
    @ValueSource(strings = {"I think so.", "", "The query is INCORRECT", "CORRECTNESS: YES", "YES"})
    void aReplyWithoutAVerdictIsUnknownNotNo(String reply) {
        SqlJudge.Verdict v = SqlJudge.read(reply, "p", 0, 0);
        assertThat(v.correct()).as(reply).isNull();
        assertThat(v.yes()).isFalse();
    }
}
