package dev.ladder.sql.mutate;

import static dev.ladder.sql.mutate.MutateSchemas.CLASSIC_MODELS;
import static dev.ladder.sql.mutate.MutateSchemas.LIBRARY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class SqlCorruptionsTest {

    /** Every text {@code op} makes of {@code sql} over many seeds: the whole set of its outcomes. */
    private static Set<String> outcomes(Corruption op, String sql, Schema schema, Dialect dialect) {
        Set<String> out = new TreeSet<>();
        for (int seed = 0; seed < 120; seed++) {
            // consecutive small seeds give java.util.Random correlated first draws: spread them
            SqlCorruptions.apply(op, sql, schema, dialect, new Random(seed * 0x9E3779B97F4A7C15L)).ifPresent(c -> out.add(c.sql()));
        }
        return out;
    }

    private static Set<String> outcomes(Corruption op, String sql) {
        return outcomes(op, sql, LIBRARY, Dialect.MYSQL);
    }

    private static Optional<Corrupted> once(Corruption op, String sql) {
        return SqlCorruptions.apply(op, sql, LIBRARY, Dialect.MYSQL, new Random(42));
    }

    @Test
    void wrongColumnPrefersAColumnOfTheSameTypeFamily() {
        Corrupted c = once(Corruption.WRONG_COLUMN, "SELECT name FROM authors").orElseThrow();
        assertThat(c.sql()).isEqualTo("SELECT country FROM authors");
        assertThat(c.operator()).isEqualTo(Corruption.WRONG_COLUMN);
        assertThat(c.where()).isEqualTo("SELECT: `name` -> `country`");
        // born is the only date of authors: any other column then; the qualifier and the alias stay
        assertThat(outcomes(Corruption.WRONG_COLUMN, "SELECT a.name AS n FROM authors a WHERE a.born > '1900-01-01'"))
                .containsExactlyInAnyOrder(
                        "SELECT a.country AS n FROM authors a WHERE a.born > '1900-01-01'",
                        "SELECT a.name AS n FROM authors a WHERE a.id > '1900-01-01'",
                        "SELECT a.name AS n FROM authors a WHERE a.name > '1900-01-01'",
                        "SELECT a.name AS n FROM authors a WHERE a.country > '1900-01-01'");
        // SQLite's quoted names stay quoted
        assertThat(outcomes(Corruption.WRONG_COLUMN, "SELECT \"name\" FROM authors", LIBRARY, Dialect.SQLITE))
                .containsExactly("SELECT \"country\" FROM authors");
    }

    @Test
    void wrongColumnLeavesAloneWhatItCannotResolve() {
        assertThat(once(Corruption.WRONG_COLUMN, "SELECT COUNT(*) FROM books")).isEmpty();
        assertThat(once(Corruption.WRONG_COLUMN, "SELECT 1")).isEmpty();
        // x is a derived table's column; the ORDER BY column is not a SELECT or WHERE one
        assertThat(outcomes(Corruption.WRONG_COLUMN, "SELECT x FROM (SELECT price AS x FROM books) t ORDER BY x"))
                .containsExactlyInAnyOrder("SELECT x FROM (SELECT id AS x FROM books) t ORDER BY x",
                        "SELECT x FROM (SELECT author_id AS x FROM books) t ORDER BY x");
        assertThat(once(Corruption.WRONG_COLUMN, "SELECT x FROM (SELECT 1 AS x) t")).isEmpty();
    }

    @Test
    void dropConjunctDropsOneTopLevelConjunctAndKeepsBetweenWhole() {
        assertThat(outcomes(Corruption.DROP_CONJUNCT,
                "SELECT title FROM books WHERE price > 10 AND genre = 'poetry' AND published BETWEEN '2000-01-01' AND '2010-12-31' ORDER BY title"))
                .containsExactlyInAnyOrder(
                        "SELECT title FROM books WHERE genre = 'poetry' AND published BETWEEN '2000-01-01' AND '2010-12-31' ORDER BY title",
                        "SELECT title FROM books WHERE price > 10 AND published BETWEEN '2000-01-01' AND '2010-12-31' ORDER BY title",
                        "SELECT title FROM books WHERE price > 10 AND genre = 'poetry' ORDER BY title");
        Corrupted whole = once(Corruption.DROP_CONJUNCT, "SELECT title FROM books WHERE genre = 'a' OR price > 10").orElseThrow();
        assertThat(whole.sql()).isEqualTo("SELECT title FROM books");
        assertThat(whole.where()).isEqualTo("WHERE: dropped `genre = 'a' OR price > 10` (the whole WHERE)");
        assertThat(outcomes(Corruption.DROP_CONJUNCT, "SELECT genre FROM books GROUP BY genre HAVING COUNT(*) > 2"))
                .containsExactly("SELECT genre FROM books GROUP BY genre");
        // a parenthesised WHERE: the conjuncts inside
        assertThat(outcomes(Corruption.DROP_CONJUNCT, "SELECT id FROM books WHERE (price > 1 AND price < 9)"))
                .containsExactlyInAnyOrder("SELECT id FROM books WHERE (price < 9)", "SELECT id FROM books WHERE (price > 1)");
        assertThat(once(Corruption.DROP_CONJUNCT, "SELECT title FROM books ORDER BY title")).isEmpty();
    }

    @Test
    void dropConjunctReachesSubqueries() {
        Corrupted c = once(Corruption.DROP_CONJUNCT,
                "SELECT name FROM authors WHERE id IN (SELECT author_id FROM books WHERE price > 20)").orElseThrow();
        assertThat(c.sql()).isEqualTo("SELECT name FROM authors WHERE id IN (SELECT author_id FROM books)");
        assertThat(c.where()).startsWith("subquery WHERE: dropped `price > 20`");
    }

    @Test
    void addConjunctComparesAColumnWithNullOrAnUsedLiteral() {
        // loans has one nullable column and the query no literal: one outcome
        Corrupted c = once(Corruption.ADD_CONJUNCT, "SELECT COUNT(*) FROM loans").orElseThrow();
        assertThat(c.sql()).isEqualTo("SELECT COUNT(*) FROM loans WHERE returned IS NULL");
        assertThat(c.where()).isEqualTo("WHERE: added `returned IS NULL`");
        // a WHERE with OR at its top is parenthesised first; literals go to columns of their family
        assertThat(outcomes(Corruption.ADD_CONJUNCT, "SELECT title FROM books WHERE genre = 'poetry' OR price < 5"))
                .containsExactlyInAnyOrder(
                        "SELECT title FROM books WHERE (genre = 'poetry' OR price < 5) AND genre IS NULL",
                        "SELECT title FROM books WHERE (genre = 'poetry' OR price < 5) AND title <> 'poetry'",
                        "SELECT title FROM books WHERE (genre = 'poetry' OR price < 5) AND genre <> 'poetry'",
                        "SELECT title FROM books WHERE (genre = 'poetry' OR price < 5) AND id <> 5",
                        "SELECT title FROM books WHERE (genre = 'poetry' OR price < 5) AND author_id <> 5",
                        "SELECT title FROM books WHERE (genre = 'poetry' OR price < 5) AND price <> 5");
        // several sources: qualified; a WHERE made before GROUP BY
        assertThat(outcomes(Corruption.ADD_CONJUNCT,
                "SELECT t.tag, COUNT(*) FROM tags t JOIN book_tags bt ON bt.tag = t.tag GROUP BY t.tag"))
                .containsExactlyInAnyOrder(
                        "SELECT t.tag, COUNT(*) FROM tags t JOIN book_tags bt ON bt.tag = t.tag WHERE t.tag IS NULL GROUP BY t.tag",
                        "SELECT t.tag, COUNT(*) FROM tags t JOIN book_tags bt ON bt.tag = t.tag WHERE bt.book_id IS NULL GROUP BY t.tag",
                        "SELECT t.tag, COUNT(*) FROM tags t JOIN book_tags bt ON bt.tag = t.tag WHERE bt.tag IS NULL GROUP BY t.tag");
        assertThat(once(Corruption.ADD_CONJUNCT, "SELECT 1")).isEmpty();
        assertThat(once(Corruption.ADD_CONJUNCT, "SELECT x FROM (SELECT 1 AS x) t")).isEmpty();
    }

    @Test
    void wrongJoinJoinsOtherKeysOrAColumnWithItself() {
        Corrupted c = once(Corruption.WRONG_JOIN, "SELECT b.title FROM books b JOIN authors a ON b.author_id = a.id").orElseThrow();
        assertThat(c.sql()).isEqualTo("SELECT b.title FROM books b JOIN authors a ON b.id = a.id");
        assertThat(c.where()).isEqualTo("JOIN ON: `b.author_id = a.id` -> `b.id = a.id`");
        // no other text column on either side: the left column with itself
        assertThat(outcomes(Corruption.WRONG_JOIN, "SELECT t.tag FROM tags t JOIN book_tags bt ON bt.tag = t.tag"))
                .containsExactly("SELECT t.tag FROM tags t JOIN book_tags bt ON bt.tag = bt.tag");
        assertThat(once(Corruption.WRONG_JOIN, "SELECT title FROM books")).isEmpty();
        assertThat(once(Corruption.WRONG_JOIN, "SELECT b.title FROM books b JOIN authors a ON b.price > a.id")).isEmpty();
        assertThat(once(Corruption.WRONG_JOIN, "SELECT tag FROM tags JOIN book_tags USING (tag)")).isEmpty();
    }

    @Test
    void missingJoinRemovesAnInnerJoinsOnCondition() {
        Corrupted c = once(Corruption.MISSING_JOIN,
                "SELECT b.title FROM books b JOIN authors a ON b.author_id = a.id WHERE a.country = 'NO'").orElseThrow();
        assertThat(c.sql()).isEqualTo("SELECT b.title FROM books b JOIN authors a WHERE a.country = 'NO'");
        assertThat(c.where()).isEqualTo("FROM: `JOIN authors a` lost `ON b.author_id = a.id` (a cross join)");
        assertThat(outcomes(Corruption.MISSING_JOIN,
                "SELECT l.id FROM loans l INNER JOIN books b ON l.book_id = b.id JOIN authors a ON a.id = b.author_id"))
                .containsExactlyInAnyOrder("SELECT l.id FROM loans l INNER JOIN books b JOIN authors a ON a.id = b.author_id",
                        "SELECT l.id FROM loans l INNER JOIN books b ON l.book_id = b.id JOIN authors a");
        // LEFT JOIN without ON does not parse: left alone
        assertThat(once(Corruption.MISSING_JOIN, "SELECT a.name FROM authors a LEFT JOIN books b ON b.author_id = a.id")).isEmpty();
    }

    @Test
    void missingGroupByRemovesTheClause() {
        assertThat(outcomes(Corruption.MISSING_GROUP_BY,
                "SELECT genre, COUNT(*) FROM books GROUP BY genre HAVING COUNT(*) > 1 ORDER BY genre"))
                .containsExactly("SELECT genre, COUNT(*) FROM books HAVING COUNT(*) > 1 ORDER BY genre");
        assertThat(once(Corruption.MISSING_GROUP_BY, "SELECT COUNT(*) FROM books")).isEmpty();
    }

    @Test
    void extraOrderByOrdersBySelectExpressionsOrPutsAKeyFirst() {
        assertThat(outcomes(Corruption.EXTRA_ORDER_BY, "SELECT title, COUNT(*) AS n FROM books GROUP BY title LIMIT 5"))
                .containsExactlyInAnyOrder(
                        "SELECT title, COUNT(*) AS n FROM books GROUP BY title ORDER BY title LIMIT 5",
                        "SELECT title, COUNT(*) AS n FROM books GROUP BY title ORDER BY title DESC LIMIT 5",
                        "SELECT title, COUNT(*) AS n FROM books GROUP BY title ORDER BY COUNT(*) LIMIT 5",
                        "SELECT title, COUNT(*) AS n FROM books GROUP BY title ORDER BY COUNT(*) DESC LIMIT 5");
        assertThat(outcomes(Corruption.EXTRA_ORDER_BY, "SELECT title, price FROM books ORDER BY price"))
                .containsExactlyInAnyOrder("SELECT title, price FROM books ORDER BY title, price",
                        "SELECT title, price FROM books ORDER BY title DESC, price");
        assertThat(outcomes(Corruption.EXTRA_ORDER_BY, "SELECT name FROM authors UNION SELECT member FROM loans"))
                .containsExactlyInAnyOrder("SELECT name FROM authors UNION SELECT member FROM loans ORDER BY 1",
                        "SELECT name FROM authors UNION SELECT member FROM loans ORDER BY 1 DESC");
        assertThat(once(Corruption.EXTRA_ORDER_BY, "SELECT title FROM books ORDER BY title DESC")).isEmpty();
    }

    @Test
    void extraLimitAddsOneOrCutsALimit() {
        Corrupted c = once(Corruption.EXTRA_LIMIT, "SELECT title FROM books ORDER BY price").orElseThrow();
        assertThat(c.sql()).isEqualTo("SELECT title FROM books ORDER BY price LIMIT 1");
        assertThat(c.where()).isEqualTo("LIMIT: added `LIMIT 1`");
        assertThat(outcomes(Corruption.EXTRA_LIMIT, "SELECT title FROM books ORDER BY price LIMIT 3"))
                .containsExactlyInAnyOrder("SELECT title FROM books ORDER BY price LIMIT 1",
                        "SELECT title FROM books ORDER BY price LIMIT 2");
        assertThat(outcomes(Corruption.EXTRA_LIMIT, "SELECT title FROM books ORDER BY price LIMIT 4, 2"))
                .containsExactly("SELECT title FROM books ORDER BY price LIMIT 4, 1");
        assertThat(once(Corruption.EXTRA_LIMIT, "SELECT title FROM books ORDER BY price LIMIT 1")).isEmpty();
    }

    @Test
    void wrongAggregateSwapsOneCall() {
        assertThat(outcomes(Corruption.WRONG_AGGREGATE, "SELECT MAX(price), avg(price) FROM books"))
                .containsExactlyInAnyOrder("SELECT MIN(price), avg(price) FROM books", "SELECT MAX(price), sum(price) FROM books");
        Corrupted c = once(Corruption.WRONG_AGGREGATE, "SELECT genre FROM books GROUP BY genre HAVING SUM(price) > 9").orElseThrow();
        assertThat(c.sql()).isEqualTo("SELECT genre FROM books GROUP BY genre HAVING COUNT(price) > 9");
        assertThat(c.where()).isEqualTo("aggregate: `SUM(price)` -> `COUNT(price)`");
        assertThat(once(Corruption.WRONG_AGGREGATE, "SELECT COUNT(*) FROM books")).isEmpty();
    }

    @Test
    void literalCaseChangesAStringsCase() {
        assertThat(outcomes(Corruption.LITERAL_CASE, "SELECT title FROM books WHERE genre = 'Poetry' OR genre = 'SF'"))
                .containsExactlyInAnyOrder("SELECT title FROM books WHERE genre = 'POETRY' OR genre = 'SF'",
                        "SELECT title FROM books WHERE genre = 'Poetry' OR genre = 'sf'");
        // no letters, a date format, an escape: nothing to change
        assertThat(once(Corruption.LITERAL_CASE,
                "SELECT DATE_FORMAT(published, '%Y') FROM books WHERE published > '2001-01-01' AND title <> 'it\\'s'")).isEmpty();
    }

    @Test
    void unknownColumnWritesANearMissNoTableHas() {
        assertThat(outcomes(Corruption.UNKNOWN_COLUMN, "SELECT title FROM books")).containsExactly("SELECT titles FROM books");
        assertThat(outcomes(Corruption.UNKNOWN_COLUMN, "SELECT b.author_id FROM books b"))
                .containsExactlyInAnyOrder("SELECT b.authorId FROM books b", "SELECT b.author_ids FROM books b");
        Corrupted c = once(Corruption.UNKNOWN_COLUMN, "SELECT title FROM books").orElseThrow();
        assertThat(c.where()).isEqualTo("SELECT: `title` -> `titles` (no such column)");
        // tags.tag and book_tags.tag: "tags" is a table, so the plural is no near miss here
        assertThat(outcomes(Corruption.UNKNOWN_COLUMN, "SELECT tag FROM tags"))
                .containsExactlyInAnyOrder("SELECT tag_name FROM tags", "SELECT tag_value FROM tags", "SELECT tag_x FROM tags");
        assertThat(SqlCorruptions.nearMisses("status").get(0)).containsExactly("statuses");
        assertThat(SqlCorruptions.nearMisses("customerName").get(0)).containsExactly("customer_name", "customerNames");
        assertThat(once(Corruption.UNKNOWN_COLUMN, "SELECT COUNT(*) FROM books")).isEmpty();
        // never a SQL word (it would need quotes), never quoted: SQLite reads an unknown "name" as a string and runs
        assertThat(outcomes(Corruption.UNKNOWN_COLUMN, "SELECT \"ends\" FROM t", new Schema("s", List.of(new Table("t",
                List.of(new Column("ends", "datetime", true)), List.of(), 0)), List.of()), Dialect.SQLITE))
                .containsExactlyInAnyOrder("SELECT ends_name FROM t", "SELECT ends_value FROM t", "SELECT ends_x FROM t");
    }

    @Test
    void syntaxErrorsDoNotParse() {
        Set<String> all = outcomes(Corruption.SYNTAX_ERROR, "SELECT title, genre FROM books WHERE price > 10");
        assertThat(all).containsExactlyInAnyOrder(
                "SELCT title, genre FROM books WHERE price > 10",
                "SELECT title, genre FORM books WHERE price > 10",
                "SELECT title, genre FROM books WHRE price > 10",
                "SELECT (title, genre FROM books WHERE price > 10");
        for (String s : all) assertThat(Query.read(s, Dialect.MYSQL).statement()).as(s).isEmpty();
        // a missing comma before a call cannot read as an alias
        assertThat(outcomes(Corruption.SYNTAX_ERROR, "SELECT genre, COUNT(*) FROM books GROUP BY genre"))
                .contains("SELECT genre COUNT(*) FROM books GROUP BY genre", "SELECT genre, COUNT(* FROM books GROUP BY genre");
    }

    @Test
    void everyResultButASyntaxErrorReadsAsOneSelect() {
        List<String> golds = new ArrayList<>(List.of(
                "SELECT a.name, COUNT(b.id) FROM authors a LEFT JOIN books b ON b.author_id = a.id GROUP BY a.id, a.name HAVING COUNT(b.id) > 1",
                "SELECT title FROM books WHERE price > (SELECT AVG(price) FROM books) AND genre IN ('a', 'b') ORDER BY price DESC LIMIT 3",
                "WITH cheap AS (SELECT id, title FROM books WHERE price < 5) SELECT c.title, l.member FROM cheap c JOIN loans l ON l.book_id = c.id",
                "SELECT genre FROM books EXCEPT SELECT tag FROM tags",
                "SELECT member, MAX(loaned) FROM loans WHERE returned IS NULL OR returned > loaned GROUP BY member"));
        for (String sql : golds) {
            for (Corruption op : Corruption.values()) {
                for (int seed = 0; seed < 20; seed++) {
                    Optional<Corrupted> c = SqlCorruptions.apply(op, sql, LIBRARY, Dialect.MYSQL, new Random(seed));
                    if (c.isEmpty()) continue;
                    Query q = Query.read(c.get().sql(), Dialect.MYSQL);
                    assertThat(c.get().sql()).isNotEqualTo(sql);
                    if (op == Corruption.SYNTAX_ERROR) assertThat(q.statement()).as(c.get().sql()).isEmpty();
                    else assertThat(q.select()).as(op + ": " + c.get().sql()).isPresent();
                }
            }
        }
    }

    @Test
    void deterministicForASeedAndApplicableAgreesWithApply() {
        String sql = "SELECT b.title, a.name FROM books b JOIN authors a ON b.author_id = a.id "
                + "WHERE b.price > 10 AND a.country = 'NO' ORDER BY b.price DESC LIMIT 5";
        Set<String> distinct = new TreeSet<>();
        for (Corruption op : Corruption.values()) {
            for (int seed = 0; seed < 10; seed++) {
                Optional<Corrupted> a = SqlCorruptions.apply(op, sql, LIBRARY, Dialect.MYSQL, new Random(seed));
                Optional<Corrupted> b = SqlCorruptions.apply(op, sql, LIBRARY, Dialect.MYSQL, new Random(seed));
                assertThat(a).isEqualTo(b);
                a.ifPresent(c -> distinct.add(c.sql()));
            }
        }
        assertThat(distinct.size()).as("seeds choose different sites").isGreaterThan(Corruption.values().length);
        List<Corruption> applicable = SqlCorruptions.applicable(sql, LIBRARY, Dialect.MYSQL);
        assertThat(applicable).isEqualTo(List.of(Corruption.WRONG_COLUMN, Corruption.DROP_CONJUNCT, Corruption.ADD_CONJUNCT,
                Corruption.WRONG_JOIN, Corruption.MISSING_JOIN, Corruption.EXTRA_ORDER_BY, Corruption.EXTRA_LIMIT,
                Corruption.LITERAL_CASE, Corruption.UNKNOWN_COLUMN, Corruption.SYNTAX_ERROR));
        for (Corruption op : Corruption.values()) {
            assertThat(SqlCorruptions.apply(op, sql, LIBRARY, Dialect.MYSQL, new Random(3)).isPresent())
                    .as(op.label()).isEqualTo(applicable.contains(op));
        }
        assertThat(Corruption.MISSING_GROUP_BY.label()).isEqualTo("missing_group_by");
    }

    @Test
    void nothingAppliesToWhatIsNotOneSelect() {
        for (String sql : List.of("", "DELETE FROM books", "SELECT FROM WHERE", "SELECT 1; SELECT 2")) {
            assertThat(SqlCorruptions.applicable(sql, LIBRARY, Dialect.MYSQL)).as(sql).isEmpty();
            assertThat(SqlCorruptions.apply(Corruption.SYNTAX_ERROR, sql, LIBRARY, Dialect.MYSQL, new Random(1))).isEmpty();
        }
    }

    @Test
    void classicModelsTrainGolds() {
        // cm-train-007
        String join = "SELECT c.customerName FROM customers c JOIN orders o ON o.customerNumber = c.customerNumber WHERE o.orderNumber = 10165";
        assertThat(outcomes(Corruption.MISSING_JOIN, join, CLASSIC_MODELS, Dialect.MYSQL))
                .containsExactly("SELECT c.customerName FROM customers c JOIN orders o WHERE o.orderNumber = 10165");
        // the wrong join is another key of the same tables: the customer's sales rep, or the order's own number
        assertThat(outcomes(Corruption.WRONG_JOIN, join, CLASSIC_MODELS, Dialect.MYSQL)).containsExactlyInAnyOrder(
                "SELECT c.customerName FROM customers c JOIN orders o ON o.orderNumber = c.customerNumber WHERE o.orderNumber = 10165",
                "SELECT c.customerName FROM customers c JOIN orders o ON o.customerNumber = c.salesRepEmployeeNumber WHERE o.orderNumber = 10165");
        // cm-train-064
        assertThat(outcomes(Corruption.WRONG_AGGREGATE,
                "SELECT productLine, AVG(MSRP) FROM products GROUP BY productLine ORDER BY AVG(MSRP) DESC LIMIT 1",
                CLASSIC_MODELS, Dialect.MYSQL)).containsExactlyInAnyOrder(
                "SELECT productLine, SUM(MSRP) FROM products GROUP BY productLine ORDER BY AVG(MSRP) DESC LIMIT 1",
                "SELECT productLine, AVG(MSRP) FROM products GROUP BY productLine ORDER BY SUM(MSRP) DESC LIMIT 1");
        // cm-train-129: the correlated subquery is a level of its own; its outer column is not its to change
        String correlated = "SELECT customerName FROM customers c WHERE (SELECT MAX(o.orderDate) FROM orders o "
                + "WHERE o.customerNumber = c.customerNumber) < '2004-01-01'";
        assertThat(outcomes(Corruption.DROP_CONJUNCT, correlated, CLASSIC_MODELS, Dialect.MYSQL)).containsExactlyInAnyOrder(
                "SELECT customerName FROM customers c",
                "SELECT customerName FROM customers c WHERE (SELECT MAX(o.orderDate) FROM orders o) < '2004-01-01'");
        // cm-train-139: a set operation's branches are levels; EXTRA_LIMIT limits the whole
        String setOp = "SELECT state FROM offices WHERE state IS NOT NULL INTERSECT SELECT state FROM customers";
        assertThat(outcomes(Corruption.EXTRA_LIMIT, setOp, CLASSIC_MODELS, Dialect.MYSQL)).containsExactly(setOp + " LIMIT 1");
        assertThat(SqlCorruptions.applicable(setOp, CLASSIC_MODELS, Dialect.MYSQL)).containsExactly(Corruption.WRONG_COLUMN,
                Corruption.DROP_CONJUNCT, Corruption.ADD_CONJUNCT, Corruption.EXTRA_ORDER_BY, Corruption.EXTRA_LIMIT,
                Corruption.UNKNOWN_COLUMN, Corruption.SYNTAX_ERROR);
        EnumSet<Corruption> none = EnumSet.allOf(Corruption.class);
        none.removeAll(SqlCorruptions.applicable(setOp, CLASSIC_MODELS, Dialect.MYSQL));
        assertThat(none).contains(Corruption.MISSING_GROUP_BY, Corruption.WRONG_JOIN);
    }
}
