package dev.ladder.sql.db;

import java.time.Duration;

/**
 * Client-side limits of every JDBC connection Ladder opens to MySQL/MariaDB, so that a frozen or
 * unreachable server is an error instead of a hang.
 *
 * @param connect how long opening a connection may take: TCP connect, and (as the socket timeout while
 *                the session is set up) the handshake and the session settings
 * @param margin  added to a statement's own time limit to make its socket timeout: a statement the server
 *                stops at its limit ({@code max_statement_time}) is a TIMEOUT of the SQL, so the socket must
 *                outlast it; a socket timeout after limit + margin means the server did not answer at all
 */
public record ConnectionTimeouts(Duration connect, Duration margin) {

    /** 10 s to connect; the longest guard limit in use is 5 minutes (SQLite export), default 10 s: +30 s. */
    public static final ConnectionTimeouts DEFAULT = new ConnectionTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(30));

    public ConnectionTimeouts {
        if (connect == null || connect.isNegative() || connect.isZero()) throw new IllegalArgumentException("connect must be positive");
        if (margin == null || margin.isNegative() || margin.isZero()) throw new IllegalArgumentException("margin must be positive");
    }

    /** The socket timeout of a statement run under {@code statementTimeout}. */
    public Duration socket(Duration statementTimeout) {
        return statementTimeout.plus(margin);
    }
}
