package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.scorer.SqliteFixtures;
import dev.ladder.scorer.TimingOutDatabase;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.eval.experiment.Cell;
import dev.ladder.scorer.score.ErrorTaxonomy;
import dev.ladder.scorer.score.ExOptions;
import dev.ladder.scorer.score.ItemOutcome;
import dev.ladder.scorer.score.Scoring;
import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Trace;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every row a run stores says what happened, the failures apart: a real SQLite database with NULLs, dates and ties
 * scores each kind of answer, and the outcome survives the results store. Timeouts come from a wrapper that times out
 * the statements marked {@code /*slow*}{@code /}, as a loaded machine would (the thing around the scorer under test).
 */
class OutcomeRowsTest {

    @TempDir static Path tmp;
    static Database db;
    static RowScorer scorer;

    @BeforeAll
    static void database() throws Exception {
        Path file = SqliteFixtures.create(tmp.resolve("visits.sqlite"),
                "CREATE TABLE visit (id INTEGER PRIMARY KEY, name TEXT, city TEXT, visited DATE, spend REAL)",
                "INSERT INTO visit VALUES (1, 'Ana', 'Lyon', '2021-03-01', 10.5), (2, 'Ben', NULL, '2021-03-01', 10.5),"
                        + " (3, 'Cal', 'Oslo', '2022-07-15', NULL), (4, 'Dee', NULL, '2023-01-09', 3.0)");
        db = new TimingOutDatabase(Databases.sqlite(file), sql -> sql.contains("/*slow*/"));
        Scoring scoring = new Scoring(db, Optional.empty(), ExOptions.DEFAULT, new ExactMatch(db.schema(), false));
        scorer = new RowScorer(scoring, null, new ErrorTaxonomy(db.schema()));
    }

    @AfterAll
    static void close() {
        db.close();
    }

    static ItemResult row(String gold, String predicted) {
        BenchmarkItem item = new BenchmarkItem("v1", "Which visitors have no city?", gold, "null-handling", "easy", false,
                List.of(), null, null);
        Answer answer = new Answer(predicted, new Trace.Builder("v1", "prompt-k0").build(predicted, "standard", "test"));
        return scorer.row(new Cell(0, "prompt-k0", "m", "", "prompt-k0", 0), item, answer,
                new CallCounter.Snapshot(1, 0, 1));
    }

    static final String GOLD = "SELECT name FROM visit WHERE city IS NULL";

    @Test
    void eachKindOfAnswerHasItsOwnOutcome() {
        assertThat(row(GOLD, "SELECT name FROM visit WHERE city IS NULL ORDER BY id").outcome()).isEqualTo(ItemOutcome.CORRECT);
        assertThat(row(GOLD, "SELECT name FROM visit WHERE spend = 10.5").outcome()).isEqualTo(ItemOutcome.MISMATCH);
        assertThat(row(GOLD, "SELECT name FROM visit WHERE visited > '2099-01-01'").outcome()).isEqualTo(ItemOutcome.EMPTY_RESULT);
        assertThat(row(GOLD, "").outcome()).isEqualTo(ItemOutcome.NO_SQL);
        assertThat(row(GOLD, "SELEC name FROM visit").outcome()).isEqualTo("pred-error:syntax");
        assertThat(row(GOLD, "SELECT nme FROM visit").outcome()).isEqualTo("pred-error:unknown-column");
        assertThat(row(GOLD, "SELECT name FROM visitor").outcome()).isEqualTo("pred-error:unknown-table");
        assertThat(row(GOLD, "DELETE FROM visit").outcome()).isEqualTo("pred-error:rejected");
        assertThat(row(GOLD, "SELECT name /*slow*/ FROM visit").outcome()).isEqualTo(ItemOutcome.PRED_TIMEOUT);
        // an empty gold answered with rows is a mismatch, not an empty result; both empty is right
        String none = "SELECT name FROM visit WHERE visited < '2000-01-01'";
        assertThat(row(none, "SELECT name FROM visit").outcome()).isEqualTo(ItemOutcome.MISMATCH);
        assertThat(row(none, "SELECT name FROM visit WHERE spend > 100").outcome()).isEqualTo(ItemOutcome.CORRECT);
    }

    @Test
    void aGoldThatCannotRunIsTheBenchmarksFailureNotTheModels() {
        ItemResult error = row("SELECT name FROM visit_archive", "SELECT name FROM visit");
        assertThat(error.outcome()).isEqualTo(ItemOutcome.GOLD_ERROR);
        assertThat(error.goldFailed()).isTrue();
        ItemResult slow = row("SELECT name /*slow*/ FROM visit WHERE city IS NULL", "SELECT name FROM visit WHERE city IS NULL");
        assertThat(slow.outcome()).isEqualTo(ItemOutcome.GOLD_TIMEOUT);
        assertThat(slow.goldFailed()).isTrue();
        // whatever the prediction did, the gold's failure decides: the item cannot be scored
        assertThat(row("SELECT name FROM visit_archive", "SELEC 1").outcome()).isEqualTo(ItemOutcome.GOLD_ERROR);
    }

    @Test
    void aGoldThatFailsWhereAnAlternativeRunsIsScoredAgainstTheAlternativeForEveryAnswer() {
        BenchmarkItem item = new BenchmarkItem("v2", "Which visitors have no city?", "SELECT name FROM visit_archive",
                "null-handling", "easy", false, List.of(GOLD), null, null);
        Cell cell = new Cell(0, "prompt-k0", "m", "", "prompt-k0", 0);
        // right and wrong answers alike are scored: leaving out only the wrong ones would raise EX
        for (String predicted : List.of(GOLD, "SELECT name FROM visit")) {
            Answer answer = new Answer(predicted, new Trace.Builder("v2", "prompt-k0").build(predicted, "standard", "test"));
            String outcome = scorer.row(cell, item, answer, new CallCounter.Snapshot(1, 0, 1)).outcome();
            assertThat(outcome).isEqualTo(predicted.equals(GOLD) ? ItemOutcome.CORRECT : ItemOutcome.MISMATCH);
        }
    }

    @Test
    void theOutcomeSurvivesTheStoreAndOlderRowsAreDerived() {
        Path file = tmp.resolve("results.sqlite");
        List<ItemResult> rows = List.of(row(GOLD, "SELECT name FROM visit WHERE visited > '2099-01-01'"),
                row("SELECT name FROM visit_archive", "SELECT name FROM visit"));
        try (ResultsStore store = ResultsStore.open(file)) {
            store.putCell(new Cell(0, "prompt-k0", "m", "", "prompt-k0", 0));
            store.put(rows.get(0), 0, "{}");
            store.put(new ItemResult("prompt-k0", "v2", "x", "easy", "q", "SELECT 1", "SELECT nme FROM visit",
                    "UNKNOWN_COLUMN: no such column: nme", "not-executable", "standard", 1, 1, 1, 1, 0, 0, 0, 1, 0, null,
                    Map.of(), 1), 1, "{}");
        }
        try (ResultsStore store = ResultsStore.openReadOnly(file)) {
            assertThat(store.results()).extracting(ItemResult::outcome)
                    .containsExactly(ItemOutcome.EMPTY_RESULT, "pred-error:unknown-column");
        }
        // rows stored before outcomes were tell what their columns tell, and no more
        assertThat(ItemOutcome.derived("SELECT 1", null, false)).isEqualTo(ItemOutcome.NOT_SPLIT);
        assertThat(ItemOutcome.derived("SELECT 1", "TIMEOUT: statement timed out", false)).isEqualTo(ItemOutcome.PRED_TIMEOUT);
        assertThat(ItemOutcome.derived("", "no prediction", false)).isEqualTo(ItemOutcome.NO_SQL);
        assertThat(ItemOutcome.derived("SELECT 1", null, true)).isEqualTo(ItemOutcome.CORRECT);
    }
}
