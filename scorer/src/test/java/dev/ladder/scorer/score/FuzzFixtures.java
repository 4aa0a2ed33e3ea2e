package dev.ladder.scorer.score;

import dev.ladder.scorer.SqliteFixtures;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;

/**
 * Three made-up SQLite databases for the scorer fuzz, each with golds of its own and a filler of seeded random rows
 * for its test-suite copies: NULLs in selected and sorted columns, ties (also text keys that differ only in case or
 * trailing spaces), dates and date-times stored as text, and golds with empty results.
 *
 * @param name   file stem
 * @param ddl    CREATE TABLE statements
 * @param rows   the original database's INSERTs
 * @param golds  SQLite-dialect golds over it
 * @param filler a suite copy's INSERTs from a seeded Random
 */
record FuzzFixtures(String name, List<String> ddl, List<String> rows, List<String> golds,
                    Function<Random, List<String>> filler) {

    /** The original database in {@code dir}. */
    Path original(Path dir) throws IOException {
        return make(dir.resolve(name + ".sqlite"), rows);
    }

    /** A test-suite copy: the same tables, rows drawn from {@code seed}. */
    Path suite(Path dir, long seed) throws IOException {
        return make(dir.resolve(name + "_suite_" + seed + ".sqlite"), filler.apply(new Random(seed)));
    }

    private Path make(Path file, List<String> inserts) throws IOException {
        List<String> all = new ArrayList<>(ddl);
        all.addAll(inserts);
        return SqliteFixtures.create(file, all.toArray(String[]::new));
    }

    static List<FuzzFixtures> all() {
        return List.of(shop(), school(), events());
    }

    // ------------------------------------------------------------------ shop

    static FuzzFixtures shop() {
        return new FuzzFixtures("fuzz_shop", List.of(
                "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT, joined DATE, tier TEXT)",
                "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), "
                        + "placed DATETIME NOT NULL, shipped DATETIME, total NUMERIC(10,2), status TEXT NOT NULL)",
                "CREATE TABLE items (order_id INTEGER NOT NULL REFERENCES orders(id), sku TEXT NOT NULL, qty INTEGER NOT NULL, "
                        + "price REAL)"),
                List.of(
                        // city ties that differ in case and trailing space; a NULL city; tied and missing join dates
                        "INSERT INTO customers VALUES (1, 'Ada', 'Oslo', '2020-01-05', 'gold'), (2, 'bob', 'oslo', '2020-01-05', NULL), "
                                + "(3, 'Cy', NULL, '2021-03-01', 'silver'), (4, 'Di', 'Bergen', NULL, 'gold'), "
                                + "(5, 'Ed', 'Bergen', '2022-07-30', NULL), (6, 'Fay', 'Oslo ', '2020-01-05', 'silver'), "
                                + "(7, 'Gus', 'Tromso', '2023-11-11', 'bronze')",
                        "INSERT INTO orders VALUES (10, 1, '2023-01-15 10:00:00', '2023-01-17 09:30:00', 120.00, 'shipped'), "
                                + "(11, 1, '2023-02-01 00:00:00', NULL, 35.50, 'open'), "
                                + "(12, 2, '2023-02-14 18:45:10', '2023-02-20 08:00:00', 120.00, 'shipped'), "
                                + "(13, 3, '2023-02-28 23:59:59', NULL, NULL, 'cancelled'), "
                                + "(14, 4, '2023-03-01 12:00:00', '2023-03-02 12:00:00', 80.25, 'shipped'), "
                                + "(15, 5, '2023-03-01 12:00:00', NULL, 35.50, 'open'), "
                                + "(16, 6, '2023-04-10 07:05:00', '2023-04-11 07:05:00', 120.00, 'shipped')",
                        "INSERT INTO items VALUES (10, 'A-1', 2, 30.0), (10, 'B-2', 1, 60.0), (11, 'A-1', 1, 35.5), "
                                + "(12, 'C-3', 4, 30.0), (13, 'A-1', 1, NULL), (14, 'B-2', 3, 26.75), (15, 'D-4', 1, 35.5), "
                                + "(16, 'A-1', 2, 60.0)"),
                List.of(
                        "SELECT name FROM customers WHERE city = 'Oslo'",
                        "SELECT name, joined FROM customers ORDER BY joined, name",
                        "SELECT city, COUNT(*) FROM customers GROUP BY city ORDER BY COUNT(*) DESC",
                        "SELECT c.name, o.total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.status = 'shipped' "
                                + "ORDER BY o.total DESC LIMIT 2",
                        "SELECT COUNT(*) FROM orders WHERE shipped IS NULL",
                        "SELECT id, placed FROM orders WHERE placed >= '2023-02-01 00:00:00' AND placed < '2023-03-01 00:00:00'",
                        "SELECT MAX(placed), MIN(shipped) FROM orders",
                        "SELECT c.name FROM customers c LEFT JOIN orders o ON o.customer_id = c.id WHERE o.id IS NULL",
                        "SELECT o.id, SUM(i.qty * i.price) FROM orders o JOIN items i ON i.order_id = o.id GROUP BY o.id HAVING SUM(i.qty) > 2",
                        "SELECT name FROM customers WHERE tier IN ('gold', 'platinum') AND city <> 'Bergen'",
                        "SELECT name FROM customers WHERE joined > '2030-01-01'",
                        "SELECT DISTINCT city FROM customers WHERE city IS NOT NULL ORDER BY city",
                        "SELECT status, AVG(total) FROM orders GROUP BY status",
                        "SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE total > 50)",
                        "SELECT c.city, MAX(o.placed) FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.city ORDER BY c.city",
                        "SELECT o.status, i.sku, SUM(i.qty) FROM orders o JOIN items i ON i.order_id = o.id "
                                + "WHERE o.status = 'shipped' OR o.status = 'open' GROUP BY o.status, i.sku",
                        // sort keys named by alias, by position, beside a *; a set operation; OFFSET into ties
                        "SELECT name AS n, city FROM customers ORDER BY n LIMIT 3",
                        "SELECT * FROM orders ORDER BY total DESC, id LIMIT 4",
                        "SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY customer_id ORDER BY 2 DESC, 1",
                        "SELECT status FROM orders UNION ALL SELECT tier FROM customers ORDER BY 1",
                        "SELECT id, total FROM orders ORDER BY total LIMIT 2 OFFSET 1"),
                FuzzFixtures::shopRows);
    }

    private static List<String> shopRows(Random r) {
        List<String> out = new ArrayList<>();
        int customers = 1 + r.nextInt(8);
        List<String> values = new ArrayList<>();
        for (int id = 1; id <= customers; id++) {
            values.add("(" + id + ", " + pick(r, "'Ada'", "'bob'", "'Cy'", "'Di'", "'ada'") + ", "
                    + orNull(r, pick(r, "'Oslo'", "'oslo'", "'Oslo '", "'Bergen'", "'Tromso'")) + ", "
                    + orNull(r, pick(r, "'2020-01-05'", "'2021-03-01'", "'2030-06-01'", "'2022-07-30'")) + ", "
                    + orNull(r, pick(r, "'gold'", "'silver'", "'platinum'")) + ")");
        }
        out.add("INSERT INTO customers VALUES " + String.join(", ", values));
        int orders = r.nextInt(10);
        values.clear();
        for (int id = 10; id < 10 + orders; id++) {
            values.add("(" + id + ", " + (1 + r.nextInt(customers)) + ", "
                    + pick(r, "'2023-02-01 00:00:00'", "'2023-02-14 18:45:10'", "'2023-03-01 00:00:00'", "'2022-12-31 23:59:59'") + ", "
                    + orNull(r, pick(r, "'2023-02-20 08:00:00'", "'2023-03-02 12:00:00'")) + ", "
                    + orNull(r, pick(r, "120.00", "35.50", "50", "0")) + ", " + pick(r, "'shipped'", "'open'", "'cancelled'") + ")");
        }
        if (!values.isEmpty()) out.add("INSERT INTO orders VALUES " + String.join(", ", values));
        values.clear();
        int items = orders == 0 ? 0 : r.nextInt(12);
        for (int k = 0; k < items; k++) {
            values.add("(" + (10 + r.nextInt(orders)) + ", " + pick(r, "'A-1'", "'B-2'", "'C-3'") + ", " + (1 + r.nextInt(3))
                    + ", " + orNull(r, pick(r, "30.0", "60.0", "26.75")) + ")");
        }
        if (!values.isEmpty()) out.add("INSERT INTO items VALUES " + String.join(", ", values));
        return out;
    }

    // ------------------------------------------------------------------ school

    static FuzzFixtures school() {
        return new FuzzFixtures("fuzz_school", List.of(
                "CREATE TABLE students (id INTEGER PRIMARY KEY, name TEXT NOT NULL, grade INTEGER, born DATE)",
                "CREATE TABLE courses (code TEXT PRIMARY KEY, title TEXT NOT NULL, credits INTEGER NOT NULL)",
                "CREATE TABLE enrollments (student_id INTEGER NOT NULL REFERENCES students(id), "
                        + "course_code TEXT NOT NULL REFERENCES courses(code), score REAL, term TEXT NOT NULL)"),
                List.of(
                        "INSERT INTO students VALUES (1, 'Ann', 10, '2008-02-01'), (2, 'Ben', 10, '2008-02-01'), "
                                + "(3, 'Cat', 11, NULL), (4, 'Dan', NULL, '2007-12-31'), (5, 'Eve', 11, '2007-05-05'), "
                                + "(6, 'ann', 10, '2008-09-09')",
                        "INSERT INTO courses VALUES ('MATH', 'Mathematics', 5), ('ART', 'Art', 2), ('BIO', 'Biology', 5), "
                                + "('LAT', 'Latin', 3)",
                        "INSERT INTO enrollments VALUES (1, 'MATH', 91.5, 'fall'), (2, 'MATH', 91.5, 'fall'), "
                                + "(3, 'MATH', NULL, 'spring'), (4, 'ART', 70, 'fall'), (5, 'BIO', 88, 'spring'), "
                                + "(1, 'BIO', 80, 'spring'), (6, 'MATH', 60, 'fall')"),
                List.of(
                        "SELECT name FROM students WHERE grade = 10 ORDER BY name",
                        "SELECT s.name, e.score FROM students s JOIN enrollments e ON e.student_id = s.id "
                                + "WHERE e.course_code = 'MATH' ORDER BY e.score DESC",
                        "SELECT course_code, AVG(score), COUNT(score) FROM enrollments GROUP BY course_code",
                        "SELECT c.title FROM courses c WHERE NOT EXISTS (SELECT 1 FROM enrollments e WHERE e.course_code = c.code)",
                        "SELECT term, COUNT(DISTINCT student_id) FROM enrollments GROUP BY term ORDER BY term",
                        "SELECT name, born FROM students WHERE born BETWEEN '2008-01-01' AND '2008-12-31'",
                        "SELECT grade, MIN(born) FROM students GROUP BY grade HAVING COUNT(*) >= 2",
                        "SELECT s.name FROM students s JOIN enrollments e ON e.student_id = s.id JOIN courses c ON c.code = e.course_code "
                                + "WHERE c.credits >= 5 AND e.score >= 80",
                        "SELECT name FROM students WHERE grade IS NULL OR born IS NULL",
                        "SELECT name FROM students ORDER BY grade DESC, name LIMIT 3",
                        "SELECT code FROM courses EXCEPT SELECT course_code FROM enrollments WHERE term = 'fall'",
                        "SELECT e.term, s.grade, SUM(e.score) FROM enrollments e JOIN students s ON s.id = e.student_id "
                                + "GROUP BY e.term, s.grade",
                        "SELECT name FROM students WHERE grade IN (10, 12) AND name <> 'Ann'",
                        "SELECT s.name, e.course_code, RANK() OVER (ORDER BY e.score DESC) FROM students s "
                                + "JOIN enrollments e ON e.student_id = s.id"),
                FuzzFixtures::schoolRows);
    }

    private static List<String> schoolRows(Random r) {
        List<String> out = new ArrayList<>();
        int students = 1 + r.nextInt(8);
        List<String> values = new ArrayList<>();
        for (int id = 1; id <= students; id++) {
            values.add("(" + id + ", " + pick(r, "'Ann'", "'ann'", "'Ben'", "'Cat'") + ", " + orNull(r, pick(r, "10", "11", "12")) + ", "
                    + orNull(r, pick(r, "'2008-02-01'", "'2007-12-31'", "'2008-12-31'", "'2009-01-01'")) + ")");
        }
        out.add("INSERT INTO students VALUES " + String.join(", ", values));
        out.add("INSERT INTO courses VALUES ('MATH', 'Mathematics', " + pick(r, "5", "3") + "), ('ART', 'Art', 2), ('LAT', 'Latin', "
                + pick(r, "5", "3") + ")");
        values.clear();
        int enrollments = r.nextInt(10);
        for (int k = 0; k < enrollments; k++) {
            values.add("(" + (1 + r.nextInt(students)) + ", " + pick(r, "'MATH'", "'ART'", "'LAT'") + ", "
                    + orNull(r, pick(r, "91.5", "80", "60", "79.99")) + ", " + pick(r, "'fall'", "'spring'") + ")");
        }
        if (!values.isEmpty()) out.add("INSERT INTO enrollments VALUES " + String.join(", ", values));
        return out;
    }

    // ------------------------------------------------------------------ events

    static FuzzFixtures events() {
        return new FuzzFixtures("fuzz_events", List.of(
                "CREATE TABLE rooms (id INTEGER PRIMARY KEY, name TEXT NOT NULL, capacity INTEGER)",
                "CREATE TABLE events (id INTEGER PRIMARY KEY, title TEXT NOT NULL, room_id INTEGER REFERENCES rooms(id), "
                        + "starts DATETIME NOT NULL, ends DATETIME, kind TEXT)"),
                List.of(
                        "INSERT INTO rooms VALUES (1, 'Hall', 300), (2, 'Lab', 20), (3, 'Attic', NULL), (4, 'Annex', 300)",
                        "INSERT INTO events VALUES (1, 'Opening', 1, '2024-05-01 09:00:00', '2024-05-01 10:00:00', 'talk'), "
                                + "(2, 'Rust', 2, '2024-05-01 09:00:00', NULL, 'workshop'), "
                                + "(3, 'Closing', 1, '2024-05-03 17:00:00', '2024-05-03 18:00:00', 'talk'), "
                                + "(4, 'Sketch', 3, '2024-04-30 13:30:00', '2024-04-30 15:00:00', NULL), "
                                + "(5, 'Go', 2, '2024-05-02 11:00:00', '2024-05-02 12:30:00', 'workshop'), "
                                + "(6, 'Panel', NULL, '2024-05-02 11:00:00', NULL, 'talk')"),
                List.of(
                        "SELECT title, starts FROM events ORDER BY starts",
                        "SELECT r.name, COUNT(e.id) FROM rooms r LEFT JOIN events e ON e.room_id = r.id GROUP BY r.id, r.name",
                        "SELECT title FROM events WHERE ends IS NULL",
                        "SELECT title FROM events WHERE starts >= '2024-05-01' AND kind = 'talk'",
                        "SELECT MIN(starts), MAX(ends) FROM events WHERE kind = 'workshop'",
                        "SELECT e.title, r.capacity FROM events e JOIN rooms r ON r.id = e.room_id WHERE r.capacity > 100 "
                                + "ORDER BY r.capacity, e.title",
                        "SELECT kind, COUNT(*) FROM events GROUP BY kind ORDER BY COUNT(*) DESC LIMIT 1",
                        "SELECT title FROM events WHERE room_id IN (SELECT id FROM rooms WHERE capacity IS NULL)",
                        "SELECT date(starts), COUNT(*) FROM events GROUP BY date(starts)",
                        "SELECT title FROM events WHERE starts > '2099-01-01'",
                        "SELECT e.title, e.ends FROM events e WHERE e.kind = 'talk' ORDER BY e.ends DESC",
                        "SELECT title, starts AS s FROM events ORDER BY s DESC, title",
                        "SELECT room_id, title FROM events ORDER BY room_id LIMIT 3"),
                FuzzFixtures::eventRows);
    }

    private static List<String> eventRows(Random r) {
        List<String> out = new ArrayList<>();
        int rooms = 1 + r.nextInt(4);
        List<String> values = new ArrayList<>();
        for (int id = 1; id <= rooms; id++) {
            values.add("(" + id + ", " + pick(r, "'Hall'", "'Lab'", "'Attic'") + ", " + orNull(r, pick(r, "300", "20", "150")) + ")");
        }
        out.add("INSERT INTO rooms VALUES " + String.join(", ", values));
        values.clear();
        int events = r.nextInt(9);
        for (int id = 1; id <= events; id++) {
            values.add("(" + id + ", " + pick(r, "'Opening'", "'Rust'", "'Go'", "'opening'") + ", " + orNull(r, Integer.toString(1 + r.nextInt(rooms)))
                    + ", " + pick(r, "'2024-05-01 09:00:00'", "'2024-04-30 23:59:59'", "'2024-05-02 11:00:00'") + ", "
                    + orNull(r, pick(r, "'2024-05-01 10:00:00'", "'2024-05-02 12:30:00'")) + ", "
                    + orNull(r, pick(r, "'talk'", "'workshop'")) + ")");
        }
        if (!values.isEmpty()) out.add("INSERT INTO events VALUES " + String.join(", ", values));
        return out;
    }

    private static String pick(Random r, String... values) {
        return values[r.nextInt(values.length)];
    }

    /** NULL one time in four. */
    private static String orNull(Random r, String value) {
        return r.nextInt(4) == 0 ? "NULL" : value;
    }
}
