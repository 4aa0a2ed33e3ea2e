package dev.ladder.scorer;

import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.EmbeddedMariaDb;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** Small databases on the shared embedded MariaDB that tests make for themselves (and {@link #drop} after). */
public final class MariaDbFixtures {
    private MariaDbFixtures() {}

    /** Makes database {@code name} afresh, runs {@code statements} in it, and opens it read-only as the scorers do. */
    public static Database create(String name, String... statements) throws SQLException {
        EmbeddedMariaDb server = EmbeddedMariaDb.shared();
        try (Connection c = server.adminConnection(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + name);
            st.execute("CREATE DATABASE " + name);
            st.execute("USE " + name);
            for (String s : statements) st.execute(s);
        }
        server.grantRead(name);
        return Databases.embedded(server, name);
    }

    public static void drop(String name) throws SQLException {
        try (Connection c = EmbeddedMariaDb.shared().adminConnection(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + name);
        }
    }
}
