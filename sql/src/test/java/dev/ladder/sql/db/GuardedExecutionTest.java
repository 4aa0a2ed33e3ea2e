package dev.ladder.sql.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Structured errors, limits and canonical values, on MariaDB and on the SQLite copy. */
class GuardedExecutionTest {

    static Stream<String> kinds() {
        return Stream.of("mariadb", "sqlite");
    }

    private static Database db(String kind) {
        return kind.equals("mariadb") ? TestData.classicModels() : TestData.classicModelsSqlite();
    }

    private static ExecutionError error(Execution ex) {
        assertThat(ex).isInstanceOf(Execution.Failure.class);
        return ((Execution.Failure) ex).error();
    }

    private static QueryResult result(Execution ex) {
        assertThat(ex).as(ex.toString()).isInstanceOf(Execution.Success.class);
        return ((Execution.Success) ex).result();
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void errorsAreClassified(String kind) {
        Database db = db(kind);
        assertThat(error(db.execute("SELECT FROM WHERE customers")).kind()).isEqualTo(ExecutionError.Kind.SYNTAX);
        assertThat(error(db.execute("SELECT * FROM customer")).kind()).isEqualTo(ExecutionError.Kind.UNKNOWN_TABLE);
        assertThat(error(db.execute("SELECT customerNam FROM customers")).kind()).isEqualTo(ExecutionError.Kind.UNKNOWN_COLUMN);
        ExecutionError rejected = error(db.execute("UPDATE customers SET creditLimit = 0"));
        assertThat(rejected.kind()).isEqualTo(ExecutionError.Kind.REJECTED);
        assertThat(rejected.message()).contains("UPDATE");
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void longQueriesTimeOutAsStructuredErrors(String kind) {
        ExecutionLimits oneSecond = ExecutionLimits.DEFAULT.withTimeout(Duration.ofSeconds(1));
        long t0 = System.nanoTime();
        Execution ex = db(kind).execute("SELECT COUNT(*) FROM orderdetails a, orderdetails b, orderdetails c, orderdetails d",
                oneSecond);
        long millis = (System.nanoTime() - t0) / 1_000_000;
        assertThat(error(ex).kind()).isEqualTo(ExecutionError.Kind.TIMEOUT);
        assertThat(millis).isLessThan(1000 + 1000);
        // the connection is usable afterwards
        assertThat(result(db(kind).execute("SELECT COUNT(*) FROM offices")).rows().get(0).get(0)).isEqualTo(7L);
    }

    @Test
    void theServerStopsLongStatementsOnItsOwn() throws SQLException {
        // no client-side cancel here: max_statement_time alone ends the statement
        try (Connection c = EmbeddedMariaDb.shared().readerConnection(ClassicModels.NAME);
             Statement st = c.createStatement()) {
            st.execute("SET SESSION max_statement_time = 0.5");
            long t0 = System.nanoTime();
            try {
                st.executeQuery("SELECT COUNT(*) FROM orderdetails a, orderdetails b, orderdetails c, orderdetails d");
                throw new AssertionError("the statement was not stopped");
            } catch (SQLException e) {
                assertThat(e.getErrorCode()).isEqualTo(1969);
            }
            assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(1500);
        }
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void rowCapTruncates(String kind) {
        QueryResult r = result(db(kind).execute("SELECT orderNumber FROM orders ORDER BY orderNumber",
                ExecutionLimits.DEFAULT.withRowCap(10)));
        assertThat(r.rows()).hasSize(10);
        assertThat(r.truncated()).isTrue();
        assertThat(result(db(kind).execute("SELECT orderNumber FROM orders", ExecutionLimits.DEFAULT.withRowCap(326)))
                .truncated()).isFalse();
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void valuesAreCanonicalAndEqualAcrossKinds(String kind) {
        QueryResult r = result(db(kind).execute(
                "SELECT orderDate, shippedDate, comments FROM orders WHERE orderNumber = 10167"));
        assertThat(r.rows().get(0).get(0)).isEqualTo(LocalDate.of(2003, 10, 23));
        assertThat(r.rows().get(0).get(1)).isNull();
        QueryResult money = result(db(kind).execute(
                "SELECT buyPrice, quantityInStock FROM products WHERE productCode = 'S10_1678'"));
        assertThat(money.rows().get(0)).containsExactly(new BigDecimal("48.81"), 7933L);
        // same query, same canonical rows on both kinds
        String q = "SELECT customerNumber, checkNumber, paymentDate, amount FROM payments ORDER BY customerNumber, checkNumber";
        List<List<Object>> here = result(db(kind).execute(q)).rows();
        List<List<Object>> reference = result(TestData.classicModels().execute(q)).rows();
        assertThat(here).isEqualTo(reference);
    }
}
