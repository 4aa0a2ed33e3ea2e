package dev.ladder.scorer.score;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.EmbeddedMariaDb;
import dev.ladder.sql.db.TestData;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The scoring engine on the real ClassicModels data, with a hand-made one-database test suite. */
class ScoringTest {

    /** A copy of customers plus one customer whose credit limit is exactly 100000 (none has it in the original). */
    private static final String SUITE_DB = "ladder_scoring_test_suite";
    private static Database original;
    private static Database suiteDb;

    @BeforeAll
    static void setUp() throws Exception {
        original = TestData.classicModels();
        EmbeddedMariaDb server = EmbeddedMariaDb.shared();
        try (Connection c = server.adminConnection(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + SUITE_DB);
            st.execute("CREATE DATABASE " + SUITE_DB);
            st.execute("CREATE TABLE " + SUITE_DB + ".customers LIKE classicmodels.customers");
            st.execute("INSERT INTO " + SUITE_DB + ".customers SELECT * FROM classicmodels.customers");
            st.execute("INSERT INTO " + SUITE_DB + ".customers (customerNumber, customerName, contactLastName, contactFirstName, phone, "
                    + "addressLine1, city, country, creditLimit) VALUES (999, 'Exact Limit Ltd', 'Doe', 'Jo', '1', 'x', 'Oslo', 'Norway', 100000)");
        }
        server.grantRead(SUITE_DB);
        suiteDb = Databases.embedded(server, SUITE_DB);
    }

    @AfterAll
    static void tearDown() throws Exception {
        suiteDb.close();
        try (Connection c = EmbeddedMariaDb.shared().adminConnection(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + SUITE_DB);
        }
    }

    private static Scoring scoring(ExOptions options, boolean withSuite) {
        return new Scoring(original, withSuite ? Optional.of(List.of(suiteDb)) : Optional.empty(), options,
                new ExactMatch(original.schema(), false));
    }

    private static ItemScore score(Scoring s, String gold, String predicted) {
        return s.score("q", "test", List.of(gold), predicted);
    }

    @Test
    void goldAsPredictionScoresOneAndTsIsMissingWithoutASuite() {
        ItemScore s = score(scoring(ExOptions.DEFAULT, false), "SELECT city FROM offices WHERE country = 'USA'", "SELECT city FROM offices WHERE country = 'USA'");
        assertThat(s.va()).isTrue();
        assertThat(s.ex()).isTrue();
        assertThat(s.em()).isTrue();
        assertThat(s.ts()).isNull();
        assertThat(s.exMode()).isEqualTo("spider");
    }

    @Test
    void aCoincidentalMatchIsCaughtByTheSuite() {
        String gold = "SELECT customerName FROM customers WHERE creditLimit >= 100000";
        String coincidence = "SELECT customerName FROM customers WHERE creditLimit > 100000";
        ItemScore s = score(scoring(ExOptions.DEFAULT, true), gold, coincidence);
        assertThat(s.ex()).as("same answer on the original").isTrue();
        assertThat(s.ts()).as("different on the suite database").isFalse();
        assertThat(s.em()).as("value-agnostic EM still sees >= vs >").isFalse();
        ItemScore right = score(scoring(ExOptions.DEFAULT, true), gold, "SELECT c.customerName FROM customers AS c WHERE 100000 <= c.creditLimit");
        assertThat(right.ex()).isTrue();
        assertThat(right.ts()).isTrue();
    }

    @Test
    void rowOrderCountsOnlyWhenTheGoldOrders() {
        Scoring s = scoring(ExOptions.DEFAULT, false);
        String asc = "SELECT city FROM offices ORDER BY city";
        String desc = "SELECT city FROM offices ORDER BY city DESC";
        assertThat(score(s, asc, desc).ex()).isFalse();
        assertThat(score(s, "SELECT city FROM offices", desc).ex()).isTrue();
    }

    @Test
    void columnOrderIsFreeInSpiderModeOnly() {
        String gold = "SELECT city, country FROM offices";
        String swapped = "SELECT country, city FROM offices";
        assertThat(score(scoring(ExOptions.DEFAULT, false), gold, swapped).ex()).isTrue();
        assertThat(score(scoring(ExOptions.DEFAULT.withMode(ExMode.BIRD), false), gold, swapped).ex()).isFalse();
    }

    @Test
    void duplicateRowsAndDistinct() {
        // (not customers.country: one row holds 'Norway  ', which DISTINCT folds into 'Norway' under PAD SPACE)
        String gold = "SELECT DISTINCT productLine FROM products";
        String withDuplicates = "SELECT productLine FROM products";
        String grouped = "SELECT productLine FROM products GROUP BY productLine";
        // the reference drops DISTINCT from both queries: the duplicate-keeping prediction matches
        assertThat(score(scoring(ExOptions.DEFAULT, false), gold, withDuplicates).ex()).isTrue();
        assertThat(score(scoring(ExOptions.DEFAULT, false), gold, grouped).ex()).isFalse();
        ExOptions keep = ExOptions.DEFAULT.withKeepDistinct(true);
        assertThat(score(scoring(keep, false), gold, withDuplicates).ex()).isFalse();
        assertThat(score(scoring(keep, false), gold, grouped).ex()).isTrue();
        // BIRD compares sets
        ItemScore birdScore = score(scoring(ExOptions.DEFAULT.withMode(ExMode.BIRD), false), gold, withDuplicates);
        assertThat(birdScore.ex()).as(birdScore.toString()).isTrue();
    }

    @Test
    void nullsAndDecimalFormatting() {
        Scoring s = scoring(ExOptions.DEFAULT, false);
        // state is NULL for every French customer
        assertThat(score(s, "SELECT state FROM customers WHERE country = 'France'",
                "SELECT NULL FROM customers WHERE country = 'France'").ex()).isTrue();
        assertThat(score(s, "SELECT state FROM customers WHERE country = 'France'",
                "SELECT '' FROM customers WHERE country = 'France'").ex()).isFalse();
        // DECIMAL(10,2) 2.50 against a DOUBLE and against an integer-valued decimal
        assertThat(score(s, "SELECT CAST(2.5 AS DECIMAL(10,2))", "SELECT 2.5e0").ex()).isTrue();
        assertThat(score(s, "SELECT SUM(quantityOrdered) FROM orderdetails WHERE orderNumber = 10100",
                "SELECT CAST(SUM(quantityOrdered) AS DOUBLE) FROM orderdetails WHERE orderNumber = 10100").ex()).isTrue();
    }

    @Test
    void failuresAndAlternatives() {
        Scoring s = scoring(ExOptions.DEFAULT, true);
        ItemScore writes = score(s, "SELECT city FROM offices", "DELETE FROM offices");
        assertThat(writes.va()).isFalse();
        assertThat(writes.ex()).isFalse();
        assertThat(writes.ts()).isFalse();
        assertThat(writes.error()).contains("REJECTED");
        ItemScore broken = score(s, "SELECT city FROM offices", "SELECT cty FROM offices");
        assertThat(broken.va()).isFalse();
        assertThat(broken.error()).isNotBlank();
        ItemScore none = score(s, "SELECT city FROM offices", "  ");
        assertThat(none.flags()).contains("no-prediction");
        assertThat(none.va()).isFalse();

        List<String> golds = List.of("SELECT customerName FROM customers WHERE customerNumber IN (SELECT customerNumber FROM payments WHERE amount > 100000)",
                "SELECT DISTINCT c.customerName FROM customers c JOIN payments p ON p.customerNumber = c.customerNumber WHERE p.amount > 100000");
        ItemScore alt = s.score("q", "test", golds, "SELECT DISTINCT c.customerName FROM customers c JOIN payments p ON c.customerNumber = p.customerNumber WHERE p.amount > 5");
        assertThat(alt.em()).as("matches the alternative's structure").isTrue();
        assertThat(alt.flags()).contains("alternative");
        assertThat(alt.ex()).isFalse();
    }

    @Test
    void tiedSortKeysOnMariaDbScoreTheSameWhicheverRowsTheEngineReturns() {
        // many customers share a country: the order within a country, and which tied rows LIMIT keeps, are free
        String gold = "SELECT customerName, country FROM customers ORDER BY country LIMIT 7";
        Scoring s = scoring(ExOptions.DEFAULT, true);
        for (String pred : List.of(gold, "SELECT customerName, country FROM customers ORDER BY country, customerName DESC LIMIT 7",
                "SELECT country, customerName FROM customers ORDER BY country, customerNumber DESC LIMIT 7")) {
            ItemScore r = score(s, gold, pred);
            assertThat(r.ex()).as(pred).isTrue();
            assertThat(r.ts()).as(pred).isTrue();
        }
        assertThat(score(s, gold, "SELECT customerName, country FROM customers ORDER BY country DESC LIMIT 7").ex()).isFalse();
    }
}
