package dev.ladder.pipeline.search;

import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/** The tests' own Spider-style SQLite database ({@code bookshop.sql}), written to a file and opened read-only. */
final class Bookshop {

    private Bookshop() {}

    static Database open(Path dir) {
        Path file = dir.resolve("bookshop.sqlite");
        try (InputStream in = Bookshop.class.getResourceAsStream("bookshop.sql");
             Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
             Statement st = c.createStatement()) {
            String script = new String(in.readAllBytes(), StandardCharsets.UTF_8).replaceAll("(?m)^--.*$", "");
            for (String sql : script.split(";")) {
                if (!sql.isBlank()) st.execute(sql);
            }
        } catch (IOException | SQLException e) {
            throw new IllegalStateException("cannot write the bookshop fixture: " + e.getMessage(), e);
        }
        return Databases.sqlite(file);
    }
}
