package dev.ladder.sql.db;

import dev.ladder.sql.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** Puts a fresh connection into read-only mode at the server, whatever account it uses. */
final class ReadOnlySessions {

    private ReadOnlySessions() {}

    static void makeReadOnly(Connection c, Dialect dialect) throws SQLException {
        makeReadOnly(c, dialect, SqlMode.SERVER);
    }

    /** As {@link #makeReadOnly(Connection, Dialect)}, with the session's SQL mode (MySQL dialect only). */
    static void makeReadOnly(Connection c, Dialect dialect, SqlMode mode) throws SQLException {
        if (dialect == Dialect.MYSQL) {
            try (Statement st = c.createStatement()) {
                // every autocommit statement becomes a read-only transaction: writes fail with 1792
                st.execute("SET SESSION TRANSACTION READ ONLY");
                if (mode.sessionValue() != null) st.execute("SET SESSION sql_mode = '" + mode.sessionValue() + "'");
            }
        }
        c.setReadOnly(true);
        c.setAutoCommit(true);
    }
}
