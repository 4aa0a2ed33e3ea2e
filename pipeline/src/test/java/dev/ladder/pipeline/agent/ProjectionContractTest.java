package dev.ladder.pipeline.agent;

import static dev.ladder.pipeline.kit.IntentClassifierTest.SCHOOL;
import static dev.ladder.pipeline.kit.IntentClassifierTest.SHOP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.ladder.pipeline.kit.Intent;
import dev.ladder.pipeline.kit.IntentClassifier;
import dev.ladder.pipeline.kit.IntentProfile;
import dev.ladder.sql.schema.Schema;
import java.util.List;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ProjectionContractTest {

    private static IntentProfile named(Intent intent, String... fields) {
        return new IntentProfile(intent, false, false, null, false, false, List.of(fields));
    }

    /** The question read by the classifier, then the contract with the question's extra protection. */
    private static ProjectionContract.Projected enforce(String question, String sql, Schema schema) {
        return ProjectionContract.enforce(sql, IntentClassifier.classify(question, schema), schema, question);
    }

    @Test
    void reordersNamedColumnsIntoTheQuestionsOrderKeepingTheirText() {
        ProjectionContract.Projected p = enforce("For employees in office 4, give the first and last name.",
                "SELECT e.`lastName` AS surname,\n       e.firstName FROM employees e WHERE e.officeCode = '4'", SHOP);
        assertThat(p.applied()).containsExactly(ProjectionContract.REORDER);
        assertThat(p.sql()).isEqualTo("SELECT e.firstName,\n       e.`lastName` AS surname FROM employees e WHERE e.officeCode = '4'");
    }

    @Test
    void expressionsKeepTheirSlotsWhileNamedColumnsMoveAroundThem() {
        ProjectionContract.Projected p = ProjectionContract.enforce(
                "SELECT city, COUNT(*), country FROM offices GROUP BY city, country",
                named(Intent.GROUPED_AGGREGATE, "country", "city"), SHOP);
        assertThat(p.sql()).isEqualTo("SELECT country, COUNT(*), city FROM offices GROUP BY city, country");
    }

    @Test
    void dropsColumnsTheWhereClauseFixesEvenWithoutTheQuestion() {
        IntentProfile intent = IntentClassifier.classify("Which email address does employee 1611 use?", SHOP);
        ProjectionContract.Projected p = ProjectionContract.enforce(
                "SELECT employeeNumber, email FROM employees WHERE employeeNumber = 1611", intent, SHOP);
        assertThat(p.applied()).containsExactly("drop:employeeNumber");
        assertThat(p.sql()).isEqualTo("SELECT email FROM employees WHERE employeeNumber = 1611");
        ProjectionContract.Projected q = ProjectionContract.enforce(
                "SELECT o.phone, o.city FROM offices o WHERE o.city IN ('Paris', 'Tokyo') AND o.country = 'France'",
                named(Intent.LOOKUP, "phone"), SHOP);
        assertThat(q.sql()).isEqualTo("SELECT o.phone FROM offices o WHERE o.city IN ('Paris', 'Tokyo') AND o.country = 'France'");
    }

    @Test
    void withoutTheQuestionOnlyWhereFixedColumnsGo() {
        String sql = "SELECT productName, productScale FROM products WHERE productLine = 'Ships'";
        assertThat(ProjectionContract.enforce(sql, named(Intent.LOOKUP, "productName"), SHOP).applied()).isEmpty();
        // a condition joined by OR fixes nothing
        assertThat(ProjectionContract.enforce("SELECT phone, city FROM offices WHERE city = 'Paris' OR city = 'Tokyo'",
                named(Intent.LOOKUP, "phone"), SHOP).applied()).isEmpty();
    }

    @Test
    void withTheQuestionUnmentionedDescriptiveColumnsGoButKeysNamesAndMentionedWordsStay() {
        ProjectionContract.Projected p = enforce("What is the phone number of the Boston office?",
                "SELECT officeCode, phone, country, territory FROM offices WHERE city = 'Boston'", SHOP);
        assertThat(p.applied()).containsExactly("drop:country", "drop:territory");
        assertThat(p.sql()).isEqualTo("SELECT officeCode, phone FROM offices WHERE city = 'Boston'");
        // "quantity" is a word of quantityOrdered; customerName is a name column
        ProjectionContract.Projected q = enforce("For order 10100, show the product name, quantity and price each.",
                "SELECT p.productName, c.customerName, od.quantityOrdered, od.priceEach FROM orderdetails od "
                        + "JOIN products p ON p.productCode = od.productCode JOIN orders o ON o.orderNumber = od.orderNumber "
                        + "JOIN customers c ON c.customerNumber = o.customerNumber WHERE od.orderNumber = 10100", SHOP);
        assertThat(q.applied()).isEmpty();
    }

    @Test
    void worksOnAnotherSchema() {
        ProjectionContract.Projected p = enforce("Show the GPA and last name of students majoring in Physics.",
                "SELECT s.last_name, s.major, s.gpa, s.enrollment_year FROM students AS s WHERE s.major = 'Physics'", SCHOOL);
        assertThat(p.applied()).containsExactly("drop:major", "drop:enrollment_year", ProjectionContract.REORDER);
        assertThat(p.sql()).isEqualTo("SELECT s.gpa, s.last_name FROM students AS s WHERE s.major = 'Physics'");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            select star            | SELECT *, phone FROM offices WHERE city = 'Paris'
            qualified star         | SELECT o.*, phone FROM offices o WHERE city = 'Paris'
            positional order by    | SELECT city, phone FROM offices WHERE city = 'Paris' ORDER BY 2
            positional group by    | SELECT city, phone FROM offices WHERE city = 'Paris' GROUP BY 1, 2
            alias in order by      | SELECT city AS c, phone FROM offices WHERE city = 'Paris' ORDER BY c
            group key              | SELECT city, phone FROM offices WHERE city = 'Paris' GROUP BY city, phone
            having                 | SELECT city, phone FROM offices WHERE city = 'Paris' GROUP BY phone HAVING city <> ''
            distinct order by      | SELECT DISTINCT city, phone FROM offices WHERE city = 'Paris' ORDER BY city
            union                  | SELECT city, phone FROM offices WHERE city = 'Paris' UNION SELECT city, phone FROM customers
            derived column         | SELECT t.city, phone FROM (SELECT officeCode, city FROM offices) t JOIN offices o ON o.officeCode = t.officeCode WHERE t.city = 'Paris'
            cte column             | WITH t AS (SELECT city, phone FROM offices) SELECT city, phone FROM t WHERE city = 'Paris'
            unknown table          | SELECT city, phone FROM branches WHERE city = 'Paris'
            expression             | SELECT UPPER(city), phone FROM offices WHERE city = 'Paris'
            no named column        | SELECT city FROM offices WHERE city = 'Paris'
            unreadable             | SELECT city, phone FROM offices WHERE city = 'Paris
            """)
    void leavesAloneWhatItMustNotTouch(String what, String sql) {
        ProjectionContract.Projected p = ProjectionContract.enforce(sql, named(Intent.LOOKUP, "phone"), SHOP, "What is the phone?");
        assertThat(p.applied()).isEmpty();
        assertThat(p.sql()).isSameAs(sql);
    }

    @Test
    void orderByAColumnNameDoesNotProtectItWithoutDistinct() {
        ProjectionContract.Projected p = enforce("What is the check number and customer number of the most recent payment?",
                "SELECT checkNumber, customerNumber, paymentDate FROM payments ORDER BY paymentDate DESC LIMIT 1", SHOP);
        assertThat(p.applied()).containsExactly("drop:paymentDate");
        assertThat(p.sql()).isEqualTo("SELECT checkNumber, customerNumber FROM payments ORDER BY paymentDate DESC LIMIT 1");
    }

    @Test
    void aggregatesAreNeverDroppedAndRepeatedNamedColumnsAreNotReordered() {
        String pairs = "SELECT a.lastName, a.firstName, b.lastName, b.firstName FROM employees a JOIN employees b "
                + "ON a.officeCode = b.officeCode AND a.employeeNumber < b.employeeNumber";
        assertThat(enforce("Show both employees' first and last names.", pairs, SHOP).applied()).isEmpty();
        ProjectionContract.Projected p = enforce("What is the average credit limit of customers in each country?",
                "SELECT AVG(creditLimit), country FROM customers GROUP BY country", SHOP);
        assertThat(p.applied()).isEmpty();
    }

    @Test
    void nothingNamedMeansNothingChanged() {
        String sql = "SELECT customerName, city FROM customers WHERE state = 'CA'";
        ProjectionContract.Projected p = enforce("Which customers are located in the state of California?", sql, SHOP);
        assertThat(p.applied()).isEmpty();
        assertThat(p.sql()).isSameAs(sql);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            Give the name and phone of customer 112.         | SELECT customerNumber, city, phone, customerName FROM customers WHERE customerNumber = 112
            What is the phone number of the Boston office?   | SELECT `phone`, `city` FROM `offices` WHERE `city` = 'Boston'
            Show the credit limit of Mini Gifts.            | SELECT c.customerName, c.creditLimit, c.country FROM customers AS c WHERE 'Mini Gifts' = c.customerName
            """)
    void resultKeepsANamedColumnAndParses(String question, String sql) {
        ProjectionContract.Projected p = enforce(question, sql, SHOP);
        assertThat(p.applied()).isNotEmpty();
        assertThat(p.sql()).doesNotContain("SELECT FROM").doesNotContain(", FROM").doesNotContain("SELECT ,");
        assertThatCode(() -> CCJSqlParserUtil.parse(p.sql())).doesNotThrowAnyException();
    }
}
