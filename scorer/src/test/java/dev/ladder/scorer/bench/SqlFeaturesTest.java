package dev.ladder.scorer.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Spider's hardness rule, worked by hand for each case (comp1 / others / comp2 in the comment). */
class SqlFeaturesTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        // comp1=0 others=0 comp2=0
        "SELECT COUNT(*) FROM offices | easy",
        // comp1=1 (where) others=0
        "SELECT city FROM offices WHERE country = 'USA' | easy",
        // comp1=1 (group by); one aggregate in HAVING is not 'others'
        "SELECT productLine FROM products GROUP BY productLine HAVING COUNT(*) > 20 | easy",
        // comp1=1 others=1 (two select items)
        "SELECT city, phone FROM offices WHERE country = 'USA' | medium",
        // comp1=2 (order by, limit) others=1
        "SELECT customerName, creditLimit FROM customers ORDER BY creditLimit DESC LIMIT 5 | medium",
        // comp1=1 others=0 comp2=1 (nested)
        "SELECT customerName FROM customers WHERE customerNumber NOT IN (SELECT customerNumber FROM orders) | hard",
        // a quantified comparison is a nested query too: comp1=1 others=0 comp2=1
        "SELECT productName FROM products WHERE buyPrice > ALL (SELECT buyPrice FROM products WHERE productLine = 'Ships') | hard",
        // comp1=3 (join, where, order by) others=1
        "SELECT c.customerName, o.orderDate FROM customers c JOIN orders o ON o.customerNumber = c.customerNumber WHERE o.status = 'On Hold' ORDER BY o.orderDate | hard",
        // comp1=2 (where, group by) others=3 (aggs>1, select>1, where conds>1)
        "SELECT country, COUNT(*), AVG(creditLimit) FROM customers WHERE creditLimit > 0 AND state IS NULL GROUP BY country | hard",
        // comp1=1 (the first branch's where) others=0 comp2=1 (union)
        "SELECT city FROM offices WHERE country = 'USA' UNION SELECT city FROM customers WHERE country = 'USA' | hard",
        // comp1=4 (2 joins, where, order by) others=2 comp2=1 (subquery)
        "SELECT p.productName, SUM(d.quantityOrdered) FROM products p JOIN orderdetails d ON d.productCode = p.productCode JOIN orders o ON o.orderNumber = d.orderNumber WHERE o.customerNumber IN (SELECT customerNumber FROM customers WHERE country = 'France') GROUP BY p.productName ORDER BY 2 DESC | extra",
        // window functions count as nesting: comp1=0 others=1 comp2=1
        "SELECT employeeNumber, RANK() OVER (ORDER BY employeeNumber) FROM employees | extra",
    })
    void hardness(String sql, String expected) {
        assertThat(SqlFeatures.of(sql).hardness()).isEqualTo(expected);
    }

    @Test
    void countsTablesJoinsAndOrs() {
        SqlFeatures f = SqlFeatures.of("SELECT e.lastName FROM employees e JOIN employees m ON e.reportsTo = m.employeeNumber "
                + "JOIN offices o ON o.officeCode = e.officeCode WHERE o.city = 'Paris' OR o.city LIKE 'S%'");
        assertThat(f.tables()).containsExactlyInAnyOrder("employees", "offices");
        assertThat(f.joins()).isEqualTo(2);
        assertThat(f.orCount()).isEqualTo(1);
        assertThat(f.likeCount()).isEqualTo(1);
        assertThat(f.whereConditions()).isEqualTo(2);
    }

    @Test
    void cteNamesAreNotTables() {
        SqlFeatures f = SqlFeatures.of("WITH big AS (SELECT customerNumber FROM payments WHERE amount > 50000) "
                + "SELECT customerName FROM customers WHERE customerNumber IN (SELECT customerNumber FROM big)");
        assertThat(f.tables()).containsExactlyInAnyOrder("payments", "customers");
        assertThat(f.nested()).isEqualTo(2);
    }

    @Test
    void unparsableSqlIsAClearError() {
        assertThatThrownBy(() -> SqlFeatures.of("SELEC nothing")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("cannot parse SQL");
    }
}
