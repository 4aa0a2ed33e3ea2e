package dev.ladder.sql.post;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.post.SqlPostProcessor.Cleaned;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link SqlPostProcessor} rule by rule, on a small hand-made schema; no database. */
class SqlPostProcessorTest {

    /** Lower-case tables as in ClassicModels, plus two with capitals to test canonical case both ways. */
    private static final Schema SCHEMA = new Schema("shop", List.of(
            table("customers", "customerNumber", "customerName", "country", "orders"),
            table("orders", "orderNumber", "orderDate", "status", "customerNumber"),
            table("payments", "customerNumber", "amount", "date"),
            table("Products", "productCode", "productName", "count"),
            table("OrderItems", "orderNumber", "productCode", "quantity")), List.of());

    private static Table table(String name, String... columns) {
        return new Table(name, Stream.of(columns).map(c -> new Column(c, "int", true)).toList(), List.of(), 0);
    }

    private static Cleaned mysql(String raw) {
        return SqlPostProcessor.clean(raw, SCHEMA, Dialect.MYSQL);
    }

    private static Cleaned sqlite(String raw) {
        return SqlPostProcessor.clean(raw, SCHEMA, Dialect.SQLITE);
    }

    private static void assertCleaned(Cleaned c, String sql, String... steps) {
        assertThat(c.rejection()).as("rejection").isNull();
        assertThat(c.ok()).isTrue();
        assertThat(c.sql()).isEqualTo(sql);
        assertThat(c.steps()).as("steps").containsExactly(steps);
    }

    private static void assertRejected(Cleaned c, String reason) {
        assertThat(c.ok()).as("rejected, sql = %s", c.sql()).isFalse();
        assertThat(c.sql()).isNull();
        assertThat(c.rejection()).isEqualTo(reason);
    }

    // ------------------------------------------------------------------ clean SQL passes untouched

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT COUNT(*) FROM customers",
        "SELECT customerName FROM customers WHERE country = 'France' ORDER BY customerName",
        "SELECT c.customerName, COUNT(o.orderNumber) AS n FROM customers c LEFT JOIN orders o "
                + "ON o.customerNumber = c.customerNumber GROUP BY c.customerName HAVING COUNT(*) > 2",
        "WITH big AS (SELECT customerNumber FROM payments WHERE amount > 100) SELECT * FROM big",
        "SELECT (SELECT COUNT(*) FROM orders) - (SELECT COUNT(*) FROM customers)",
        "SELECT `customerName` FROM `customers` WHERE `country` = \"USA\"",
        "SELECT p.productName FROM Products p JOIN OrderItems i ON i.productCode = p.productCode LIMIT 5",
        "SELECT customerName FROM customers WHERE customerName LIKE '%select  from%'",
        "SELECT EXTRACT(YEAR FROM orderDate) FROM orders",
        "SELECT CASE WHEN amount > 10 THEN 'big' ELSE 'small' END FROM payments",
    })
    void cleanSqlComesOutExactlyAsWrittenWithNoSteps(String sql) {
        assertCleaned(mysql(sql), sql);
    }

    @Test
    void surroundingWhitespaceIsStrippedWithoutAStep() {
        assertCleaned(mysql("  SELECT COUNT(*) FROM customers \n\n"), "SELECT COUNT(*) FROM customers");
    }

    // ------------------------------------------------------------------ semicolon and what follows

    static Stream<Arguments> semicolons() {
        return Stream.of(
                arguments("SELECT COUNT(*) FROM customers;", "SELECT COUNT(*) FROM customers", List.of("semicolon")),
                arguments("SELECT COUNT(*) FROM customers ;\n", "SELECT COUNT(*) FROM customers",
                        List.of("semicolon")),
                arguments("SELECT * FROM customers; SELECT * FROM orders;", "SELECT * FROM customers",
                        List.of("semicolon", "trailing-text")),
                arguments("SELECT * FROM customers; DROP TABLE customers", "SELECT * FROM customers",
                        List.of("semicolon", "trailing-text")),
                arguments("SELECT * FROM customers WHERE customerName = 'a;b'; x",
                        "SELECT * FROM customers WHERE customerName = 'a;b'", List.of("semicolon", "trailing-text")),
                arguments("SELECT `a;b` FROM customers;", "SELECT `a;b` FROM customers", List.of("semicolon")),
                arguments("SELECT * FROM customers WHERE customerName = 'it\\'s;'; 1",
                        "SELECT * FROM customers WHERE customerName = 'it\\'s;'", List.of("semicolon", "trailing-text")),
                arguments("SELECT * FROM customers /* ; */ WHERE country = 'x';",
                        "SELECT * FROM customers WHERE country = 'x'", List.of("semicolon", "comment")));
    }

    @ParameterizedTest
    @MethodSource("semicolons")
    void theStatementEndsAtTheFirstSemicolonOutsideStringsIdentifiersAndComments(
            String raw, String sql, List<String> steps) {
        assertCleaned(mysql(raw), sql, steps.toArray(String[]::new));
    }

    @Test
    void aSemicolonInADoubleQuotedStringDependsOnTheDialect() {
        // MySQL: a string; SQLite: a quoted identifier; the semicolon inside is no end in either
        assertCleaned(mysql("SELECT * FROM customers WHERE country = \"a;b\";"),
                "SELECT * FROM customers WHERE country = \"a;b\"", "semicolon");
        assertCleaned(sqlite("SELECT \"a;b\" FROM customers;"), "SELECT \"a;b\" FROM customers", "semicolon");
    }

    // ------------------------------------------------------------------ code fences

    static Stream<Arguments> fences() {
        return Stream.of(
                arguments("```sql\nSELECT COUNT(*) FROM customers;\n```", "SELECT COUNT(*) FROM customers",
                        List.of("code-fence", "semicolon")),
                arguments("Here is the query:\n\n```SQL\nSELECT COUNT(*) FROM customers\n```\n\nIt counts them.",
                        "SELECT COUNT(*) FROM customers", List.of("code-fence")),
                arguments("```mysql\nSELECT * FROM orders\n```", "SELECT * FROM orders", List.of("code-fence")),
                arguments("```\nSELECT * FROM orders\n```", "SELECT * FROM orders", List.of("code-fence")),
                arguments("```sql SELECT * FROM orders```", "SELECT * FROM orders", List.of("code-fence")),
                arguments("```SELECT * FROM orders```", "SELECT * FROM orders", List.of("code-fence")),
                // truncated before the closing fence
                arguments("```sql\nSELECT * FROM orders", "SELECT * FROM orders", List.of("code-fence")),
                // the first fence holds no query: the first one that does is taken
                arguments("Schema:\n```text\ncustomers(customerNumber)\n```\nQuery:\n```sql\n"
                        + "SELECT customerNumber FROM customers\n```\n```sql\nSELECT 2 FROM orders\n```",
                        "SELECT customerNumber FROM customers", List.of("code-fence")),
                // a closing fence without an opening (the prompt opened it)
                arguments("SELECT * FROM orders\n```\nMore text", "SELECT * FROM orders",
                        List.of("code-fence", "trailing-text")));
    }

    @ParameterizedTest
    @MethodSource("fences")
    void theFirstFenceThatHoldsAQueryIsTaken(String raw, String sql, List<String> steps) {
        assertCleaned(mysql(raw), sql, steps.toArray(String[]::new));
    }

    // ------------------------------------------------------------------ prompt echo and prose before the query

    static Stream<Arguments> echoes() {
        return Stream.of(
                arguments("SQL: SELECT * FROM orders", "SELECT * FROM orders", List.of("prompt-echo")),
                arguments("SQL:\nSELECT * FROM orders", "SELECT * FROM orders", List.of("prompt-echo")),
                arguments("Answer: SELECT * FROM orders", "SELECT * FROM orders", List.of("prompt-echo")),
                arguments("**SQL Query:** SELECT * FROM orders", "SELECT * FROM orders", List.of("prompt-echo")),
                arguments("Question: Which orders were placed with a status of 'Shipped'?\nSQL: SELECT * FROM orders "
                        + "WHERE status = 'Shipped'", "SELECT * FROM orders WHERE status = 'Shipped'",
                        List.of("prompt-echo")),
                arguments("Here is the SQL query:\n\nSELECT * FROM orders", "SELECT * FROM orders",
                        List.of("prompt-echo")),
                arguments("Sure! Here's the SQL query that selects the orders with their status:\nSELECT status "
                        + "FROM orders", "SELECT status FROM orders", List.of("prompt-echo")),
                arguments("assistant\n\nSELECT * FROM orders", "SELECT * FROM orders", List.of("prompt-echo")),
                // prose that is no echo: dropped as text before the statement
                arguments("To count them, run SELECT COUNT(*) FROM customers", "SELECT COUNT(*) FROM customers",
                        List.of("first-statement")),
                arguments("You want to select the customers with many orders. This does it.\n"
                        + "select customerName from customers", "SELECT customerName FROM customers",
                        List.of("first-statement", "keyword-case")),
                arguments("Count the customers, please.\nSELECT COUNT(*) FROM customers",
                        "SELECT COUNT(*) FROM customers", List.of("first-statement")),
                arguments("-- all orders\nSELECT * FROM orders", "SELECT * FROM orders", List.of("comment")));
    }

    @ParameterizedTest
    @MethodSource("echoes")
    void echoAndProseBeforeTheQueryAreDropped(String raw, String sql, List<String> steps) {
        assertCleaned(mysql(raw), sql, steps.toArray(String[]::new));
    }

    @Test
    void aWithInProseIsNoQueryStart() {
        assertCleaned(mysql("With this query you get the answer:\nWITH t AS (SELECT * FROM orders) SELECT * FROM t"),
                "WITH t AS (SELECT * FROM orders) SELECT * FROM t", "prompt-echo");
        assertCleaned(mysql("Start with the orders; WITH t AS (SELECT * FROM orders) SELECT * FROM t"),
                "WITH t AS (SELECT * FROM orders) SELECT * FROM t", "first-statement");
    }

    // ------------------------------------------------------------------ text after the query

    static Stream<Arguments> trailers() {
        return Stream.of(
                // the model invented the next exemplar (the stop string did not fire)
                arguments("SELECT COUNT(*) FROM customers\n\nQuestion: How many orders have we received?\n"
                        + "SQL: SELECT COUNT(*) FROM orders", "SELECT COUNT(*) FROM customers"),
                arguments("SELECT COUNT(*) FROM customers\nExplanation: this counts the customers.",
                        "SELECT COUNT(*) FROM customers"),
                arguments("SELECT COUNT(*) FROM customers\n\nThis query counts every customer.",
                        "SELECT COUNT(*) FROM customers"),
                arguments("SELECT COUNT(*) FROM customers\nHere's why it works", "SELECT COUNT(*) FROM customers"),
                arguments("SELECT COUNT(*) FROM customers\nthis counts every customer", "SELECT COUNT(*) FROM customers"),
                arguments("SELECT COUNT(*) FROM customers\nSELECT COUNT(*) FROM orders",
                        "SELECT COUNT(*) FROM customers"),
                arguments("SELECT COUNT(*) FROM customers\n**Note:** it is fast", "SELECT COUNT(*) FROM customers"),
                arguments("SELECT COUNT(*) FROM customers\n- The query counts rows", "SELECT COUNT(*) FROM customers"),
                arguments("SELECT COUNT(*) FROM customers\n---\nThat is all", "SELECT COUNT(*) FROM customers"),
                arguments("SELECT COUNT(*) FROM customers. It counts them.", "SELECT COUNT(*) FROM customers"),
                arguments("SELECT * FROM orders WHERE status = 'x'. This lists them", "SELECT * FROM orders WHERE status = 'x'"));
    }

    @ParameterizedTest
    @MethodSource("trailers")
    void textAfterTheQueryIsDropped(String raw, String sql) {
        assertCleaned(mysql(raw), sql, "trailing-text");
    }

    @Test
    void multiLineSqlIsNotMistakenForTrailingText() {
        String raw = "SELECT c.customerName,\n       o.orderNumber\nFROM customers c\nJOIN orders o\n"
                + "  ON o.customerNumber = c.customerNumber\nWHERE c.country = 'France'\n  AND o.status = 'Shipped'\n"
                + "UNION\nSELECT c.customerName, NULL\nFROM customers c\nORDER BY 1";
        assertCleaned(mysql(raw), "SELECT c.customerName, o.orderNumber FROM customers c JOIN orders o "
                + "ON o.customerNumber = c.customerNumber WHERE c.country = 'France' AND o.status = 'Shipped' "
                + "UNION SELECT c.customerName, NULL FROM customers c ORDER BY 1", "whitespace");
    }

    @Test
    void aQuestionLabelInsideAStringDoesNotEndTheQuery() {
        String sql = "SELECT * FROM orders WHERE status = '\nQuestion: x'";
        assertCleaned(mysql(sql), sql);
    }

    // ------------------------------------------------------------------ stop remnants, wrappers, comments

    @Test
    void endOfTurnTokensAndCutStopStringsAreRemoved() {
        assertCleaned(mysql("SELECT * FROM orders<|eot_id|>"), "SELECT * FROM orders", "stop-remnant");
        assertCleaned(mysql("SELECT * FROM orders<|im_end|>\n<|im_start|>user\nmore"), "SELECT * FROM orders",
                "stop-remnant");
        assertCleaned(mysql("<|start_header_id|>assistant<|end_header_id|>\n\nSELECT * FROM orders</s>"),
                "SELECT * FROM orders", "stop-remnant");
        assertCleaned(mysql("SELECT * FROM orders\nQuestion"), "SELECT * FROM orders", "stop-remnant");
        assertCleaned(mysql("SELECT * FROM orders\nQuestion:"), "SELECT * FROM orders", "stop-remnant");
    }

    @Test
    void backticksAroundTheWholeQueryAreRemovedButNotBacktickedNames() {
        assertCleaned(mysql("`SELECT * FROM orders`"), "SELECT * FROM orders", "backticks");
        assertCleaned(mysql("Run `SELECT `status` FROM `orders`` to see them."), "SELECT `status` FROM `orders`",
                "first-statement", "backticks", "trailing-text");
        assertCleaned(mysql("`SELECT * FROM orders;`"), "SELECT * FROM orders", "backticks", "semicolon");
        assertCleaned(mysql("SELECT `status` FROM `orders`"), "SELECT `status` FROM `orders`");
    }

    @Test
    void markdownBoldAroundTheQueryIsRemoved() {
        assertCleaned(mysql("**SELECT * FROM orders**"), "SELECT * FROM orders", "markdown");
        assertCleaned(mysql("The answer is **SELECT * FROM orders** as shown."), "SELECT * FROM orders",
                "first-statement", "markdown", "trailing-text");
    }

    @Test
    void commentsAreDroppedAndNeverSwallowTheRestOfAJoinedLine() {
        assertCleaned(mysql("SELECT * FROM orders -- every order"), "SELECT * FROM orders", "comment");
        assertCleaned(mysql("SELECT * FROM orders # every order"), "SELECT * FROM orders", "comment");
        assertCleaned(mysql("SELECT customerName -- the name\nFROM customers"), "SELECT customerName FROM customers",
                "comment");
        assertCleaned(mysql("SELECT/* x */customerName FROM customers"), "SELECT customerName FROM customers",
                "comment");
        assertCleaned(mysql("SELECT * FROM orders /* unfinished"), "SELECT * FROM orders", "comment");
        // # is no comment in SQLite: a Markdown heading after the query ends it
        assertCleaned(sqlite("SELECT * FROM orders\n## Explanation\nIt lists them"), "SELECT * FROM orders",
                "trailing-text");
    }

    // ------------------------------------------------------------------ whitespace and keyword case

    @Test
    void whitespaceRunsCollapseOutsideStringsOnly() {
        assertCleaned(mysql("SELECT  customerName\n\tFROM customers WHERE country = 'New  Zealand'"),
                "SELECT customerName FROM customers WHERE country = 'New  Zealand'", "whitespace");
        assertCleaned(mysql("SELECT COUNT( * ) FROM customers"), "SELECT COUNT( * ) FROM customers");
    }

    @Test
    void keywordsAreUpperCasedButNotStringsIdentifiersOrColumnsNamedLikeFunctions() {
        assertCleaned(mysql("select distinct country from customers where customerName like 'select%' "
                        + "and country is not null order by country desc limit 3"),
                "SELECT DISTINCT country FROM customers WHERE customerName LIKE 'select%' "
                        + "AND country IS NOT NULL ORDER BY country DESC LIMIT 3", "keyword-case");
        assertCleaned(mysql("select count(*), max(amount), date from payments group by date"),
                "SELECT COUNT(*), MAX(amount), date FROM payments GROUP BY date", "keyword-case");
        assertCleaned(mysql("SELECT count, `select`, \"from\" FROM Products"),
                "SELECT count, `select`, \"from\" FROM Products");
        assertCleaned(sqlite("select \"from\", p.count from Products p"), "SELECT \"from\", p.count FROM Products p",
                "keyword-case");
        assertCleaned(mysql("select case when amount > 1 then 'a' else 'b' end as kind from payments "
                        + "limit 5 offset 10"),
                "SELECT CASE WHEN amount > 1 THEN 'a' ELSE 'b' END AS kind FROM payments LIMIT 5 OFFSET 10",
                "keyword-case");
    }

    // ------------------------------------------------------------------ table-name case

    @Test
    void tableNamesInTablePositionsTakeTheSchemaSpelling() {
        assertCleaned(mysql("SELECT COUNT(*) FROM Customers"), "SELECT COUNT(*) FROM customers", "table-case");
        assertCleaned(mysql("SELECT * FROM CUSTOMERS c JOIN Orders o ON o.customerNumber = c.customerNumber, "
                        + "payments AS p, products"),
                "SELECT * FROM customers c JOIN orders o ON o.customerNumber = c.customerNumber, "
                        + "payments AS p, Products", "table-case");
        assertCleaned(mysql("SELECT Customers.customerName FROM Customers"),
                "SELECT customers.customerName FROM customers", "table-case");
        assertCleaned(mysql("SELECT * FROM `Customers`"), "SELECT * FROM `customers`", "table-case");
        assertCleaned(sqlite("SELECT * FROM \"orderitems\" JOIN [PRODUCTS] USING (productCode)"),
                "SELECT * FROM \"OrderItems\" JOIN [Products] USING (productCode)", "table-case");
        assertCleaned(mysql("SELECT * FROM shop.CUSTOMERS"), "SELECT * FROM shop.customers", "table-case");
        assertCleaned(mysql("SELECT x FROM (SELECT COUNT(*) AS x FROM Orders) t"),
                "SELECT x FROM (SELECT COUNT(*) AS x FROM orders) t", "table-case");
    }

    @Test
    void columnsAliasesStringsAndCtesNamedLikeTablesAreLeftAlone() {
        // a column "orders" of customers, a string, an alias
        assertCleaned(mysql("SELECT Orders, 'Customers' FROM customers"), "SELECT Orders, 'Customers' FROM customers");
        assertCleaned(mysql("SELECT Customers.amount FROM payments AS Customers"),
                "SELECT Customers.amount FROM payments AS Customers");
        assertCleaned(mysql("WITH Orders AS (SELECT * FROM orders) SELECT Orders.status FROM Orders"),
                "WITH Orders AS (SELECT * FROM orders) SELECT Orders.status FROM Orders");
        assertCleaned(mysql("SELECT EXTRACT(YEAR FROM Orders) FROM customers"),
                "SELECT EXTRACT(YEAR FROM Orders) FROM customers");
        // no schema: no table-case step
        assertCleaned(SqlPostProcessor.clean("SELECT * FROM Customers", null, Dialect.MYSQL), "SELECT * FROM Customers");
    }

    // ------------------------------------------------------------------ rejections

    static Stream<Arguments> rejections() {
        return Stream.of(
                arguments(null, "empty output"),
                arguments("", "empty output"),
                arguments(" \n\t ", "empty output"),
                arguments("SQL:", "empty output"),
                arguments("```sql\n```", "empty output"),
                arguments("I cannot answer that question.", "no SELECT or WITH statement"),
                arguments("DELETE FROM customers", "no SELECT or WITH statement"),
                arguments("SELECT", "no FROM clause"),
                arguments("SELECT 1", "no FROM clause"),
                arguments("SELECT NOW()", "no FROM clause"),
                arguments("SELECT EXTRACT(YEAR FROM NOW())", "no FROM clause"),
                arguments("SELECT customerName, country,", "no FROM clause"),
                arguments("SELECT ALL\nFROM customers", "empty select list"),
                arguments("You should select from the customers table.", "no SELECT or WITH statement"),
                arguments("SELECT DISTINCT FROM customers", "empty select list"),
                arguments("SELECT * FROM customers WHERE", "ends in a dangling WHERE"),
                arguments("SELECT * FROM customers WHERE country = 'France' AND", "ends in a dangling AND"),
                arguments("SELECT * FROM customers WHERE country = 'France' or", "ends in a dangling OR"),
                arguments("SELECT * FROM customers c JOIN orders o ON", "ends in a dangling ON"),
                arguments("SELECT * FROM customers c JOIN", "ends in a dangling JOIN"),
                arguments("SELECT * FROM customers ORDER BY", "ends in a dangling BY"),
                arguments("SELECT customerName FROM customers, ", "ends in a dangling comma"),
                arguments("SELECT * FROM customers WHERE customerNumber =", "ends in a dangling operator '='"),
                arguments("SELECT * FROM payments WHERE amount * ", "ends in a dangling operator '*'"),
                arguments("SELECT * FROM customers c WHERE c.", "ends in a dangling '.'"),
                arguments("SELECT * FROM customers WHERE customerNumber IN (SELECT customerNumber FROM orders",
                        "unbalanced parentheses"),
                arguments("SELECT COUNT(*)) FROM customers", "unbalanced parentheses"),
                arguments("SELECT * FROM customers WHERE country = 'Fra", "unterminated string literal"),
                arguments("SELECT `customerName FROM customers", "unterminated quoted identifier"),
                arguments("WITH t AS (SELECT * FROM orders)", "no SELECT after the WITH clause"));
    }

    @ParameterizedTest
    @MethodSource("rejections")
    void unusableOutputIsRejectedWithItsReason(String raw, String reason) {
        assertRejected(mysql(raw), reason);
    }

    @Test
    void aRejectionStillReportsTheStepsTakenBeforeIt() {
        Cleaned c = mysql("```sql\nSELECT * FROM customers WHERE\n```");
        assertRejected(c, "ends in a dangling WHERE");
        assertThat(c.steps()).containsExactly("code-fence");
    }

    // ------------------------------------------------------------------ robustness

    /** Writes a random query in random case and layout, and the text the post-processor must make of it. */
    private static final class QueryWriter {
        private final SplittableRandom random;
        private final StringBuilder raw = new StringBuilder();
        private final StringBuilder expected = new StringBuilder();

        QueryWriter(SplittableRandom random) {
            this.random = random;
        }

        private String pick(String... options) {
            return options[random.nextInt(options.length)];
        }

        /** One token: {@code written} in the raw text, {@code canonical} in the expected one. */
        private QueryWriter token(String written, String canonical) {
            if (!raw.isEmpty()) {
                raw.append(pick(" ", " ", "  ", "\n", "\n    ", "\t", " \n"));
                expected.append(' ');
            }
            raw.append(written);
            expected.append(canonical);
            return this;
        }

        private QueryWriter keyword(String k) {
            String lower = k.toLowerCase(java.util.Locale.ROOT);
            return token(pick(k, lower, Character.toUpperCase(lower.charAt(0)) + lower.substring(1)), k);
        }

        private QueryWriter same(String text) {
            return token(text, text);
        }

        QueryWriter query() {
            String table = pick("customers", "Products");
            String written = table.equals("customers") ? pick("customers", "Customers", "CUSTOMERS")
                    : pick("Products", "products", "PRODUCTS");
            keyword("SELECT");
            if (random.nextBoolean()) keyword("DISTINCT");
            switch (random.nextInt(4)) {
                case 0 -> token(pick("count(*)", "COUNT(*)", "Count(*)"), "COUNT(*)");
                case 1 -> token(written + ".country", table + ".country");
                case 2 -> same("`count`").same(",").same("count");
                default -> same("customerName").same(",").same("country");
            }
            keyword("FROM").token(written, table);
            if (random.nextBoolean()) {
                keyword("WHERE").same("country").same("=")
                        .same(pick("'France'", "'a;b'", "'select  from where'", "'It''s'", "'--x'", "'Question: y'"));
                if (random.nextBoolean()) keyword("AND").same("creditLimit").same(">").same("100");
            }
            if (random.nextBoolean()) keyword("ORDER").keyword("BY").same("country");
            if (random.nextBoolean()) keyword("LIMIT").same("5");
            return this;
        }
    }

    @Test
    void aKnownQueryIsRecoveredFromRandomWrappingAndTrailingText() {
        String[][] wrappers = {{"", ""}, {"```sql\n", "\n```"}, {"```\n", "\n```\nExplanation: it works."},
            {"`", "`"}, {"**", "**"}, {"SQL: ", ""}, {"Here is the SQL query:\n\n", ""},
            {"Question: Which customers?\nSQL: ", ""}, {"<|start_header_id|>assistant<|end_header_id|>\n\n", ""},
            {"To answer this, you select from customers with a filter. ", ""}};
        String[] tails = {"", ";", "; SELECT 2 FROM orders", "\n\nQuestion: How many?\nSQL: SELECT 3 FROM orders",
            "\n-- comment", " /* c */", "\n\nThis query returns the rows."};
        // where generation stopped: after everything else
        String[] ends = {"", "", "<|eot_id|>noise", "\nQuestion", "\n"};
        SplittableRandom random = new SplittableRandom(7);
        for (int round = 0; round < 1500; round++) {
            QueryWriter q = new QueryWriter(random).query();
            String[] wrapper = wrappers[random.nextInt(wrappers.length)];
            String raw = wrapper[0] + q.raw + tails[random.nextInt(tails.length)] + wrapper[1]
                    + ends[random.nextInt(ends.length)];
            for (Dialect d : Dialect.values()) {
                Cleaned c = SqlPostProcessor.clean(raw, SCHEMA, d);
                assertThat(c.sql()).as("%s: %s (rejection %s)", d, raw, c.rejection()).isEqualTo(q.expected.toString());
                assertThat(SqlPostProcessor.clean(c.sql(), SCHEMA, d).steps()).as("fixed point").isEmpty();
            }
        }
    }

    @Test
    void neverThrowsOnGarbageAndACleanedQueryIsAFixedPoint() {
        String[] pieces = {"SELECT", "select", "WITH", " x AS (", "FROM", "from", "customers", "Orders", " ", "\n",
            "\n\n", "'", "\"", "`", "```", "```sql\n", ";", "(", ")", ",", "--", "#", "/*", "*/", "*", "**", ":",
            "Question:", "SQL:", "<|eot_id|>", "WHERE", "=", "1", "'a;b'", "\\", "é", "\u0000", "[", "]", "Here's",
            "The query", "AND", "JOIN", "ON", ".", "t.", "COUNT(*)", "CASE", "END", ". This is"};
        SplittableRandom random = new SplittableRandom(42);
        int accepted = 0;
        for (int round = 0; round < 3000; round++) {
            // half the inputs start with a query, so that garbage after a query is exercised as well
            StringBuilder sb = new StringBuilder(round % 2 == 0 ? new QueryWriter(random).query().raw : "");
            int n = random.nextInt(1, 30);
            for (int i = 0; i < n; i++) {
                sb.append(random.nextInt(5) == 0 ? (char) random.nextInt(0x20, 0x2FF) : pieces[random.nextInt(pieces.length)]);
            }
            String raw = sb.toString();
            for (Dialect d : Dialect.values()) {
                Cleaned c = SqlPostProcessor.clean(raw, SCHEMA, d);
                assertThat(c.ok()).as(raw).isEqualTo(c.rejection() == null);
                if (c.ok()) {
                    accepted++;
                    assertThat(c.sql()).as(raw).isNotBlank().isEqualTo(c.sql().strip()).doesNotEndWith(";");
                    Cleaned again = SqlPostProcessor.clean(c.sql(), SCHEMA, d);
                    assertThat(again.sql()).as("fixed point of %s", raw).isEqualTo(c.sql());
                    assertThat(again.steps()).as("fixed point of %s", raw).isEmpty();
                }
            }
        }
        assertThat(accepted).as("the fixed-point check ran").isGreaterThan(100);
    }

    @Test
    void hugeAndUnterminatedInputsGetAVerdict() {
        String many = "select with ".repeat(50_000);
        String longProse = "word ".repeat(100_000) + "\nSELECT * FROM orders";
        String openString = "SELECT * FROM orders WHERE status = '" + "x".repeat(200_000);
        String openComment = "SELECT * FROM orders /*" + " y".repeat(100_000);
        String deep = "SELECT " + "(".repeat(20_000) + "1" + ")".repeat(20_000) + " FROM orders";
        for (String raw : List.of(many, longProse, openString, openComment, deep, "```".repeat(30_000))) {
            for (Dialect d : Dialect.values()) {
                assertThatCode(() -> SqlPostProcessor.clean(raw, SCHEMA, d)).doesNotThrowAnyException();
            }
        }
        assertCleaned(mysql(longProse), "SELECT * FROM orders", "first-statement");
        assertRejected(mysql(openString), "unterminated string literal");
        assertCleaned(mysql(openComment), "SELECT * FROM orders", "comment");
        assertThat(mysql(deep).sql()).hasSize(deep.length());
    }
}
