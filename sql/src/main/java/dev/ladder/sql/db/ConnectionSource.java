package dev.ladder.sql.db;

import java.sql.Connection;
import java.sql.SQLException;

/** Opens new read-only connections to one database. */
@FunctionalInterface
interface ConnectionSource {
    Connection open() throws SQLException;
}
