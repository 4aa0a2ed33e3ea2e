package dev.ladder.sql.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ladder.sql.Dialect;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * The rule that tells infrastructure errors (never a property of the SQL) from errors of the SQL, on
 * exceptions as the drivers make them: Connector/J's own, from a port nobody listens on and from a server
 * that accepts and never speaks, and SQLite's with real result codes.
 */
class InfrastructureErrorsTest {

    @Test
    void noServerAtThePortIsInfrastructure() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        SQLException e = catchThrowableOfType(() -> DriverManager.getConnection(
                "jdbc:mysql://127.0.0.1:" + port + "/x?connectTimeout=2000&socketTimeout=2000", "u", "p"),
                SQLException.class);
        assertThat(e.getSQLState()).startsWith("08");
        assertThat(SqlErrors.infrastructure(Dialect.MYSQL, e)).isTrue();
    }

    @Test
    void aServerThatNeverAnswersIsInfrastructureAfterTheSocketTimeout() throws IOException {
        List<Socket> accepted = new ArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    accepted.add(silent.accept()); // accepts like a frozen server's kernel does, then says nothing
                } catch (IOException ignored) {
                    // closed at the end of the test
                }
            });
            acceptor.start();
            SQLException e = catchThrowableOfType(() -> DriverManager.getConnection(
                    "jdbc:mysql://127.0.0.1:" + silent.getLocalPort() + "/x?connectTimeout=300&socketTimeout=300", "u", "p"),
                    SQLException.class);
            assertThat((Throwable) e).isNotInstanceOf(SQLTimeoutException.class);
            assertThat(SqlErrors.infrastructure(Dialect.MYSQL, e)).isTrue();
        } finally {
            for (Socket s : accepted) s.close();
        }
    }

    @Test
    void mariaDbServerTroubleCodesAreInfrastructure() {
        // codes and states as MariaDB sends them: disk full, too many connections, gone away, lost during query,
        // lock wait timeout, connection killed
        assertThat(SqlErrors.infrastructure(Dialect.MYSQL, new SQLException("Disk full (/tmp/#sql.MAI)", "HY000", 1021))).isTrue();
        assertThat(SqlErrors.infrastructure(Dialect.MYSQL, new SQLException("Too many connections", "08004", 1040))).isTrue();
        assertThat(SqlErrors.infrastructure(Dialect.MYSQL, new SQLException("Lost connection to server during query", "HY000", 2013))).isTrue();
        assertThat(SqlErrors.infrastructure(Dialect.MYSQL, new SQLException("Lock wait timeout exceeded; try restarting transaction", "HY000", 1205))).isTrue();
        assertThat(SqlErrors.infrastructure(Dialect.MYSQL, new SQLException("Connection was killed", "70100", 1927))).isTrue();
    }

    @Test
    void errorsOfTheSqlAreNotInfrastructure() {
        // the statement limit the guard sets on purpose is a property of the SQL, on both of its paths
        assertThat(SqlErrors.infrastructure(Dialect.MYSQL,
                new SQLException("Query execution was interrupted (max_statement_time exceeded)", "70100", 1969))).isFalse();
        assertThat(SqlErrors.infrastructure(Dialect.MYSQL,
                new SQLTimeoutException("Statement cancelled due to timeout or client request", "HY008", 0))).isFalse();
        assertThat(SqlErrors.infrastructure(Dialect.MYSQL, new SQLException("You have an error in your SQL syntax", "42000", 1064))).isFalse();
        assertThat(SqlErrors.infrastructure(Dialect.MYSQL, new SQLException("Table 'classicmodels.nope' doesn't exist", "42S02", 1146))).isFalse();
        assertThat(SqlErrors.infrastructure(Dialect.MYSQL, new SQLException("Subquery returns more than 1 row", "21000", 1242))).isFalse();
        assertThat(SqlErrors.infrastructure(Dialect.SQLITE,
                new SQLiteException("[SQLITE_ERROR] SQL error or missing database (no such column: x)", SQLiteErrorCode.SQLITE_ERROR))).isFalse();
        assertThat(SqlErrors.infrastructure(Dialect.SQLITE,
                new SQLiteException("[SQLITE_INTERRUPT] Operation terminated by sqlite3_interrupt()", SQLiteErrorCode.SQLITE_INTERRUPT))).isFalse();
    }

    @Test
    void sqliteDiskAndLockTroubleIsInfrastructure() {
        assertThat(SqlErrors.infrastructure(Dialect.SQLITE,
                new SQLiteException("[SQLITE_FULL] Insertion failed because database is full", SQLiteErrorCode.SQLITE_FULL))).isTrue();
        assertThat(SqlErrors.infrastructure(Dialect.SQLITE,
                new SQLiteException("[SQLITE_BUSY] The database file is locked", SQLiteErrorCode.SQLITE_BUSY))).isTrue();
        // an extended code keeps its primary code in the low byte
        assertThat(SqlErrors.infrastructure(Dialect.SQLITE,
                new SQLiteException("[SQLITE_IOERR_READ] I/O error during read", SQLiteErrorCode.SQLITE_IOERR_READ))).isTrue();
    }
}
