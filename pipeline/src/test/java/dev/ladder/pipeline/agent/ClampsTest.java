package dev.ladder.pipeline.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.ladder.pipeline.kit.Intent;
import dev.ladder.pipeline.kit.IntentClassifier;
import dev.ladder.pipeline.kit.IntentProfile;
import dev.ladder.sql.Dialect;
import java.util.List;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ClampsTest {

    private static final IntentProfile LOOKUP = profile(Intent.LOOKUP, false, false, null, false, false);
    private static final IntentProfile SORTED = profile(Intent.LOOKUP, true, false, null, false, false);
    private static final IntentProfile AGGREGATE = profile(Intent.AGGREGATE, false, false, null, false, false);
    private static final IntentProfile GROUPED = profile(Intent.GROUPED_AGGREGATE, false, false, null, false, true);
    private static final IntentProfile TOP3 = profile(Intent.TOP_K, true, true, 3, false, false);

    private static IntentProfile profile(Intent intent, boolean order, boolean limit, Integer n, boolean distinct,
                                         boolean grouping) {
        return new IntentProfile(intent, order, limit, n, distinct, grouping, List.of());
    }

    private static Clamps.Clamped clamp(String sql, IntentProfile intent) {
        return Clamps.apply(sql, intent, Dialect.MYSQL);
    }

    private static Clamps.Clamped clamp(String question, String sql) {
        return clamp(sql, IntentClassifier.classify(question));
    }

    @Test
    void dropsOrderByAndLimitTheQuestionDoesNotAskForKeepingTheRestByteForByte() {
        String sql = "SELECT `phone`  -- the number\nFROM offices\r\nWHERE city = 'Boston' ORDER BY officeCode\n  LIMIT 1;";
        Clamps.Clamped c = clamp("What is the phone number of the Boston office?", sql);
        assertThat(c.applied()).containsExactly(Clamps.DROP_ORDER_BY, Clamps.DROP_LIMIT);
        assertThat(c.sql()).isEqualTo("SELECT `phone`  -- the number\nFROM offices\r\nWHERE city = 'Boston';");
    }

    @Test
    void keepsOrderByTheQuestionAsksForButDropsAnUnaskedLimit() {
        Clamps.Clamped c = clamp("List the customers sorted by name.",
                "SELECT customerName FROM customers ORDER BY customerName LIMIT 10");
        assertThat(c.applied()).containsExactly(Clamps.DROP_LIMIT);
        assertThat(c.sql()).isEqualTo("SELECT customerName FROM customers ORDER BY customerName");
    }

    @Test
    void keepsOrderByThatAKeptLimitDependsOn() {
        IntentProfile limitOnly = IntentClassifier.classify("List 5 customers from France.");
        assertThat(limitOnly.wantsOrder()).isFalse();
        String sql = "SELECT customerName FROM customers WHERE country = 'France' ORDER BY customerName LIMIT 5";
        assertThat(clamp(sql, limitOnly).applied()).isEmpty();
    }

    @Test
    void superlativeOrderByAndLimitStayEvenWithAnotherNumber() {
        String sql = "SELECT customerName FROM customers ORDER BY creditLimit DESC LIMIT 1";
        assertThat(clamp("Which customer has the highest credit limit?", sql).applied()).isEmpty();
        assertThat(clamp("What is the highest credit limit?", sql).applied()).isEmpty();
        // a wrong N is the scorer's business: clamps only remove
        assertThat(clamp("SELECT amount FROM payments ORDER BY amount DESC LIMIT 5", TOP3).applied()).isEmpty();
    }

    @Test
    void unaskedLimitWithoutOrderByGoes() {
        Clamps.Clamped c = clamp("How many customers are in France?",
                "SELECT COUNT(*) FROM customers WHERE country = 'France' LIMIT 1");
        assertThat(c.applied()).containsExactly(Clamps.DROP_LIMIT);
        assertThat(c.sql()).isEqualTo("SELECT COUNT(*) FROM customers WHERE country = 'France'");
        Clamps.Clamped offset = clamp("SELECT name FROM t ORDER BY name LIMIT 10 OFFSET 20", SORTED);
        assertThat(offset.sql()).isEqualTo("SELECT name FROM t ORDER BY name");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            subquery      | SELECT name FROM products WHERE productCode = (SELECT productCode FROM orderdetails ORDER BY quantityOrdered DESC LIMIT 1)
            in-list       | SELECT name FROM t WHERE id IN (SELECT DISTINCT id FROM u GROUP BY id ORDER BY id LIMIT 3)
            derived table | SELECT MAX(q) FROM (SELECT SUM(quantityOrdered) AS q FROM orderdetails GROUP BY orderNumber ORDER BY q LIMIT 5) AS t
            window        | SELECT customerName, RANK() OVER (ORDER BY creditLimit DESC) FROM customers
            group_concat  | SELECT GROUP_CONCAT(city ORDER BY city SEPARATOR ', ') FROM offices
            cte body      | WITH top AS (SELECT DISTINCT city FROM offices ORDER BY city LIMIT 2) SELECT city FROM top
            union branch  | SELECT city FROM offices GROUP BY city UNION SELECT DISTINCT city FROM customers
            """)
    void neverTouchesInnerQueries(String what, String sql) {
        Clamps.Clamped c = clamp(sql, LOOKUP);
        assertThat(c.applied()).isEmpty();
        assertThat(c.sql()).isSameAs(sql);
    }

    @Test
    void theOrderByAndLimitOfASetOperationBelongToTheOutermostQuery() {
        Clamps.Clamped c = clamp("SELECT city FROM offices UNION SELECT city FROM customers ORDER BY city LIMIT 3", LOOKUP);
        assertThat(c.applied()).containsExactly(Clamps.DROP_ORDER_BY, Clamps.DROP_LIMIT);
        assertThat(c.sql()).isEqualTo("SELECT city FROM offices UNION SELECT city FROM customers");
    }

    @Test
    void outerClausesAfterACteAreClamped() {
        Clamps.Clamped c = clamp("WITH t AS (SELECT city FROM offices ORDER BY city) SELECT city FROM t ORDER BY city", LOOKUP);
        assertThat(c.sql()).isEqualTo("WITH t AS (SELECT city FROM offices ORDER BY city) SELECT city FROM t");
    }

    @Test
    void dropsDistinctOnlyOverOneTableAndOnlyWhenNotAsked() {
        Clamps.Clamped c = clamp("List the cities of our customers.", "SELECT DISTINCT city FROM customers c");
        assertThat(c.applied()).containsExactly(Clamps.DROP_DISTINCT);
        assertThat(c.sql()).isEqualTo("SELECT city FROM customers c");
        assertThat(clamp("select distinct(city) from customers", LOOKUP).sql()).isEqualTo("select (city) from customers");
        // asked for
        assertThat(clamp("List the distinct cities of our customers.", "SELECT DISTINCT city FROM customers").applied())
                .isEmpty();
        // a join's fan-out is what DISTINCT removes here
        assertThat(clamp("SELECT DISTINCT e.email FROM employees e JOIN customers c ON c.salesRepEmployeeNumber = "
                + "e.employeeNumber", LOOKUP).applied()).isEmpty();
        assertThat(clamp("SELECT DISTINCT a.x FROM a, b", LOOKUP).applied()).isEmpty();
        // a kept LIMIT counts distinct rows
        assertThat(clamp("SELECT DISTINCT country FROM customers ORDER BY creditLimit DESC LIMIT 3", TOP3).applied())
                .isEmpty();
        // COUNT(DISTINCT ...) is inside parentheses
        assertThat(clamp("SELECT COUNT(DISTINCT country) FROM customers", AGGREGATE).applied()).isEmpty();
    }

    @Test
    void dropsAGroupByThatSplitsTheAskedForSingleAggregate() {
        Clamps.Clamped c = clamp("How many orders do we have?", "SELECT COUNT(*)\nFROM orders\nGROUP BY status;");
        assertThat(c.applied()).containsExactly(Clamps.DROP_GROUP_BY);
        assertThat(c.sql()).isEqualTo("SELECT COUNT(*)\nFROM orders;");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            key selected  | SELECT status, COUNT(*) FROM orders GROUP BY status
            having        | SELECT COUNT(*) FROM orders GROUP BY status HAVING COUNT(*) > 5
            rollup        | SELECT COUNT(*) FROM orders GROUP BY status WITH ROLLUP
            not aggregate | SELECT orderNumber FROM orders GROUP BY status
            window item   | SELECT COUNT(*) OVER () FROM orders GROUP BY status
            subquery item | SELECT (SELECT MAX(amount) FROM payments) FROM orders GROUP BY status
            """)
    void keepsOtherGroupBys(String what, String sql) {
        assertThat(clamp(sql, AGGREGATE).applied()).isEmpty();
    }

    @Test
    void keepsAGroupByTheQuestionAsksForOrThatRanksGroups() {
        String split = "SELECT COUNT(*) FROM orders GROUP BY status";
        assertThat(clamp(split, GROUPED).applied()).isEmpty();
        assertThat(clamp("Count the orders per status.", split).applied()).isEmpty();
        // "the largest number of units in any single order": a kept ORDER BY + LIMIT ranks the groups
        String ranked = "SELECT SUM(quantityOrdered) FROM orderdetails GROUP BY orderNumber ORDER BY 1 DESC LIMIT 1";
        assertThat(clamp("What is the largest total number of units ordered in any single order?", ranked).applied())
                .isEmpty();
    }

    @Test
    void dropsAGroupByUsedAsDistinctOnlyWhereDistinctWouldBeDropped() {
        Clamps.Clamped c = clamp("List the cities of our customers.", "SELECT city FROM customers GROUP BY city");
        assertThat(c.applied()).containsExactly(Clamps.DROP_GROUP_BY);
        assertThat(c.sql()).isEqualTo("SELECT city FROM customers");
        assertThat(clamp("SELECT `city` AS c FROM customers GROUP BY c", LOOKUP).applied())
                .containsExactly(Clamps.DROP_GROUP_BY);
        assertThat(clamp("List each city once.", "SELECT city FROM customers GROUP BY city").applied()).isEmpty();
        assertThat(clamp("SELECT o.city FROM offices o JOIN employees e ON e.officeCode = o.officeCode GROUP BY o.city",
                LOOKUP).applied()).isEmpty();
        assertThat(clamp("SELECT city FROM customers GROUP BY city, country", LOOKUP).applied()).isEmpty();
        assertThat(clamp("SELECT city FROM customers GROUP BY city ORDER BY COUNT(*) DESC", SORTED).applied()).isEmpty();
    }

    @Test
    void sqliteQuotingIsLexedAsSqlite() {
        Clamps.Clamped c = Clamps.apply("SELECT \"name\" FROM \"t\" ORDER BY \"name\" LIMIT 3", LOOKUP, Dialect.SQLITE);
        assertThat(c.sql()).isEqualTo("SELECT \"name\" FROM \"t\"");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            unterminated string   | SELECT name FROM t WHERE a = 'x ORDER BY name
            two statements        | SELECT 1 ORDER BY 1; SELECT 2 ORDER BY 1
            not a select          | UPDATE t SET a = 1 ORDER BY a LIMIT 1
            executable comment    | SELECT name FROM t /*!50000 ORDER BY name */ ORDER BY name
            parenthesised query   | (SELECT name FROM t ORDER BY name)
            empty                 | ""
            """)
    void leavesWhatItCannotReadAlone(String what, String sql) {
        Clamps.Clamped c = clamp(sql, LOOKUP);
        assertThat(c.applied()).isEmpty();
        assertThat(c.sql()).isSameAs(sql);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            List the cities of our customers.               | SELECT DISTINCT city FROM customers GROUP BY city ORDER BY city LIMIT 5
            How many customers are in France?               | SELECT COUNT(*) AS n FROM customers WHERE country = 'France' GROUP BY country ORDER BY n LIMIT 1
            What is the phone of the office in Paris?       | SELECT phone FROM offices WHERE city = 'Paris' ORDER BY (SELECT 1) DESC, phone LIMIT 2, 3
            Which offices are in the USA?                   | WITH x AS (SELECT * FROM offices) SELECT DISTINCT x.city FROM x WHERE x.country = 'USA' ORDER BY 1
            """)
    void clampedSqlStillParses(String question, String sql) {
        Clamps.Clamped c = clamp(question, sql);
        assertThat(c.applied()).isNotEmpty();
        assertThatCode(() -> CCJSqlParserUtil.parse(c.sql())).doesNotThrowAnyException();
    }
}
