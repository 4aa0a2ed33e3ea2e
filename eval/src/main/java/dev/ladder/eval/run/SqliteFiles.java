package dev.ladder.eval.run;

import dev.ladder.sql.db.UserError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/** Opening Ladder's own SQLite files (results store, generation cache) with durable settings and a schema check. */
final class SqliteFiles {

    private SqliteFiles() {}

    /**
     * A connection in auto-commit mode: rollback journal, {@code synchronous=FULL} (each commit is on disk before it
     * returns), foreign keys enforced, and a 30 s wait on a lock held by another connection.
     */
    static Connection connect(Path file, boolean readOnly) throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        config.setReadOnly(readOnly);
        config.setJournalMode(SQLiteConfig.JournalMode.DELETE);
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        config.enforceForeignKeys(true);
        config.setBusyTimeout(30_000);
        return config.createConnection("jdbc:sqlite:" + file);
    }

    /**
     * A read-only connection that a killed writer's journal cannot lock out. A process killed during a commit leaves a
     * hot journal ({@code FILE-journal}); a read-only connection cannot roll it back and fails with
     * SQLITE_READONLY_ROLLBACK on every try, while a read-write connection rolls it back on its first read. So a file
     * with a journal beside it is first read once through a read-write connection. That is safe beside a live writer:
     * SQLite calls a journal hot only when no connection holds a RESERVED lock on the file, and a writer holds one
     * from its first write to the end of its commit, so a live transaction's journal is left alone. (Kept over WAL:
     * WAL needs the {@code -shm} file beside the database writable even to read, so a run folder on read-only media
     * could not be read at all, and it does not work on network file systems, where a shared generation cache may
     * live; docs/faults.md.)
     *
     * @throws UserError when a hot journal must be rolled back and the file or its folder cannot be written
     */
    static Connection connectReadOnly(Path file, String what) throws SQLException {
        if (Files.exists(journal(file))) rollBackHotJournal(file, what);
        try {
            return opened(connect(file, true));
        } catch (SQLiteException e) {
            if (e.getResultCode() != SQLiteErrorCode.SQLITE_READONLY_ROLLBACK) throw e;
        }
        // a writer was killed between the look above and the open: once more
        rollBackHotJournal(file, what);
        return opened(connect(file, true));
    }

    static Path journal(Path file) {
        return file.resolveSibling(file.getFileName() + "-journal");
    }

    /** Reads the file once through a read-write connection, which rolls back a hot journal (and nothing else). */
    private static void rollBackHotJournal(Path file, String what) throws SQLException {
        try (Connection writable = connect(file, false); Statement s = writable.createStatement()) {
            s.executeQuery("SELECT count(*) FROM sqlite_master").close();
        } catch (SQLiteException e) {
            boolean readOnly = e.getResultCode() == SQLiteErrorCode.SQLITE_READONLY_ROLLBACK;
            if (!readOnly && Files.isWritable(file) && Files.isWritable(file.getParent())) throw e;
            throw new UserError(file + " was left mid-write by a killed process, and its journal " + journal(file)
                    .getFileName() + " must be rolled back before the " + what + " can be read, which needs "
                    + file.getParent() + " writable: make it writable, or copy the folder to writable storage, and run "
                    + "again", e);
        }
    }

    /** The connection after its first read (a hot journal shows there, as SQLITE_READONLY_ROLLBACK). */
    private static Connection opened(Connection db) throws SQLException {
        try (Statement s = db.createStatement()) {
            s.executeQuery("SELECT count(*) FROM sqlite_master").close();
            return db;
        } catch (SQLException | RuntimeException e) {
            closeQuietly(db);
            throw e;
        }
    }

    /**
     * Checks the file's {@code application_id} and {@code user_version}; an empty file gets {@code schema} (when not
     * null) and both header fields in one transaction.
     *
     * @throws UserError for a foreign SQLite file, another schema version, or an empty file opened read-only
     */
    static void checkOrCreate(Connection db, Path file, String what, int applicationId, int version, String schema)
            throws SQLException {
        checkOrCreate(db, file, what, applicationId, version, schema, Map.of());
    }

    /**
     * As above, and a file of an older version that {@code upgrades} covers is brought up to {@code version} in one
     * transaction: {@code upgrades.get(v)} holds the statements that take version {@code v} to {@code v + 1}.
     */
    static void checkOrCreate(Connection db, Path file, String what, int applicationId, int version, String schema,
                              Map<Integer, String> upgrades) throws SQLException {
        try (Statement s = db.createStatement()) {
            if (userVersion(s) == 0 && schema != null) {
                // IMMEDIATE: two processes creating the same shared file must not both create the schema
                s.execute("BEGIN IMMEDIATE");
                try {
                    if (userVersion(s) == 0) {
                        if (tableCount(s) > 0) {
                            throw new UserError(file + " is a SQLite file but not a Ladder " + what
                                    + " (it has tables but no Ladder schema version)");
                        }
                        for (String statement : schema.split(";")) {
                            if (!statement.isBlank()) s.execute(statement);
                        }
                        s.execute("PRAGMA application_id = " + applicationId);
                        s.execute("PRAGMA user_version = " + version);
                    }
                    s.execute("COMMIT");
                } catch (SQLException | RuntimeException e) {
                    rollBack(s, e);
                    throw e;
                }
            }
            int app = intPragma(s, "application_id");
            int before = userVersion(s);
            if (app == applicationId && before > 0 && before < version && upgrades.containsKey(before)) {
                s.execute("BEGIN IMMEDIATE");
                try {
                    for (int v = userVersion(s); v < version && upgrades.containsKey(v); v++) {
                        for (String statement : upgrades.get(v).split(";")) {
                            if (!statement.isBlank()) s.execute(statement);
                        }
                        s.execute("PRAGMA user_version = " + (v + 1));
                    }
                    s.execute("COMMIT");
                } catch (SQLException | RuntimeException e) {
                    rollBack(s, e);
                    throw e;
                }
            }
            int found = userVersion(s);
            if (app != applicationId) {
                throw new UserError(file + " is not a Ladder " + what + " (SQLite application_id "
                        + Integer.toHexString(app) + ", expected " + Integer.toHexString(applicationId) + ")");
            }
            if (found > version) {
                throw new UserError(file + " has " + what + " schema version " + found + ", written by a newer Ladder; "
                        + "this Ladder reads version " + version + " (upgrade Ladder or use a new file)");
            }
            if (found != version) {
                throw new UserError(file + " has unknown " + what + " schema version " + found
                        + "; this Ladder reads version " + version);
            }
        }
    }

    /** Whether the file is of this application and an older schema version (an upgrade may apply). */
    static boolean needsUpgrade(Connection db, int applicationId, int version) throws SQLException {
        try (Statement s = db.createStatement()) {
            int found = userVersion(s);
            return intPragma(s, "application_id") == applicationId && found > 0 && found < version;
        }
    }

    private static int userVersion(Statement s) throws SQLException {
        return intPragma(s, "user_version");
    }

    private static int intPragma(Statement s, String pragma) throws SQLException {
        try (ResultSet rs = s.executeQuery("PRAGMA " + pragma)) {
            return rs.next() ? rs.getInt(1) : 0;
        }
    }

    private static int tableCount(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT count(*) FROM sqlite_master")) {
            return rs.next() ? rs.getInt(1) : 0;
        }
    }

    /**
     * Rolls back the transaction that {@code failed}. SQLite has already rolled it back itself after some errors (a
     * full disk among them), and then the ROLLBACK fails too: that failure is added to the first, never put in its
     * place.
     */
    static void rollBack(Statement s, Exception failed) {
        try {
            s.execute("ROLLBACK");
        } catch (SQLException e) {
            failed.addSuppressed(e);
        }
    }

    static void closeQuietly(Connection db) {
        if (db == null) return;
        try {
            db.close();
        } catch (SQLException ignored) {
            // nothing useful to do while closing
        }
    }
}
