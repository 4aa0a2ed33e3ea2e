package dev.ladder.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.eval.SqliteFixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ladder run} on an imported benchmark whose gold cannot be read: one line before anything is made. */
class RunUnreadableGoldTest {

    @TempDir Path tmp;

    @Test
    void anUnreadableGoldIsOneLineBeforeTheRunDirectoryIsMade() throws Exception {
        Path db = SqliteFixtures.create(tmp.resolve("garden.sqlite"), "CREATE TABLE plant (name TEXT, height INTEGER)",
                "INSERT INTO plant VALUES ('fern', 30), ('oak', 900)");
        Path bench = Files.writeString(tmp.resolve("garden.json"), """
                [{"question": "How many plants are there?", "sql": "SELECT COUNT(*) FROM plant"},
                 {"question": "Which plants are tall?", "sql": "SELECT name FROM plant WHERE height >"}]
                """);
        Path out = tmp.resolve("run");
        Path yaml = Files.writeString(tmp.resolve("garden.yaml"), """
                benchmark: %s
                split: garden
                database: %s
                output: %s
                seeds: [0]
                models:
                  oracle: {engine: oracle, noise: "none"}
                strategies:
                  - {name: prompt-k0, strategy: prompt-k0, model: oracle}
                scorers: {ts: none}
                """.formatted(bench, db, out));

        LadderCliTest.Run r = LadderCliTest.run("run", yaml.toString(), "--no-progress", "--no-generation-cache");

        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).contains("garden garden item garden-2: gold cannot be read").hasLineCount(1);
        assertThat(out).doesNotExist();
    }
}
