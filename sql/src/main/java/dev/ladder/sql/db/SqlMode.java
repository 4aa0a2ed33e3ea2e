package dev.ladder.sql.db;

import java.util.Locale;

/**
 * The SQL mode of MySQL-dialect sessions: which queries the server accepts.
 *
 * <p>ClassicModels is a MySQL benchmark, and the embedded server is MariaDB 10.11, whose default mode accepts some
 * queries MySQL 8 refuses: a non-aggregated column beside an aggregate without GROUP BY (ONLY_FULL_GROUP_BY), zero
 * dates. {@link #MYSQL8} sets MySQL 8.0's default mode on every session, so those fail as they would there;
 * {@link #SERVER} leaves the server's own. SQLite sessions have no SQL mode.
 */
public enum SqlMode {
    /** The server's own default (MariaDB 10.11: STRICT_TRANS_TABLES, ERROR_FOR_DIVISION_BY_ZERO, ...). */
    SERVER(null),
    /** MySQL 8.0's default sql_mode. */
    MYSQL8("ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,"
            + "NO_ENGINE_SUBSTITUTION");

    private final String sqlMode;

    SqlMode(String sqlMode) {
        this.sqlMode = sqlMode;
    }

    /** The value set with {@code SET SESSION sql_mode}, or null to leave the server's. */
    public String sessionValue() {
        return sqlMode;
    }

    /** The name users write ({@code server}, {@code mysql8}). */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @throws UserError naming the accepted values
     */
    public static SqlMode parse(String value, String where) {
        for (SqlMode m : values()) {
            if (m.label().equals(value == null ? "" : value.strip().toLowerCase(Locale.ROOT))) return m;
        }
        throw new UserError(where + " must be server or mysql8, got '" + value + "'");
    }
}
