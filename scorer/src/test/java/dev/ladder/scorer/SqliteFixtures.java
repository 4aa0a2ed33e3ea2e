package dev.ladder.scorer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/** Small SQLite databases that tests make for themselves. */
public final class SqliteFixtures {
    private SqliteFixtures() {}

    /** Runs {@code statements} in a new SQLite file (parent folders made) and returns it. */
    public static Path create(Path file, String... statements) throws IOException {
        if (file.getParent() != null) Files.createDirectories(file.getParent());
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement st = c.createStatement()) {
            for (String s : statements) st.execute(s);
        } catch (SQLException e) {
            throw new IOException("cannot make " + file + ": " + e.getMessage(), e);
        }
        return file;
    }
}
