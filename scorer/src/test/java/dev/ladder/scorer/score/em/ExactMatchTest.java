package dev.ladder.scorer.score.em;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.sql.read.Query;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Spider-style exact set match on hand-written pairs over a hand-built ClassicModels schema. */
class ExactMatchTest {

    private static final ExactMatch EM = new ExactMatch(EmTestSchema.CLASSIC_MODELS, false);
    private static final ExactMatch EM_VALUES = new ExactMatch(EmTestSchema.CLASSIC_MODELS, true);

    private static EmScore score(String gold, String pred) {
        EmScore s = EM.score(gold, pred);
        // match is exactly equality of the canonical forms
        assertThat(s.match()).as("match vs canonical for %s | %s", gold, pred)
                .isEqualTo(EM.analyse(gold).canonical().equals(EM.analyse(pred).canonical()));
        return s;
    }

    private static void assertMatch(String gold, String pred) {
        EmScore s = score(gold, pred);
        assertThat(s.match()).as("%s\n  should match\n%s\n  gold %s\n  pred %s", gold, pred,
                EM.analyse(gold), EM.analyse(pred)).isTrue();
        assertThat(s.error()).isNull();
        assertThat(s.failedComponents()).isEmpty();
        assertThat(score(pred, gold).match()).as("symmetric").isTrue();
    }

    private static EmScore assertNoMatch(String gold, String pred) {
        EmScore s = score(gold, pred);
        assertThat(s.match()).as("%s\n  should not match\n%s\n  canonical %s", gold, pred, EM.analyse(gold)).isFalse();
        assertThat(s.error()).isNull();
        return s;
    }

    @org.junit.jupiter.api.Test
    void distinctIsIgnoredByDefaultAsInSpiderAndComparedOnRequest() {
        ExactMatch keep = new ExactMatch(EmTestSchema.CLASSIC_MODELS, false, true, true);
        String[][] pairs = {
                {"SELECT DISTINCT country FROM customers", "SELECT country FROM customers", "keywords"},
                {"SELECT COUNT(DISTINCT country) FROM customers", "SELECT COUNT(country) FROM customers", "select"},
                {"SELECT country FROM customers GROUP BY country HAVING COUNT(DISTINCT city) > 2",
                        "SELECT country FROM customers GROUP BY country HAVING COUNT(city) > 2", "group"}};
        for (String[] p : pairs) {
            assertMatch(p[0], p[1]);
            EmScore s = keep.score(p[0], p[1]);
            assertThat(s.match()).as(p[0]).isFalse();
            assertThat(s.failedComponents()).as(p[0]).contains(p[2]);
            assertThat(keep.score(p[0], p[0]).match()).isTrue();
        }
    }

    // ------------------------------------------------------------------ equal pairs

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            table alias          | SELECT o.orderDate FROM orders o WHERE o.status = 'Shipped' | SELECT orders.orderDate FROM orders WHERE orders.status = 'Shipped'
            AS alias             | SELECT o.orderDate FROM orders o WHERE o.status = 'Shipped' | SELECT x.orderDate FROM orders AS x WHERE x.status = 'Shipped'
            unqualified          | SELECT o.orderDate FROM orders o WHERE o.status = 'Shipped' | SELECT orderDate FROM orders WHERE status = 'Shipped'
            identifier case      | SELECT orderDate FROM orders WHERE status = 'Shipped'       | select ORDERDATE from ORDERS where Status = 'Shipped'
            backticks            | SELECT orderDate FROM orders WHERE status = 'Shipped'       | SELECT `orderDate` FROM `orders` WHERE `orders`.`status` = 'Shipped';
            select order         | SELECT city, phone, country FROM offices                    | SELECT country, city, phone FROM offices
            and order            | SELECT city FROM offices WHERE country = 'USA' AND state = 'CA' | SELECT city FROM offices WHERE state = 'CA' AND country = 'USA'
            nested and order     | SELECT city FROM offices WHERE (country = 'USA' AND state = 'CA') AND territory = 'NA' | SELECT city FROM offices WHERE territory = 'NA' AND (state = 'CA' AND country = 'USA')
            or order             | SELECT city FROM offices WHERE country = 'USA' OR country = 'Japan' | SELECT city FROM offices WHERE country = 'Japan' OR country = 'USA'
            literal values       | SELECT phone FROM offices WHERE city = 'Paris'              | SELECT phone FROM offices WHERE city = 'Tokyo'
            number vs string     | SELECT email FROM employees WHERE employeeNumber = 1370     | SELECT email FROM employees WHERE employeeNumber = '1002'
            not equals spelling  | SELECT city FROM offices WHERE country <> 'USA'             | SELECT city FROM offices WHERE country != 'USA'
            NOT of comparison    | SELECT city FROM offices WHERE country <> 'USA'             | SELECT city FROM offices WHERE NOT country = 'USA'
            inner join           | SELECT c.customerName FROM customers c JOIN payments p ON c.customerNumber = p.customerNumber | SELECT c.customerName FROM customers c INNER JOIN payments p ON p.customerNumber = c.customerNumber
            join order           | SELECT c.customerName, p.amount FROM customers c JOIN payments p ON c.customerNumber = p.customerNumber | SELECT customerName, amount FROM payments JOIN customers ON payments.customerNumber = customers.customerNumber
            comparison flipped   | SELECT customerName FROM customers WHERE creditLimit > 100000 | SELECT customerName FROM customers WHERE 100000 < creditLimit
            columns flipped      | SELECT o.orderNumber FROM orders o WHERE o.shippedDate > o.requiredDate | SELECT o.orderNumber FROM orders o WHERE o.requiredDate < o.shippedDate
            order by alias       | SELECT customerNumber, SUM(amount) AS total FROM payments GROUP BY customerNumber ORDER BY total DESC LIMIT 3 | SELECT customerNumber, SUM(amount) FROM payments GROUP BY customerNumber ORDER BY SUM(amount) DESC LIMIT 5
            order by ordinal     | SELECT customerNumber, SUM(amount) FROM payments GROUP BY customerNumber ORDER BY 2 DESC | SELECT customerNumber, SUM(amount) FROM payments GROUP BY 1 ORDER BY SUM(amount) DESC
            group by order       | SELECT country, city, COUNT(*) FROM customers GROUP BY country, city | SELECT country, city, COUNT(*) FROM customers GROUP BY city, country
            having alias         | SELECT country, COUNT(*) AS n FROM customers GROUP BY country HAVING n > 5 | SELECT country, COUNT(*) FROM customers GROUP BY country HAVING COUNT(*) > 10
            in list values       | SELECT customerName FROM customers WHERE country IN ('Norway', 'Sweden') | SELECT customerName FROM customers WHERE country IN ('Denmark', 'Finland', 'Iceland')
            between values       | SELECT orderNumber FROM orders WHERE orderDate BETWEEN '2004-01-01' AND '2004-12-31' | SELECT orderNumber FROM orders WHERE orderDate BETWEEN '2003-01-01' AND '2003-06-30'
            mysql functions case | SELECT YEAR(orderDate), COUNT(*) FROM orders GROUP BY YEAR(orderDate) | SELECT year(o.orderDate), count(*) FROM orders o GROUP BY Year(o.orderDate)
            datediff             | SELECT AVG(DATEDIFF(shippedDate, orderDate)) FROM orders WHERE shippedDate IS NOT NULL | SELECT avg(datediff(o.shippedDate, o.orderDate)) FROM orders AS o WHERE o.shippedDate IS NOT NULL
            date_format values   | SELECT DATE_FORMAT(paymentDate, '%Y-%m'), SUM(amount) FROM payments GROUP BY DATE_FORMAT(paymentDate, '%Y-%m') | SELECT date_format(p.paymentDate, '%m'), SUM(p.amount) FROM payments p GROUP BY date_format(p.paymentDate, '%m')
            coalesce round       | SELECT ROUND(COALESCE(SUM(amount), 0), 2) FROM payments     | SELECT round(coalesce(sum(p.amount), 0), 1) FROM payments p
            concat ifnull        | SELECT CONCAT(firstName, ' ', lastName), IFNULL(reportsTo, 0) FROM employees | SELECT concat(e.firstName, ' ', e.lastName), ifnull(e.reportsTo, 0) FROM employees e
            commutative product  | SELECT SUM(quantityOrdered * priceEach) FROM orderdetails   | SELECT SUM(od.priceEach * od.quantityOrdered) FROM orderdetails od
            window function      | SELECT customerName, RANK() OVER (PARTITION BY country ORDER BY creditLimit DESC) AS r FROM customers | SELECT c.customerName, rank() over (partition by c.country order by c.creditLimit desc) FROM customers c
            foreign key column   | SELECT c.customerName, COUNT(*) FROM customers c JOIN orders o ON o.customerNumber = c.customerNumber GROUP BY c.customerNumber, c.customerName | SELECT c.customerName, COUNT(*) FROM customers c JOIN orders o ON o.customerNumber = c.customerNumber GROUP BY o.customerNumber, c.customerName
            double quoted string | SELECT phone FROM offices WHERE city = 'Paris'              | SELECT phone FROM offices WHERE city = "Paris"
            trailing semicolons  | SELECT COUNT(*) FROM products                               | SELECT count(*) FROM products ; ;
            count one            | SELECT COUNT(*) FROM orders WHERE status = 'Shipped'        | SELECT COUNT(1) FROM orders WHERE status = 'Shipped'
            distinct inside IN   | SELECT customerName FROM customers WHERE customerNumber IN (SELECT customerNumber FROM orders) | SELECT customerName FROM customers WHERE customerNumber IN (SELECT DISTINCT customerNumber FROM orders)
            count star spacing   | SELECT COUNT(*) FROM products                               | SELECT COUNT( * ) FROM products p
            like values          | SELECT productName FROM products WHERE productName LIKE '%Ford%' | SELECT productName FROM products WHERE productName LIKE '%Harley%'
            not in               | SELECT productName FROM products WHERE productCode NOT IN (SELECT productCode FROM orderdetails) | SELECT p.productName FROM products p WHERE NOT p.productCode IN (SELECT od.productCode FROM orderdetails AS od)
            correlated exists    | SELECT email FROM employees e WHERE NOT EXISTS (SELECT 1 FROM customers c WHERE c.salesRepEmployeeNumber = e.employeeNumber) | SELECT x.email FROM employees x WHERE NOT EXISTS (SELECT * FROM customers y WHERE x.employeeNumber = y.salesRepEmployeeNumber)
            """)
    void equalPairs(String name, String gold, String pred) {
        assertMatch(gold.strip(), pred.strip());
    }

    @Test
    void aliasesOnlyInsideANestedQueryDoNotMatter() {
        assertMatch("SELECT customerName FROM customers WHERE customerNumber IN "
                        + "(SELECT p.customerNumber FROM payments p WHERE p.amount > 100000)",
                "SELECT c.customerName FROM customers AS c WHERE c.customerNumber IN "
                        + "(SELECT customerNumber FROM payments WHERE 50000 < amount)");
    }

    @Test
    void derivedTablesAndCtesAreComparedByContentNotByName() {
        String derived = "SELECT AVG(cnt) FROM (SELECT customerNumber, COUNT(*) AS cnt FROM orders GROUP BY customerNumber) AS t";
        String renamed = "SELECT avg(x.n) FROM (SELECT o.customerNumber, count(*) n FROM orders o GROUP BY o.customerNumber) x";
        String cte = "WITH per_customer AS (SELECT customerNumber, COUNT(*) AS n FROM orders GROUP BY customerNumber) "
                + "SELECT AVG(n) FROM per_customer";
        assertMatch(derived, renamed);
        assertMatch(derived, cte);
        assertNoMatch(derived, "SELECT AVG(cnt) FROM (SELECT customerNumber, SUM(orderNumber) AS cnt FROM orders "
                + "GROUP BY customerNumber) AS t");
        assertNoMatch(derived, "SELECT MAX(cnt) FROM (SELECT customerNumber, COUNT(*) AS cnt FROM orders "
                + "GROUP BY customerNumber) AS t");
    }

    // ------------------------------------------------------------------ unequal pairs

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            aggregate          | SELECT SUM(amount) FROM payments                  | SELECT AVG(amount) FROM payments                   | select
            column             | SELECT phone FROM offices WHERE city = 'Paris'    | SELECT addressLine1 FROM offices WHERE city = 'Paris' | select
            extra condition    | SELECT phone FROM offices WHERE city = 'Paris'    | SELECT phone FROM offices WHERE city = 'Paris' AND country = 'France' | where
            operator           | SELECT customerName FROM customers WHERE creditLimit > 100000 | SELECT customerName FROM customers WHERE creditLimit >= 100000 | where
            like vs equals     | SELECT productName FROM products WHERE productName LIKE '%Ford%' | SELECT productName FROM products WHERE productName = 'Ford' | where
            and vs or          | SELECT city FROM offices WHERE country = 'USA' AND state = 'CA' | SELECT city FROM offices WHERE country = 'USA' OR state = 'CA' | and/or
            asc vs desc        | SELECT productName FROM products ORDER BY buyPrice ASC LIMIT 1 | SELECT productName FROM products ORDER BY buyPrice DESC LIMIT 1 | order
            default asc        | SELECT productName FROM products ORDER BY buyPrice LIMIT 1 | SELECT productName FROM products ORDER BY buyPrice DESC LIMIT 1 | order
            order columns      | SELECT productName FROM products ORDER BY buyPrice, MSRP | SELECT productName FROM products ORDER BY MSRP, buyPrice | order
            missing limit      | SELECT productName FROM products ORDER BY buyPrice DESC LIMIT 1 | SELECT productName FROM products ORDER BY buyPrice DESC | order
            missing order      | SELECT productName FROM products ORDER BY buyPrice DESC LIMIT 1 | SELECT productName FROM products LIMIT 1 | order
            group column       | SELECT country, COUNT(*) FROM customers GROUP BY country | SELECT country, COUNT(*) FROM customers GROUP BY country, city | group(no Having)
            having             | SELECT country FROM customers GROUP BY country HAVING COUNT(*) > 5 | SELECT country FROM customers GROUP BY country HAVING SUM(creditLimit) > 5 | group
            left join          | SELECT c.customerName FROM customers c JOIN orders o ON o.customerNumber = c.customerNumber | SELECT c.customerName FROM customers c LEFT JOIN orders o ON o.customerNumber = c.customerNumber | keywords
            union vs intersect | SELECT city FROM offices UNION SELECT city FROM customers | SELECT city FROM offices INTERSECT SELECT city FROM customers | IUEN
            union all          | SELECT city FROM offices UNION SELECT city FROM customers | SELECT city FROM offices UNION ALL SELECT city FROM customers | IUEN
            set operand        | SELECT city FROM offices EXCEPT SELECT city FROM customers | SELECT city FROM offices EXCEPT SELECT country FROM customers | IUEN
            set order          | SELECT city FROM offices EXCEPT SELECT city FROM customers | SELECT city FROM customers EXCEPT SELECT city FROM offices | select
            missing set op     | SELECT city FROM offices UNION SELECT city FROM customers | SELECT city FROM offices | IUEN
            nested column      | SELECT customerName FROM customers WHERE customerNumber IN (SELECT customerNumber FROM payments WHERE amount > 100000) | SELECT customerName FROM customers WHERE customerNumber IN (SELECT customerNumber FROM payments WHERE checkNumber > 100000) | where
            nested agg         | SELECT productName FROM products WHERE buyPrice > (SELECT AVG(buyPrice) FROM products) | SELECT productName FROM products WHERE buyPrice > (SELECT MAX(buyPrice) FROM products) | where
            in vs not in       | SELECT productName FROM products WHERE productCode IN (SELECT productCode FROM orderdetails) | SELECT productName FROM products WHERE productCode NOT IN (SELECT productCode FROM orderdetails) | where
            subquery vs value  | SELECT productName FROM products WHERE buyPrice > (SELECT AVG(buyPrice) FROM products) | SELECT productName FROM products WHERE buyPrice > 50 | where
            function           | SELECT orderNumber FROM orders WHERE YEAR(orderDate) = 2004 | SELECT orderNumber FROM orders WHERE MONTH(orderDate) = 2004 | where
            window partition   | SELECT customerName, RANK() OVER (PARTITION BY country ORDER BY creditLimit DESC) FROM customers | SELECT customerName, RANK() OVER (PARTITION BY city ORDER BY creditLimit DESC) FROM customers | select
            self-referencing fk | SELECT lastName FROM employees WHERE reportsTo = 1002 | SELECT lastName FROM employees WHERE employeeNumber = 1002 | where
            """)
    void unequalPairs(String name, String gold, String pred, String failing) {
        EmScore s = assertNoMatch(gold.strip(), pred.strip());
        assertThat(s.failedComponents()).as(name).contains(failing.strip());
    }

    @Test
    void differentTableIsCaughtByTheFromCheckAlone() {
        EmScore s = assertNoMatch("SELECT COUNT(*) FROM orders", "SELECT COUNT(*) FROM payments");
        assertThat(s.failedComponents()).isEmpty();
        assertThat(s.fromMismatch()).isTrue();
        // a self join is two table units, not one
        assertNoMatch("SELECT e.lastName FROM employees e JOIN employees m ON e.reportsTo = m.employeeNumber",
                "SELECT e.lastName FROM employees e");
    }

    @Test
    void derivedTablesAreCheckedRecursively() {
        assertNoMatch("SELECT COUNT(*) FROM (SELECT city FROM offices WHERE country = 'USA') t",
                "SELECT COUNT(*) FROM (SELECT city FROM offices) t");
    }

    @Test
    void valuesCountOnlyWhenAsked() {
        String gold = "SELECT phone FROM offices WHERE city = 'Paris'";
        assertThat(EM.score(gold, "SELECT phone FROM offices WHERE city = 'Tokyo'").match()).isTrue();
        assertThat(EM_VALUES.score(gold, "SELECT phone FROM offices WHERE city = 'Tokyo'").match()).isFalse();
        assertThat(EM_VALUES.score(gold, "SELECT phone FROM offices WHERE city = \"Paris\"").match()).isTrue();
        assertThat(EM_VALUES.score(gold, "SELECT phone FROM offices WHERE 'Paris' = city").match()).isTrue();
        assertThat(EM_VALUES.score("SELECT email FROM employees WHERE employeeNumber = 1370",
                "SELECT email FROM employees WHERE employeeNumber = 1370.0").match()).isTrue();
        // string values keep their case (as in Spider)
        assertThat(EM_VALUES.score(gold, "SELECT phone FROM offices WHERE city = 'paris'").match()).isFalse();
        // IN lists compare as sets of values
        assertThat(EM_VALUES.score("SELECT city FROM offices WHERE country IN ('USA', 'Japan')",
                "SELECT city FROM offices WHERE country IN ('Japan', 'USA')").match()).isTrue();
        assertThat(EM_VALUES.score("SELECT city FROM offices WHERE country IN ('USA', 'Japan')",
                "SELECT city FROM offices WHERE country IN ('USA')").match()).isFalse();
    }

    @Test
    void limitValueCountsOnlyWhenValuesAreCompared() {
        String gold = "SELECT productName FROM products ORDER BY buyPrice DESC LIMIT 3";
        String pred = "SELECT productName FROM products ORDER BY buyPrice DESC LIMIT 5";
        assertThat(EM.score(gold, pred).match()).isTrue();
        EmScore withValues = EM_VALUES.score(gold, pred);
        assertThat(withValues.match()).isFalse();
        assertThat(withValues.failedComponents()).containsExactly("order");
        assertThat(EM_VALUES.score("SELECT city FROM offices LIMIT 2", "SELECT city FROM offices LIMIT 3").match())
                .isFalse();
        assertThat(EM_VALUES.score("SELECT city FROM offices LIMIT 1, 2", "SELECT city FROM offices LIMIT 2 OFFSET 1")
                .match()).isTrue();
    }

    // ------------------------------------------------------------------ partial scores

    @Test
    void partialScoresCountUnitsLikeSpider() {
        EmScore s = score("SELECT productLine, SUM(quantityInStock) FROM products WHERE buyPrice > 50 AND MSRP < 100 "
                        + "GROUP BY productLine",
                "SELECT productLine, AVG(quantityInStock) FROM products WHERE buyPrice > 10 GROUP BY productLine");
        assertThat(s.match()).isFalse();
        assertThat(s.components().keySet()).containsExactlyElementsOf(EmScore.COMPONENTS);
        assertThat(s.component("select")).isEqualTo(new ComponentScore(2, 2, 1));
        assertThat(s.component("select(no AGG)")).isEqualTo(new ComponentScore(2, 2, 2));
        assertThat(s.component("where")).isEqualTo(new ComponentScore(2, 1, 1));
        assertThat(s.component("where(no OP)")).isEqualTo(new ComponentScore(2, 1, 1));
        assertThat(s.component("group(no Having)")).isEqualTo(new ComponentScore(1, 1, 1));
        assertThat(s.component("group")).isEqualTo(new ComponentScore(1, 1, 1));
        assertThat(s.component("order")).isEqualTo(new ComponentScore(0, 0, 0));
        assertThat(s.component("and/or")).isEqualTo(new ComponentScore(1, 0, 0));
        assertThat(s.component("IUEN")).isEqualTo(new ComponentScore(0, 0, 0));
        assertThat(s.component("keywords")).isEqualTo(new ComponentScore(2, 2, 2));
        assertThat(s.failedComponents()).containsExactly("select", "where", "where(no OP)", "and/or");

        ComponentScore select = s.component("select");
        assertThat(select.f1()).isZero();
        assertThat(select.setPrecision()).isEqualTo(0.5);
        assertThat(select.setRecall()).isEqualTo(0.5);
        assertThat(s.component("where").setPrecision()).isEqualTo(1.0);
        assertThat(s.component("where").setRecall()).isEqualTo(0.5);
        assertThat(s.component("where").setF1()).isCloseTo(2.0 / 3, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(s.component("order").f1()).isEqualTo(1.0);
        assertThat(s.component("order").setF1()).isEqualTo(1.0);
    }

    @Test
    void whereNoOpIgnoresOperatorsAndValues() {
        EmScore s = score("SELECT city FROM offices WHERE country = 'USA'",
                "SELECT city FROM offices WHERE country LIKE 'U%'");
        assertThat(s.component("where")).isEqualTo(new ComponentScore(1, 1, 0));
        assertThat(s.component("where(no OP)")).isEqualTo(new ComponentScore(1, 1, 1));
        assertThat(s.component("keywords")).isEqualTo(new ComponentScore(1, 2, 1));
    }

    @Test
    void groupComparesHavingAndOrderComparesLimitPresence() {
        EmScore s = score("SELECT country FROM customers GROUP BY country HAVING COUNT(*) > 5 ORDER BY country",
                "SELECT country FROM customers GROUP BY country ORDER BY country LIMIT 3");
        assertThat(s.component("group(no Having)").exact()).isTrue();
        assertThat(s.component("group")).isEqualTo(new ComponentScore(1, 1, 0));
        assertThat(s.component("order")).isEqualTo(new ComponentScore(1, 1, 0));
        assertThat(s.component("keywords")).isEqualTo(new ComponentScore(4, 4, 3));
    }

    @Test
    void regroupingTheSameConditionsFailsAndOr() {
        EmScore s = score("SELECT city FROM offices WHERE (country = 'USA' OR country = 'Japan') AND state = 'CA'",
                "SELECT city FROM offices WHERE country = 'USA' OR (country = 'Japan' AND state = 'CA')");
        assertThat(s.match()).isFalse();
        assertThat(s.component("where").exact()).isTrue();
        assertThat(s.failedComponents()).containsExactly("and/or");
    }

    // ------------------------------------------------------------------ nested queries and set operations

    @Test
    void nestedQueriesInWhereAreComparedByExactMatch() {
        String gold = "SELECT productName, buyPrice FROM products WHERE buyPrice > (SELECT AVG(buyPrice) FROM products)";
        assertMatch(gold, "SELECT p.productName, p.buyPrice FROM products p WHERE p.buyPrice > "
                + "(SELECT AVG(p2.buyPrice) FROM products AS p2)");
        assertMatch(gold, "SELECT buyPrice, productName FROM products WHERE (SELECT avg(buyPrice) FROM products) < buyPrice");
        assertNoMatch(gold, "SELECT productName, buyPrice FROM products WHERE buyPrice > "
                + "(SELECT AVG(buyPrice) FROM products WHERE productLine = 'Planes')");

        String in = "SELECT customerName FROM customers WHERE customerNumber IN "
                + "(SELECT customerNumber FROM orders WHERE status = 'Cancelled')";
        assertMatch(in, "SELECT customerName FROM customers WHERE customerNumber IN "
                + "(SELECT o.customerNumber FROM orders o WHERE o.status = 'On Hold')");
        assertNoMatch(in, "SELECT customerName FROM customers WHERE customerNumber NOT IN "
                + "(SELECT customerNumber FROM orders WHERE status = 'Cancelled')");
        assertNoMatch(in, "SELECT customerName FROM customers WHERE customerNumber IN "
                + "(SELECT customerNumber FROM orders WHERE status = 'Cancelled' ORDER BY orderDate)");

        EmScore keywords = score(in, "SELECT customerName FROM customers WHERE customerNumber NOT IN "
                + "(SELECT customerNumber FROM orders WHERE status = 'Cancelled')");
        assertThat(keywords.component("keywords")).isEqualTo(new ComponentScore(2, 3, 2));
    }

    @Test
    void nestedQueriesInTheSelectListAreComparedToo() {
        assertMatch("SELECT customerName, (SELECT COUNT(*) FROM orders o WHERE o.customerNumber = c.customerNumber) "
                        + "FROM customers c",
                "SELECT (SELECT count(*) FROM orders WHERE orders.customerNumber = customers.customerNumber), "
                        + "customerName FROM customers");
    }

    @Test
    void setOperationsAreComparedRecursively() {
        String gold = "SELECT c.customerName FROM customers c JOIN payments p ON p.customerNumber = c.customerNumber "
                + "WHERE YEAR(p.paymentDate) = 2003 INTERSECT SELECT c.customerName FROM customers c "
                + "JOIN payments p ON p.customerNumber = c.customerNumber WHERE YEAR(p.paymentDate) = 2005";
        assertMatch(gold, "SELECT customerName FROM customers JOIN payments ON payments.customerNumber = "
                + "customers.customerNumber WHERE YEAR(paymentDate) = 2004 INTERSECT SELECT x.customerName FROM "
                + "payments y JOIN customers x ON x.customerNumber = y.customerNumber WHERE YEAR(y.paymentDate) = 2001");
        EmScore s = score(gold, "SELECT c.customerName FROM customers c JOIN payments p ON p.customerNumber = "
                + "c.customerNumber WHERE YEAR(p.paymentDate) = 2003 INTERSECT SELECT c.customerName FROM customers c "
                + "JOIN orders o ON o.customerNumber = c.customerNumber WHERE YEAR(o.orderDate) = 2005");
        assertThat(s.match()).isFalse();
        assertThat(s.failedComponents()).containsExactly("IUEN");
        assertThat(s.component("IUEN")).isEqualTo(new ComponentScore(1, 1, 0));

        String three = "SELECT city FROM offices UNION SELECT city FROM customers UNION SELECT state FROM offices";
        assertMatch(three, "SELECT o.city FROM offices o UNION SELECT c.city FROM customers c UNION SELECT o.state FROM offices o");
        assertNoMatch(three, "SELECT city FROM offices UNION SELECT city FROM customers UNION SELECT state FROM customers");
    }

    @Test
    void orderByAfterASetOperationNamesOutputColumns() {
        assertMatch("SELECT city FROM offices UNION SELECT city FROM customers ORDER BY city LIMIT 5",
                "SELECT o.city AS town FROM offices o UNION SELECT c.city FROM customers c ORDER BY 1 LIMIT 3");
        assertNoMatch("SELECT city FROM offices UNION SELECT city FROM customers ORDER BY city LIMIT 5",
                "SELECT city FROM offices UNION SELECT city FROM customers ORDER BY city DESC LIMIT 5");
    }

    // ------------------------------------------------------------------ errors

    @Test
    void unparsablePredictionIsRecordedNotThrown() {
        String gold = "SELECT phone FROM offices WHERE city = 'Paris'";
        EmScore s = EM.score(gold, "SELEC phone FROM offices WHERE");
        assertThat(s.match()).isFalse();
        assertThat(s.error()).startsWith("cannot parse SQL");
        assertThat(s.components().keySet()).containsExactlyElementsOf(EmScore.COMPONENTS);
        assertThat(s.components().values()).allSatisfy(c -> {
            assertThat(c.predCount()).isZero();
            assertThat(c.matched()).isZero();
        });
        assertThat(s.component("select")).isEqualTo(new ComponentScore(1, 0, 0));
        assertThat(s.component("select").f1()).isZero();

        assertThat(EM.score(gold, "").error()).isEqualTo("empty SQL");
        assertThat(EM.score(gold, null).error()).isEqualTo("empty SQL");
        assertThat(EM.score(gold, "DELETE FROM offices").error()).startsWith("not a SELECT");
    }

    @Test
    void unparsableGoldThrows() {
        assertThatThrownBy(() -> EM.score("SELECT FROM WHERE", "SELECT 1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("gold SQL cannot be scored by exact match")
                .hasMessageContaining("SELECT FROM WHERE");
        assertThatThrownBy(() -> EM.score("UPDATE offices SET city = 'x'", "SELECT 1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a SELECT");
    }

    // ------------------------------------------------------------------ normalised form

    @Test
    void analyseResolvesAliasesAndMasksValues() {
        SqlUnit u = EM.analyse("SELECT o.city, COUNT(*) FROM offices o JOIN employees e ON e.officeCode = o.officeCode "
                + "WHERE o.country = 'USA' GROUP BY o.city ORDER BY COUNT(*) DESC LIMIT 1");
        assertThat(u.tables()).containsExactly("employees", "offices");
        assertThat(u.select()).containsExactly(new SelectUnit("count", false, "*"),
                new SelectUnit("none", false, "offices.city"));
        assertThat(u.where()).containsExactly(new CondUnit(false, "=", "offices.country", "?", null));
        assertThat(u.groupBy()).containsExactly("offices.city");
        assertThat(u.orderBy()).containsExactly(new OrderUnit("desc", "count(*)"));
        assertThat(u.limit()).isEqualTo("?");
        assertThat(u.keywords()).containsExactlyInAnyOrder("where", "group", "order", "desc", "limit", "join");

        SqlUnit v = EM_VALUES.analyse("SELECT city FROM offices WHERE country = 'USA' LIMIT 2");
        assertThat(v.where()).containsExactly(new CondUnit(false, "=", "offices.country", "'USA'", null));
        assertThat(v.limit()).isEqualTo("2");
    }

    @Test
    void taxonomyReadingKeepsWhatEmDoesNotCompare() {
        String sql = "SELECT o.city, COUNT(*) AS n FROM offices o LEFT JOIN employees e ON e.officeCode = o.officeCode "
                + "AND e.jobTitle = 'Sales Rep', customers c JOIN payments USING (customerNumber) "
                + "WHERE c.city = o.city AND c.creditLimit > (SELECT AVG(creditLimit) FROM customers) GROUP BY o.city";
        SqlUnit u = ExactMatch.forTaxonomy(EmTestSchema.CLASSIC_MODELS).analyse(Query.read(sql).select().orElseThrow());
        SqlUnit.Structure s = u.structure();
        assertThat(s.items()).containsExactly("offices.city", "count(*)"); // as written; EM's select list is sorted
        assertThat(s.joins()).containsExactly("outer", "inner", "inner");
        // from ON, from USING, and the WHERE equality between two FROM sources
        assertThat(s.joinPairs()).containsExactlyInAnyOrder("employees.officecode = offices.officecode",
                "customers.customernumber = payments.customernumber", "customers.city = offices.city");
        // the rest of ON and WHERE, strings as MySQL compares them, the subquery a unit of its own
        assertThat(s.filter()).containsExactly("customers.creditlimit > (select)", "employees.jobtitle = 'sales rep'");
        assertThat(s.aggregates()).containsExactly("count(*)");
        assertThat(s.columns()).contains("employees.jobtitle", "payments.customernumber", "customers.creditlimit");
        assertThat(s.subqueries()).singleElement()
                .satisfies(sub -> assertThat(sub.structure().aggregates()).containsExactly("avg(customers.creditlimit)"));
        // EM's reading writes the subquery out where it stands
        assertThat(EM.analyse(sql).whereShape()).contains("(select avg(customers.creditlimit) from customers");
    }

    @Test
    void foreignKeyFoldingCanBeSwitchedOff() {
        String gold = "SELECT COUNT(*) FROM customers c JOIN orders o ON o.customerNumber = c.customerNumber "
                + "GROUP BY c.customerNumber";
        String pred = "SELECT COUNT(*) FROM customers c JOIN orders o ON o.customerNumber = c.customerNumber "
                + "GROUP BY o.customerNumber";
        assertThat(EM.score(gold, pred).match()).isTrue();
        assertThat(new ExactMatch(EmTestSchema.CLASSIC_MODELS, false, false).score(gold, pred).match()).isFalse();
    }

    @Test
    void worksWithoutASchema() {
        ExactMatch noSchema = new ExactMatch(null, false);
        assertThat(noSchema.score("SELECT o.city FROM offices o WHERE o.country = 'USA'",
                "SELECT city FROM offices WHERE country = 'Japan'").match()).isTrue();
        assertThat(noSchema.score("SELECT city FROM offices", "SELECT phone FROM offices").match()).isFalse();
    }

    @Test
    void componentOrderIsFixed() {
        Map<String, ComponentScore> c = EM.score("SELECT 1", "SELECT 1").components();
        assertThat(List.copyOf(c.keySet())).isEqualTo(List.of("select", "select(no AGG)", "where", "where(no OP)",
                "group(no Having)", "group", "order", "and/or", "IUEN", "keywords"));
    }

    /** A prediction that cannot run (a name the schema lacks) or that has a clause EM ignores never matches. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "SELECT city FROM offices WHERE country = 'USA' | SELECT city FROM offices WHERE countryy = 'USA' | unknown column countryy",
        "SELECT city FROM offices WHERE country = 'USA' | SELECT o.city FROM offices o WHERE o.nation = 'USA' | unknown column o.nation",
        "SELECT city FROM offices WHERE country = 'USA' | SELECT x.city FROM offices o WHERE o.country = 'USA' | unknown table or alias x",
        "SELECT city FROM offices | SELECT city FROM office | unknown table office",
        "SELECT city FROM offices ORDER BY city LIMIT 1 | SELECT TOP 1 city FROM offices ORDER BY city | does not compare TOP",
        "SELECT city FROM offices | SELECT TOP 1 city FROM offices | does not compare TOP",
        "SELECT city FROM offices | SELECT city FROM offices QUALIFY city > 'A' | does not compare QUALIFY",
    })
    void predictionsThatCannotRunOrHideAClauseNeverMatch(String gold, String pred, String reason) {
        EmScore s = EM.score(gold, pred);
        assertThat(s.match()).isFalse();
        assertThat(s.error()).contains(reason);
    }

    @Test
    void namesThatResolveStillMatch() {
        // select aliases, derived tables and correlated references are not unknown names
        assertMatch("SELECT city AS c FROM offices ORDER BY c", "SELECT city AS c FROM offices ORDER BY city");
        assertMatch("SELECT t.city FROM (SELECT city FROM offices) AS t", "SELECT t.city FROM (SELECT city FROM offices) t");
        assertMatch("SELECT city FROM offices o WHERE EXISTS (SELECT 1 FROM employees e WHERE e.officeCode = o.officeCode)",
                "SELECT city FROM offices AS o WHERE EXISTS (SELECT 1 FROM employees AS e WHERE e.officeCode = o.officeCode)");
    }
}
