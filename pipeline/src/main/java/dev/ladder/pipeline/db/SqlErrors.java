package dev.ladder.pipeline.db;

import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.Locale;

/** Maps driver exceptions to {@link ExecutionError} kinds, by vendor code where there is one. */
final class SqlErrors {

    private SqlErrors() {}

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
