package dev.ladder.pipeline.db;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;

/**
 * A separate process for {@link EmbeddedPersistenceTest}: {@code create ROOT} starts the embedded server under ROOT
 * and makes a database {@code kept} (then waits to be killed); {@code check ROOT} starts it and prints whether that
 * database is there; {@code hold ROOT SECONDS} starts it, prints "ready", queries it every 100 ms for that long and
 * prints "still answering" (or the failure).
 */
public final class EmbeddedProbe {
    private EmbeddedProbe() {}

    public static void main(String[] args) throws Exception {
        EmbeddedMariaDb server = EmbeddedMariaDb.forRoot(Path.of(args[1]));
        if (args[0].equals("create")) {
            try (Connection c = server.adminConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE kept");
                st.execute("CREATE TABLE kept.t (id INT PRIMARY KEY) ENGINE=InnoDB");
                st.execute("INSERT INTO kept.t VALUES (7)");
            }
            System.out.println("created");
            System.out.flush();
            Thread.sleep(120_000);   // killed by the test long before
        } else if (args[0].equals("hold")) {
            System.out.println("ready " + server.pid().orElse(-1));
            System.out.flush();
            long end = System.nanoTime() + Long.parseLong(args[2]) * 1_000_000_000L;
            try (Connection c = server.adminConnection(); Statement st = c.createStatement()) {
                while (System.nanoTime() < end) {
                    st.execute("SELECT 1");
                    Thread.sleep(100);
                }
                System.out.println("still answering");
            } catch (java.sql.SQLException e) {
                System.out.println("failed: " + e.getMessage());
            }
        } else {
            System.out.println(server.hasDatabase("kept") ? "kept" : "missing");
        }
        // as the CLI does: the shutdown hook stops the server (a plain return would wait on its process forever)
        System.out.flush();
        System.exit(0);
    }
}
