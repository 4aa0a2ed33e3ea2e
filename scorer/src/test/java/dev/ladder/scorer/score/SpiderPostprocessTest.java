package dev.ladder.scorer.score;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.scorer.SqliteFixtures;
import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.sql.Dialect;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the test-suite evaluator does to the SQL text before it runs it, and its "order matters" test. */
class SpiderPostprocessTest {

    private static final ExOptions SPIDER = ExOptions.DEFAULT;

    @TempDir
    Path dir;

    @Test
    void spacedComparisonsAreJoinedOutsideLiterals() {
        assertThat(ExecutionMatch.prepare("SELECT x FROM t WHERE x > = 2 AND y < = 3 AND z ! = 4", SPIDER, Dialect.SQLITE))
                .isEqualTo("SELECT x FROM t WHERE x >= 2 AND y <= 3 AND z != 4");
        assertThat(ExecutionMatch.prepare("SELECT DISTINCT x FROM t WHERE x > = 2", SPIDER.withKeepDistinct(true), Dialect.MYSQL))
                .isEqualTo("SELECT DISTINCT x FROM t WHERE x >= 2");
        // a literal is data, and BIRD mode runs queries as written
        assertThat(ExecutionMatch.prepare("SELECT x FROM t WHERE s = 'a > = b'", SPIDER, Dialect.SQLITE))
                .isEqualTo("SELECT x FROM t WHERE s = 'a > = b'");
        assertThat(ExecutionMatch.prepare("SELECT x FROM t WHERE x > = 2", SPIDER.withMode(ExMode.BIRD), Dialect.SQLITE))
                .isEqualTo("SELECT x FROM t WHERE x > = 2");
    }

    @Test
    void aPredictionWithASpacedComparisonRunsAsTheReferenceRunsIt() throws Exception {
        Path file = dir.resolve("t.sqlite");
        SqliteFixtures.create(file, "CREATE TABLE t (x INTEGER)", "INSERT INTO t VALUES (1), (2), (3)");
        try (Database db = Databases.sqlite(file)) {
            Scoring s = new Scoring(db, Optional.empty(), SPIDER, new ExactMatch(db.schema(), false));
            ItemScore score = s.score("q", "filter", List.of("SELECT x FROM t WHERE x >= 2"), "SELECT x FROM t WHERE x > = 2");
            assertThat(score.ex()).isTrue();
            // as written it is not SQL: VA judges the prediction itself
            assertThat(score.va()).isFalse();
        }
    }

    @Test
    void orderMattersWhenTheGoldHasTheKeywordsOrderBy() {
        assertThat(ExecutionMatch.goldOrdered("SELECT x FROM t ORDER BY x", Dialect.SQLITE)).isTrue();
        // the reference's substring test ('order by' in gold.lower()) says no to these two, Ladder yes
        assertThat(ExecutionMatch.goldOrdered("SELECT x FROM t ORDER  BY x", Dialect.SQLITE)).isTrue();
        assertThat(ExecutionMatch.goldOrdered("SELECT x FROM t ORDER\nBY x", Dialect.SQLITE)).isTrue();
        // and yes to this one, Ladder no: the rows are not ordered
        assertThat(ExecutionMatch.goldOrdered("SELECT x FROM t WHERE s = 'sort order by date'", Dialect.SQLITE)).isFalse();
    }

    /** The reference replaces the text "value" by "1" in every prediction; Ladder scores the prediction as written. */
    @Test
    void theWordValueIsNeverReplaced() throws Exception {
        assertThat(ExecutionMatch.prepare("SELECT market_value FROM t WHERE note = 'value'", SPIDER, Dialect.SQLITE))
                .isEqualTo("SELECT market_value FROM t WHERE note = 'value'");
        Path file = dir.resolve("v.sqlite");
        SqliteFixtures.create(file, "CREATE TABLE t (note TEXT, market_value INTEGER)",
                "INSERT INTO t VALUES ('value', 10), ('1', 20)");
        try (Database db = Databases.sqlite(file)) {
            Scoring s = new Scoring(db, Optional.empty(), SPIDER, new ExactMatch(db.schema(), false));
            String gold = "SELECT market_value FROM t WHERE note = 'value'";
            ItemScore literal = s.score("q", "filter", List.of(gold), gold);
            assertThat(literal.ex()).as("the reference would run note = '1' and get 20").isTrue();
            assertThat(literal.em()).isTrue();
            // a placeholder "value" is an unknown column here, not the number 1
            ItemScore placeholder = s.score("q", "filter", List.of("SELECT market_value FROM t WHERE note = 1"),
                    "SELECT market_value FROM t WHERE note = value");
            assertThat(placeholder.va()).isFalse();
            assertThat(placeholder.ex()).isFalse();
            assertThat(placeholder.em()).isFalse();
        }
    }
}
