package dev.ladder.sql.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bounds that do not depend on the clock: a work bound (rows examined, MariaDB) that decides the same way on an idle
 * and on a busy machine, and a byte bound on what a result may hold (model output is untrusted: one generated query
 * must not take the machine's memory).
 */
class ExecutionBoundsTest {

    static Stream<String> kinds() {
        return Stream.of("mariadb", "sqlite");
    }

    private static Database db(String kind) {
        return kind.equals("mariadb") ? TestData.classicModels() : TestData.classicModelsSqlite();
    }

    /** Generous time: only the work bound may stop these. */
    private static final ExecutionLimits WORK_BOUND = new ExecutionLimits(Duration.ofSeconds(120), 10_000)
            .withExaminedRows(200_000);

    private static ExecutionError error(Execution ex) {
        assertThat(ex).as(ex.toString()).isInstanceOf(Execution.Failure.class);
        return ((Execution.Failure) ex).error();
    }

    private static QueryResult result(Execution ex) {
        assertThat(ex).as(ex.toString()).isInstanceOf(Execution.Success.class);
        return ((Execution.Success) ex).result();
    }

    @Test
    void aStatementOverTheWorkBoundIsStoppedByItNotByTheClock() {
        Database db = TestData.classicModels();
        // about nine million row combinations each: far over the bound, and well under the time limit on any machine
        // (a query that stops early, as a LIMIT without ORDER BY may, examines few rows and is not stopped)
        for (String sql : List.of(
                "SELECT COUNT(*) FROM orderdetails a, orderdetails b",
                "SELECT a.orderNumber FROM orderdetails a, orderdetails b ORDER BY a.quantityOrdered * b.priceEach LIMIT 5",
                "SELECT a.orderNumber FROM orderdetails a, orderdetails b WHERE a.quantityOrdered + b.quantityOrdered = 1000"
                        + " LIMIT 3 OFFSET 2",
                "SELECT a.orderNumber FROM orderdetails a, orderdetails b WHERE a.quantityOrdered > b.quantityOrdered * 99"
                        + " LIMIT 2, 3;",
                "WITH p AS (SELECT a.orderNumber AS n FROM orderdetails a, orderdetails b) SELECT COUNT(*) FROM p",
                "SELECT 1 FROM offices UNION ALL SELECT a.orderNumber FROM orderdetails a, orderdetails b")) {
            ExecutionError e = error(db.execute(sql, WORK_BOUND));
            assertThat(e.kind()).as(sql).isEqualTo(ExecutionError.Kind.WORK_LIMIT);
            assertThat(e.message()).as(sql).contains("200000");
        }
        // the connection goes on
        assertThat(result(db.execute("SELECT COUNT(*) FROM offices", WORK_BOUND)).rows().get(0).get(0)).isEqualTo(7L);
    }

    @Test
    void underTheWorkBoundTheAnswerIsTheUnboundedOne() {
        Database db = TestData.classicModels();
        for (String sql : List.of(
                "SELECT orderNumber, status FROM orders ORDER BY orderNumber LIMIT 3 OFFSET 4",
                "SELECT orderNumber FROM orders ORDER BY orderNumber DESC LIMIT 2, 3",
                "SELECT country, COUNT(*) FROM customers GROUP BY country ORDER BY 2 DESC, 1",
                "SELECT city FROM offices UNION SELECT city FROM customers ORDER BY city LIMIT 4",
                "WITH c AS (SELECT country FROM customers) SELECT COUNT(DISTINCT country) FROM c",
                "SELECT customerName FROM customers WHERE creditLimit > 100000 -- a trailing comment")) {
            QueryResult bounded = result(db.execute(sql, WORK_BOUND));
            QueryResult plain = result(db.execute(sql));
            assertThat(bounded.rows()).as(sql).isEqualTo(plain.rows()).isNotEmpty();
        }
    }

    @Test
    void aBoundedRunOrdersTiedRowsTheSameEveryTime() {
        // every group counts 1: LIMIT 1 takes one of many tied rows. In memory, MariaDB breaks the tie by where the
        // group sits in its temporary table, which changes with what ran before; a bounded run answers the same
        Database db = TestData.classicModels();
        String tied = "SELECT city FROM customers GROUP BY customerName ORDER BY COUNT(*) DESC LIMIT 1";
        java.util.Set<List<List<Object>>> answers = new java.util.HashSet<>();
        for (int i = 0; i < 30; i++) {
            // other work in between, as the other queries of a build
            result(db.execute("SELECT productCode, COUNT(*) FROM orderdetails GROUP BY productCode, orderNumber % " + (i + 2)));
            answers.add(result(db.execute(tied, WORK_BOUND)).rows());
        }
        assertThat(answers).hasSize(1);
    }

    @Test
    void aStatementThatBoundsItselfKeepsItsOwnBound() {
        // MariaDB's own clause in the model's SQL: not doubled (a syntax error), and its partial answer is its own
        Execution e = TestData.classicModels().execute(
                "SELECT COUNT(*) FROM orderdetails a, orderdetails b LIMIT ROWS EXAMINED 10", WORK_BOUND);
        assertThat(e).as(e.toString()).isInstanceOf(Execution.Success.class);
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void aResultIsBoundedInBytesAndSaysItIsCut(String kind) {
        String repeat = kind.equals("mariadb") ? "REPEAT('x', 1000000)" : "printf('%.*c', 1000000, 'x')";
        ExecutionLimits limits = ExecutionLimits.DEFAULT.withByteCap(5_000_000);
        long t0 = System.nanoTime();
        QueryResult r = result(db(kind).execute("SELECT " + repeat + " AS big FROM orderdetails", limits));
        assertThat(r.truncated()).isTrue();
        assertThat(r.rows()).hasSizeBetween(1, 5);
        assertThat(r.rows()).allMatch(row -> ((String) row.get(0)).length() == 1_000_000);
        // about 3 GB were on offer: the rest was never read (no timing assert, only a sanity bound for a hang)
        assertThat((System.nanoTime() - t0) / 1_000_000_000L).isLessThan(60);
        // the connection goes on
        assertThat(result(db(kind).execute("SELECT COUNT(*) FROM offices")).rows().get(0).get(0)).isEqualTo(7L);
    }

    @Test
    void aBoundedRunCutAtTheByteBoundIsATruncatedResult() {
        // both bounds on one statement: the byte bound cuts first (and abandons the connection), no work-bound check
        // is asked of the abandoned connection
        QueryResult r = result(TestData.classicModels().execute("SELECT REPEAT('z', 1000000) AS big FROM orderdetails",
                WORK_BOUND.withByteCap(3_000_000)));
        assertThat(r.truncated()).isTrue();
        assertThat(r.rows()).hasSizeBetween(1, 3);
        assertThat(result(TestData.classicModels().execute("SELECT COUNT(*) FROM offices", WORK_BOUND)).rows().get(0).get(0))
                .isEqualTo(7L);
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void oneValueOverTheValueBoundCutsTheResultBeforeIt(String kind) {
        String repeat = kind.equals("mariadb") ? "REPEAT('y', 5000000)" : "printf('%.*c', 5000000, 'y')";
        QueryResult r = result(db(kind).execute("SELECT " + repeat + " AS big"));
        assertThat(r.truncated()).isTrue();
        assertThat(r.rows()).isEmpty();
        assertThat(ExecutionLimits.MAX_VALUE_BYTES).isLessThan(5_000_000);
    }

    @Test
    void sqliteRefusesToBuildAValueBeyondItsLengthLimit() {
        // SQLite builds values in the JVM's process: the engine's own length limit stops a 100 MB blob
        ExecutionError e = error(TestData.classicModelsSqlite().execute("SELECT zeroblob(100000000)"));
        assertThat(e.message()).containsIgnoringCase("too big");
    }

    @Test
    void theDefaultBoundsAreStated() {
        assertThat(ExecutionLimits.DEFAULT.byteCap()).isEqualTo(64L << 20);
        assertThat(ExecutionLimits.DEFAULT.examinedRows()).isZero();
        assertThat(new ExecutionLimits(Duration.ofSeconds(1), 5).byteCap()).isEqualTo(ExecutionLimits.DEFAULT.byteCap());
    }
}
