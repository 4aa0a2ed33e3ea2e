package dev.ladder.sql.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.ladder.sql.Dialect;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link SqlGuard} on its own: no database, only the verdicts. */
class SqlGuardTest {

    private static GuardVerdict check(Dialect dialect, String sql) {
        return new SqlGuard(dialect).check(sql);
    }

    private static void assertAccepted(Dialect dialect, String sql) {
        GuardVerdict v = check(dialect, sql);
        assertThat(v.accepted()).as("%s accepts %s (reason: %s)", dialect, sql, v.reason()).isTrue();
        assertThat(v.reason()).isEmpty();
        assertThat(v.syntax()).isFalse();
        assertThat(v.sql()).isNotBlank().doesNotEndWith(";").isEqualTo(v.sql().strip());
    }

    private static GuardVerdict assertRejected(Dialect dialect, String sql, String reasonFragment) {
        GuardVerdict v = check(dialect, sql);
        assertThat(v.accepted()).as("%s rejects %s", dialect, sql).isFalse();
        assertThat(v.syntax()).as("policy, not syntax: %s", sql).isFalse();
        assertThat(v.parsed()).isFalse();
        assertThat(v.reason()).as("reason for %s", sql).isNotBlank().containsIgnoringCase(reasonFragment);
        return v;
    }

    // ---------------------------------------------------------------- accepted

    /** Read-only queries both MySQL/MariaDB and SQLite run. */
    static Stream<String> portableQueries() {
        return Stream.of(
                "SELECT 1",
                "select customerName from customers",
                "SELECT * FROM customers WHERE country = 'France' ORDER BY customerName",
                "SELECT c.customerName, o.orderNumber FROM customers c JOIN orders o ON o.customerNumber = c.customerNumber",
                "SELECT c.customerName, COUNT(o.orderNumber) FROM customers c LEFT JOIN orders o "
                        + "ON o.customerNumber = c.customerNumber GROUP BY c.customerName",
                "SELECT e.lastName, m.lastName FROM employees e INNER JOIN employees m ON e.reportsTo = m.employeeNumber",
                "SELECT country, COUNT(*) AS n FROM customers GROUP BY country HAVING COUNT(*) > 5 ORDER BY n DESC",
                "SELECT customerName FROM customers WHERE customerNumber IN "
                        + "(SELECT customerNumber FROM orders WHERE orderNumber IN "
                        + "(SELECT orderNumber FROM orderdetails WHERE quantityOrdered > 50))",
                "SELECT customerName FROM customers c WHERE EXISTS (SELECT 1 FROM payments p WHERE p.customerNumber = c.customerNumber)",
                "SELECT x.n FROM (SELECT COUNT(*) AS n FROM orders) AS x",
                "SELECT productName, (SELECT MAX(priceEach) FROM orderdetails d WHERE d.productCode = p.productCode) FROM products p",
                "WITH big AS (SELECT customerNumber FROM payments WHERE amount > 100000) "
                        + "SELECT customerName FROM customers WHERE customerNumber IN (SELECT customerNumber FROM big)",
                "WITH a AS (SELECT 1 AS x), b AS (SELECT x + 1 AS y FROM a) SELECT y FROM b",
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) SELECT SUM(i) FROM n",
                "WITH RECURSIVE chain AS (SELECT employeeNumber, reportsTo FROM employees WHERE reportsTo IS NULL "
                        + "UNION ALL SELECT e.employeeNumber, e.reportsTo FROM employees e "
                        + "JOIN chain c ON e.reportsTo = c.employeeNumber) SELECT COUNT(*) FROM chain",
                "SELECT city FROM customers UNION SELECT city FROM customers",
                "SELECT city FROM customers UNION ALL SELECT city FROM customers",
                "SELECT city FROM customers INTERSECT SELECT city FROM customers",
                "SELECT city FROM customers EXCEPT SELECT city FROM customers WHERE country = 'USA'",
                "SELECT customerNumber, amount, ROW_NUMBER() OVER (PARTITION BY customerNumber ORDER BY amount DESC) AS rn FROM payments",
                "SELECT productLine, buyPrice, RANK() OVER (ORDER BY buyPrice) FROM products",
                "SELECT REPLACE(customerName, 'Inc.', 'Incorporated') FROM customers",
                "SELECT CAST(creditLimit AS DECIMAL(10,2)) FROM customers",
                "SELECT 'DELETE FROM customers' AS s",
                "SELECT 'DROP TABLE customers; --' AS s",
                "SELECT * FROM customers WHERE customerName = ';'",
                "SELECT * FROM customers WHERE customerName LIKE '%--%'",
                "SELECT 'INTO OUTFILE /tmp/x', 'UPDATE', 'LOCK IN SHARE MODE', 'FOR UPDATE', 'SLEEP(5)'",
                "SELECT 'it''s; DELETE FROM t' AS s",
                "SELECT `update`, `delete` FROM (SELECT 1 AS `update`, 2 AS `delete`) AS t",
                "SELECT `insert`.`drop` FROM (SELECT 1 AS `drop`) AS `insert`",
                "SELECT customerName FROM customers LIMIT 10",
                "SELECT customerName FROM customers LIMIT 10 OFFSET 20",
                "SELECT customerName FROM customers ORDER BY customerName LIMIT 5 OFFSET 0",
                "SELECT CASE WHEN creditLimit > 0 THEN 'credit' ELSE 'none' END FROM customers",
                "SELECT COALESCE(NULL, 1), NULLIF(1, 1), ABS(-2), ROUND(2.5), LENGTH('x')",
                "SELECT 1e3, 0.5, .5, 2.5e-3");
    }

    /** Read-only queries only MySQL/MariaDB runs (their functions, variables, syntax). */
    static Stream<String> mysqlQueries() {
        return Stream.of(
                "(SELECT city FROM customers) UNION (SELECT city FROM customers)",
                "((SELECT 1))",
                "(SELECT customerName FROM customers ORDER BY creditLimit DESC LIMIT 3)",
                "SELECT INSERT(customerName, 1, 3, 'XYZ') FROM customers",
                "SELECT INSERT ('Quadratic', 3, 4, 'What')",
                "SELECT IF(creditLimit > 50000, 'high', 'low') FROM customers",
                "SELECT IFNULL(shippedDate, 'never') FROM orders",
                "SELECT DATE_FORMAT(orderDate, '%Y-%m') AS month, COUNT(*) FROM orders GROUP BY month",
                "SELECT DATEDIFF(shippedDate, orderDate) FROM orders",
                "SELECT CONCAT_WS(', ', lastName, firstName) FROM employees",
                "SELECT customerNumber, GROUP_CONCAT(checkNumber ORDER BY paymentDate SEPARATOR ', ') FROM payments GROUP BY customerNumber",
                "SELECT CAST(amount AS DECIMAL(10,2)), CAST(orderNumber AS CHAR) FROM payments, orders",
                "SELECT YEAR(orderDate), MONTH(orderDate), COUNT(*) FROM orders GROUP BY YEAR(orderDate), MONTH(orderDate)",
                "SELECT @@version",
                "SELECT @@version, @@session.sql_mode, @@GLOBAL.max_connections",
                "SELECT customerName FROM customers LIMIT 20, 10",
                "SELECT \"DELETE FROM customers\" AS s",
                "SELECT * FROM customers WHERE customerName = \"O'Reilly; DROP TABLE customers\"",
                "SELECT 'O\\'Reilly' AS s",
                "SELECT 'a\\\\' AS s",
                "SELECT 'C:\\\\temp\\\\' AS dir, 'x' AS y",
                "SELECT * FROM customers WHERE customerName LIKE 'A%' # MySQL comment",
                "SELECT 1--1",
                "SELECT 10 DIV 3, 10 MOD 3, 1 <=> NULL",
                "SELECT STR_TO_DATE('2004-01-01', '%Y-%m-%d')",
                "SELECT LOCATE('a', customerName), SUBSTRING_INDEX(customerName, ' ', 1) FROM customers",
                "SELECT productName FROM products WHERE productName REGEXP '^[A-Z]'",
                "SELECT 1 FROM DUAL",
                "SELECT SQL_NO_CACHE customerName FROM customers",
                "SELECT /*+ MAX_EXECUTION_TIME(1000) */ customerName FROM customers");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("portableQueries")
    void portableQueriesAreAcceptedInMySql(String sql) {
        assertAccepted(Dialect.MYSQL, sql);
        assertThat(check(Dialect.MYSQL, sql).sql()).isEqualTo(sql);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("portableQueries")
    void portableQueriesAreAcceptedInSqlite(String sql) {
        assertAccepted(Dialect.SQLITE, sql);
        assertThat(check(Dialect.SQLITE, sql).sql()).isEqualTo(sql);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("mysqlQueries")
    void mysqlQueriesAreAcceptedInMySql(String sql) {
        assertAccepted(Dialect.MYSQL, sql);
        assertThat(check(Dialect.MYSQL, sql).sql()).isEqualTo(sql);
    }

    static Stream<Arguments> trailingSemicolons() {
        return Stream.of(
                arguments("SELECT 1;", "SELECT 1"),
                arguments("SELECT 1 ;", "SELECT 1"),
                arguments("  SELECT 1;  \n", "SELECT 1"),
                arguments("SELECT 1; -- done", "SELECT 1"),
                arguments("SELECT 1; /* done */", "SELECT 1"),
                arguments("SELECT 1;\n-- first\n/* second */\n", "SELECT 1"),
                arguments("-- a question about customers\nSELECT customerName FROM customers;", "-- a question about customers\nSELECT customerName FROM customers"),
                arguments("/* leading */ SELECT 1", "/* leading */ SELECT 1"),
                arguments("/* leading */\n-- and another\nSELECT 1;", "/* leading */\n-- and another\nSELECT 1"),
                arguments("SELECT 'a;b';", "SELECT 'a;b'"),
                arguments("WITH x AS (SELECT 1 AS a) SELECT a FROM x;", "WITH x AS (SELECT 1 AS a) SELECT a FROM x"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("trailingSemicolons")
    void trailingSemicolonAndCommentsAreDropped(String sql, String expected) {
        for (Dialect d : Dialect.values()) {
            GuardVerdict v = check(d, sql);
            assertThat(v.accepted()).as("%s: %s (%s)", d, sql, v.reason()).isTrue();
            assertThat(v.sql()).isEqualTo(expected).doesNotEndWith(";");
        }
    }

    @Test
    void mysqlHashCommentAfterTheSemicolonIsDropped() {
        GuardVerdict v = check(Dialect.MYSQL, "SELECT 1; # done");
        assertThat(v.accepted()).isTrue();
        assertThat(v.sql()).isEqualTo("SELECT 1");
        // in SQLite '#' starts no comment: there is something after the statement
        assertRejected(Dialect.SQLITE, "SELECT 1; # done", "several statements");
    }

    // ---------------------------------------------------------------- rejected

    /** Statements both dialects must refuse, and a word the reason must contain. */
    static Stream<Arguments> rejectedEverywhere() {
        return Stream.of(
                // DML and DDL
                arguments("DELETE FROM orders", "DELETE"),
                arguments("delete from orders where 1 = 1", "delete"),
                arguments("UPDATE customers SET creditLimit = 0", "UPDATE"),
                arguments("INSERT INTO productlines (productLine) VALUES ('x')", "INSERT"),
                arguments("REPLACE INTO offices SELECT * FROM offices", "REPLACE"),
                arguments("DROP TABLE customers", "DROP"),
                arguments("ALTER TABLE customers ADD COLUMN x INT", "ALTER"),
                arguments("CREATE TABLE x (id INT)", "CREATE"),
                arguments("CREATE TEMPORARY TABLE t AS SELECT * FROM customers", "CREATE"),
                arguments("TRUNCATE TABLE orderdetails", "TRUNCATE"),
                arguments("RENAME TABLE a TO b", "RENAME"),
                arguments("/* harmless */ DELETE FROM employees", "DELETE"),
                arguments("-- looks like a comment\nDELETE FROM productlines", "DELETE"),
                arguments("(DELETE FROM orders)", "DELETE"),
                // statements that are not queries
                arguments("SET GLOBAL max_connections = 1", "SET"),
                arguments("SET @@session.max_statement_time = 0", "SET"),
                arguments("SHOW DATABASES", "SHOW"),
                arguments("USE mysql", "USE"),
                arguments("CALL mysql.some_procedure()", "CALL"),
                arguments("GRANT ALL ON *.* TO 'reader'@'localhost'", "GRANT"),
                arguments("REVOKE ALL ON *.* FROM 'reader'@'localhost'", "REVOKE"),
                arguments("PRAGMA writable_schema = 1", "PRAGMA"),
                arguments("ATTACH DATABASE '/tmp/x.sqlite' AS x", "ATTACH"),
                arguments("DETACH DATABASE x", "DETACH"),
                arguments("VACUUM INTO '/tmp/x.sqlite'", "VACUUM"),
                arguments("BEGIN", "BEGIN"),
                arguments("COMMIT", "COMMIT"),
                arguments("EXPLAIN SELECT 1", "EXPLAIN"),
                arguments("DO SLEEP(10)", "DO"),
                arguments("KILL 1", "KILL"),
                arguments("LOAD DATA INFILE '/etc/passwd' INTO TABLE customers", "LOAD"),
                arguments("HANDLER customers OPEN", "HANDLER"),
                arguments("TABLE customers", "TABLE"),
                arguments("42", "42"),
                arguments("'SELECT 1'", "'SELECT 1'"),
                // several statements
                arguments("SELECT 1; DROP TABLE customers", "several statements"),
                arguments("SELECT * FROM customers; DELETE FROM payments", "several statements"),
                arguments("SELECT * FROM offices;\nDELETE FROM offices;", "several statements"),
                arguments("SELECT 1; SELECT 2", "several statements"),
                arguments("SELECT 1;;", "several statements"),
                arguments("SELECT 1 UNION SELECT 2; DELETE FROM orders", "several statements"),
                arguments("(SELECT 1); DROP DATABASE classicmodels", "several statements"),
                arguments("SELECT 'it''s' ; INSERT INTO offices VALUES ('99')", "several statements"),
                arguments("SELECT * FROM customers WHERE customerName = 'x' OR 1=1; SHUTDOWN", "several statements"),
                // a second statement after (or between) comments
                arguments("SELECT 1 -- ; DROP TABLE orders\n; UPDATE products SET MSRP = 0", "several statements"),
                arguments("SELECT 1 /* ; */; DELETE FROM orders", "several statements"),
                arguments("SELECT 1;/**/DELETE FROM orders", "several statements"),
                arguments("SELECT 1; -- the end?\nDROP TABLE customers", "several statements"),
                arguments("SELECT 1; /* the end?\n*/ DROP TABLE customers", "several statements"),
                arguments("SELECT 1 -- c\r; DELETE FROM orders", "several statements"),
                // write statements behind a CTE or inside a query
                arguments("WITH x AS (SELECT 1) DELETE FROM payments", "DELETE"),
                arguments("WITH x AS (SELECT 1 AS a) UPDATE customers SET creditLimit = 0", "UPDATE"),
                arguments("WITH x AS (SELECT 1 AS a) INSERT INTO t SELECT a FROM x", "INSERT"),
                arguments("WITH x AS (SELECT 1 AS a) REPLACE INTO t SELECT a FROM x", "REPLACE"),
                arguments("WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d", "DELETE"),
                arguments("SELECT * FROM customers WHERE customerNumber IN (DELETE FROM orders RETURNING customerNumber)", "DELETE"),
                // functions that sleep, lock, read files or load code
                arguments("SELECT LOAD_FILE('/etc/passwd')", "LOAD_FILE"),
                arguments("SELECT load_file ('/etc/passwd')", "LOAD_FILE"),
                arguments("SELECT SLEEP(30)", "SLEEP"),
                arguments("SELECT * FROM customers WHERE SLEEP(5) = 0", "SLEEP"),
                arguments("SELECT sleep/**/(5)", "SLEEP"),
                arguments("SELECT BENCHMARK(100000000, MD5('x'))", "BENCHMARK"),
                arguments("SELECT GET_LOCK('ladder', 10)", "GET_LOCK"),
                arguments("SELECT RELEASE_LOCK('ladder')", "RELEASE_LOCK"),
                arguments("SELECT IS_FREE_LOCK('ladder')", "IS_FREE_LOCK"),
                arguments("SELECT MASTER_POS_WAIT('log', 4)", "MASTER_POS_WAIT"),
                arguments("SELECT load_extension('/tmp/evil.so')", "LOAD_EXTENSION"),
                arguments("SELECT writefile('/tmp/x.txt', 'x')", "WRITEFILE"),
                arguments("SELECT readfile('/etc/passwd')", "READFILE"),
                // quoted function names resolve to the same built-ins
                arguments("SELECT `sleep`(5)", "SLEEP"),
                arguments("SELECT `LOAD_FILE` ('/etc/passwd')", "LOAD_FILE"),
                arguments("SELECT 1 FROM customers WHERE `benchmark`(1000000, MD5('x')) = 0", "BENCHMARK"),
                // executable comments
                arguments("/*!50000 DROP TABLE customers */", "executable comment"),
                arguments("SELECT 1 /*!50000 ; DROP TABLE customers */", "executable comment"),
                arguments("SELECT 1 /*! , SLEEP(10) */", "executable comment"),
                arguments("SELECT /*M! SLEEP(10), */ 1", "executable comment"),
                arguments("SELECT /*M!100000 SLEEP(10), */ 1", "executable comment"),
                arguments("SELECT 1; /*! DROP TABLE customers */", "executable comment"),
                // sequences and procedures
                arguments("SELECT NEXT VALUE FOR s", "NEXT VALUE"),
                arguments("SELECT PREVIOUS VALUE FOR s", "PREVIOUS VALUE"),
                arguments("SELECT NEXTVAL(s)", "NEXTVAL"),
                arguments("SELECT SETVAL(s, 1)", "SETVAL"),
                arguments("SELECT * FROM customers PROCEDURE ANALYSE()", "PROCEDURE"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("rejectedEverywhere")
    void rejectedInMySql(String sql, String reasonFragment) {
        assertRejected(Dialect.MYSQL, sql, reasonFragment);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("rejectedEverywhere")
    void rejectedInSqlite(String sql, String reasonFragment) {
        assertRejected(Dialect.SQLITE, sql, reasonFragment);
    }

    /** Locking reads, SELECT ... INTO, user variables and assignment, in both dialects. */
    static Stream<Arguments> rejectedReadsWithSideEffects() {
        return Stream.of(
                arguments("SELECT * FROM customers FOR UPDATE", "FOR UPDATE"),
                arguments("SELECT * FROM customers WHERE customerNumber = 103 FOR UPDATE NOWAIT", "FOR UPDATE"),
                arguments("SELECT * FROM products FOR SHARE", "FOR SHARE"),
                arguments("SELECT * FROM products FOR SHARE SKIP LOCKED", "FOR SHARE"),
                arguments("SELECT * FROM products for /* x */ share", "FOR SHARE"),
                arguments("SELECT * FROM orders WHERE orderNumber = 10100 LOCK IN SHARE MODE", "LOCK IN SHARE MODE"),
                arguments("(SELECT * FROM orders) FOR UPDATE", "FOR UPDATE"),
                arguments("WITH x AS (SELECT 1 AS a) SELECT a FROM x FOR UPDATE", "FOR UPDATE"),
                arguments("SELECT * INTO OUTFILE '/tmp/x.txt' FROM customers", "INTO"),
                arguments("SELECT customerName FROM customers INTO OUTFILE '/tmp/x.txt'", "INTO"),
                arguments("SELECT customerName FROM customers INTO DUMPFILE '/tmp/x.bin'", "INTO"),
                arguments("SELECT customerName INTO @name FROM customers LIMIT 1", "INTO"),
                arguments("SELECT customerName FROM customers LIMIT 1 INTO @name", "INTO"),
                arguments("SELECT * INTO backup FROM customers", "INTO"),
                arguments("SELECT @a", "@a"),
                arguments("SELECT @a := 1", "@a"),
                arguments("SELECT (@n := @n + 1) AS rn, customerName FROM customers", "@n"),
                arguments("SELECT * FROM customers WHERE customerNumber = @id", "@id"),
                arguments("SELECT @`my var`", "@`my var`"),
                arguments("SELECT @'quoted'", "@'quoted'"),
                arguments("SELECT x := 1 FROM customers", ":="));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("rejectedReadsWithSideEffects")
    void readsWithSideEffectsAreRejected(String sql, String reasonFragment) {
        assertRejected(Dialect.MYSQL, sql, reasonFragment);
        assertRejected(Dialect.SQLITE, sql, reasonFragment);
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"   ", "\n\t ", ";", " ; ", "-- only a comment", "/* only a comment */", "/* c */ ;", "# hash"})
    void emptyInputIsRejected(String sql) {
        GuardVerdict v = check(Dialect.MYSQL, sql);
        assertThat(v.accepted()).isFalse();
        assertThat(v.syntax()).isFalse();
        assertThat(v.reason()).isEqualTo("empty statement");
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"   ", "\n\t ", ";", "-- only a comment", "/* only a comment */"})
    void emptyInputIsRejectedInSqlite(String sql) {
        GuardVerdict v = check(Dialect.SQLITE, sql);
        assertThat(v.accepted()).isFalse();
        assertThat(v.reason()).isEqualTo("empty statement");
    }

    static Stream<Arguments> unterminated() {
        return Stream.of(
                arguments(Dialect.MYSQL, "SELECT 'abc"),
                arguments(Dialect.SQLITE, "SELECT 'abc"),
                arguments(Dialect.MYSQL, "SELECT 'abc\\'"),
                arguments(Dialect.MYSQL, "SELECT \"abc"),
                arguments(Dialect.SQLITE, "SELECT \"abc"),
                arguments(Dialect.MYSQL, "SELECT `abc FROM t"),
                arguments(Dialect.SQLITE, "SELECT [abc FROM t"),
                arguments(Dialect.MYSQL, "SELECT 1 /* comment"),
                arguments(Dialect.SQLITE, "SELECT 1 /* comment"),
                arguments(Dialect.MYSQL, "SELECT 1; DELETE FROM t WHERE a = 'x"));
    }

    @ParameterizedTest(name = "[{index}] {0}: {1}")
    @MethodSource("unterminated")
    void unterminatedTokensAreSyntaxErrors(Dialect dialect, String sql) {
        GuardVerdict v = check(dialect, sql);
        assertThat(v.accepted()).isFalse();
        assertThat(v.syntax()).isTrue();
        assertThat(v.parsed()).isFalse();
        assertThat(v.reason()).contains("unterminated").contains("offset");
        assertThat(v.sql()).isEqualTo(sql.strip());
    }

    @Test
    void aSyntaxVerdictIsNotAPolicyVerdict() {
        assertThat(check(Dialect.MYSQL, "DELETE FROM t").syntax()).isFalse();
        assertThat(check(Dialect.MYSQL, "SELECT 1; SELECT 2").syntax()).isFalse();
        // a statement the guard refuses on purpose (it writes) is a policy verdict, whatever its first word
        assertThat(check(Dialect.MYSQL, "UPDATE t SET a = 1").syntax()).isFalse();
        assertThat(check(Dialect.MYSQL, "DROP TABLE t").syntax()).isFalse();
    }

    @Test
    void aMistypedKeywordIsASyntaxErrorNotARefusal() {
        for (Dialect d : Dialect.values()) {
            GuardVerdict v = check(d, "SELEC 1");
            assertThat(v.accepted()).isFalse();
            assertThat(v.syntax()).as(d + ": " + v.reason()).isTrue();
            assertThat(v.reason()).contains("'SELEC'");
            assertThat(check(d, "SLECT city FROM offices").syntax()).isTrue();
        }
    }

    // ---------------------------------------------------------------- the lexer must agree with the server

    /** One MySQL string literal; in SQLite the string ends at {@code \'} and a DELETE follows. */
    private static final String BACKSLASH_QUOTE = "SELECT 'a\\'; DELETE FROM t; -- '";

    @Test
    void backslashQuoteIsOneStringInMySql() {
        GuardVerdict v = check(Dialect.MYSQL, BACKSLASH_QUOTE);
        assertThat(v.accepted()).as(v.reason()).isTrue();
        assertThat(v.sql()).isEqualTo(BACKSLASH_QUOTE);
    }

    @Test
    void backslashQuoteEndsTheStringInSqlite() {
        GuardVerdict v = check(Dialect.SQLITE, BACKSLASH_QUOTE);
        assertThat(v.accepted()).isFalse();
        assertThat(v.reason()).satisfiesAnyOf(
                r -> assertThat(r).contains("several statements"),
                r -> assertThat(r).contains("DELETE"));
    }

    @Test
    void escapedBackslashEndsTheStringInMySql() {
        // 'a\\' is the string a\ ; what follows is a second statement
        assertRejected(Dialect.MYSQL, "SELECT 'a\\\\'; DELETE FROM t; -- '", "several statements");
    }

    @Test
    void doubleQuotesAreStringsInMySqlAndIdentifiersInSqlite() {
        // MySQL: one string; SQLite: identifier "\", the word DELETE, '\', identifier ""
        String sql = "SELECT \"\\\" DELETE \\\"\"";
        GuardVerdict mysql = check(Dialect.MYSQL, sql);
        assertThat(mysql.accepted()).as(mysql.reason()).isTrue();
        assertRejected(Dialect.SQLITE, sql, "DELETE");
    }

    @Test
    void doubleDashNeedsWhitespaceInMySqlButNotInSqlite() {
        // MySQL: 1 - -1, then a second statement; SQLite: "--1; DELETE ..." is a comment
        String sql = "SELECT 1--1; DELETE FROM t";
        assertRejected(Dialect.MYSQL, sql, "several statements");
        GuardVerdict sqlite = check(Dialect.SQLITE, sql);
        assertThat(sqlite.accepted()).as(sqlite.reason()).isTrue();
        assertThat(sqlite.sql()).isEqualTo(sql);
    }

    @Test
    void hashIsACommentOnlyInMySql() {
        String sql = "SELECT 1 # DELETE FROM t";
        GuardVerdict mysql = check(Dialect.MYSQL, sql);
        assertThat(mysql.accepted()).as(mysql.reason()).isTrue();
        assertThat(mysql.sql()).isEqualTo(sql);
        assertRejected(Dialect.SQLITE, sql, "DELETE");
        assertRejected(Dialect.MYSQL, "SELECT 1 # c\n; DELETE FROM t", "several statements");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\u2003", "\u00A0", "\u0085", "\u3000", "\u2028"})
    void doubleDashBeforeNonAsciiSpaceIsNoCommentInMySql(String space) {
        // MariaDB reads "--\u2003" as minus, minus, identifier: the DELETE is a second statement
        String sql = "SELECT 1 FROM (SELECT 1 AS `" + space + "`) x WHERE 1--" + space + "; DELETE FROM t";
        assertRejected(Dialect.MYSQL, sql, "several statements");
    }

    @ParameterizedTest
    @ValueSource(strings = {" ", "\t", "\n", "\r", "\u000B", "\f", "\u0001", "\u001F", "\u007F"})
    void doubleDashBeforeAsciiWhitespaceOrControlIsACommentInMySql(String c) {
        GuardVerdict v = check(Dialect.MYSQL, "SELECT 1 --" + c + "x\n");
        assertThat(v.accepted()).as(v.reason()).isTrue();
        assertThat(v.sql()).isEqualTo("SELECT 1 --" + c + "x");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT a FROM t WHERE b = 1.5e0LOCK IN SHARE MODE",
        "SELECT a FROM t WHERE b = 2e0LOCK IN SHARE MODE",
        "SELECT a FROM t WHERE b = 1.0FOR SHARE",
        "SELECT a FROM t WHERE b = .5FOR SHARE"})
    void aDecimalOrExponentLiteralDoesNotSwallowTheNextKeyword(String sql) {
        // MySQL reads 1.5e0LOCK as the number 1.5e0 followed by LOCK
        GuardVerdict v = check(Dialect.MYSQL, sql);
        assertThat(v.accepted()).isFalse();
        assertThat(v.reason()).containsAnyOf("LOCK IN SHARE MODE", "FOR SHARE");
    }

    @Test
    void quotedForbiddenFunctionsAreRejectedInSqlite() {
        assertRejected(Dialect.SQLITE, "SELECT \"load_extension\"('/tmp/evil.so')", "LOAD_EXTENSION");
        assertRejected(Dialect.SQLITE, "SELECT [load_extension]('/tmp/evil.so')", "LOAD_EXTENSION");
        // a quoted name that is no function call, or a harmless function, stays allowed
        assertAccepted(Dialect.SQLITE, "SELECT \"sleep\" FROM (SELECT 1 AS \"sleep\")");
        assertAccepted(Dialect.SQLITE, "SELECT \"upper\"('x')");
        assertAccepted(Dialect.MYSQL, "SELECT `sleep` FROM (SELECT 1 AS `sleep`) AS t");
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void dangerousNamesAreFineAsColumnsAndAliases(Dialect dialect) {
        assertAccepted(dialect, "SELECT sleep FROM (SELECT 1 AS sleep) AS t");
        assertAccepted(dialect, "SELECT benchmark, load_file FROM (SELECT 1 AS benchmark, 2 AS load_file) AS t");
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void insertAndReplaceAreOnlyAllowedAsFunctions(Dialect dialect) {
        assertAccepted(dialect, "SELECT REPLACE('abc', 'b', 'x')");
        assertAccepted(dialect, "SELECT REPLACE /* c */ ('abc', 'b', 'x')");
        assertRejected(dialect, "SELECT 1 FROM t WHERE 1 = 1 REPLACE INTO t2 VALUES (1)", "REPLACE");
        assertRejected(dialect, "WITH c AS (SELECT 1) INSERT t2 SELECT * FROM c", "INSERT");
    }

    // ---------------------------------------------------------------- parsed

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void anOrdinarySelectIsParsed(Dialect dialect) {
        GuardVerdict v = check(dialect, "SELECT customerName, COUNT(*) FROM customers GROUP BY customerName");
        assertThat(v.accepted()).isTrue();
        assertThat(v.parsed()).isTrue();
    }

    @Test
    void backslashEscapesAreParsedInMySql() {
        GuardVerdict v = check(Dialect.MYSQL, "SELECT 'O\\'Reilly' AS s");
        assertThat(v.accepted()).isTrue();
        assertThat(v.parsed()).isTrue();
    }

    @Test
    void mySqlSyntaxJSqlParserCannotParseIsAcceptedUnparsed() {
        // a double-quoted MySQL string with a backslash escape: JSqlParser 5.1 reads "..." as an
        // identifier and fails; MariaDB runs it and the lexical checks vouch for it
        GuardVerdict v = check(Dialect.MYSQL, "SELECT \"it\\\"s\" AS s");
        assertThat(v.accepted()).as(v.reason()).isTrue();
        assertThat(v.parsed()).isFalse();
        assertThat(v.sql()).isEqualTo("SELECT \"it\\\"s\" AS s");
    }
    // ---------------------------------------------------------------- deep nesting

    @ParameterizedTest
    @ValueSource(ints = {1_000, 20_000})
    void deeplyNestedSqlIsRejectedNotThrown(int depth) {
        String sql = "SELECT " + "(".repeat(depth) + "1" + ")".repeat(depth);
        for (Dialect d : Dialect.values()) {
            GuardVerdict v = assertRejected(d, sql, "nested too deeply");
            assertThat(v.reason()).contains(depth + " levels");
        }
    }

    @Test
    void nestingUpToTheLimitIsParsed() {
        int depth = SqlGuard.MAX_NESTING;
        GuardVerdict v = check(Dialect.MYSQL, "SELECT " + "(".repeat(depth) + "1" + ")".repeat(depth));
        assertThat(v.accepted()).isTrue();
        assertThat(v.parsed()).isTrue();
        // parentheses inside strings are not nesting
        assertAccepted(Dialect.MYSQL, "SELECT '" + "(".repeat(1_000) + "' AS s");
    }

    @Test
    void unparsableQueryNestedBeyondTenLevelsIsLeftToTheDatabase() {
        // JSqlParser returns null (not an exception) for these: the guard must not fail on it
        GuardVerdict v = check(Dialect.MYSQL, "SELECT " + "(".repeat(12) + "1" + ")".repeat(12) + " FROM FROM t");
        assertThat(v.accepted()).isTrue();
        assertThat(v.parsed()).isFalse();
    }

    @Test
    void aDeepOperatorChainIsLeftUnparsedAndALongListIsParsed() {
        StringBuilder chain = new StringBuilder("SELECT a FROM t WHERE a = 0");
        for (int i = 1; i <= 1_000; i++) chain.append(" OR a = ").append(i);
        GuardVerdict deep = check(Dialect.MYSQL, chain.toString());
        assertThat(deep.accepted()).isTrue();
        assertThat(deep.parsed()).isFalse();
        // still guarded lexically: a write word inside the chain is rejected
        assertRejected(Dialect.MYSQL, chain + " OR a = (DELETE FROM t)", "'DELETE' is not allowed");

        StringBuilder list = new StringBuilder("SELECT a FROM t WHERE a IN (0");
        for (int i = 1; i < 20_000; i++) list.append(", ").append(i);
        GuardVerdict flat = check(Dialect.MYSQL, list.append(")").toString());
        assertThat(flat.accepted()).isTrue();
        assertThat(flat.parsed()).isTrue();
    }
}
