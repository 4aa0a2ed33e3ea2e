package dev.ladder.sql.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.sql.read.SchemaBinding.BoundColumn;
import dev.ladder.sql.read.SchemaBinding.ColumnPair;
import dev.ladder.sql.read.SchemaBinding.UnknownColumn;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A made-up shop schema; none of the queries come from a benchmark. */
class SchemaBindingTest {

    private static final Schema SHOP = new Schema("shop", List.of(
            table("customers", List.of("customer_id"), "customer_id", "name", "city"),
            table("orders", List.of("order_id"), "order_id", "customer_id", "order_date", "status"),
            table("order_items", List.of("order_id", "product_id"), "order_id", "product_id", "quantity", "price"),
            table("products", List.of("product_id"), "product_id", "name", "category"),
            table("staff", List.of("staff_id"), "staff_id", "full_name", "boss_id")),
            List.of(new ForeignKey("orders", List.of("customer_id"), "customers", List.of("customer_id")),
                    new ForeignKey("order_items", List.of("order_id"), "orders", List.of("order_id")),
                    new ForeignKey("order_items", List.of("product_id"), "products", List.of("product_id"))));

    private static Table table(String name, List<String> pk, String... columns) {
        return new Table(name, Arrays.stream(columns).map(c -> new Column(c, "text", true)).toList(), pk, 10);
    }

    private static SchemaBinding bind(String sql) {
        SchemaBinding b = Query.read(sql).binding(SHOP);
        assertThat(b.parsed()).as(b.failure()).isTrue();
        return b;
    }

    private static BoundColumn col(String table, String column) {
        return new BoundColumn(table, column);
    }

    @Test
    void knownAndUnknownTablesAndColumns() {
        SchemaBinding b = bind("SELECT c.Name, c.city FROM Customers c JOIN invoices i ON i.customer_id = c.customer_id"
                + " WHERE c.zip = 1 AND colour = 'red'");
        assertThat(b.tables()).containsExactly("customers");
        assertThat(b.unknownTables()).containsExactly("invoices");
        // binding order: FROM with its ON conditions, then the SELECT list, then WHERE
        assertThat(b.columns()).containsExactly(col("customers", "customer_id"), col("customers", "name"),
                col("customers", "city"));
        // colour may be the unknown table's: only the table is reported for it
        assertThat(b.unknownColumns()).containsExactly(new UnknownColumn("c", "zip", "no column 'zip' in customers"));

        SchemaBinding plain = bind("SELECT `name`, colour FROM customers");
        assertThat(plain.columns()).containsExactly(col("customers", "name"));
        assertThat(plain.unknownColumns()).containsExactly(new UnknownColumn(null, "colour", "no column 'colour' in customers"));
    }

    @Test
    void anUnqualifiedNameOfTwoTablesIsAmbiguous() {
        SchemaBinding b = bind("SELECT name FROM customers JOIN products ON 1 = 1");
        assertThat(b.unknownColumns()).containsExactly(
                new UnknownColumn(null, "name", "ambiguous: in customers and products"));
        assertThat(bind("SELECT city FROM customers JOIN products ON 1 = 1").unknownColumns()).isEmpty();
    }

    @Test
    void anAliasedTableIsKnownByItsAliasOnly() {
        SchemaBinding b = bind("SELECT customers.city, o.status FROM customers c JOIN orders AS o USING (customer_id)");
        assertThat(b.unknownColumns()).singleElement().satisfies(u -> {
            assertThat(u.qualifier()).isEqualTo("customers");
            assertThat(u.reason()).startsWith("unknown qualifier 'customers'");
        });
        assertThat(b.columns()).contains(col("orders", "status"), col("customers", "customer_id"));
        // USING is an equi-join; the merged column is not ambiguous afterwards
        assertThat(b.equalities()).containsExactly(new ColumnPair(col("customers", "customer_id"), col("orders", "customer_id")));
        assertThat(bind("SELECT customer_id FROM customers JOIN orders USING (customer_id)").unknownColumns()).isEmpty();
        assertThat(bind("SELECT x.city FROM customers c").unknownColumns())
                .containsExactly(new UnknownColumn("x", "city", "unknown qualifier 'x'"));
    }

    @Test
    void cteAndDerivedTableColumnsAreTheirSelectListNames() {
        SchemaBinding b = bind("WITH spend AS (SELECT customer_id, SUM(quantity * price) AS total FROM orders o "
                + "JOIN order_items oi ON oi.order_id = o.order_id GROUP BY customer_id) "
                + "SELECT c.name, s.total, s.missing, t.n FROM customers c JOIN spend s ON s.customer_id = c.customer_id "
                + "JOIN (SELECT city, COUNT(*) AS n FROM customers GROUP BY city) t ON t.city = c.city WHERE total > 10");
        assertThat(b.unknownTables()).isEmpty();
        assertThat(b.tables()).containsExactly("orders", "order_items", "customers");
        assertThat(b.unknownColumns()).containsExactly(new UnknownColumn("s", "missing", "no column 'missing' in s"));
        // the CTE body's ambiguous-looking customer_id is orders' (order_items has none)
        assertThat(b.columns()).contains(col("orders", "customer_id"), col("order_items", "quantity"));
        // only schema columns of two sources are equalities; a CTE or derived table column is not a schema column
        assertThat(b.equalities()).containsExactly(new ColumnPair(col("order_items", "order_id"), col("orders", "order_id")));
        assertThat(b.ungrouped()).isEmpty();

        SchemaBinding star = bind("SELECT d.city FROM (SELECT * FROM customers) d");
        assertThat(star.unknownColumns()).isEmpty();
        assertThat(star.selectStar()).isTrue();
    }

    @Test
    void aCorrelatedSubquerySeesItsOwnFromFirstThenTheOuterQuery() {
        SchemaBinding b = bind("SELECT c.name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o "
                + "WHERE o.customer_id = c.customer_id AND city = 'Oslo' AND status = 'open' AND o.city = 'x')");
        assertThat(b.columns()).contains(col("customers", "city"), col("orders", "status"));
        assertThat(b.unknownColumns()).containsExactly(new UnknownColumn("o", "city", "no column 'city' in orders"));
        assertThat(b.equalities()).containsExactly(new ColumnPair(col("orders", "customer_id"), col("customers", "customer_id")));
        // a scalar subquery in the SELECT list, and one that names nothing anywhere
        SchemaBinding s = bind("SELECT name, (SELECT COUNT(*) FROM orders WHERE orders.customer_id = customers.customer_id "
                + "AND weight > 2) AS n FROM customers");
        assertThat(s.unknownColumns()).containsExactly(
                new UnknownColumn(null, "weight", "no column 'weight' in orders, customers"));
    }

    @Test
    void selectAliasesCountInOrderByGroupByAndHavingNotWhere() {
        SchemaBinding b = bind("SELECT city AS town, COUNT(*) AS n FROM customers GROUP BY town HAVING n > 1 ORDER BY n DESC");
        assertThat(b.unknownColumns()).isEmpty();
        assertThat(b.ungrouped()).isEmpty();
        assertThat(bind("SELECT city AS town FROM customers WHERE town = 'Oslo'").unknownColumns())
                .extracting(UnknownColumn::column).containsExactly("town");
    }

    @Test
    void equalitiesFromOnAndWhereBetweenDifferentSources() {
        SchemaBinding b = bind("SELECT * FROM orders o, order_items oi, products p, staff a, staff m "
                + "WHERE o.order_id = oi.order_id AND oi.product_id = p.product_id AND a.boss_id = m.staff_id "
                + "AND o.order_id = o.customer_id AND oi.quantity = 3");
        assertThat(b.equalities()).containsExactly(
                new ColumnPair(col("orders", "order_id"), col("order_items", "order_id")),
                new ColumnPair(col("order_items", "product_id"), col("products", "product_id")),
                new ColumnPair(col("staff", "boss_id"), col("staff", "staff_id")));
        assertThat(b.selectStar()).isTrue();
        assertThat(bind("SELECT o.status FROM orders o JOIN customers c ON c.customer_id = o.customer_id").equalities())
                .containsExactly(new ColumnPair(col("customers", "customer_id"), col("orders", "customer_id")));
    }

    @Test
    void onlyFullGroupBy() {
        // an aggregate without GROUP BY: every bare column is ungrouped
        assertThat(bind("SELECT c.name, COUNT(*) FROM customers c").ungrouped()).containsExactly("c.name");
        // GROUP BY the primary key: the table's other columns depend on it
        assertThat(bind("SELECT c.name, c.city, COUNT(o.order_id) FROM customers c JOIN orders o "
                + "ON o.customer_id = c.customer_id GROUP BY c.customer_id").ungrouped()).isEmpty();
        // ... but not another table's columns, nor a partial composite key's
        assertThat(bind("SELECT c.name, o.status, COUNT(*) FROM customers c JOIN orders o "
                + "ON o.customer_id = c.customer_id GROUP BY c.customer_id").ungrouped()).containsExactly("o.status");
        assertThat(bind("SELECT order_id, quantity FROM order_items GROUP BY order_id").ungrouped())
                .containsExactly("quantity");
        // the grouped column itself, qualified or not, and columns inside aggregates
        assertThat(bind("SELECT name, MAX(city), SUM(customer_id) + 1 FROM customers c GROUP BY c.name").ungrouped()).isEmpty();
        assertThat(bind("SELECT YEAR(order_date), COUNT(*) FROM orders GROUP BY YEAR(order_date)").ungrouped()).isEmpty();
        assertThat(bind("SELECT name, city FROM customers GROUP BY name").ungrouped()).containsExactly("city");
        // any level: a subquery's own grouping
        assertThat(bind("SELECT * FROM customers WHERE city IN (SELECT city FROM customers c2 GROUP BY name)").ungrouped())
                .containsExactly("city");
        assertThat(bind("SELECT name, city FROM customers").ungrouped()).isEmpty();
    }

    @Test
    void setOperationBranchesAreAllBound() {
        SchemaBinding b = bind("SELECT name FROM customers UNION SELECT nme FROM products ORDER BY name");
        assertThat(b.tables()).containsExactly("customers", "products");
        assertThat(b.unknownColumns()).containsExactly(new UnknownColumn(null, "nme", "no column 'nme' in products"));
        assertThat(bind("(SELECT city FROM customers)").columns()).containsExactly(col("customers", "city"));
    }

    @Test
    void literalsKeywordsAndFunctionsAreNoColumns() {
        SchemaBinding b = bind("SELECT order_id, EXTRACT(YEAR FROM order_date), DATE_ADD(order_date, INTERVAL 1 DAY) "
                + "FROM orders WHERE status = \"open\" AND order_date > DATE '2020-01-01' AND order_date < CURRENT_DATE "
                + "AND TRUE AND status IS NOT NULL");
        assertThat(b.unknownColumns()).isEmpty();
        assertThat(b.columns()).containsExactly(col("orders", "order_id"), col("orders", "order_date"), col("orders", "status"));
        assertThat(b.selectStar()).isFalse();
    }

    @Test
    void unparseableSqlIsNotBoundAndSaysWhy() {
        SchemaBinding b = Query.read("SELECT name FROM customers WHERE").binding(SHOP);
        assertThat(b.parsed()).isFalse();
        assertThat(b.failure()).isNotBlank();
        assertThat(b.tables()).isEmpty();
        assertThat(b.columns()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT FROM WHERE (((", "", "   ;", "SELECT 'unterminated", "UPDATE customers SET city = 1",
            "SELECT * FROM customers c JOIN LATERAL (SELECT 1) x ON TRUE", "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL "
            + "SELECT n + 1 FROM r WHERE n < 3) SELECT n, r.m FROM r", "SELECT a.* FROM customers",
            "SELECT 1 FROM (customers c JOIN orders o ON o.customer_id = c.customer_id)",
            "SELECT ROW_NUMBER() OVER (PARTITION BY city ORDER BY name) FROM customers GROUP BY city"})
    void neverThrows(String sql) {
        SchemaBinding b = Query.read(sql).binding(SHOP);
        assertThat(b).isNotNull();
        if (!b.parsed()) assertThat(b.failure()).isNotBlank();
    }
}
