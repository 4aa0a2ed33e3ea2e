package dev.ladder.cli;

import dev.ladder.scorer.SqliteFixtures;
import dev.ladder.cli.LadderCliTest.Run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** 'ladder eval --gold' with bare db_ids resolved in a Spider database folder (--db-dir DIR/<db_id>/<db_id>.sqlite). */
class SpiderDbDirTest {

    @TempDir Path dir;

    private static Run run(String... args) {
        return LadderCliTest.run(args);
    }

    private static void sqlite(Path file, String... statements) throws IOException {
        SqliteFixtures.create(file, statements);
    }

    @Test
    void bareDbIdsResolveInTheSpiderLayout() throws IOException {
        Path databases = dir.resolve("database");
        sqlite(databases.resolve("shop/shop.sqlite"), "CREATE TABLE item (price INTEGER)", "INSERT INTO item VALUES (5), (7)");
        sqlite(databases.resolve("zoo/zoo.sqlite"), "CREATE TABLE animal (name TEXT)", "INSERT INTO animal VALUES ('yak')");
        Path gold = Files.write(dir.resolve("gold.txt"), List.of(
                "SELECT MAX(price) FROM item\tshop", "SELECT name FROM animal\tzoo", "SELECT COUNT(*) FROM item\tshop"));
        Path pred = Files.write(dir.resolve("pred.txt"), List.of(
                "SELECT price FROM item ORDER BY price DESC LIMIT 1", "SELECT name FROM animal", "SELECT 3"));
        Run r = run("eval", "--db-dir", databases.toString(), "--gold", gold.toString(), "--pred", pred.toString(),
                "--no-suite", "--json");
        assertThat(r.err()).isEmpty();
        assertThat(r.code()).isZero();
        JsonNode items = new ObjectMapper().readTree(r.out()).get("items");
        assertThat(items.get(0).get("EX").asBoolean()).isTrue();
        assertThat(items.get(1).get("EX").asBoolean()).isTrue();
        assertThat(items.get(2).get("EX").asBoolean()).isFalse();
    }

    @Test
    void anUnknownDbIdIsOneLineError() throws IOException {
        Path databases = Files.createDirectories(dir.resolve("database"));
        Path gold = Files.write(dir.resolve("gold.txt"), List.of("SELECT 1\tnowhere"));
        Path pred = Files.write(dir.resolve("pred.txt"), List.of("SELECT 1"));
        Run r = run("eval", "--db-dir", databases.toString(), "--gold", gold.toString(), "--pred", pred.toString(), "--no-suite");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).startsWith("ladder: database 'nowhere' not found: no ").contains("nowhere.sqlite").hasLineCount(1);
        assertThat(r.out()).isEmpty();
    }
}
