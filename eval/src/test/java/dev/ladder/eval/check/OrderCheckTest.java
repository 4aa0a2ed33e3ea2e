package dev.ladder.eval.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.TestData;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Ties against the real data: customers per country are USA 36, Germany 13, France 12, Spain 7, UK 5, Australia 5, Italy 4, ... */
class OrderCheckTest {

    private static Database db;
    private static final String BY_COUNT = "SELECT country FROM customers GROUP BY country ORDER BY COUNT(*) DESC";

    @BeforeAll
    static void open() {
        db = TestData.classicModels();
    }

    @Test
    void aCutOffBetweenDistinctCountsIsFine() {
        assertThat(OrderCheck.problems(db, BY_COUNT + " LIMIT 4", true)).isEmpty();
        assertThat(OrderCheck.problems(db, "SELECT customerName FROM customers ORDER BY creditLimit DESC LIMIT 3", true)).isEmpty();
    }

    @Test
    void aTieAcrossTheCutOffIsReported() {
        assertThat(OrderCheck.problems(db, BY_COUNT + " LIMIT 5", false)).singleElement().asString().contains("cut-off");
    }

    @Test
    void offsetsMoveTheWindow() {
        assertThat(OrderCheck.problems(db, BY_COUNT + " LIMIT 1 OFFSET 4", false)).singleElement().asString().contains("cut-off");
        assertThat(OrderCheck.problems(db, BY_COUNT + " LIMIT 3, 1", true)).isEmpty();
        // UK and Australia tie inside the window: fine as a set, ambiguous as a sequence
        assertThat(OrderCheck.problems(db, BY_COUNT + " LIMIT 2 OFFSET 4", false)).isEmpty();
        assertThat(OrderCheck.problems(db, BY_COUNT + " LIMIT 2 OFFSET 4", true)).singleElement().asString().contains("tie in ORDER BY");
    }

    @Test
    void tiesInsideTheResultMatterOnlyWhenOrderDoes() {
        assertThat(OrderCheck.problems(db, BY_COUNT, false)).isEmpty();
        assertThat(OrderCheck.problems(db, BY_COUNT, true)).isNotEmpty().allMatch(p -> p.startsWith("tie in ORDER BY"));
    }

    @Test
    void limitWithoutOrderIsArbitrary() {
        assertThat(OrderCheck.problems(db, "SELECT customerName FROM customers LIMIT 3", false))
                .singleElement().asString().contains("LIMIT without ORDER BY");
    }
}
