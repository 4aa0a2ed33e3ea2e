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

/** 'ladder bench check' on a SQLite database: a gold that is not a read-only query is a finding, not a crash. */
class BenchCheckTest {

    @TempDir Path dir;

    private static Run run(String... args) {
        return LadderCliTest.run(args);
    }

    private Path sqlite() throws IOException {
        return SqliteFixtures.create(dir.resolve("shop.sqlite"),
                "CREATE TABLE item (id INTEGER PRIMARY KEY, price INTEGER)", "INSERT INTO item VALUES (1, 5), (2, 7)");
    }

    private static String item(String id, String sql, String alternatives) {
        return "{\"id\":\"" + id + "\",\"question\":\"Question " + id + "?\",\"sql\":\"" + sql
                + "\",\"category\":\"aggregate\",\"difficulty\":\"easy\",\"alternatives\":[" + alternatives + "]}";
    }

    @Test
    void goldsThatAreNotReadOnlyQueriesAreReportedWithFileAndLine() throws IOException {
        Path db = sqlite();
        String deep = "SELECT " + "(".repeat(1_000) + "1" + ")".repeat(1_000);
        Path file = Files.write(dir.resolve("items.jsonl"), List.of(
                item("s-1", "SELECT COUNT(*) FROM item", ""),
                item("s-2", "DELETE FROM item", ""),
                item("s-3", deep, ""),
                item("s-4", "SELECT MAX(price) FROM item", "\"UPDATE item SET price = 0\"")));
        Run r = run("bench", "check", file.toString(), "--db", db.toString());
        assertThat(r.err()).isEmpty();
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).contains("! s-2\t" + file + ":2: gold refused by the SQL guard (not a read-only query: it starts with 'DELETE')")
                .contains("! s-3\t" + file + ":3: gold refused by the SQL guard (nested too deeply")
                .contains("! s-4\t" + file + ":4: gold refused by the SQL guard (not a read-only query: it starts with 'UPDATE')")
                .containsPattern("(?m)^. s-1\t")
                .contains("items 1;")
                .contains("3 item(s) with problems");
        // the files are still intact: bench check never ran the DELETE or UPDATE
        assertThat(run("sql", db.toString(), "SELECT COUNT(*) AS n FROM item WHERE price > 0").out()).contains("2");
    }
}
