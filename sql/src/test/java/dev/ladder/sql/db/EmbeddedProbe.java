package dev.ladder.sql.db;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;

/**
 * A separate process for {@link EmbeddedPersistenceTest}: {@code create ROOT} starts the embedded server under ROOT
 * and makes a database {@code kept} (then waits to be killed); {@code check ROOT} starts it and prints whether that
 * database is there; {@code hold ROOT SECONDS} starts it, prints "ready", queries it every 100 ms for that long and
 * prints "still answering" (or the failure); {@code lock ROOT SECONDS} only takes the start/stop lock file and holds it
 * for that long, as a process stuck while starting or stopping would; {@code query ROOT GO_FILE} starts it, prints
 * "ready", waits for GO_FILE to appear, then runs ten statements on a guarded database and prints "answered N" (or
 * the failure).
 */
public final class EmbeddedProbe {
    private EmbeddedProbe() {}

    public static void main(String[] args) throws Exception {
        if (args[0].equals("lock")) {
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(Path.of(args[1], "server.lock"),
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE);
                 java.nio.channels.FileLock lock = ch.lock()) {
                System.out.println("locked");
                System.out.flush();
                Thread.sleep(Long.parseLong(args[2]) * 1000);
            }
            return;
        }
        EmbeddedMariaDb server = EmbeddedMariaDb.forRoot(Path.of(args[1]));
        if (args[0].equals("query")) {
            try (Connection c = server.adminConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE IF NOT EXISTS probe");
            }
            server.grantRead("probe");
            System.out.println("ready " + server.pid().orElse(-1));
            System.out.flush();
            Path go = Path.of(args[2]);
            for (int i = 0; i < 1200 && !java.nio.file.Files.exists(go); i++) Thread.sleep(100);
            int answered = 0;
            try (Database db = Databases.embedded(server, "probe", new ConnectionTimeouts(java.time.Duration.ofSeconds(2),
                    java.time.Duration.ofSeconds(2)))) {
                for (int i = 0; i < 10; i++) {
                    Execution e = db.execute("SELECT 1", ExecutionLimits.DEFAULT.withTimeout(java.time.Duration.ofSeconds(1)));
                    if (!e.ok()) throw new IllegalStateException(e.toString());
                    answered++;
                }
                System.out.println("answered " + answered);
            } catch (RuntimeException e) {
                System.out.println("failed: " + e.getMessage());
            }
            System.out.flush();
            System.exit(0);
        }
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
