package dev.ladder.sql.mutate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.read.Query;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class SqlRewritesTest {

    /** Every text {@code r} makes of {@code sql} over many seeds: the whole set of its outcomes. */
    private static Set<String> outcomes(Rewrite r, String sql, Dialect dialect) {
        Set<String> out = new TreeSet<>();
        for (int seed = 0; seed < 120; seed++) {
            // consecutive small seeds give java.util.Random correlated first draws: spread them
            SqlRewrites.apply(r, sql, dialect, new Random(seed * 0x9E3779B97F4A7C15L)).ifPresent(w -> out.add(w.sql()));
        }
        return out;
    }

    private static Set<String> outcomes(Rewrite r, String sql) {
        return outcomes(r, sql, Dialect.MYSQL);
    }

    private static Optional<Rewritten> once(Rewrite r, String sql) {
        return SqlRewrites.apply(r, sql, Dialect.MYSQL, new Random(42));
    }

    @Test
    void permuteColumnsReordersTheOutermostSelectList() {
        assertThat(outcomes(Rewrite.PERMUTE_COLUMNS, "SELECT title, price AS p FROM books WHERE genre = 'a'"))
                .containsExactly("SELECT price AS p, title FROM books WHERE genre = 'a'");
        Set<String> three = outcomes(Rewrite.PERMUTE_COLUMNS, "SELECT a.name, COUNT(*), MAX(b.price) FROM authors a JOIN books b ON b.author_id = a.id GROUP BY a.name");
        assertThat(three).hasSize(5).doesNotContain("SELECT a.name, COUNT(*), MAX(b.price) FROM authors a JOIN books b ON b.author_id = a.id GROUP BY a.name")
                .contains("SELECT MAX(b.price), a.name, COUNT(*) FROM authors a JOIN books b ON b.author_id = a.id GROUP BY a.name");
        assertThat(once(Rewrite.PERMUTE_COLUMNS, "SELECT title, price FROM books").orElseThrow().where())
                .isEqualTo("SELECT: items in the order 2, 1");
        // positions would change meaning; a bare * must come first; one item; a set operation's branches
        for (String sql : List.of("SELECT title, price FROM books ORDER BY 2", "SELECT genre, COUNT(*) FROM books GROUP BY 1",
                "SELECT *, price FROM books", "SELECT title FROM books", "SELECT id, title FROM books UNION SELECT id, member FROM loans")) {
            assertThat(once(Rewrite.PERMUTE_COLUMNS, sql)).as(sql).isEmpty();
        }
    }

    @Test
    void renameAliasesRenamesDefinitionsAndQualifiersAtEveryLevel() {
        assertThat(outcomes(Rewrite.RENAME_ALIASES, "SELECT b.title FROM books b JOIN authors AS a ON b.author_id = a.id WHERE a.country = 'NO'"))
                .containsExactlyInAnyOrder(
                        "SELECT t1.title FROM books t1 JOIN authors AS t2 ON t1.author_id = t2.id WHERE t2.country = 'NO'",
                        "SELECT t2.title FROM books t2 JOIN authors AS t1 ON t2.author_id = t1.id WHERE t1.country = 'NO'");
        assertThat(outcomes(Rewrite.RENAME_ALIASES, "SELECT MAX(n) FROM (SELECT author_id, COUNT(*) AS n FROM books GROUP BY author_id) AS t1"))
                .containsExactly("SELECT MAX(n) FROM (SELECT author_id, COUNT(*) AS n FROM books GROUP BY author_id) AS t2");
        // a correlated subquery's reference to the outer alias goes with it
        assertThat(outcomes(Rewrite.RENAME_ALIASES, "SELECT name FROM authors x WHERE EXISTS (SELECT 1 FROM books WHERE author_id = x.id)"))
                .containsExactly("SELECT name FROM authors t1 WHERE EXISTS (SELECT 1 FROM books WHERE author_id = t1.id)");
        // an alias spelled like a column the query names: renaming cannot tell them apart
        assertThat(once(Rewrite.RENAME_ALIASES, "SELECT genre.title FROM books genre WHERE genre = 'x'")).isEmpty();
        assertThat(once(Rewrite.RENAME_ALIASES, "SELECT title FROM books")).isEmpty();
    }

    @Test
    void notEqualsSpellingSwapsOneOperator() {
        assertThat(outcomes(Rewrite.NOT_EQUALS_SPELLING, "SELECT id FROM books WHERE genre <> 'a' AND price != 3"))
                .containsExactlyInAnyOrder("SELECT id FROM books WHERE genre != 'a' AND price != 3",
                        "SELECT id FROM books WHERE genre <> 'a' AND price <> 3");
        assertThat(once(Rewrite.NOT_EQUALS_SPELLING, "SELECT id FROM books WHERE genre = 'a'")).isEmpty();
    }

    @Test
    void commuteAndReordersTopLevelConjuncts() {
        Rewritten w = once(Rewrite.COMMUTE_AND, "SELECT id FROM books WHERE price BETWEEN 1 AND 5 AND genre = 'x'").orElseThrow();
        assertThat(w.sql()).isEqualTo("SELECT id FROM books WHERE genre = 'x' AND price BETWEEN 1 AND 5");
        assertThat(w.where()).isEqualTo("WHERE: `price BETWEEN 1 AND 5 AND genre = 'x'` -> `genre = 'x' AND price BETWEEN 1 AND 5`");
        assertThat(outcomes(Rewrite.COMMUTE_AND, "SELECT t.tag FROM tags t JOIN book_tags b ON b.tag = t.tag AND b.book_id > 2"))
                .containsExactly("SELECT t.tag FROM tags t JOIN book_tags b ON b.book_id > 2 AND b.tag = t.tag");
        // OR at the top: no conjuncts to commute; CASE's AND is inside one
        assertThat(once(Rewrite.COMMUTE_AND, "SELECT id FROM books WHERE genre = 'a' OR price > 1 AND price < 9")).isEmpty();
        assertThat(once(Rewrite.COMMUTE_AND, "SELECT id FROM books WHERE CASE WHEN price > 1 AND price < 9 THEN 1 ELSE 0 END = 1")).isEmpty();
    }

    @Test
    void inToOrAndBack() {
        Rewritten w = once(Rewrite.IN_TO_OR, "SELECT id FROM books WHERE genre IN ('a', 'b') AND price > 1").orElseThrow();
        assertThat(w.sql()).isEqualTo("SELECT id FROM books WHERE (genre = 'a' OR genre = 'b') AND price > 1");
        assertThat(w.where()).isEqualTo("`genre IN ('a', 'b')` -> `(genre = 'a' OR genre = 'b')`");
        assertThat(outcomes(Rewrite.IN_TO_OR, "SELECT id FROM books WHERE YEAR(published) IN (2001, -3)"))
                .containsExactly("SELECT id FROM books WHERE (YEAR(published) = 2001 OR YEAR(published) = -3)");
        assertThat(outcomes(Rewrite.IN_TO_OR, "SELECT id FROM books WHERE b.genre = 'a' OR b.genre = 'b'"))
                .containsExactly("SELECT id FROM books WHERE b.genre IN ('a', 'b')");
        assertThat(outcomes(Rewrite.IN_TO_OR, "SELECT id FROM books WHERE price > 1 AND (genre = 'a' OR genre = 'b')"))
                .containsExactly("SELECT id FROM books WHERE price > 1 AND (genre IN ('a', 'b'))");
        for (String sql : List.of("SELECT id FROM books WHERE genre NOT IN ('a', 'b')",
                "SELECT id FROM books WHERE author_id IN (SELECT id FROM authors)",
                "SELECT id FROM books WHERE genre IN ('a', 1)",
                "SELECT id FROM books WHERE price + 1 IN (2, 3)",
                "SELECT id FROM books WHERE genre = 'a' OR title = 'b'",
                "SELECT id FROM books WHERE genre = 'a' OR genre = 'b' AND price > 1")) {
            assertThat(once(Rewrite.IN_TO_OR, sql)).as(sql).isEmpty();
        }
    }

    @Test
    void joinOnToWhereMovesInnerJoinConditions() {
        Rewritten w = once(Rewrite.JOIN_ON_TO_WHERE,
                "SELECT b.title FROM books b JOIN authors a ON b.author_id = a.id WHERE a.country = 'NO' ORDER BY b.title").orElseThrow();
        assertThat(w.sql()).isEqualTo("SELECT b.title FROM books b, authors a WHERE b.author_id = a.id AND a.country = 'NO' ORDER BY b.title");
        assertThat(w.where()).isEqualTo("FROM: joins as commas, `b.author_id = a.id` in WHERE");
        assertThat(outcomes(Rewrite.JOIN_ON_TO_WHERE,
                "SELECT l.id FROM loans l INNER JOIN books b ON l.book_id = b.id JOIN authors a ON a.id = b.author_id OR a.id = 0 GROUP BY l.id"))
                .containsExactly("SELECT l.id FROM loans l, books b, authors a WHERE l.book_id = b.id AND (a.id = b.author_id OR a.id = 0) GROUP BY l.id");
        assertThat(outcomes(Rewrite.JOIN_ON_TO_WHERE, "SELECT b.title FROM books b JOIN authors a ON b.author_id = a.id WHERE a.id = 1 OR a.id = 2"))
                .containsExactly("SELECT b.title FROM books b, authors a WHERE b.author_id = a.id AND (a.id = 1 OR a.id = 2)");
        assertThat(once(Rewrite.JOIN_ON_TO_WHERE, "SELECT a.name FROM authors a LEFT JOIN books b ON b.author_id = a.id")).isEmpty();
        assertThat(once(Rewrite.JOIN_ON_TO_WHERE,
                "SELECT a.name FROM authors a JOIN books b ON b.author_id = a.id LEFT JOIN loans l ON l.book_id = b.id")).isEmpty();
        assertThat(once(Rewrite.JOIN_ON_TO_WHERE, "SELECT tag FROM tags JOIN book_tags USING (tag)")).isEmpty();
    }

    @Test
    void redundantParenthesesWrapAWhereConditionOrConjunct() {
        assertThat(outcomes(Rewrite.REDUNDANT_PARENTHESES, "SELECT id FROM books WHERE price > 1"))
                .containsExactly("SELECT id FROM books WHERE (price > 1)");
        assertThat(outcomes(Rewrite.REDUNDANT_PARENTHESES, "SELECT id FROM books WHERE price > 1 AND genre = 'a'"))
                .containsExactlyInAnyOrder("SELECT id FROM books WHERE (price > 1 AND genre = 'a')",
                        "SELECT id FROM books WHERE (price > 1) AND genre = 'a'",
                        "SELECT id FROM books WHERE price > 1 AND (genre = 'a')");
        assertThat(once(Rewrite.REDUNDANT_PARENTHESES, "SELECT id FROM books")).isEmpty();
    }

    @Test
    void deterministicForASeedAndApplicableAgreesWithApply() {
        String sql = "SELECT b.title, a.name FROM books b JOIN authors a ON b.author_id = a.id "
                + "WHERE b.genre IN ('a', 'b') AND a.country <> 'NO' ORDER BY b.price DESC";
        for (Rewrite r : Rewrite.values()) {
            for (int seed = 0; seed < 10; seed++) {
                assertThat(SqlRewrites.apply(r, sql, Dialect.MYSQL, new Random(seed)))
                        .isEqualTo(SqlRewrites.apply(r, sql, Dialect.MYSQL, new Random(seed)));
            }
        }
        List<Rewrite> applicable = SqlRewrites.applicable(sql, Dialect.MYSQL);
        assertThat(applicable).isEqualTo(List.of(Rewrite.values()));
        assertThat(SqlRewrites.applicable("SELECT 1", Dialect.MYSQL)).isEmpty();
        assertThat(SqlRewrites.applicable("UPDATE books SET price = 1", Dialect.MYSQL)).isEmpty();
        for (Rewrite r : Rewrite.values()) {
            Rewritten w = SqlRewrites.apply(r, sql, Dialect.MYSQL, new Random(5)).orElseThrow();
            assertThat(w.rewrite()).isEqualTo(r);
            assertThat(Query.read(w.sql(), Dialect.MYSQL).select()).as(w.sql()).isPresent();
        }
        assertThat(Rewrite.JOIN_ON_TO_WHERE.label()).isEqualTo("join_on_to_where");
    }

    @Test
    void sqliteQuotingIsKept() {
        assertThat(outcomes(Rewrite.RENAME_ALIASES, "SELECT \"b\".title FROM books AS \"b\"", Dialect.SQLITE))
                .containsExactly("SELECT \"t1\".title FROM books AS \"t1\"");
    }

    @Test
    void classicModelsTrainGolds() {
        // cm-train-027
        assertThat(outcomes(Rewrite.IN_TO_OR, "SELECT orderNumber FROM orders WHERE status = 'Cancelled' OR status = 'On Hold'", Dialect.MYSQL))
                .containsExactly("SELECT orderNumber FROM orders WHERE status IN ('Cancelled', 'On Hold')");
        // cm-train-099
        String self = "SELECT DISTINCT c1.customerName FROM customers c1 JOIN customers c2 ON c1.contactLastName = c2.contactLastName "
                + "AND c1.customerNumber <> c2.customerNumber";
        assertThat(outcomes(Rewrite.JOIN_ON_TO_WHERE, self, Dialect.MYSQL)).containsExactly("SELECT DISTINCT c1.customerName FROM "
                + "customers c1, customers c2 WHERE c1.contactLastName = c2.contactLastName AND c1.customerNumber <> c2.customerNumber");
        assertThat(outcomes(Rewrite.COMMUTE_AND, self, Dialect.MYSQL)).containsExactly("SELECT DISTINCT c1.customerName FROM customers c1 "
                + "JOIN customers c2 ON c1.customerNumber <> c2.customerNumber AND c1.contactLastName = c2.contactLastName");
        // cm-train-143: one alias in two set-operation branches, renamed alike
        String branches = "SELECT c.customerName FROM customers c JOIN orders o ON o.customerNumber = c.customerNumber WHERE YEAR(o.orderDate) = 2003 "
                + "EXCEPT SELECT c.customerName FROM customers c JOIN payments p ON p.customerNumber = c.customerNumber WHERE YEAR(p.paymentDate) = 2004";
        for (String out : outcomes(Rewrite.RENAME_ALIASES, branches, Dialect.MYSQL)) {
            assertThat(out).doesNotContain("c.", "o.", "p.").matches("SELECT (t\\d)\\.customerName FROM customers \\1 JOIN .* EXCEPT SELECT \\1\\.customerName FROM customers \\1 .*");
        }
        assertThat(SqlRewrites.applicable(branches, Dialect.MYSQL)).containsExactly(Rewrite.RENAME_ALIASES, Rewrite.JOIN_ON_TO_WHERE,
                Rewrite.REDUNDANT_PARENTHESES);
    }
}
