package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.ladder.scorer.SqliteFixtures;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ladder run} on an imported benchmark whose gold cannot be read: one line before anything is made. */
class RunUnreadableGoldTest {

    @TempDir Path tmp;

    /** The oracle answering prompt-k0 on the garden benchmark: every answer is its item's gold. */
    private Path oracleRun(Path bench, Path db, Path out) throws Exception {
        return Files.writeString(tmp.resolve("garden.yaml"), """
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
    }

    @Test
    void anUnreadableGoldIsOneLineBeforeTheRunDirectoryIsMade() throws Exception {
        Path db = SqliteFixtures.create(tmp.resolve("garden.sqlite"), "CREATE TABLE plant (name TEXT, height INTEGER)",
                "INSERT INTO plant VALUES ('fern', 30), ('oak', 900)");
        Path bench = Files.writeString(tmp.resolve("garden.json"), """
                [{"question": "How many plants are there?", "sql": "SELECT COUNT(*) FROM plant"},
                 {"question": "Which plants are tall?", "sql": "SELECT name FROM plant WHERE height >"}]
                """);
        Path out = tmp.resolve("run");
        Path yaml = oracleRun(bench, db, out);

        LadderCliTest.Run r = LadderCliTest.run("run", yaml.toString(), "--no-progress", "--no-generation-cache");

        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).contains("garden garden item garden-2: gold cannot be read").hasLineCount(1);
        assertThat(out).doesNotExist();
    }

    @Test
    void aGoldThatFailsOnTheDatabaseIsLeftOutOfEveryMetricAndCounted() throws Exception {
        Path db = SqliteFixtures.create(tmp.resolve("garden.sqlite"), "CREATE TABLE plant (name TEXT, height INTEGER, planted DATE)",
                "INSERT INTO plant VALUES ('fern', 30, '2020-04-01'), ('oak', 900, NULL), ('ivy', NULL, '2021-05-02')");
        // the third gold reads a table the database lacks: EM reads it, the database refuses it
        Path bench = Files.writeString(tmp.resolve("garden.json"), """
                [{"question": "How many plants are there?", "sql": "SELECT COUNT(*) FROM plant"},
                 {"question": "Which plants have no height?", "sql": "SELECT name FROM plant WHERE height IS NULL"},
                 {"question": "Which plants were moved?", "sql": "SELECT name FROM moved_plant"},
                 {"question": "Which plants were planted before 2021?", "sql": "SELECT name FROM plant WHERE planted < '2021-01-01'"}]
                """);
        Path out = tmp.resolve("run");
        Path yaml = oracleRun(bench, db, out);

        LadderCliTest.Run r = LadderCliTest.run("run", yaml.toString(), "--no-progress", "--no-generation-cache");

        assertThat(r.code()).as(r.err()).isZero();
        String report = Files.readString(out.resolve("report/report.md"));
        // 3 scored items, all right: the oracle wrote every gold, and the one that cannot run is not the model's error
        assertThat(report).contains("n = 4, of which 1 item's gold could not be run (0 timed out, 1 failed) and is left"
                + " out of every metric");
        assertThat(Files.readString(out.resolve("report/summary.csv"))).containsPattern("prompt-k0,3,1(\\.0+)?,");
        assertThat(Files.readString(out.resolve("report/outcomes.csv")))
                .contains("outcome,prompt-k0").contains("correct,3").contains("gold-error,1");
        try (ResultsStore store = ResultsStore.openReadOnly(out.resolve(RunDirectory.RESULTS))) {
            assertThat(store.results()).extracting(ItemResult::itemId, ItemResult::outcome)
                    .contains(tuple("garden-3", "gold-error"), tuple("garden-2", "correct"));
        }
    }
}
