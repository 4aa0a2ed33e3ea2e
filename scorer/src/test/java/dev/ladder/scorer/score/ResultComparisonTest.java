package dev.ladder.scorer.score;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.db.QueryResult;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** EX comparison rules on hand-made results (values already canonical, as the database layer returns them). */
class ResultComparisonTest {

    private static final ExOptions SPIDER = ExOptions.DEFAULT;
    private static final ExOptions BIRD = ExOptions.DEFAULT.withMode(ExMode.BIRD);

    private static QueryResult result(int width, Object... values) {
        List<String> cols = new ArrayList<>();
        for (int i = 0; i < width; i++) cols.add("c" + i);
        List<List<Object>> rows = new ArrayList<>();
        for (int i = 0; i < values.length; i += width) rows.add(Arrays.asList(Arrays.copyOfRange(values, i, i + width)));
        return new QueryResult(cols, rows, false, 0);
    }

    private static QueryResult cut(QueryResult r) {
        return new QueryResult(r.columns(), r.rows(), true, 0);
    }

    @Test
    void aTruncatedResultIsNeverTakenForAWholeOne() {
        // a prediction whose first value passed the byte bound: no rows kept, but it had rows
        QueryResult emptyGold = result(1);
        QueryResult cutBeforeItsFirstRow = cut(result(1));
        for (ExOptions mode : List.of(SPIDER, BIRD)) {
            assertThat(ResultComparison.equal(emptyGold, cutBeforeItsFirstRow, false, mode)).isFalse();
            assertThat(ResultComparison.equal(cutBeforeItsFirstRow, emptyGold, false, mode)).isFalse();
        }
        // the kept rows are the gold's, but the prediction has more: a bag or a list of other size
        QueryResult gold = result(1, "a", "b");
        QueryResult longer = cut(result(1, "a", "b"));
        assertThat(ResultComparison.equal(gold, longer, false, SPIDER)).isFalse();
        assertThat(ResultComparison.equal(gold, longer, true, SPIDER)).isFalse();
        // BIRD compares sets: the kept rows may already show the gold's set (flagged truncated by the scorer)
        assertThat(ResultComparison.equal(gold, longer, false, BIRD)).isTrue();
        assertThat(ResultComparison.equal(gold, cut(result(1, "a", "c")), false, BIRD)).isFalse();
        // both cut at the same rows: compared on what was kept, as before
        assertThat(ResultComparison.equal(cut(gold), longer, false, SPIDER)).isTrue();
    }

    @Test
    void rowOrderCountsOnlyWhenTheGoldIsOrdered() {
        QueryResult a = result(1, "x", "y", "z");
        QueryResult b = result(1, "z", "x", "y");
        assertThat(ResultComparison.equal(a, b, false, SPIDER)).isTrue();
        assertThat(ResultComparison.equal(a, b, true, SPIDER)).isFalse();
        assertThat(ResultComparison.equal(a, a, true, SPIDER)).isTrue();
    }

    @Test
    void columnsMatchUpToAPermutation() {
        QueryResult gold = result(3, "Paris", 1L, "France", "Tokyo", 2L, "Japan");
        QueryResult swapped = result(3, 1L, "France", "Paris", 2L, "Japan", "Tokyo");
        assertThat(ResultComparison.equal(gold, swapped, false, SPIDER)).isTrue();
        assertThat(ResultComparison.equal(gold, swapped, true, SPIDER)).isTrue();
        // BIRD compares tuples as they are
        assertThat(ResultComparison.equal(gold, swapped, false, BIRD)).isFalse();
    }

    @Test
    void aPermutationMustKeepRowsTogether() {
        // each column holds the same values, but the pairs differ
        QueryResult gold = result(2, 1L, "a", 2L, "b");
        QueryResult crossed = result(2, 1L, "b", 2L, "a");
        assertThat(ResultComparison.equal(gold, crossed, false, SPIDER)).isFalse();
        // two columns with identical values: either mapping may be right
        QueryResult twins = result(2, 1L, 1L, 2L, 2L);
        assertThat(ResultComparison.equal(twins, result(2, 2L, 2L, 1L, 1L), false, SPIDER)).isTrue();
    }

    @Test
    void duplicatesCountInSpiderModeButNotInBird() {
        QueryResult once = result(1, "a", "b");
        QueryResult twice = result(1, "a", "a", "b");
        QueryResult otherDup = result(1, "a", "b", "b");
        assertThat(ResultComparison.equal(once, twice, false, SPIDER)).isFalse();
        assertThat(ResultComparison.equal(twice, otherDup, false, SPIDER)).isFalse();
        assertThat(ResultComparison.equal(once, twice, false, BIRD)).isTrue();
        assertThat(ResultComparison.equal(twice, otherDup, false, BIRD)).isTrue();
    }

    @Test
    void nullEqualsNullAndEmptyEqualsEmpty() {
        assertThat(ResultComparison.equal(result(2, "a", null), result(2, "a", null), false, SPIDER)).isTrue();
        assertThat(ResultComparison.equal(result(1, (Object) null), result(1, "NULL"), false, SPIDER)).isFalse();
        // two empty results are equal whatever their columns
        assertThat(ResultComparison.equal(result(1), result(3), false, SPIDER)).isTrue();
        assertThat(ResultComparison.equal(result(1), result(3), false, BIRD)).isTrue();
        assertThat(ResultComparison.equal(result(1), result(1, "a"), false, SPIDER)).isFalse();
    }

    @Test
    void numbersCompareByValueAcrossTypesAndScales() {
        QueryResult decimal = result(1, new BigDecimal("12.5"));
        assertThat(ResultComparison.equal(decimal, result(1, 12.5d), false, SPIDER)).isTrue();
        assertThat(ResultComparison.equal(result(1, 5L), result(1, new BigDecimal("5")), false, SPIDER)).isTrue();
        assertThat(ResultComparison.equal(result(1, 5L), result(1, 5.0d), false, SPIDER)).isTrue();
        assertThat(ResultComparison.equal(result(1, new BigDecimal("0.3")), result(1, 0.1d + 0.2d), false, SPIDER)).isFalse();
        assertThat(ResultComparison.equal(result(1, 0d), result(1, -0d), false, SPIDER)).isTrue();
        // a number is not its text
        assertThat(ResultComparison.equal(result(1, 5L), result(1, "5"), false, SPIDER)).isFalse();
    }

    @Test
    void aToleranceAcceptsRoundingNoise() {
        ExOptions tol = SPIDER.withTolerance(1e-6);
        assertThat(ResultComparison.equal(result(1, new BigDecimal("0.3")), result(1, 0.1d + 0.2d), false, tol)).isTrue();
        assertThat(ResultComparison.equal(result(2, "a", new BigDecimal("3091.85"), "b", 1L),
                result(2, 1.0000000001d, "b", 3091.8500001d, "a"), false, tol)).isTrue();
        assertThat(ResultComparison.equal(result(1, new BigDecimal("0.3")), result(1, 0.31d), false, tol)).isFalse();
    }

    @Test
    void datesAreNotDatetimes() {
        LocalDate d = LocalDate.of(2004, 1, 1);
        assertThat(ResultComparison.equal(result(1, d), result(1, d), false, SPIDER)).isTrue();
        assertThat(ResultComparison.equal(result(1, d), result(1, d.atStartOfDay()), false, SPIDER)).isFalse();
        assertThat(ResultComparison.equal(result(1, d), result(1, "2004-01-01 00:00:00"), false, SPIDER)).isFalse();
    }

    @Test
    void datesEqualTheTextTheyPrintAs() {
        // SQLite: a DATE column comes back typed, MAX(d) or d || '' as text
        assertThat(ResultComparison.equal(result(1, LocalDate.of(2004, 1, 1)), result(1, "2004-01-01"), false, SPIDER)).isTrue();
        assertThat(ResultComparison.equal(result(1, LocalDateTime.of(2004, 1, 1, 0, 0)), result(1, "2004-01-01 00:00:00"), false, SPIDER)).isTrue();
        assertThat(ResultComparison.equal(result(1, LocalDateTime.of(2004, 1, 1, 9, 30, 5, 500_000_000)),
                result(1, "2004-01-01 09:30:05.5"), true, BIRD)).isTrue();
        assertThat(ResultComparison.equal(result(1, LocalTime.of(9, 30)), result(1, "09:30:00"), false, SPIDER)).isTrue();
        assertThat(ResultComparison.equal(result(1, LocalDate.of(2004, 1, 1)), result(1, "2004-1-1"), false, SPIDER)).isFalse();
    }

    @Test
    void differentShapesAreDifferent() {
        assertThat(ResultComparison.equal(result(1, "a", "b"), result(2, "a", "b"), false, SPIDER)).isFalse();
        assertThat(ResultComparison.equal(result(1, "a"), result(1, "a", "a"), true, SPIDER)).isFalse();
        assertThat(ResultComparison.equal(result(1, "a"), result(2, "a", "b"), false, BIRD)).isFalse();
    }

    @Test
    void distinctIsDroppedInSpiderModeUnlessKept() {
        String sql = "SELECT DISTINCT country, COUNT(distinct city) FROM customers -- distinct\nWHERE name = 'DISTINCT'";
        assertThat(ExecutionMatch.prepare(sql, SPIDER, Dialect.MYSQL))
                .isEqualTo("SELECT  country, COUNT( city) FROM customers -- distinct\nWHERE name = 'DISTINCT'");
        assertThat(ExecutionMatch.prepare(sql, SPIDER.withKeepDistinct(true), Dialect.MYSQL)).isEqualTo(sql);
        assertThat(ExecutionMatch.prepare(sql, BIRD, Dialect.MYSQL)).isEqualTo(sql);
    }

    @Test
    void orderByAnywhereOutsideLiteralsMakesTheGoldOrdered() {
        assertThat(ExecutionMatch.goldOrdered("SELECT a FROM t ORDER BY a", Dialect.MYSQL)).isTrue();
        assertThat(ExecutionMatch.goldOrdered("SELECT a, RANK() OVER (ORDER BY b) FROM t", Dialect.MYSQL)).isTrue();
        assertThat(ExecutionMatch.goldOrdered("SELECT a FROM t WHERE c = 'order by'", Dialect.MYSQL)).isFalse();
        assertThat(ExecutionMatch.goldOrdered("SELECT a FROM t -- order by a", Dialect.MYSQL)).isFalse();
    }
}
