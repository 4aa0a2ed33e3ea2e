package dev.ladder.pipeline.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ladder.pipeline.agent.CandidateScorer.CandidateScore;
import dev.ladder.pipeline.kit.Intent;
import dev.ladder.pipeline.kit.IntentProfile;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionError;
import dev.ladder.sql.db.QueryResult;
import dev.ladder.sql.schema.Schema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CandidateScorerTest {

    private static final Schema CM = SchemaSubsetTest.classicModels();

    private static IntentProfile profile(Intent intent, Integer limitN, String... fields) {
        boolean ordered = intent == Intent.TOP_K;
        return new IntentProfile(intent, ordered, ordered || limitN != null, limitN, false,
                intent == Intent.GROUPED_AGGREGATE, List.of(fields));
    }

    private static final IntentProfile LOOKUP = profile(Intent.LOOKUP, null);
    private static final IntentProfile AGGREGATE = profile(Intent.AGGREGATE, null);
    private static final IntentProfile GROUPED = profile(Intent.GROUPED_AGGREGATE, null);

    /** A successful execution with {@code rows} rows of one column each holding the row number. */
    private static Execution rows(String sql, int rows) {
        List<List<Object>> data = new ArrayList<>();
        for (int i = 0; i < rows; i++) data.add(List.of(i + 1));
        return new Execution.Success(sql, new QueryResult(List.of("c"), data, false, 1));
    }

    private static Execution failed(String sql) {
        return Execution.failure(sql, ExecutionError.Kind.UNKNOWN_COLUMN, "Unknown column 'x' in 'field list'");
    }

    private static CandidateScore score(String question, IntentProfile intent, String sql, int resultRows) {
        return CandidateScorer.score(question, intent, sql, CM, rows(sql, resultRows));
    }

    private static boolean gate(IntentProfile intent, String sql) {
        return IntentGate.passes(intent, sql);
    }

    // ------------------------------------------------------------------ intent gate

    @Test
    void aggregateGate() {
        assertThat(gate(AGGREGATE, "SELECT COUNT(*) FROM customers WHERE country = 'France'")).isTrue();
        assertThat(gate(AGGREGATE, "SELECT SUM(p.amount) / COUNT(DISTINCT p.customerNumber) FROM payments p")).isTrue();
        assertThat(gate(AGGREGATE, "SELECT MAX(q) FROM (SELECT orderNumber, SUM(quantityOrdered) AS q "
                + "FROM orderdetails GROUP BY orderNumber) AS t")).isTrue();
        assertThat(gate(AGGREGATE, "SELECT (SELECT COUNT(*) FROM orders) - (SELECT COUNT(*) FROM payments)")).isTrue();
        assertThat(gate(AGGREGATE, "SELECT customerName FROM customers WHERE country = 'France'")).isFalse();
        assertThat(gate(AGGREGATE, "SELECT country, COUNT(*) FROM customers GROUP BY country")).isFalse();
        // a set operation of aggregates (a small summary table) has aggregates; GROUP BY with HAVING uses the
        // aggregate as a condition on groups; an aggregate in a subquery the outer query filters on counts
        assertThat(gate(AGGREGATE, "SELECT 'a', COUNT(*) FROM customers UNION ALL SELECT 'b', COUNT(*) FROM offices")).isTrue();
        assertThat(gate(AGGREGATE, "SELECT productLine FROM products GROUP BY productLine HAVING SUM(quantityInStock) > 100000")).isTrue();
        assertThat(gate(AGGREGATE, "SELECT c.customerName FROM customers c JOIN (SELECT customerNumber, SUM(amount) AS paid "
                + "FROM payments GROUP BY customerNumber) t ON t.customerNumber = c.customerNumber WHERE t.paid > c.creditLimit")).isTrue();
        assertThat(gate(AGGREGATE, "SELECT city FROM offices UNION SELECT city FROM customers")).isFalse();
        // a window function is not an aggregate answer
        assertThat(gate(AGGREGATE, "SELECT SUM(amount) OVER (ORDER BY paymentDate) FROM payments")).isFalse();
        // an ORDER BY the question did not ask for is the clamps' business, not the gate's
        assertThat(gate(AGGREGATE, "SELECT COUNT(*) FROM customers ORDER BY 1")).isTrue();
    }

    @Test
    void groupedAggregateGate() {
        assertThat(gate(GROUPED, "SELECT country, AVG(creditLimit) FROM customers GROUP BY country")).isTrue();
        assertThat(gate(GROUPED, "SELECT productScale FROM products GROUP BY productScale HAVING COUNT(*) > 8")).isTrue();
        assertThat(gate(GROUPED, "SELECT status FROM orders GROUP BY status ORDER BY COUNT(*) DESC")).isTrue();
        assertThat(gate(GROUPED, "SELECT country FROM customers GROUP BY country")).isFalse();
        assertThat(gate(GROUPED, "SELECT AVG(creditLimit) FROM customers")).isFalse();
        // per-group values from a window, or from a grouped subquery
        assertThat(gate(GROUPED, "SELECT employeeNumber, COUNT(*) OVER (PARTITION BY officeCode) FROM employees")).isTrue();
        assertThat(gate(GROUPED, "SELECT AVG(cnt) FROM (SELECT customerNumber, COUNT(*) AS cnt FROM orders "
                + "GROUP BY customerNumber) AS t")).isTrue();
    }

    @Test
    void topKGate() {
        IntentProfile top5 = profile(Intent.TOP_K, 5);
        assertThat(gate(top5, "SELECT productName FROM products ORDER BY buyPrice DESC LIMIT 5")).isTrue();
        assertThat(gate(top5, "SELECT productName FROM products ORDER BY buyPrice DESC LIMIT 0, 5")).isTrue();
        assertThat(gate(top5, "SELECT productName FROM products ORDER BY buyPrice DESC FETCH FIRST 5 ROWS ONLY")).isTrue();
        assertThat(gate(top5, "SELECT productName FROM products ORDER BY buyPrice DESC LIMIT 3")).isFalse();
        assertThat(gate(top5, "SELECT productName FROM products ORDER BY buyPrice DESC")).isFalse();
        assertThat(gate(top5, "SELECT productName FROM products LIMIT 5")).isFalse();
        assertThat(gate(top5, "SELECT city FROM offices UNION SELECT city FROM customers ORDER BY city LIMIT 5")).isTrue();

        IntentProfile top1 = profile(Intent.TOP_K, 1);
        String maxForm = "SELECT productName FROM products WHERE buyPrice = (SELECT MAX(buyPrice) FROM products)";
        assertThat(gate(top1, maxForm)).isTrue();
        assertThat(gate(profile(Intent.TOP_K, null), maxForm)).isTrue();
        assertThat(gate(profile(Intent.TOP_K, 3), maxForm)).isFalse();
        assertThat(gate(top1, "SELECT customerNumber FROM orders GROUP BY customerNumber "
                + "HAVING COUNT(*) >= ALL (SELECT COUNT(*) FROM orders GROUP BY customerNumber)")).isTrue();
        // the extreme value itself answers a superlative that names no field to return
        assertThat(gate(top1, "SELECT MAX(orderDate) FROM orders")).isTrue();
        assertThat(gate(profile(Intent.TOP_K, 1, "productName"), "SELECT MAX(buyPrice) FROM products")).isFalse();
        // a nested top-1 row used as a filter; a ranking window for top rows per group
        assertThat(gate(top1, "SELECT orderNumber FROM orderdetails WHERE productCode = "
                + "(SELECT productCode FROM products ORDER BY MSRP DESC LIMIT 1)")).isTrue();
        assertThat(gate(profile(Intent.TOP_K, null), "SELECT productLine, productName FROM (SELECT productLine, productName, "
                + "RANK() OVER (PARTITION BY productLine ORDER BY MSRP DESC) AS r FROM products) t WHERE r = 1")).isTrue();
        assertThat(gate(top1, "SELECT productName FROM products ORDER BY buyPrice DESC FETCH FIRST ROW ONLY")).isTrue();
        assertThat(gate(top1, "SELECT productName FROM products ORDER BY buyPrice DESC LIMIT ALL")).isFalse();
        // without a known N any LIMIT will do
        assertThat(gate(profile(Intent.TOP_K, null), "SELECT productName FROM products ORDER BY MSRP DESC LIMIT 10"))
                .isTrue();
    }

    @Test
    void lookupGate() {
        assertThat(gate(LOOKUP, "SELECT customerName FROM customers WHERE country = 'France'")).isTrue();
        assertThat(gate(LOOKUP, "SELECT COUNT(*) FROM customers WHERE country = 'France'")).isFalse();
        assertThat(gate(LOOKUP, "SELECT * FROM customers")).isTrue();
        // grouping with HAVING is a lookup of groups, not an aggregate answer
        assertThat(gate(LOOKUP, "SELECT productVendor FROM products GROUP BY productVendor HAVING MIN(buyPrice) > 30"))
                .isTrue();
        assertThat(gate(LOOKUP, "SELECT customerName, creditLimit * 2 FROM customers")).isTrue();
        // ORDER BY without wantsOrder does not fail the gate
        assertThat(gate(LOOKUP, "SELECT city FROM offices ORDER BY city")).isTrue();
        // a superlative lookup ("the most recent order date") may be answered by MAX
        IntentProfile superlative = new IntentProfile(Intent.LOOKUP, true, true, 1, false, false, List.of());
        assertThat(gate(superlative, "SELECT MAX(orderDate) FROM orders")).isTrue();
        assertThat(gate(superlative, "SELECT COUNT(*) FROM orders")).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "hello world", "SELECT 'unterminated", "DELETE FROM customers",
            "SELECT FROM WHERE", "((((", "SELECT COUNT(*) FROM"})
    void badSqlNeverThrows(String sql) {
        for (Intent i : Intent.values()) {
            boolean passes = gate(profile(i, null), sql);
            CandidateScore s = CandidateScorer.score("How many customers?", profile(i, null), sql, CM, failed(sql));
            assertThat(s.passesIntentGate()).isEqualTo(passes);
            assertThat(s.parts().get("executes")).isZero();
        }
        assertThat(gate(LOOKUP, null)).isFalse();
    }

    @Test
    void unparseableSqlFallsBackToTheLexer() {
        // JSqlParser rejects the trailing WHERE; the lexical reading still sees one COUNT and no GROUP BY
        String broken = "SELECT COUNT(*) FROM customers WHERE";
        assertThat(gate(AGGREGATE, broken)).isTrue();
        assertThat(gate(LOOKUP, broken)).isFalse();
        String brokenTop = "SELECT productName FROM products ORDER BY buyPrice DESC LIMIT 5 WHERE";
        assertThat(gate(profile(Intent.TOP_K, 5), brokenTop)).isTrue();
        assertThat(gate(profile(Intent.TOP_K, 3), brokenTop)).isFalse();
    }

    // ------------------------------------------------------------------ score parts

    @Test
    void partsHaveFixedNamesOrderAndAWeightedTotal() {
        String sql = "SELECT COUNT(*) FROM customers WHERE country = 'France'";
        CandidateScore s = score("How many customers are in France?", AGGREGATE, sql, 1);
        assertThat(s.parts().keySet()).containsExactly("executes", "intent", "relevance", "projection", "result-shape",
                "simplicity");
        assertThat(s.parts().values()).allSatisfy(v -> assertThat(v).isBetween(0.0, 1.0));
        double total = 0;
        int i = 0;
        for (double v : s.parts().values()) total += CandidateScorer.WEIGHTS.get(i++) * v;
        assertThat(s.total()).isCloseTo(total, within(1e-3));
        assertThat(CandidateScorer.WEIGHTS.stream().mapToDouble(Double::doubleValue).sum()).isCloseTo(1.0, within(1e-9));
        // a perfect candidate loses nothing
        assertThat(s.total()).isEqualTo(1.0);
        assertThat(s.reasons()).isEmpty();
        assertThat(s.passesIntentGate()).isTrue();
        // deterministic
        assertThat(score("How many customers are in France?", AGGREGATE, sql, 1)).isEqualTo(s);
    }

    @Test
    void executesPart() {
        String sql = "SELECT customerName FROM customers WHERE country = 'France'";
        String q = "Which customers are in France?";
        assertThat(score(q, LOOKUP, sql, 12).parts().get("executes")).isEqualTo(1.0);
        CandidateScore empty = score(q, LOOKUP, sql, 0);
        assertThat(empty.parts().get("executes")).isEqualTo(0.5);
        assertThat(empty.reasons()).contains("executes: no rows returned");
        List<List<Object>> nullRow = new ArrayList<>();
        nullRow.add(Arrays.asList((Object) null));
        Execution nulls = new Execution.Success(sql, new QueryResult(List.of("s"), nullRow, false, 1));
        assertThat(CandidateScorer.score(q, LOOKUP, sql, CM, nulls).parts().get("executes")).isEqualTo(0.5);
        CandidateScore fail = CandidateScorer.score(q, LOOKUP, sql, CM, failed(sql));
        assertThat(fail.parts().get("executes")).isZero();
        assertThat(fail.parts().get("result-shape")).isZero();
        assertThat(fail.reasons()).anyMatch(r -> r.startsWith("executes: failed (UNKNOWN_COLUMN"));
        assertThat(CandidateScorer.score(q, LOOKUP, sql, CM, null).parts().get("executes")).isZero();
    }

    @Test
    void intentPart() {
        String q = "List the cities of our offices in alphabetical order.";
        IntentProfile ordered = new IntentProfile(Intent.LOOKUP, true, false, null, false, false, List.of("city"));
        assertThat(score(q, ordered, "SELECT city FROM offices ORDER BY city", 7).parts().get("intent")).isEqualTo(1.0);
        CandidateScore unordered = score(q, ordered, "SELECT city FROM offices", 7);
        assertThat(unordered.passesIntentGate()).isTrue();
        assertThat(unordered.parts().get("intent")).isEqualTo(0.75);
        assertThat(unordered.reasons()).anyMatch(r -> r.contains("no ORDER BY"));

        IntentProfile distinct = new IntentProfile(Intent.LOOKUP, false, false, null, true, false, List.of("country"));
        assertThat(score("Which countries have offices?", distinct, "SELECT country FROM offices", 7)
                .parts().get("intent")).isEqualTo(0.75);
        assertThat(score("Which countries have offices?", distinct, "SELECT DISTINCT country FROM offices", 5)
                .parts().get("intent")).isEqualTo(1.0);

        CandidateScore failed = score("How many offices are there?", AGGREGATE, "SELECT officeCode FROM offices", 7);
        assertThat(failed.passesIntentGate()).isFalse();
        assertThat(failed.parts().get("intent")).isZero();
        assertThat(failed.reasons()).anyMatch(r -> r.startsWith("intent gate: AGGREGATE wants an aggregate"));
    }

    @Test
    void relevancePrefersWhatTheQuestionMentions() {
        String q = "How many customers are in France?";
        double right = score(q, AGGREGATE, "SELECT COUNT(*) FROM customers WHERE country = 'France'", 1)
                .parts().get("relevance");
        CandidateScore wrongValue = score(q, AGGREGATE, "SELECT COUNT(*) FROM customers WHERE country = 'Germany'", 1);
        CandidateScore wrongTable = score(q, AGGREGATE, "SELECT COUNT(*) FROM offices WHERE country = 'France'", 1);
        CandidateScore needlessJoin = score(q, AGGREGATE, "SELECT COUNT(*) FROM customers c JOIN payments p "
                + "ON p.customerNumber = c.customerNumber WHERE c.country = 'France'", 1);
        CandidateScore noFilter = score(q, AGGREGATE, "SELECT COUNT(*) FROM customers", 1);
        assertThat(right).isEqualTo(1.0);
        assertThat(wrongValue.parts().get("relevance")).isLessThan(right);
        assertThat(wrongValue.reasons()).contains("relevance: the SQL does not cover france");
        assertThat(wrongTable.parts().get("relevance")).isLessThan(right);
        assertThat(wrongTable.reasons()).anyMatch(r -> r.contains("does not mention offices"));
        assertThat(needlessJoin.parts().get("relevance")).isLessThan(right);
        assertThat(noFilter.parts().get("relevance")).isLessThan(right);
    }

    @Test
    void relevanceCountsLiteralsNumbersAndCamelCaseNames() {
        String q = "What is the MSRP of the 1969 Harley Davidson Ultimate Chopper?";
        double right = score(q, LOOKUP, "SELECT MSRP FROM products WHERE productName = '1969 Harley Davidson Ultimate Chopper'", 1)
                .parts().get("relevance");
        double wrongColumn = score(q, LOOKUP, "SELECT buyPrice FROM products WHERE productName = "
                + "'1969 Harley Davidson Ultimate Chopper'", 1).parts().get("relevance");
        assertThat(right).isEqualTo(1.0);
        assertThat(wrongColumn).isLessThan(right);

        String byNumber = "Give the contact first name, contact last name and phone number of customer 112.";
        double withFilter = score(byNumber, LOOKUP, "SELECT contactFirstName, contactLastName, phone FROM customers "
                + "WHERE customerNumber = 112", 1).parts().get("relevance");
        double otherCustomer = score(byNumber, LOOKUP, "SELECT contactFirstName, contactLastName, phone FROM customers "
                + "WHERE customerNumber = 121", 1).parts().get("relevance");
        assertThat(withFilter).isGreaterThan(otherCustomer);
    }

    @Test
    void projectionFollowsTheNamedFields() {
        String q = "Give the contact first name, contact last name and phone number of customer 112.";
        IntentProfile named = new IntentProfile(Intent.LOOKUP, false, false, null, false, false,
                List.of("contactFirstName", "contactLastName", "phone"));
        String where = " FROM customers WHERE customerNumber = 112";
        double exact = score(q, named, "SELECT contactFirstName, contactLastName, phone" + where, 1).parts().get("projection");
        double reordered = score(q, named, "SELECT phone, contactLastName, contactFirstName" + where, 1).parts().get("projection");
        double missing = score(q, named, "SELECT contactFirstName, contactLastName" + where, 1).parts().get("projection");
        CandidateScore extra = score(q, named, "SELECT c.contactFirstName AS first, c.contactLastName, c.phone, c.city"
                + " FROM customers c WHERE c.customerNumber = 112", 1);
        double star = score(q, named, "SELECT *" + where, 1).parts().get("projection");
        assertThat(exact).isEqualTo(1.0);
        assertThat(reordered).isEqualTo(0.8);
        assertThat(missing).isCloseTo(0.8, within(1e-3));
        assertThat(extra.parts().get("projection")).isEqualTo(0.95);
        assertThat(extra.reasons()).contains("projection: 1 selected item(s) the question does not name");
        assertThat(star).isEqualTo(0.5);
        // a named field used only to rank or filter counts half
        IntentProfile ranked = new IntentProfile(Intent.TOP_K, true, true, 5, false, false,
                List.of("productName", "buyPrice"));
        CandidateScore rankOnly = score("List the names of the top 5 products by buy price", ranked,
                "SELECT productName FROM products ORDER BY buyPrice DESC LIMIT 5", 5);
        assertThat(rankOnly.parts().get("projection")).isCloseTo(0.85, within(1e-3));
        // aggregates are the answer, not extras; without named fields any explicit list is fine
        assertThat(score("How many customers?", AGGREGATE, "SELECT COUNT(*) FROM customers", 1).parts().get("projection"))
                .isEqualTo(1.0);
    }

    @Test
    void resultShapePart() {
        String count = "SELECT COUNT(*) FROM customers";
        assertThat(score("How many of our customers are based in the USA?", AGGREGATE, count, 1).parts().get("result-shape")).isEqualTo(1.0);
        assertThat(score("How many of our customers are based in the USA?", AGGREGATE, count, 3).parts().get("result-shape")).isZero();
        IntentProfile top5 = profile(Intent.TOP_K, 5);
        String top = "SELECT productName FROM products ORDER BY buyPrice DESC LIMIT 5";
        assertThat(score("top 5 products", top5, top, 5).parts().get("result-shape")).isEqualTo(1.0);
        assertThat(score("top 5 products", top5, top, 110).parts().get("result-shape")).isZero();
        String grouped = "SELECT country, COUNT(*) FROM customers GROUP BY country";
        assertThat(score("How many customers per country?", GROUPED, grouped, 27).parts().get("result-shape")).isEqualTo(1.0);
        assertThat(score("How many customers per country?", GROUPED, grouped, 1).parts().get("result-shape")).isEqualTo(0.5);
        String lookup = "SELECT postalCode FROM offices WHERE country = 'UK'";
        assertThat(score("What is the postal code of our office in the UK?", LOOKUP, lookup, 1)
                .parts().get("result-shape")).isEqualTo(1.0);
        assertThat(score("What is the postal code of our office in the UK?", LOOKUP, lookup, 3)
                .parts().get("result-shape")).isEqualTo(0.5);
        assertThat(score("What are the postal codes of our offices?", LOOKUP, lookup, 3)
                .parts().get("result-shape")).isEqualTo(1.0);
        Execution capped = new Execution.Success(lookup, new QueryResult(List.of("c"),
                List.of(List.of(1), List.of(2)), true, 1));
        assertThat(CandidateScorer.score("Which customers are there?", LOOKUP, lookup, CM, capped)
                .parts().get("result-shape")).isEqualTo(0.5);
        assertThat(CandidateScorer.singularQuestion("Which office code is employee 1501 assigned to?")).isTrue();
        assertThat(CandidateScorer.singularQuestion("Which customers have placed five or more orders?")).isFalse();
        assertThat(CandidateScorer.singularQuestion("What is the name of every customer?")).isFalse();
    }

    @Test
    void simplicityPart() {
        String q = "Which customers are in France?";
        double plain = score(q, LOOKUP, "SELECT customerName FROM customers WHERE country = 'France'", 12)
                .parts().get("simplicity");
        CandidateScore joined = score(q, LOOKUP, "SELECT c.customerName FROM customers c JOIN orders o "
                + "ON o.customerNumber = c.customerNumber WHERE c.country = 'France'", 12);
        double nested = score(q, LOOKUP, "SELECT customerName FROM customers WHERE customerNumber IN "
                + "(SELECT customerNumber FROM customers WHERE country = 'France')", 12).parts().get("simplicity");
        double commaJoin = score(q, LOOKUP, "SELECT c.customerName FROM customers c, orders o "
                + "WHERE o.customerNumber = c.customerNumber AND c.country = 'France'", 12).parts().get("simplicity");
        double ordered = score(q, LOOKUP, "SELECT customerName FROM customers WHERE country = 'France' "
                + "ORDER BY customerName", 12).parts().get("simplicity");
        assertThat(plain).isEqualTo(1.0);
        assertThat(joined.parts().get("simplicity")).isEqualTo(0.8);
        assertThat(joined.reasons()).contains("simplicity: 1 join(s)");
        assertThat(nested).isEqualTo(0.8);
        assertThat(commaJoin).isEqualTo(0.8);
        assertThat(ordered).isEqualTo(0.8);
    }

    // ------------------------------------------------------------------ ranking realistic candidates

    @Test
    void aCountOutscoresAListForHowMany() {
        String q = "How many customers are in France?";
        CandidateScore count = score(q, AGGREGATE, "SELECT COUNT(*) FROM customers WHERE country = 'France'", 1);
        CandidateScore list = score(q, AGGREGATE, "SELECT customerName FROM customers WHERE country = 'France'", 12);
        CandidateScore countAll = score(q, AGGREGATE, "SELECT COUNT(*) FROM customers", 1);
        assertThat(count.total()).isGreaterThan(list.total()).isGreaterThan(0.0);
        assertThat(count.total()).isGreaterThan(countAll.total());
        assertThat(list.passesIntentGate()).isFalse();
    }

    @Test
    void aLimitedRankingOutscoresAnUnlimitedOne() {
        String q = "List the names of the top 5 products by buy price";
        IntentProfile top5 = new IntentProfile(Intent.TOP_K, true, true, 5, false, false, List.of("productName"));
        CandidateScore limited = score(q, top5, "SELECT productName FROM products ORDER BY buyPrice DESC LIMIT 5", 5);
        CandidateScore unlimited = score(q, top5, "SELECT productName FROM products ORDER BY buyPrice DESC", 110);
        CandidateScore wrongMeasure = score(q, top5, "SELECT productName FROM products ORDER BY MSRP DESC LIMIT 5", 5);
        assertThat(limited.total()).isGreaterThan(wrongMeasure.total()).isGreaterThan(unlimited.total());
        assertThat(unlimited.passesIntentGate()).isFalse();
        assertThat(wrongMeasure.reasons()).anyMatch(r -> r.contains("does not mention MSRP"));
    }

    @Test
    void aGroupedAnswerOutscoresAFlatOne() {
        String q = "What is the average credit limit of customers in each country?";
        CandidateScore grouped = score(q, GROUPED, "SELECT country, AVG(creditLimit) FROM customers GROUP BY country", 27);
        CandidateScore flat = score(q, GROUPED, "SELECT AVG(creditLimit) FROM customers", 1);
        CandidateScore wrongKey = score(q, GROUPED, "SELECT city, AVG(creditLimit) FROM customers GROUP BY city", 95);
        assertThat(grouped.total()).isGreaterThan(wrongKey.total()).isGreaterThan(flat.total());
    }

    @Test
    void aJoinTheQuestionNeedsBeatsAWrongSingleTable() {
        String q = "Which customer placed order 10165? Give the customer's name.";
        CandidateScore join = score(q, LOOKUP, "SELECT c.customerName FROM customers c JOIN orders o "
                + "ON o.customerNumber = c.customerNumber WHERE o.orderNumber = 10165", 1);
        CandidateScore wrong = score(q, LOOKUP, "SELECT customerName FROM customers WHERE customerNumber = 10165", 0);
        assertThat(join.total()).isGreaterThan(wrong.total());
    }
}
