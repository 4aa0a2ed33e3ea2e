package dev.ladder.pipeline.soft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.ExecutionLimits;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.read.Query;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Each confidence term on real executions on ClassicModels. */
class ConfidenceTest {

    static Database db;

    @BeforeAll
    static void open() {
        db = TestData.classicModels();
    }

    static Confidence of(String sql, SoftSettings s, int rowCap) {
        Query q = Query.read(sql);
        return Confidence.of(db.execute(sql, new ExecutionLimits(Duration.ofSeconds(10), rowCap)), q, q.binding(db.schema()), s);
    }

    @Test
    void aPlausibleResultWithoutIssuesScoresOne() {
        Confidence c = of("SELECT city FROM offices", SoftSettings.DEFAULT, 100);
        assertThat(c.value()).isEqualTo(1.0);
        assertThat(c.terms()).containsEntry("runs", 0.6).containsEntry("rows", 0.2).containsEntry("no issues", 0.2);
        assertThat(c.rows()).isEqualTo(7);
    }

    @Test
    void theMethodsDefaultsAreThresholdHalfAndOneShotOn() {
        assertThat(SoftSettings.DEFAULT.threshold()).isEqualTo(0.5);
        assertThat(SoftSettings.DEFAULT.oneShot()).isTrue();
    }

    @Test
    void aResultAboveTheRowRangeIsPenalisedNotRewarded() {
        SoftSettings upToFive = new SoftSettings(true, true, 3, 0.5, 1, 5, false, false, 512);
        Confidence above = of("SELECT city FROM offices", upToFive, 100);
        assertThat(above.terms()).containsEntry("rows", -0.1);
        Confidence within = of("SELECT city FROM offices LIMIT 5", upToFive, 100);
        assertThat(above.value()).isLessThan(within.value());
        // a result cut by the row cap has more rows than were read: above any range the cap sits under
        Confidence cut = of("SELECT city FROM offices", SoftSettings.DEFAULT, 3);
        assertThat(cut.terms()).containsEntry("rows", -0.1);
        assertThat(cut.value()).isEqualTo(0.7);
    }

    @Test
    void emptyNullAndCartesianResultsAreIssuesThatEachCostAndFailingScoresZero() {
        Confidence empty = of("SELECT city FROM offices WHERE 1 = 0", SoftSettings.DEFAULT, 100);
        assertThat(empty.issues()).containsExactly("the result is empty");
        assertThat(empty.terms()).containsEntry("rows", 0.0).containsEntry("no issues", 0.0).containsEntry("issues", -0.05);
        assertThat(empty.value()).isEqualTo(0.55);

        Confidence nulls = of("SELECT addressLine2 FROM offices WHERE addressLine2 IS NULL", SoftSettings.DEFAULT, 100);
        assertThat(nulls.issues()).containsExactly("column addressLine2 is NULL in every row");
        assertThat(nulls.value()).isEqualTo(0.75);

        Confidence cross = of("SELECT o.city, e.lastName FROM offices o, employees e", SoftSettings.DEFAULT, 100);
        assertThat(cross.issues()).singleElement().asString().contains("cartesian");

        Confidence fails = of("SELECT nope FROM offices", SoftSettings.DEFAULT, 100);
        assertThat(fails.value()).isZero();
        assertThat(fails.runs()).isFalse();
    }
}
