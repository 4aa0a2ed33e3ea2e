package dev.ladder.sql.db;

import dev.ladder.sql.Dialect;
import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;

/**
 * Maps driver exceptions to {@link ExecutionError} kinds, by vendor code where there is one, and tells
 * infrastructure errors (no property of the SQL) apart from errors of the SQL. This is the one place
 * that rule lives; docs/faults.md states it.
 */
final class SqlErrors {

    private SqlErrors() {}

    /**
     * MySQL/MariaDB codes that say the server or its host is in trouble, not the statement: disk full (1021),
     * out of memory (1037, 1038, 1041), too many connections (1040, 1203), cannot create a socket (1081), shutdown
     * in progress (1053), host blocked (1129), aborted connection (1152-1161: network read/write errors), lock
     * wait timeout and deadlock (1205, 1213: another session held the rows), connection killed (1927), and the
     * client's own codes for an unreachable or lost server (2002, 2003, 2006, 2013, 2055).
     */
    private static final Set<Integer> MYSQL_INFRASTRUCTURE = Set.of(1021, 1037, 1038, 1040, 1041, 1053, 1081, 1129,
            1152, 1153, 1154, 1155, 1156, 1157, 1158, 1159, 1160, 1161, 1203, 1205, 1213, 1927, 2002, 2003, 2006, 2013,
            2055);

    /** SQLite primary result codes of the same sort: BUSY, LOCKED, NOMEM, IOERR, FULL, CANTOPEN. */
    private static final Set<Integer> SQLITE_INFRASTRUCTURE = Set.of(5, 6, 7, 10, 13, 14);

    /**
     * True when {@code e} says the database could not answer rather than that the SQL is wrong: a connection
     * exception (SQLState class 08, which includes a socket timeout: the server did not answer within the
     * statement's limit plus {@link ConnectionTimeouts#margin}), a network failure under it, or one of the
     * vendor codes above. A statement stopped at its own time limit is not: that is a property of the SQL.
     */
    static boolean infrastructure(Dialect dialect, SQLException e) {
        for (SQLException x = e; x != null; x = x.getNextException()) {
            String state = x.getSQLState();
            if (state != null && state.startsWith("08")) return true;
            if (dialect == Dialect.MYSQL && MYSQL_INFRASTRUCTURE.contains(x.getErrorCode())) return true;
            if (dialect == Dialect.SQLITE && SQLITE_INFRASTRUCTURE.contains(x.getErrorCode() & 0xff)) return true;
            for (Throwable t = x.getCause(); t != null && t != x; t = t.getCause()) {
                if (t instanceof IOException) return true; // SocketException, SocketTimeoutException, EOFException
            }
            if (x.getNextException() == x) break;
        }
        return false;
    }

    static ExecutionError classify(Dialect dialect, SQLException e, Duration timeout) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        String lower = message.toLowerCase(Locale.ROOT);
        if (e instanceof SQLTimeoutException) return new ExecutionError(ExecutionError.Kind.TIMEOUT, timeoutMessage(timeout, message));
        if (dialect == Dialect.MYSQL) {
            switch (e.getErrorCode()) {
                case 1064, 1149:
                    return new ExecutionError(ExecutionError.Kind.SYNTAX, message);
                case 1146, 1109, 1051:
                    return new ExecutionError(ExecutionError.Kind.UNKNOWN_TABLE, message);
                case 1054, 1052, 1247:
                    return new ExecutionError(ExecutionError.Kind.UNKNOWN_COLUMN, message);
                case 1969, 3024, 1317, 1028:
                    return new ExecutionError(ExecutionError.Kind.TIMEOUT, timeoutMessage(timeout, message));
                case 1142, 1143, 1044, 1045, 1227, 1370, 1792, 1290:
                    // the server refused: SELECT-only account or read-only session
                    return new ExecutionError(ExecutionError.Kind.REJECTED, message);
                default:
                    break;
            }
        } else {
            if (lower.contains("interrupted")) return new ExecutionError(ExecutionError.Kind.TIMEOUT, timeoutMessage(timeout, message));
            if (lower.contains("no such table")) return new ExecutionError(ExecutionError.Kind.UNKNOWN_TABLE, message);
            if (lower.contains("no such column") || lower.contains("ambiguous column")) {
                return new ExecutionError(ExecutionError.Kind.UNKNOWN_COLUMN, message);
            }
            if (lower.contains("syntax error") || lower.contains("incomplete input") || lower.contains("unrecognized token")) {
                return new ExecutionError(ExecutionError.Kind.SYNTAX, message);
            }
            if (lower.contains("readonly database") || lower.contains("not authorized")) {
                return new ExecutionError(ExecutionError.Kind.REJECTED, message);
            }
        }
        return new ExecutionError(ExecutionError.Kind.OTHER, message);
    }

    private static String timeoutMessage(Duration timeout, String message) {
        return "exceeded the " + timeout.toMillis() + " ms limit (" + message + ")";
    }

    /** True when the connection cannot be reused after this error. */
    static boolean connectionBroken(SQLException e) {
        String state = e.getSQLState();
        return state != null && state.startsWith("08");
    }
}
