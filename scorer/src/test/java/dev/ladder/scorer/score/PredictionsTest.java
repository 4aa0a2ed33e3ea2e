package dev.ladder.scorer.score;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PredictionsTest {

    @TempDir Path dir;

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void readsJsonlPredictionsInOrderWithEmptyOnes() throws IOException {
        Path f = write("p.jsonl", "{\"id\":\"a\",\"sql\":\"SELECT 1\"}\n\n{\"id\":\"b\",\"sql\":null}\n{\"id\":7,\"sql\":\"\"}\n");
        assertThat(Predictions.readJsonl(f)).containsExactly(
                java.util.Map.entry("a", "SELECT 1"), java.util.Map.entry("b", ""), java.util.Map.entry("7", ""));
    }

    @Test
    void badJsonlLinesNameFileAndLine() throws IOException {
        Path broken = write("broken.jsonl", "{\"id\":\"a\",\"sql\":\"x\"}\n{\"id\": oops}\n");
        assertThatThrownBy(() -> Predictions.readJsonl(broken)).isInstanceOf(UserError.class)
                .hasMessageStartingWith(broken + ":2: not a JSON object");
        Path dup = write("dup.jsonl", "{\"id\":\"a\",\"sql\":\"x\"}\n{\"id\":\"a\",\"sql\":\"y\"}\n");
        assertThatThrownBy(() -> Predictions.readJsonl(dup)).hasMessage(dup + ":2: duplicate id 'a'");
        Path noId = write("noid.jsonl", "{\"sql\":\"x\"}\n");
        assertThatThrownBy(() -> Predictions.readJsonl(noId)).hasMessage(noId + ":1: missing \"id\"");
        Path array = write("arr.jsonl", "[1,2]\n");
        assertThatThrownBy(() -> Predictions.readJsonl(array)).hasMessage(array + ":1: not a JSON object");
        assertThatThrownBy(() -> Predictions.readJsonl(dir.resolve("absent.jsonl"))).hasMessage("no such file: " + dir.resolve("absent.jsonl"));
    }

    @Test
    void readsSpiderGoldAndPredictionFiles() throws IOException {
        Path gold = write("gold.txt", "SELECT name FROM t WHERE x = 'a\tb'\tdb1\n\nSELECT 1\tdb2\n");
        assertThat(Predictions.readGold(gold)).containsExactly(
                new Predictions.GoldLine("SELECT name FROM t WHERE x = 'a\tb'", "db1", 1), new Predictions.GoldLine("SELECT 1", "db2", 3));
        Path pred = write("pred.txt", "SELECT 1\n\nSELECT 2\n\n");
        assertThat(Predictions.readSqlLines(pred)).isEqualTo(List.of("SELECT 1", "", "SELECT 2"));
        Path bad = write("bad.txt", "SELECT 1\n");
        assertThatThrownBy(() -> Predictions.readGold(bad)).hasMessage(bad + ":1: expected 'SQL<TAB>db_id'");
    }

    @Test
    void aLineWithoutSqlIsAnErrorNotAnEmptyPrediction() throws IOException {
        Path f = write("nosql.jsonl", "{\"id\":\"a\",\"sql\":\"SELECT 1\"}\n{\"id\":\"b\",\"query\":\"SELECT 2\"}\n");
        assertThatThrownBy(() -> Predictions.readJsonl(f)).isInstanceOf(UserError.class)
                .hasMessageStartingWith(f + ":2: missing \"sql\"");
    }

    @Test
    void emptyFilesAreErrorsNamingTheFile() throws IOException {
        for (String text : List.of("", "\n\n", "  \n")) {
            Path jsonl = write("empty.jsonl", text);
            assertThatThrownBy(() -> Predictions.readJsonl(jsonl)).isInstanceOf(UserError.class)
                    .hasMessage(jsonl + ": no predictions (the file is empty)");
            Path sql = write("empty.txt", text);
            assertThatThrownBy(() -> Predictions.readSqlLines(sql)).hasMessage(sql + ": no predictions (the file is empty)");
            Path gold = write("gold.txt", text);
            assertThatThrownBy(() -> Predictions.readGold(gold)).hasMessage(gold + ": no gold queries (the file is empty)");
        }
    }
}
