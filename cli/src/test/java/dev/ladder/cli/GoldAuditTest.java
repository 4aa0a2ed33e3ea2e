package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.scorer.SqliteFixtures;
import dev.ladder.cli.LadderCliTest.Run;
import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.pipeline.kit.IntentClassifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ladder bench check}'s gold audit on an invented garden benchmark (NULLs, ties, dates): each kind of likely
 * wrong gold is flagged per item with its evidence, golds that look right are not, the majority check reads a finished
 * run's predictions, and a suspicion never fails the check nor changes a gold.
 */
class GoldAuditTest {

    @TempDir static Path dir;
    static Path db;
    static Path bench;

    static String item(String id, String question, String sql) {
        return "{\"id\":\"" + id + "\",\"question\":\"" + question + "\",\"sql\":\"" + sql
                + "\",\"category\":\"filter\",\"difficulty\":\"easy\"}";
    }

    @BeforeAll
    static void garden() throws Exception {
        db = SqliteFixtures.create(dir.resolve("garden.sqlite"),
                "CREATE TABLE plant (name TEXT, height INTEGER, note TEXT, planted DATE)",
                "INSERT INTO plant VALUES ('fern', 30, NULL, '2020-04-01'), ('oak', 900, NULL, '2021-05-02'),"
                        + " ('elm', 900, 'tall', '2021-06-03'), ('ivy', NULL, NULL, '2022-01-01')");
        bench = Files.write(dir.resolve("garden.jsonl"), List.of(
                item("g1", "How many plants are there?", "SELECT COUNT(*) FROM plant"),
                item("g2", "Which plants are taller than 5000?", "SELECT name FROM plant WHERE height > 5000"),
                item("g3", "What is the note of the fern?", "SELECT note FROM plant WHERE name = 'fern'"),
                item("g4", "List the plants planted before June 2020.", "SELECT name FROM plant WHERE planted < '2020-06-01'"),
                item("g5", "Which plant is the tallest?", "SELECT name FROM plant ORDER BY height DESC LIMIT 1"),
                item("g6", "What is the height of the oak?", "SELECT height FROM plant WHERE name = 'oak'"),
                item("g7", "Which plants have a known height?", "SELECT name FROM plant WHERE height > 100"),
                item("g8", "Which plant is the tallest, ties broken alphabetically?",
                        "SELECT name FROM plant ORDER BY height DESC LIMIT 1")));
    }

    @Test
    void eachKindOfLikelyWrongGoldIsFlaggedWithItsEvidence() {
        Run r = LadderCliTest.run("bench", "check", bench.toString(), "--db", db.toString());
        assertThat(r.err()).isEmpty();
        assertThat(r.out())
                .contains("? g2\t" + bench + ":2: likely wrong gold: empty result")
                .contains("? g3\t" + bench + ":3: likely wrong gold: every value is NULL (1 row)")
                .contains("? g4\t" + bench + ":4: likely wrong gold: one row, where the question asks for a list")
                .contains("? g5\t" + bench + ":5: likely wrong gold: the question does not say how to break ties (")
                .contains("? g8\t" + bench + ":8: likely wrong gold: the question says how to break ties, the ORDER BY does not (")
                .contains("gold audit: 5 gold(s) likely wrong (marked ?)");
        // a count, a singular lookup and a gold no run contradicts are not suspected
        assertThat(r.out()).doesNotContain("? g1\t").doesNotContain("? g6\t").doesNotContain("? g7\t");
        // the audit is a suspicion: the gold file is as it was
        assertThat(r.out()).contains("likely wrong gold");
    }

    @Test
    void aGoldThatAMajorityOfARunsDistinctPredictionsDisagreesWithIsFlagged() throws Exception {
        Path run = dir.resolve("run");
        RunDirectory d = RunDirectory.create(run);
        // four rungs: three distinct predictions agree on the plants with a height; one agrees with the gold
        Map<String, String> predicted = Map.of(
                "prompt-k0", "SELECT name FROM plant WHERE height IS NOT NULL",
                "prompt-k3", "SELECT name FROM plant WHERE NOT height IS NULL",
                "agent-1", "SELECT p.name FROM plant AS p WHERE p.height IS NOT NULL",
                "agent-3", "SELECT name FROM plant WHERE height > 100");
        try (ResultsStore s = d.openResults()) {
            int index = 0;
            for (String cell : List.of("prompt-k0", "prompt-k3", "agent-1", "agent-3")) {
                s.putCell(new Cell(index++, cell, "m", "", cell, 0));
                for (String id : List.of("g1", "g7")) {
                    String sql = id.equals("g1") ? "SELECT COUNT(name) FROM plant" : predicted.get(cell);
                    s.put(new ItemResult(cell, id, "filter", "easy", "q", "SELECT 1", sql, true, false, false, null, null,
                            "other", "standard", 1, 1, 1, 1, 0, 0, 0), id.equals("g1") ? 0 : 1, "{}");
                }
            }
        }
        Run r = LadderCliTest.run("bench", "check", bench.toString(), "--db", db.toString(), "--run", run.toString());
        assertThat(r.err()).isEmpty();
        assertThat(r.out()).contains("? g7\t" + bench + ":7: likely wrong gold: 3 of the run's 4 distinct executing"
                + " predictions agree with each other and not with the gold (e.g. SELECT name FROM plant WHERE height IS NOT NULL)");
        // four rungs writing one count that agrees with the gold: nothing to suspect
        assertThat(r.out()).doesNotContain("? g1\t");

        Run notARun = LadderCliTest.run("bench", "check", bench.toString(), "--db", db.toString(), "--run", dir.toString());
        assertThat(notARun.code()).isEqualTo(2);
        assertThat(notARun.err().strip()).isEqualTo("ladder: --run " + dir + ": not a run directory (no results.sqlite there)");
    }

    @Test
    void listQuestionsAreReadFromTheirOpening() {
        assertThat(IntentClassifier.asksForList("List the products with a price above 50.")).isTrue();
        assertThat(IntentClassifier.asksForList("Which employees report to the president?")).isTrue();
        assertThat(IntentClassifier.asksForList("What are the names of the offices in Japan?")).isTrue();
        assertThat(IntentClassifier.asksForList("Who are the sales reps in Paris?")).isTrue();
        assertThat(IntentClassifier.asksForList("Which customer placed the most orders?")).isFalse();
        // an -s word before an article is the verb, not a plural noun
        assertThat(IntentClassifier.asksForList("Which vendor supplies the cheapest bolts? Give its name.")).isFalse();
        assertThat(IntentClassifier.asksForList("Which product lines have more than ten products?")).isTrue();
        // a noun before "that" stays the head: no limit of one row is read into a list question
        assertThat(IntentClassifier.classify("List the plant names that have the greatest height").limitN()).isNull();
        assertThat(IntentClassifier.asksForList("List the plant names that have the greatest height")).isTrue();
        assertThat(IntentClassifier.asksForList("How many orders were shipped?")).isFalse();
        assertThat(IntentClassifier.asksForList("What is the opening time of the main gate?")).isFalse();
        assertThat(IntentClassifier.asksForList("Which product line has the highest average price?")).isFalse();
    }
}
