package dev.ladder.scorer.score;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.ladder.scorer.bench.GoldFeatures;
import dev.ladder.scorer.score.em.EmTestSchema;
import dev.ladder.sql.read.Query;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Gold / prediction pairs that executed but returned the wrong result, each with the component that differs first. */
class ErrorTaxonomyTest {

    private static final ErrorTaxonomy TAXONOMY = new ErrorTaxonomy(EmTestSchema.CLASSIC_MODELS);
    /** Without a schema, only aliases and single-table SELECTs tell a column's table. */
    private static final ErrorTaxonomy NO_SCHEMA = new ErrorTaxonomy(null);

    @ParameterizedTest(name = "{2}: {1}")
    @CsvSource(delimiter = '|', value = {
        // ---- wrong-table: the table sets differ (subqueries included)
        "SELECT COUNT(*) FROM customers WHERE country = 'USA' | SELECT COUNT(*) FROM offices WHERE country = 'USA' | wrong-table",
        "SELECT customerName FROM customers WHERE customerNumber IN (SELECT customerNumber FROM payments) "
                + "| SELECT customerName FROM customers WHERE customerNumber IN (SELECT customerNumber FROM orders) | wrong-table",
        "SELECT p.productName FROM products p JOIN productlines pl ON p.productLine = pl.productLine WHERE pl.textDescription LIKE '%vintage%' "
                + "| SELECT productName FROM Products WHERE productDescription LIKE '%vintage%' | wrong-table",
        // ---- wrong-join: same tables, different join pairs or join count
        "SELECT e.lastName FROM employees e JOIN offices o ON e.officeCode = o.officeCode WHERE o.city = 'Paris' "
                + "| SELECT e.lastName FROM employees e JOIN offices o ON e.employeeNumber = o.officeCode WHERE o.city = 'Paris' | wrong-join",
        "SELECT e.firstName FROM employees e JOIN employees m ON e.reportsTo = m.employeeNumber WHERE m.lastName = 'Bow' "
                + "| SELECT firstName FROM employees WHERE lastName = 'Bow' | wrong-join",
        "SELECT DISTINCT c.customerName FROM customers c JOIN orders o ON o.customerNumber = c.customerNumber "
                + "| SELECT customerName FROM customers WHERE customerNumber IN (SELECT customerNumber FROM orders) | wrong-join",
        "SELECT e.lastName, m.lastName FROM employees e LEFT JOIN employees m ON e.reportsTo = m.employeeNumber "
                + "| SELECT e.lastName, m.lastName FROM employees e JOIN employees m ON m.employeeNumber = e.reportsTo | wrong-join",
        // ---- wrong-column: same tables and joins, different columns (aliases resolved)
        "SELECT customerName FROM customers WHERE creditLimit > 100000 | SELECT contactLastName FROM customers WHERE creditLimit > 100000 | wrong-column",
        "SELECT o.orderDate FROM orders o JOIN customers c ON o.customerNumber = c.customerNumber WHERE c.customerName = 'Mini Wheels Co.' "
                + "| SELECT orders.shippedDate FROM orders JOIN customers ON orders.customerNumber = customers.customerNumber "
                + "WHERE customers.customerName = 'Mini Wheels Co.' | wrong-column",
        // city exists in customers and offices: the alias decides which one is meant
        "SELECT c.city FROM customers c JOIN employees e ON c.salesRepEmployeeNumber = e.employeeNumber JOIN offices o ON e.officeCode = o.officeCode "
                + "| SELECT o.city FROM customers c JOIN employees e ON c.salesRepEmployeeNumber = e.employeeNumber JOIN offices o ON e.officeCode = o.officeCode "
                + "| wrong-column",
        // ---- wrong-aggregation: aggregate calls, GROUP BY keys, HAVING
        "SELECT MAX(amount) FROM payments | SELECT SUM(amount) FROM payments | wrong-aggregation",
        "SELECT COUNT(DISTINCT customerNumber) FROM orders | SELECT COUNT(customerNumber) FROM orders | wrong-aggregation",
        "SELECT country, COUNT(*) FROM customers GROUP BY country | SELECT country, COUNT(*) FROM customers | wrong-aggregation",
        "SELECT productLine FROM products GROUP BY productLine HAVING COUNT(*) > 10 "
                + "| SELECT productLine FROM products GROUP BY productLine HAVING COUNT(*) >= 10 | wrong-aggregation",
        "SELECT productName FROM products WHERE buyPrice > (SELECT AVG(buyPrice) FROM products) "
                + "| SELECT productName FROM products WHERE buyPrice > (SELECT MIN(buyPrice) FROM products) | wrong-aggregation",
        // ---- wrong-filter: WHERE leaves, operators, values, connectives
        "SELECT customerName FROM customers WHERE country = 'France' | SELECT customerName FROM customers WHERE country = 'Germany' | wrong-filter",
        "SELECT customerName FROM customers WHERE creditLimit > 50000 | SELECT customerName FROM customers WHERE creditLimit >= 50000 | wrong-filter",
        "SELECT customerName FROM customers WHERE country = 'USA' AND state = 'CA' "
                + "| SELECT customerName FROM customers WHERE country = 'USA' OR state = 'CA' | wrong-filter",
        "SELECT COUNT(*) FROM Orders WHERE Status = 'Shipped' | select count(*) from orders where status = 'Disputed' | wrong-filter",
        // implicit join (comma + WHERE) and USING are the same join; only the status value differs
        "SELECT c.customerName FROM customers c, orders o WHERE c.customerNumber = o.customerNumber AND o.status = 'Cancelled' "
                + "| SELECT customerName FROM customers JOIN orders USING (customerNumber) WHERE status = 'On Hold' | wrong-filter",
        // ---- wrong-projection-or-order: SELECT list order, DISTINCT, ORDER BY, LIMIT
        "SELECT firstName, lastName FROM employees | SELECT lastName, firstName FROM employees | wrong-projection-or-order",
        "SELECT customerName FROM customers ORDER BY creditLimit DESC LIMIT 5 "
                + "| SELECT customerName FROM customers ORDER BY creditLimit LIMIT 5 | wrong-projection-or-order",
        "SELECT DISTINCT country FROM customers | SELECT country FROM customers | wrong-projection-or-order",
        // alias and ordinal stand for the same aggregate; only LIMIT differs
        "SELECT productLine, COUNT(*) AS n FROM products GROUP BY productLine ORDER BY n DESC LIMIT 1 "
                + "| SELECT productLine, COUNT(1) FROM products GROUP BY 1 ORDER BY COUNT(*) DESC LIMIT 3 | wrong-projection-or-order",
        // literal side, quote style, case and numeric spelling are normalised; only ORDER BY differs
        "SELECT customerName FROM customers WHERE country = 'USA' AND creditLimit > 1000.00 "
                + "| SELECT customerName FROM customers WHERE \"usa\" = country AND creditLimit > 1000 ORDER BY customerName | wrong-projection-or-order",
        // unqualified columns of a join resolved through the schema
        "SELECT customerName FROM customers JOIN payments ON customers.customerNumber = payments.customerNumber WHERE amount > 100000 "
                + "| SELECT c.customerName FROM customers c JOIN payments p ON c.customerNumber = p.customerNumber WHERE p.amount > 100000 "
                + "ORDER BY c.customerName | wrong-projection-or-order",
        // GROUP BY productScale names the column, not the SELECT alias productScale (as MySQL and SQLite read it)
        "SELECT productLine, productScale, COUNT(*) FROM products GROUP BY productLine, productScale "
                + "| SELECT productLine AS productScale, COUNT(*) FROM products GROUP BY productLine, productScale "
                + "| wrong-projection-or-order",
        // two columns compared either way round are one condition
        "SELECT p.productName FROM products p JOIN orderdetails d ON d.productCode = p.productCode WHERE d.priceEach > p.buyPrice "
                + "| SELECT p.productName, d.priceEach FROM products p JOIN orderdetails d ON d.productCode = p.productCode "
                + "WHERE p.buyPrice < d.priceEach | wrong-projection-or-order",
        // a difference inside a subquery is its own level's: here its ORDER BY, not the WHERE that holds it
        "SELECT lastName FROM employees WHERE officeCode = (SELECT officeCode FROM offices ORDER BY city LIMIT 1) "
                + "| SELECT lastName FROM employees WHERE officeCode = (SELECT officeCode FROM offices ORDER BY city DESC LIMIT 1) "
                + "| wrong-projection-or-order",
        // IN list = OR of equalities; DATE '...' = the string; only LIMIT differs
        "SELECT orderNumber FROM orders WHERE status IN ('Shipped', 'Resolved') AND orderDate > DATE '2004-06-30' "
                + "| SELECT orderNumber FROM orders WHERE (status = 'Resolved' OR status = 'Shipped') AND orderDate > '2004-06-30' LIMIT 10 "
                + "| wrong-projection-or-order",
        // ---- other: nothing component-wise differs
        "WITH t AS (SELECT customerNumber, SUM(amount) s FROM payments GROUP BY customerNumber) SELECT MAX(s) FROM t "
                + "| SELECT MAX(s) FROM (SELECT customerNumber, SUM(amount) s FROM payments GROUP BY customerNumber) x | other",
        "SELECT city FROM offices UNION SELECT city FROM customers | SELECT city FROM offices UNION ALL SELECT city FROM customers | other",
        "SELECT productCode FROM orderdetails WHERE quantityOrdered > 50 | SELECT productCode FROM orderdetails WHERE 50 < quantityOrdered | other",
        // a CTE read twice is one level: the subquery that reads it again adds no second copy of its aggregation
        "WITH v AS (SELECT productLine, AVG(MSRP) AS m FROM products GROUP BY productLine) "
                + "SELECT productLine FROM v WHERE m > (SELECT AVG(m) FROM v) "
                + "| WITH v AS (SELECT productLine, AVG(MSRP) AS m FROM products GROUP BY productLine) "
                + "SELECT productLine FROM v WHERE m > (SELECT AVG(m)) | other",
    })
    void classicModelsPairs(String gold, String predicted, String expected) {
        assertThat(TAXONOMY.classify(gold, predicted, true, false).label()).isEqualTo(expected);
    }

    /** Spider's concert_singer queries, read without their schema: upper-case aliases T1/T2, mixed-case names. */
    @ParameterizedTest(name = "{2}: {1}")
    @CsvSource(delimiter = '|', value = {
        "SELECT T2.name FROM singer_in_concert AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id "
                + "| SELECT T2.name FROM singer_in_concert AS T1 JOIN singer AS T2 ON T1.concert_id = T2.singer_id | wrong-join",
        "SELECT name FROM stadium WHERE capacity > 5000 | SELECT location FROM stadium WHERE capacity > 5000 | wrong-column",
        "SELECT avg(capacity), max(capacity) FROM stadium | SELECT avg(capacity), min(capacity) FROM stadium | wrong-aggregation",
        "SELECT count(*) FROM concert WHERE YEAR = 2014 OR YEAR = 2015 | SELECT count(*) FROM concert WHERE YEAR = 2014 AND YEAR = 2015 | wrong-filter",
        "SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id WHERE T1.year = 2014 ORDER BY T2.name "
                + "| SELECT stadium.Name FROM Stadium JOIN Concert ON Concert.Stadium_ID = Stadium.Stadium_ID WHERE Concert.Year = '2014' "
                + "| wrong-projection-or-order",
        "SELECT name FROM singer WHERE singer_id NOT IN (SELECT singer_id FROM singer_in_concert) "
                + "| SELECT name FROM singer WHERE singer_id NOT IN (SELECT singer_id FROM singer_in_concert) | other",
    })
    void otherSchemaPairs(String gold, String predicted, String expected) {
        assertThat(NO_SCHEMA.classify(gold, predicted, true, false).label()).isEqualTo(expected);
    }

    @Test
    void executionOutcomeComesFirst() {
        String gold = "SELECT COUNT(*) FROM customers";
        assertThat(TAXONOMY.classify(gold, "SELECT COUNT(*) FROM offices", true, true)).isEqualTo(ErrorClass.CORRECT);
        assertThat(TAXONOMY.classify(gold, "SELECT COUNT(*) FROM customer", false, false))
                .isEqualTo(ErrorClass.NOT_EXECUTABLE);
        assertThat(TAXONOMY.classify(gold, "  ", true, false)).isEqualTo(ErrorClass.NOT_EXECUTABLE);
        assertThat(TAXONOMY.classify(gold, null, true, false)).isEqualTo(ErrorClass.NOT_EXECUTABLE);
    }

    @Test
    void unparseableSqlFallsBackToLexicalTables() {
        String gold = "SELECT customerName FROM customers WHERE creditLimit > 50000";
        assertThat(TAXONOMY.classify(gold, "SELECT customerName FROM customers WHERE creditLimit > > 5", true, false))
                .isEqualTo(ErrorClass.OTHER);
        assertThat(TAXONOMY.classify(gold, "SELECT o.city FROM offices o, employees e WHERE city = = 1", true, false))
                .isEqualTo(ErrorClass.WRONG_TABLE);
        // the # in 'a#b' starts no comment: the gold's subquery table is read, as the prediction's is
        String hash = "SELECT id FROM shipments WHERE note = 'a#b' AND id IN (SELECT id FROM parcels)";
        assertThat(TAXONOMY.classify(hash, "SELECT id FROM shipments WHERE note = 'ab' AND id IN (SELECT id FROM parcels) AND",
                true, false)).isEqualTo(ErrorClass.OTHER);
    }

    @Test
    void sqlTooDeepToParseIsOther() {
        String deep = "SELECT " + "(".repeat(Query.MAX_NESTING + 1) + "1" + ")".repeat(Query.MAX_NESTING + 1) + " FROM offices";
        // not even the lexical tables (offices against customers) are compared
        assertThat(TAXONOMY.classify("SELECT city FROM customers", deep, true, false)).isEqualTo(ErrorClass.OTHER);
    }

    @Test
    void neverThrows() {
        String[] inputs = {null, "", "SELECT", "DROP TABLE customers", "SELECT * FROM", "))((", "SELECT 1",
            "INSERT INTO offices VALUES (1)", "SELECT * FROM customers c JOIN orders o USING (customerNumber)"};
        for (String gold : inputs) {
            for (String predicted : inputs) {
                assertThatCode(() -> TAXONOMY.classify(gold, predicted, true, false)).doesNotThrowAnyException();
            }
        }
        assertThat(TAXONOMY.classify(null, "SELECT 1", true, false)).isEqualTo(ErrorClass.OTHER);
    }

    @Test
    void labelsRoundTrip() {
        assertThat(Arrays.stream(ErrorClass.values()).map(ErrorClass::label)).containsExactly("correct", "not-executable",
                "wrong-table", "wrong-column", "wrong-join", "wrong-filter", "wrong-aggregation",
                "wrong-projection-or-order", "other");
        for (ErrorClass c : ErrorClass.values()) assertThat(ErrorClass.fromLabel(c.label())).isEqualTo(c);
    }

    // ------------------------------------------------------------------ GoldFeatures

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "SELECT COUNT(*) FROM customers | 1 | 0 | 1 | 0",
        "SELECT c.customerName, SUM(p.amount) FROM customers c JOIN payments p ON p.customerNumber = c.customerNumber "
                + "JOIN employees e ON e.employeeNumber = c.salesRepEmployeeNumber GROUP BY c.customerName | 3 | 2 | 1 | 0",
        "SELECT * FROM customers, orders, orderdetails WHERE customers.customerNumber = orders.customerNumber "
                + "AND orders.orderNumber = orderdetails.orderNumber | 3 | 2 | 0 | 0",
        "SELECT productName FROM products WHERE buyPrice > (SELECT AVG(buyPrice) FROM products WHERE productLine IN "
                + "(SELECT productLine FROM productlines WHERE textDescription LIKE '%car%')) | 2 | 0 | 1 | 2",
        "WITH totals AS (SELECT customerNumber, SUM(amount) AS total FROM payments GROUP BY customerNumber) "
                + "SELECT c.customerName FROM customers c JOIN totals t ON t.customerNumber = c.customerNumber "
                + "WHERE t.total > (SELECT AVG(total) FROM totals) | 2 | 1 | 2 | 1",
        "SELECT AVG(n) FROM (SELECT COUNT(*) AS n FROM orders GROUP BY customerNumber) t | 1 | 0 | 2 | 1",
        "SELECT city FROM offices UNION SELECT city FROM customers | 2 | 0 | 0 | 0",
        "SELECT customerNumber, SUM(amount) OVER (PARTITION BY customerNumber), GROUP_CONCAT(checkNumber) FROM payments "
                + "GROUP BY customerNumber, amount | 1 | 0 | 2 | 0",
        "SELECT T1.name FROM stadium AS T1 JOIN concert AS T2 ON T1.stadium_id = T2.stadium_id WHERE EXISTS "
                + "(SELECT 1 FROM singer_in_concert AS T3 WHERE T3.concert_id = T2.concert_id) | 3 | 1 | 0 | 1",
        // the parser rejects it: its tokens tell all the same
        "SELECT name FROM stadium s JOIN concert c ON WHERE (( | 2 | 1 | 0 | 0",
        // the ORDER BY of a set operation's result counts too
        "SELECT city FROM offices UNION SELECT city FROM customers GROUP BY city ORDER BY COUNT(*) DESC | 2 | 0 | 1 | 0",
    })
    void goldFeatures(String sql, int tables, int joins, int aggregates, int nesting) {
        assertThat(GoldFeatures.of(sql)).isEqualTo(new GoldFeatures(tables, joins, aggregates, nesting));
    }

    @Test
    void goldFeaturesOfNothing() {
        assertThat(GoldFeatures.of(null)).isEqualTo(new GoldFeatures(0, 0, 0, 0));
        assertThat(GoldFeatures.of("")).isEqualTo(new GoldFeatures(0, 0, 0, 0));
    }
}
