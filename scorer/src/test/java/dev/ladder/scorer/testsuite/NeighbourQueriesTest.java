package dev.ladder.scorer.testsuite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.scorer.testsuite.NeighbourQueries.Edit;
import dev.ladder.scorer.testsuite.NeighbourQueries.Neighbour;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.read.Identifiers;
import dev.ladder.sql.schema.Schema;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class NeighbourQueriesTest {

    static final String AGGREGATE_GOLD = "SELECT country, COUNT(*) FROM customers WHERE creditLimit > 100000 AND city LIKE '%on%'"
            + " GROUP BY country ORDER BY COUNT(*) DESC LIMIT 3";
    static final String IN_GOLD = "SELECT DISTINCT productName FROM products WHERE productLine IN ('Trains', 'Planes')"
            + " AND buyPrice * 2 > MSRP";
    static final String DATE_GOLD = "SELECT orderNumber FROM orders WHERE orderDate BETWEEN '2004-01-01' AND '2004-06-30'";

    static NeighbourQueries neighbours;

    @BeforeAll
    static void schema() {
        Schema schema = TestData.classicModels().schema();
        neighbours = new NeighbourQueries(schema);
    }

    static Set<String> keys(List<Neighbour> ns) {
        return ns.stream().map(n -> NeighbourQueries.normalize(n.sql())).collect(Collectors.toSet());
    }

    static boolean has(List<Neighbour> ns, String sql) {
        return keys(ns).contains(NeighbourQueries.normalize(sql));
    }

    @Test
    void everyFamilyOfEditAppears() {
        List<Neighbour> a = neighbours.generate(AGGREGATE_GOLD, 1);
        List<Neighbour> b = neighbours.generate(IN_GOLD, 1);
        List<Neighbour> c = neighbours.generate(DATE_GOLD, 1);
        Set<Edit> kinds = EnumSet.noneOf(Edit.class);
        for (List<Neighbour> ns : List.of(a, b, c)) ns.forEach(n -> kinds.add(n.edit()));
        assertThat(kinds).contains(Edit.DROP_TOKEN, Edit.DROP_SPAN, Edit.SWAP_AGGREGATE, Edit.SWAP_COMPARISON,
                Edit.SWAP_ORDER, Edit.SWAP_ARITHMETIC, Edit.SWAP_CONNECTIVE, Edit.SWAP_LIKE, Edit.SWAP_IN,
                Edit.SWAP_COLUMN, Edit.NUMBER, Edit.STRING, Edit.DATE);

        String base = "SELECT country, COUNT(*) FROM customers WHERE ";
        String tail = " GROUP BY country ORDER BY COUNT(*) DESC LIMIT 3";
        // comparisons, numbers, AND/OR, LIKE
        assertThat(has(a, base + "creditLimit >= 100000 AND city LIKE '%on%'" + tail)).isTrue();
        assertThat(has(a, base + "creditLimit > 100001 AND city LIKE '%on%'" + tail)).isTrue();
        assertThat(has(a, base + "creditLimit > 99998 AND city LIKE '%on%'" + tail)).isTrue();
        assertThat(has(a, base + "creditLimit > 100000 OR city LIKE '%on%'" + tail)).isTrue();
        assertThat(has(a, base + "creditLimit > 100000 AND city NOT LIKE '%on%'" + tail)).isTrue();
        assertThat(has(a, base + "creditLimit > 100000 AND city LIKE 'on%'" + tail)).isTrue();
        assertThat(has(a, base + "creditLimit > 100000 AND city LIKE '%on'" + tail)).isTrue();
        // drop a condition, the LIMIT, swap the aggregate and the direction
        assertThat(has(a, base + "city LIKE '%on%'" + tail)).isTrue();
        assertThat(has(a, base + "creditLimit > 100000" + tail)).isTrue();
        assertThat(has(a, base + "creditLimit > 100000 AND city LIKE '%on%' GROUP BY country ORDER BY COUNT(*) DESC")).isTrue();
        assertThat(has(a, base + "creditLimit > 100000 AND city LIKE '%on%' GROUP BY country ORDER BY MAX(*) DESC LIMIT 3")).isTrue();
        assertThat(has(a, base + "creditLimit > 100000 AND city LIKE '%on%' GROUP BY country ORDER BY COUNT(*) ASC LIMIT 3")).isTrue();
        assertThat(has(a, base + "creditLimit > 100000 AND city LIKE '%on%' GROUP BY country ORDER BY COUNT(*) DESC LIMIT 4")).isTrue();
        // a column swapped for another column of customers
        assertThat(a).anySatisfy(n -> {
            assertThat(n.edit()).isEqualTo(Edit.SWAP_COLUMN);
            assertThat(n.sql()).doesNotContain("creditLimit");
        });

        // IN / NOT IN, an IN-list item dropped, arithmetic, string prefixes and suffixes
        assertThat(has(b, "SELECT DISTINCT productName FROM products WHERE productLine NOT IN ('Trains', 'Planes') AND buyPrice * 2 > MSRP")).isTrue();
        assertThat(has(b, "SELECT DISTINCT productName FROM products WHERE productLine IN ('Planes') AND buyPrice * 2 > MSRP")).isTrue();
        assertThat(has(b, "SELECT DISTINCT productName FROM products WHERE productLine IN ('Trains', 'Planes') AND buyPrice + 2 > MSRP")).isTrue();
        assertThat(has(b, "SELECT DISTINCT productName FROM products WHERE productLine IN ('Train', 'Planes') AND buyPrice * 2 > MSRP")).isTrue();
        assertThat(has(b, "SELECT DISTINCT productName FROM products WHERE productLine IN ('Trains', 'lanes') AND buyPrice * 2 > MSRP")).isTrue();

        // dates +/- a day; BETWEEN's AND is not a connective
        assertThat(has(c, "SELECT orderNumber FROM orders WHERE orderDate BETWEEN '2003-12-31' AND '2004-06-30'")).isTrue();
        assertThat(has(c, "SELECT orderNumber FROM orders WHERE orderDate BETWEEN '2004-01-01' AND '2004-07-01'")).isTrue();
        assertThat(c).noneMatch(n -> n.sql().contains(" OR "));
    }

    @Test
    void deterministicFromTheSeed() {
        for (String gold : List.of(AGGREGATE_GOLD, IN_GOLD, DATE_GOLD)) {
            assertThat(neighbours.generate(gold, 42)).isEqualTo(neighbours.generate(gold, 42));
        }
    }

    @Test
    void theGoldIsNeverANeighbourAndNeighboursAreUnique() {
        List<BenchmarkItem> items = Benchmarks.load("classicmodels").split("test");
        for (BenchmarkItem item : items.subList(0, Math.min(40, items.size()))) {
            List<Neighbour> ns = neighbours.generate(item.sql(), 1);
            String gold = NeighbourQueries.normalize(item.sql());
            assertThat(ns).as(item.id()).isNotEmpty();
            assertThat(keys(ns)).as(item.id()).doesNotContain(gold).hasSize(ns.size());
        }
    }

    @Test
    void editsThatKeepTheMeaningAreNotMade() {
        // DISTINCT is dropped by the evaluator anyway; AS, an alias or a qualifier change nothing
        List<Neighbour> ns = neighbours.generate(
                "SELECT DISTINCT c.customerName AS name FROM customers c WHERE c.country = 'France'", 3);
        assertThat(has(ns, "SELECT c.customerName AS name FROM customers c WHERE c.country = 'France'")).isFalse();
        assertThat(ns).noneMatch(n -> n.sql().contains("customerName name"));
        assertThat(ns).noneMatch(n -> n.sql().contains(" .customerName") || n.sql().startsWith("SELECT DISTINCT customerName"));
        // COUNT of a NOT NULL column is COUNT of any other NOT NULL column
        List<Neighbour> counts = neighbours.generate("SELECT COUNT(customerNumber) FROM customers", 3);
        assertThat(counts).filteredOn(n -> n.edit() == Edit.SWAP_COLUMN)
                .allMatch(n -> n.sql().matches(".*COUNT\\((addressLine2|state|postalCode|salesRepEmployeeNumber|creditLimit)\\).*"));
        // GROUP BY a primary key and columns it determines: those columns are left alone
        List<Neighbour> groups = neighbours.generate(
                "SELECT c.customerName, SUM(p.amount) FROM customers c JOIN payments p ON p.customerNumber = c.customerNumber"
                        + " GROUP BY c.customerNumber, c.customerName", 3);
        assertThat(groups).noneMatch(n -> n.sql().endsWith("GROUP BY c.customerNumber"));
    }

    @Test
    void literalHelpersRoundTrip() {
        assertThat(Identifiers.stringValue("'It''s'")).isEqualTo("It's");
        assertThat(Identifiers.stringValue("'a\\'b'")).isEqualTo("a'b");
        assertThat(NeighbourQueries.quote("It's")).isEqualTo("'It''s'");
        assertThat(NeighbourQueries.normalize("select  DISTINCT a from t ;")).isEqualTo("SELECT A FROM T");
    }
}
