package dev.ladder.cli;

import dev.ladder.scorer.SqliteFixtures;
import dev.ladder.cli.LadderCliTest.Run;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** 'ladder bench info|check' on every input format: plain JSONL pairs, Spider folders, plain JSON arrays. */
class BenchFormatsTest {

    @TempDir Path dir;

    private static Run run(String... args) {
        return LadderCliTest.run(args);
    }

    private static Path shop(Path db) throws IOException {
        return SqliteFixtures.create(db, "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price INTEGER)",
                "INSERT INTO item VALUES (1, 'pen', 5), (2, 'ink', 7)");
    }

    @Test
    void aJsonlFileOfNlqAndSqlPairsIsABenchmark() throws IOException {
        Path db = shop(dir.resolve("shop.sqlite"));
        Path file = Files.write(dir.resolve("train.jsonl"), List.of(
                "{\"nlq\": \"How many items are there?\", \"sql\": \"SELECT COUNT(*) FROM item\"}",
                "",
                "{\"question\": \"Names of items, cheapest first.\", \"sql\": \"SELECT name FROM item ORDER BY price\"}"));
        Run info = run("bench", "info", file.toString());
        assertThat(info.err()).isEmpty();
        assertThat(info.code()).isZero();
        assertThat(info.out()).contains("train: 2 items");

        Run check = run("bench", "check", file.toString(), "--db", db.toString());
        assertThat(check.err()).isEmpty();
        assertThat(check.out()).containsPattern("(?m)^  train-1\\timported\\teasy\\tOK 1 rows$")
                .containsPattern("(?m)^. train-3\\timported\\teasy\\tOK 2 rows$")
                .contains("items 2;");
    }

    @Test
    void evalScoresPredictionsForAPlainJsonlFile() throws IOException {
        Path db = shop(dir.resolve("shop.sqlite"));
        Path file = Files.write(dir.resolve("pairs.jsonl"), List.of(
                "{\"nlq\": \"How many items are there?\", \"sql\": \"SELECT COUNT(*) FROM item\"}",
                "{\"nlq\": \"Most expensive price?\", \"sql\": \"SELECT MAX(price) FROM item\"}"));
        Path pred = Files.write(dir.resolve("pred.jsonl"), List.of(
                "{\"id\": \"pairs-1\", \"sql\": \"SELECT COUNT(id) FROM item\"}",
                "{\"id\": \"pairs-2\", \"sql\": \"SELECT MIN(price) FROM item\"}"));
        Run r = run("eval", "--benchmark", file.toString(), "--split", "pairs", "--db", db.toString(),
                "--pred", pred.toString(), "--no-suite", "--json");
        assertThat(r.err()).isEmpty();
        assertThat(r.code()).isZero();
        com.fasterxml.jackson.databind.JsonNode items = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out()).get("items");
        assertThat(items.get(0).get("EX").asBoolean()).isTrue();
        assertThat(items.get(1).get("EX").asBoolean()).isFalse();
    }

    @Test
    void aPlainLineWithAnUnknownFieldIsOneLineError() throws IOException {
        Path file = Files.write(dir.resolve("odd.jsonl"), List.of("{\"nlq\": \"How many?\", \"sql\": \"SELECT 1\", \"hint\": \"x\"}"));
        Run r = run("bench", "info", file.toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).startsWith("ladder: " + file + ":1: unknown field 'hint'").hasLineCount(1);
    }

    @Test
    void checkReadsASpiderFolderAndAPlainJsonArray() throws IOException {
        Path spider = dir.resolve("spider");
        shop(spider.resolve("database/shop/shop.sqlite"));
        Files.writeString(spider.resolve("tables.json"), "[{\"db_id\":\"shop\"}]");
        Files.writeString(spider.resolve("dev.json"), """
                [{"db_id":"shop","question":"How many items are there?","query":"SELECT count(*) FROM item"},
                 {"db_id":"shop","question":"Price of the ink?","query":"SELECT nope FROM item"}]
                """);
        Run r = run("bench", "check", spider.toString());
        assertThat(r.err()).isEmpty();
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).containsPattern("(?m)^  dev-1\\timported\\teasy\\tOK 1 rows$")
                .containsPattern("(?m)^! dev-2\\timported\\teasy\\tFAIL ")
                .contains("1 item(s) with problems");

        Path db = shop(dir.resolve("plain.sqlite"));
        Path array = Files.writeString(dir.resolve("pairs.json"),
                "[{\"nlq\":\"How many items are there?\",\"sql\":\"SELECT COUNT(*) FROM item\"}]");
        Run plain = run("bench", "check", array.toString(), "--db", db.toString());
        assertThat(plain.err()).isEmpty();
        assertThat(plain.code()).isZero();
        assertThat(plain.out()).contains("all items ok");
    }

    @Test
    void aSpiderQuestionFileThatIsNotAnArrayIsNamedNotDropped() throws IOException {
        Path spider = dir.resolve("spider");
        shop(spider.resolve("database/shop/shop.sqlite"));
        Files.writeString(spider.resolve("tables.json"), "[{\"db_id\":\"shop\"}]");
        Files.writeString(spider.resolve("dev.json"), """
                [{"db_id":"shop","question":"How many items are there?","query":"SELECT count(*) FROM item"}]
                """);
        // a split written as one object instead of an array of them
        Path bad = Files.writeString(spider.resolve("test.json"), """
                {"db_id":"shop","question":"How many items are there?","query":"SELECT count(*) FROM item"}
                """);
        for (List<String> args : List.of(List.of("bench", "info", spider.toString()),
                List.of("eval", "--benchmark", spider.toString(), "--split", "test", "--pred", bad.toString()))) {
            Run r = run(args.toArray(String[]::new));
            assertThat(r.code()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", args)).startsWith("ladder: " + bad + ": not a JSON array")
                    .hasLineCount(1);
            assertThat(r.out()).isEmpty();
        }
    }
}
