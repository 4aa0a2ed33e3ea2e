package dev.ladder.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;

/**
 * Two small SQLite databases in Spider's and BIRD's layouts, made in the test: shop (customers, orders) and library
 * (authors, books), which share no table name, with NULLs, ties, dates and an empty result among their items; and
 * each database's test suite in the official layout ({@code DIR/<db_id>/*.sqlite}).
 */
final class TwoDatabaseBenchmarks {

    private TwoDatabaseBenchmarks() {}

    /** A Spider folder: {@code database/<db_id>/<db_id>.sqlite}, tables.json, dev.json (8 items) and train.json. */
    static Path spider(Path dir) throws Exception {
        shop(dir.resolve("database/shop/shop.sqlite"), false);
        library(dir.resolve("database/library/library.sqlite"), false);
        Files.writeString(dir.resolve("tables.json"), "[{\"db_id\": \"shop\"}, {\"db_id\": \"library\"}]");
        // the items alternate between the two databases, NULLs, ties, dates and an empty result among them
        Files.writeString(dir.resolve("dev.json"), """
                [
                 {"db_id": "shop", "question": "How many customers live in each city?", "query": "SELECT city, COUNT(*) FROM customers GROUP BY city"},
                 {"db_id": "library", "question": "List the titles of books rated above 4.", "query": "SELECT title FROM books WHERE rating > 4"},
                 {"db_id": "shop", "question": "Which customers have placed no order?", "query": "SELECT name FROM customers WHERE id NOT IN (SELECT customer_id FROM orders)"},
                 {"db_id": "library", "question": "How many books has each author written?", "query": "SELECT a.name, COUNT(*) FROM authors AS a JOIN books AS b ON a.id = b.author_id GROUP BY a.name"},
                 {"db_id": "shop", "question": "Which orders were placed after June 2024?", "query": "SELECT id FROM orders WHERE placed > '2024-06-30'"},
                 {"db_id": "library", "question": "Which authors were born before 1900?", "query": "SELECT name FROM authors WHERE born < 1900"},
                 {"db_id": "shop", "question": "Which orders are worth more than 1000?", "query": "SELECT id FROM orders WHERE amount > 1000"},
                 {"db_id": "library", "question": "What is the title of the highest rated book?", "query": "SELECT title FROM books ORDER BY rating DESC LIMIT 1"}
                ]
                """);
        Files.writeString(dir.resolve("train.json"), """
                [
                 {"db_id": "shop", "question": "List the names of all customers.", "query": "SELECT name FROM customers"},
                 {"db_id": "library", "question": "How many books are there?", "query": "SELECT COUNT(*) FROM books"},
                 {"db_id": "shop", "question": "What is the total amount of all orders?", "query": "SELECT SUM(amount) FROM orders"},
                 {"db_id": "library", "question": "List the names of authors.", "query": "SELECT name FROM authors"}
                ]
                """);
        return dir;
    }

    /** A BIRD folder: {@code dev_databases/<db_id>/<db_id>.sqlite} and dev.json (4 items with evidence). */
    static Path bird(Path dir) throws Exception {
        shop(dir.resolve("dev_databases/shop/shop.sqlite"), false);
        library(dir.resolve("dev_databases/library/library.sqlite"), false);
        Files.writeString(dir.resolve("dev.json"), """
                [
                 {"question_id": 0, "db_id": "library", "question": "Which books are well rated?", "evidence": "well rated refers to rating > 4", "SQL": "SELECT title FROM books WHERE rating > 4", "difficulty": "simple"},
                 {"question_id": 1, "db_id": "shop", "question": "How many customers have no known city?", "evidence": "no known city refers to city IS NULL", "SQL": "SELECT COUNT(*) FROM customers WHERE city IS NULL", "difficulty": "simple"},
                 {"question_id": 2, "db_id": "library", "question": "Who wrote the oldest book?", "evidence": "oldest refers to MIN(year)", "SQL": "SELECT a.name FROM authors AS a JOIN books AS b ON a.id = b.author_id ORDER BY b.year LIMIT 1", "difficulty": "moderate"},
                 {"question_id": 3, "db_id": "shop", "question": "What was spent in 2024?", "evidence": "spent refers to SUM(amount)", "SQL": "SELECT SUM(amount) FROM orders WHERE placed LIKE '2024%'", "difficulty": "simple"}
                ]
                """);
        return dir;
    }

    /** Each database's suite: a copy of the original and a variant with other rows. */
    static Path suites(Path dir) throws Exception {
        shop(dir.resolve("shop/shop.sqlite"), false);
        shop(dir.resolve("shop/shop_1.sqlite"), true);
        library(dir.resolve("library/library.sqlite"), false);
        library(dir.resolve("library/library_1.sqlite"), true);
        return dir;
    }

    static void shop(Path file, boolean variant) throws Exception {
        sqlite(file, List.of(
                "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT, joined DATE)",
                "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), amount REAL, placed DATE)",
                variant ? "INSERT INTO customers VALUES (1, 'Ines', 'Lyon', '2023-02-01'), (2, 'Jon', 'Lyon', '2023-05-09'),"
                        + " (3, 'Kai', NULL, '2024-01-12'), (4, 'Lea', 'Oslo', '2024-03-03')"
                        : "INSERT INTO customers VALUES (1, 'Ann', 'Paris', '2023-01-05'), (2, 'Bo', NULL, '2023-03-15'),"
                        + " (3, 'Cy', 'Paris', '2024-02-20'), (4, 'Di', 'Rome', '2024-07-01')",
                variant ? "INSERT INTO orders VALUES (10, 4, 1200.0, '2024-08-01'), (11, 1, 40.0, '2023-03-01')"
                        : "INSERT INTO orders VALUES (1, 1, 250.0, '2024-01-10'), (2, 1, 250.0, '2024-07-04'),"
                        + " (3, 3, 99.5, '2024-09-30'), (4, 4, 10.0, '2023-12-31')"));
    }

    static void library(Path file, boolean variant) throws Exception {
        sqlite(file, List.of(
                "CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL, born INTEGER)",
                "CREATE TABLE books (id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES authors(id), title TEXT, year INTEGER, rating REAL)",
                variant ? "INSERT INTO authors VALUES (1, 'Zola', 1840), (2, 'Xu', 1950), (3, 'Yeats', 1865)"
                        : "INSERT INTO authors VALUES (1, 'Austen', 1775), (2, 'Borges', 1899), (3, 'Carver', 1938)",
                variant ? "INSERT INTO books VALUES (1, 3, 'Late', 1990, 4.8), (2, 1, 'Early', 1870, 3.0)"
                        : "INSERT INTO books VALUES (1, 1, 'Emma', 1815, 4.5), (2, 2, 'Ficciones', 1944, 4.5),"
                        + " (3, 3, 'Cathedral', 1983, NULL), (4, 1, 'Persuasion', 1817, 3.9)"));
    }

    static void sqlite(Path file, List<String> statements) throws Exception {
        Files.createDirectories(file.getParent());
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            for (String sql : statements) s.executeUpdate(sql);
        }
    }
}
