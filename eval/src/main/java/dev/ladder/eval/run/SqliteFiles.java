package dev.ladder.eval.run;

import dev.ladder.sql.db.UserError;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.sqlite.SQLiteConfig;

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
                    s.execute("ROLLBACK");
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
                    s.execute("ROLLBACK");
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

    static void closeQuietly(Connection db) {
        if (db == null) return;
        try {
            db.close();
        } catch (SQLException ignored) {
            // nothing useful to do while closing
        }
    }
}
