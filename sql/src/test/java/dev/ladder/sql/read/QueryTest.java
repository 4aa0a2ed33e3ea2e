package dev.ladder.sql.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class QueryTest {

    @Test
    void rowOrderCountsForOrderByAnywhereOutsideLiteralsAndComments() {
        assertThat(Query.read("SELECT name FROM singer ORDER\n   BY age DESC").ordersRows()).isTrue();
        assertThat(Query.read("select name from singer order by age").ordersRows()).isTrue();
        assertThat(Query.read("SELECT * FROM (SELECT a FROM t ORDER BY a LIMIT 3) x").ordersRows()).isTrue();
        assertThat(Query.read("SELECT name FROM singer WHERE note = 'order by age'").ordersRows()).isFalse();
        assertThat(Query.read("SELECT name FROM singer -- order by age\n").ordersRows()).isFalse();
        assertThat(Query.read("SELECT border, byline FROM maps").ordersRows()).isFalse();
        // a text that does not lex: the words anywhere
        assertThat(Query.read("SELECT 'unterminated FROM t ORDER BY a").ordersRows()).isTrue();
    }

    @Test
    void unparseableSqlIsReadLexically() {
        // JSqlParser rejects the trailing WHERE; the lexical reading still sees one COUNT and no GROUP BY
        Query q = Query.read("SELECT COUNT(*) FROM customers WHERE");
        assertThat(q.statement()).isEmpty();
        assertThat(q.parseFailure()).isNotBlank();
        assertThat(SelectShape.of("SELECT COUNT(*) FROM customers WHERE", true).items()).isEmpty();
        assertThat(q.shape().parsed()).isFalse();
        assertThat(q.shape().items()).containsExactly("COUNT(*)");
        assertThat(q.shape().groupBy()).isFalse();
        assertThat(Query.facts(q.shape().items().get(0)).aggregate()).isTrue();
    }

    @Test
    void tooDeepSqlIsNeverParsedAndSaysWhy() {
        String deep = "SELECT " + "(".repeat(Query.MAX_NESTING + 1) + "1" + ")".repeat(Query.MAX_NESTING + 1);
        Query q = Query.read(deep);
        assertThat(q.nestingDepth()).isEqualTo(Query.MAX_NESTING + 1);
        assertThat(q.tooComplex()).isTrue();
        assertThat(q.statement()).isEmpty();
        assertThat(q.parseFailure()).startsWith("nested too deeply: " + (Query.MAX_NESTING + 1) + " levels");
        // the deepest allowed still parses
        String allowed = "SELECT " + "(".repeat(Query.MAX_NESTING) + "1" + ")".repeat(Query.MAX_NESTING);
        assertThat(Query.read(allowed).statement()).isPresent();
    }

    @Test
    void aDeepOperatorChainIsNeverParsedButALongListIs() {
        StringBuilder chain = new StringBuilder("SELECT a FROM t WHERE a = 0");
        for (int i = 1; i <= Query.MAX_EXPRESSION_DEPTH + 1; i++) chain.append(" OR a = ").append(i);
        Query deep = Query.read(chain.toString());
        assertThat(deep.nestingDepth()).isZero();
        assertThat(deep.tooComplex()).isTrue();
        assertThat(deep.statement()).isEmpty();
        assertThat(deep.parseFailure()).startsWith("nested too deeply: an expression about ");

        StringBuilder list = new StringBuilder("SELECT a FROM t WHERE a IN (0");
        for (int i = 1; i < 20 * Query.MAX_EXPRESSION_DEPTH; i++) list.append(", ").append(i);
        Query flat = Query.read(list.append(")").toString());
        assertThat(flat.tooComplex()).isFalse();
        assertThat(flat.statement()).isPresent();

        // a chain just inside the limit parses, and its tree can be walked and printed
        StringBuilder ok = new StringBuilder("SELECT a FROM t WHERE a = 0");
        for (int i = 1; i < Query.MAX_EXPRESSION_DEPTH / 2; i++) ok.append(" AND a <> ").append(i);
        Query inside = Query.read(ok.toString());
        assertThat(inside.statement()).isPresent();
        assertThat(inside.statement().get().toString()).contains("a <> 1");
    }

    @Test
    void readsOnceInItsDialect() {
        // a backslash escape is MySQL's: in SQLite the string ends at the backslash's quote
        String sql = "SELECT name FROM t WHERE name = 'a\\' OR 1 = 1";
        assertThat(Query.read(sql, Dialect.MYSQL).statement()).isPresent();
        Query q = Query.read("SELECT a FROM t;;");
        assertThat(q.text()).isEqualTo("SELECT a FROM t");
        assertThat(q.statement()).containsSame(q.statement().orElseThrow());
    }

    @Test
    void tableNamesAreReadLexically() {
        // strings are lexed before comments: the # inside 'a#b' starts no comment that would hide parcels
        assertThat(Query.read("SELECT id FROM shipments WHERE note = 'a#b' AND id IN (SELECT id FROM parcels) WHERE")
                .tables().names()).containsExactly("shipments", "parcels");
        // CTE names are no tables; a dotted name is its last part; EXTRACT's FROM names none
        assertThat(Query.read("WITH t AS (SELECT x FROM `db`.`Orders`) SELECT EXTRACT(YEAR FROM d) "
                + "FROM t JOIN payments p ON p.a = t.a, customers c WHERE = =").tables().names())
                .containsExactly("orders", "payments", "customers");
    }

    @Test
    void qualifiersNameTheirTables() {
        // alias (with or without AS) and the table's own name qualify its columns; a subquery's tables count too
        TableReferences refs = Query.read("SELECT o.id FROM orders AS o JOIN `Customers` c ON c.id = o.c "
                + "WHERE o.id IN (SELECT p.o FROM payments p) AND EXTRACT(YEAR FROM o.d) = 2004").tables();
        assertThat(refs.qualifiers()).containsExactly(Map.entry("orders", "orders"), Map.entry("o", "orders"),
                Map.entry("customers", "Customers"), Map.entry("c", "Customers"), Map.entry("payments", "payments"),
                Map.entry("p", "payments"));
        // a CTE reference keeps its alias, mapped to the CTE's name: the caller keeps what its schema has
        assertThat(Query.read("WITH t AS (SELECT 1 AS a) SELECT x.a FROM t x").tables().qualifiers())
                .containsEntry("x", "t");
    }

    @Test
    void countsWholeStatementStructure() {
        Query q = Query.read("SELECT c.name, (SELECT COUNT(*) FROM orders o WHERE o.c = c.id) FROM customers c, "
                + "payments p JOIN offices f ON f.id = p.office WHERE c.id = p.c UNION SELECT DISTINCT name FROM staff");
        assertThat(q.joins()).isEqualTo(2);
        assertThat(q.subqueries()).isEqualTo(1);
        assertThat(q.setOperations()).isEqualTo(1);
        assertThat(q.anyDistinct()).isTrue();
        assertThat(q.aggregateAnywhere()).isTrue();
        assertThat(q.groupingAnywhere()).isTrue();
        assertThat(Query.read("SELECT RANK() OVER (ORDER BY x) FROM t").aggregateAnywhere()).isFalse();
    }

    @Test
    void outerFromSourcesWithTheirAliases() {
        OuterClauses q = OuterClauses.parse("SELECT a.x FROM db.alpha a JOIN beta AS b ON (a.id = b.id), "
                + "(SELECT 1 AS y) d, gamma WHERE a.x IN (SELECT z FROM delta e)", Dialect.MYSQL).orElseThrow();
        assertThat(q.sources()).containsExactly(new OuterClauses.Source("alpha", "a"), new OuterClauses.Source("beta", "b"),
                new OuterClauses.Source(null, "d"), new OuterClauses.Source("gamma", "gamma"));
        assertThat(OuterClauses.parse("SELECT 1", Dialect.MYSQL).orElseThrow().sources()).isEmpty();
    }

    @Test
    void schemaReferencesLiteralsAndNumbers() {
        Schema zoo = new Schema("zoo", List.of(
                new Table("keeper", List.of(new Column("id", "int", false), new Column("name", "text", true)), List.of("id"), 0),
                new Table("animal", List.of(new Column("id", "int", false), new Column("keeperId", "int", true),
                        new Column("species", "text", true), new Column("Weight", "int", true)), List.of("id"), 0)),
                List.of());
        Query q = Query.read("SELECT k.name, COUNT(*) FROM animal a JOIN keeper k ON a.keeperid = k.id "
                + "WHERE a.species = 'it''s a zebra' AND weight > 250 GROUP BY k.name");
        SchemaReferences refs = q.references(zoo);
        assertThat(refs.tables()).containsOnlyKeys("animal", "keeper");
        // columns resolve among the used tables, spelled as the schema spells them
        assertThat(refs.columns()).containsEntry("keeperid", "keeperId").containsEntry("weight", "Weight")
                .containsKeys("name", "id", "species").doesNotContainKey("count");
        assertThat(q.strings()).containsExactly("it's a zebra");
        assertThat(q.numbers()).containsExactly("250");
    }

    @Test
    void oneVocabularyForEveryReader() {
        // the outer-clause reader (clamps) and the expression facts (intent gate) agree on other servers' aggregates
        for (String agg : List.of("MEDIAN", "LISTAGG", "ARRAY_AGG", "STRING_AGG", "TOTAL")) {
            String sql = "SELECT " + agg + "(x) FROM t";
            assertThat(Query.facts(agg + "(x)").aggregate()).as(agg).isTrue();
            OuterClauses outer = OuterClauses.parse(sql, Dialect.MYSQL).orElseThrow();
            OuterClauses.Clause item = outer.items.get(0);
            assertThat(outer.hasAggregate(item.start(), item.end())).as(agg).isTrue();
        }
    }

    /** The lexical fallback reads the same structure as the parser on SQL both can read. */
    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT COUNT(*) FROM customers WHERE country = 'France'",
        "SELECT DISTINCT country FROM offices",
        "SELECT c.customerName AS name, COUNT(o.orderNumber) n FROM customers c JOIN orders o "
                + "ON c.customerNumber = o.customerNumber GROUP BY c.customerNumber HAVING COUNT(o.orderNumber) >= 5",
        "SELECT productName FROM products ORDER BY buyPrice DESC, productName LIMIT 5",
        "SELECT productName FROM products ORDER BY buyPrice DESC LIMIT 2, 5",
        "SELECT productName FROM products ORDER BY buyPrice DESC LIMIT ALL",
        "SELECT productName FROM products ORDER BY buyPrice DESC FETCH FIRST ROW ONLY",
        "SELECT firstName, lastName FROM employees UNION SELECT contactFirstName, contactLastName FROM customers "
                + "ORDER BY 1 LIMIT 3",
        "(SELECT city FROM offices) UNION (SELECT city FROM customers) ORDER BY city LIMIT 4",
        "WITH t AS (SELECT customerNumber, SUM(amount) s FROM payments GROUP BY customerNumber) "
                + "SELECT MAX(s) FROM t",
        "SELECT o.* FROM orders o WHERE o.orderDate = (SELECT MAX(orderDate) FROM orders)",
        "SELECT EXTRACT(YEAR FROM orderDate), COUNT(*) FROM orders GROUP BY EXTRACT(YEAR FROM orderDate)",
        "SELECT 1 + 1"
    })
    void parserAndLexerAgree(String sql) {
        SelectShape parsed = SelectShape.of(sql, true);
        SelectShape lexed = SelectShape.of(sql, false);
        assertThat(parsed.parsed()).isTrue();
        assertThat(lexed.parsed()).isFalse();
        assertThat(lexed.items()).hasSameSizeAs(parsed.items());
        for (int i = 0; i < parsed.items().size(); i++) {
            assertThat(Query.facts(lexed.items().get(i))).isEqualTo(Query.facts(parsed.items().get(i)));
        }
        assertThat(List.of(lexed.star(), lexed.distinct(), lexed.from(), lexed.setOperation(), lexed.groupBy(),
                lexed.limit(), lexed.orderBy().size(), String.valueOf(lexed.limitCount())))
                .isEqualTo(List.of(parsed.star(), parsed.distinct(), parsed.from(), parsed.setOperation(),
                        parsed.groupBy(), parsed.limit(), parsed.orderBy().size(), String.valueOf(parsed.limitCount())));
        assertThat(Query.facts(lexed.having())).isEqualTo(Query.facts(parsed.having()));
    }

}
