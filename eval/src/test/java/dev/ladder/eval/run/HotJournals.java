package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * Real hot journals: a child JVM starts a transaction big enough to spill SQLite's 2 MB page cache (so the file
 * itself is changed before the commit) and is killed with SIGKILL before it commits.
 */
public final class HotJournals {

    private static final int ROWS = 400;

    private HotJournals() {}

    /**
     * Kills a child in the middle of a big transaction on {@code file}, which then has a hot journal beside it.
     * {@code store}: a results store with 5 rows of {@link StoreKillTest#row}, the transaction adding 400 more through
     * {@link ResultsStore#inOneTransaction}; {@code raw}: any existing SQLite file, the transaction filling a new table.
     */
    public static void make(String kind, Path file) throws IOException, InterruptedException {
        Process p = child(HotJournals.class, kind, file.toString()).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            // a logging library may print first
            while (line != null && !line.equals("in transaction")) line = out.readLine();
            assertThat(line).isEqualTo("in transaction");
        } finally {
            p.toHandle().destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        assertThat(SqliteFiles.journal(file)).isNotEmptyFile();
        assertThat(readOnlyPlain(file)).as("the journal is hot").isEqualTo(SQLiteErrorCode.SQLITE_READONLY_ROLLBACK);
    }

    /** What a plain read-only SQLite connection makes of the file: SQLITE_OK, or why it cannot read it. */
    public static SQLiteErrorCode readOnlyPlain(Path file) {
        SQLiteConfig config = new SQLiteConfig();
        config.setReadOnly(true);
        try (Connection db = config.createConnection("jdbc:sqlite:" + file); Statement s = db.createStatement()) {
            s.executeQuery("SELECT count(*) FROM sqlite_master").close();
            return SQLiteErrorCode.SQLITE_OK;
        } catch (SQLiteException e) {
            return e.getResultCode();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A child JVM on this one's class path, quick to start (these live for a fraction of a second). */
    static ProcessBuilder child(Class<?> main, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto", "-XX:-UsePerfData",
                "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
    }

    /** The child: {@code store|raw FILE}. */
    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[1]);
        if (args[0].equals("store")) {
            try (ResultsStore store = ResultsStore.open(file)) {
                store.putCell(StoreKillTest.CELL);
                for (int i = 0; i < 5; i++) store.put(StoreKillTest.row(i), i, StoreKillTest.trace(i, 100));
                store.inOneTransaction(() -> {
                    for (int i = 5; i < 5 + ROWS; i++) store.put(StoreKillTest.row(i), i, StoreKillTest.trace(i, 8000));
                    waitToBeKilled();
                });
            }
        } else {
            try (Connection db = SqliteFiles.connect(file, false); Statement s = db.createStatement()) {
                s.execute("BEGIN");
                s.execute("CREATE TABLE scratch (x BLOB)");
                for (int i = 0; i < ROWS; i++) s.execute("INSERT INTO scratch VALUES (randomblob(8000))");
                waitToBeKilled();
            }
        }
    }

    private static void waitToBeKilled() {
        System.out.println("in transaction");
        System.out.flush();
        try {
            Thread.sleep(TimeUnit.MINUTES.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
