package dev.ladder.sql.db;

import dev.ladder.sql.Dialect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteLimits;
import org.sqlite.SQLiteOpenMode;

/**
 * Opens {@link Database}s from what a user types:
 * <ul>
 *   <li>a known name ({@code classicmodels}): the embedded MariaDB, loaded on first use; or, with
 *       an external server URL, that database on that server</li>
 *   <li>{@code jdbc:mysql://host:port/db?user=...} or {@code jdbc:mariadb://...}: an external server</li>
 *   <li>a path to a {@code .sqlite}, {@code .sqlite3} or {@code .db} file: SQLite, opened read-only</li>
 * </ul>
 */
public final class Databases {

    public static final Set<String> KNOWN = Set.of(ClassicModels.NAME);

    private Databases() {}

    /** Opens {@code spec} with the configured data directory and the embedded server. */
    public static Database open(String spec) {
        return open(spec, LadderPaths.dataDir(), Optional.empty());
    }

    /**
     * @param dataDir   where dumps are looked for before downloading
     * @param serverUrl an external MySQL/MariaDB server for known names (instead of the embedded one)
     */
    public static Database open(String spec, Optional<Path> dataDir, Optional<String> serverUrl) {
        return open(spec, dataDir, serverUrl, SqlMode.SERVER);
    }

    /** As {@link #open(String, Optional, Optional)}, MySQL-dialect sessions in {@code mode}. */
    public static Database open(String spec, Optional<Path> dataDir, Optional<String> serverUrl, SqlMode mode) {
        if (spec == null || spec.isBlank()) throw new UserError("no database given");
        String s = spec.strip();
        if (s.startsWith("jdbc:")) return external(s, mode);
        String lower = s.toLowerCase(Locale.ROOT);
        if (KNOWN.contains(lower)) {
            if (serverUrl.isPresent()) return external(withDatabase(serverUrl.get(), lower), mode);
            EmbeddedMariaDb server = EmbeddedMariaDb.shared();
            ClassicModels.ensureLoaded(server, dataDir);
            // after a restart the load is verified (and redone if the server lost it)
            return new JdbcDatabase(lower, DatabaseKind.EMBEDDED_MARIADB,
                    () -> server.readerConnection(lower, ConnectionTimeouts.DEFAULT, mode), null, () -> {
                        if (server.recover(recoveryPatience(ConnectionTimeouts.DEFAULT))) ClassicModels.ensureLoaded(server, dataDir);
                    }, ConnectionTimeouts.DEFAULT);
        }
        if (lower.endsWith(".sqlite") || lower.endsWith(".sqlite3") || lower.endsWith(".db") || Files.isRegularFile(Path.of(s))) {
            return sqlite(Path.of(s));
        }
        throw new UserError("unknown database '" + spec + "': use one of " + KNOWN
                + ", a jdbc:mysql:// URL, or a path to a SQLite file");
    }

    /** A database on the embedded server, read through the SELECT-only account. */
    public static Database embedded(EmbeddedMariaDb server, String database) {
        return embedded(server, database, ConnectionTimeouts.DEFAULT);
    }

    /** As {@link #embedded(EmbeddedMariaDb, String)} with other client-side timeouts (tests use short ones). */
    public static Database embedded(EmbeddedMariaDb server, String database, ConnectionTimeouts timeouts) {
        return embedded(server, database, timeouts, SqlMode.SERVER);
    }

    /** As {@link #embedded(EmbeddedMariaDb, String, ConnectionTimeouts)}, sessions in {@code mode}. */
    public static Database embedded(EmbeddedMariaDb server, String database, ConnectionTimeouts timeouts, SqlMode mode) {
        return new JdbcDatabase(database, DatabaseKind.EMBEDDED_MARIADB,
                () -> server.readerConnection(database, timeouts, mode), null, () -> server.recover(recoveryPatience(timeouts)),
                timeouts);
    }

    /** How long a lost embedded server is waited for before the one retry: three connect timeouts. */
    static Duration recoveryPatience(ConnectionTimeouts timeouts) {
        return timeouts.connect().multipliedBy(3);
    }

    /**
     * An external MySQL/MariaDB database. The session is read-only; for a second, independent
     * barrier give a URL whose account holds only SELECT.
     */
    public static Database external(String url) {
        return external(url, SqlMode.SERVER);
    }

    /** As {@link #external(String)}, sessions in {@code mode}. */
    public static Database external(String url, SqlMode mode) {
        String database = databaseOf(url);
        if (database.isEmpty()) {
            throw new UserError("the URL " + redact(url) + " names no database: use jdbc:mysql://host:port/DATABASE");
        }
        String jdbc = url.replaceFirst("^jdbc:mariadb:", "jdbc:mysql:");
        try (Connection probe = DriverManager.getConnection(jdbc, timeoutProperties(ConnectionTimeouts.DEFAULT))) {
            probe.isValid(5);
        } catch (SQLException e) {
            // drivers write several lines ("Communications link failure\n\nThe last packet ..."): one is enough
            throw new UserError("cannot connect to " + redact(url) + ": "
                    + String.valueOf(e.getMessage()).lines().findFirst().orElse("").strip(), e);
        }
        // reconnecting is the only recovery for a server Ladder does not run
        return new JdbcDatabase(database, DatabaseKind.EXTERNAL_MYSQL, () -> {
            Connection c = DriverManager.getConnection(jdbc, timeoutProperties(ConnectionTimeouts.DEFAULT));
            ReadOnlySessions.makeReadOnly(c, Dialect.MYSQL, mode);
            return c;
        }, null, () -> { }, ConnectionTimeouts.DEFAULT);
    }

    /**
     * Connect and setup socket timeouts for an external server; {@link JdbcDatabase} sets each statement's
     * socket timeout on top.
     */
    static Properties timeoutProperties(ConnectionTimeouts timeouts) {
        Properties p = new Properties();
        p.setProperty("connectTimeout", Long.toString(timeouts.connect().toMillis()));
        p.setProperty("socketTimeout", Long.toString(timeouts.socket(ExecutionLimits.DEFAULT.timeout()).toMillis()));
        return p;
    }

    /** A SQLite file opened with {@code mode=ro}: the file cannot change through this connection. */
    public static Database sqlite(Path file) {
        Path abs = file.toAbsolutePath().normalize();
        if (!Files.isRegularFile(abs)) throw new UserError("no such SQLite file: " + abs);
        String name = abs.getFileName().toString().replaceFirst("\\.(sqlite3?|db)$", "");
        try (Connection probe = sqliteReadOnlyConnection(abs); Statement st = probe.createStatement()) {
            st.executeQuery("SELECT count(*) FROM sqlite_master").close();
        } catch (SQLException e) {
            throw new UserError("cannot open " + abs + " as SQLite: " + e.getMessage(), e);
        }
        return new JdbcDatabase(name, DatabaseKind.SQLITE_FILE, () -> sqliteReadOnlyConnection(abs), null, () -> { },
                ConnectionTimeouts.DEFAULT);
    }

    /** The connection guarded execution uses for a SQLite file: read-only open mode and session. */
    static Connection sqliteReadOnlyConnection(Path file) throws SQLException {
        SQLiteConfig cfg = new SQLiteConfig();
        cfg.setReadOnly(true);
        cfg.setOpenMode(SQLiteOpenMode.READONLY);
        Connection c = cfg.createConnection("jdbc:sqlite:file:" + file + "?mode=ro");
        // SQLite builds values inside this process: a longer string or blob is an error, never an allocation
        c.unwrap(SQLiteConnection.class).setLimit(SQLiteLimits.SQLITE_LIMIT_LENGTH,
                ExecutionLimits.ENGINE_VALUE_LIMIT);
        ReadOnlySessions.makeReadOnly(c, Dialect.SQLITE);
        return c;
    }

    static String databaseOf(String url) {
        String rest = url.replaceFirst("^jdbc:(mysql|mariadb)://", "");
        int slash = rest.indexOf('/');
        if (slash < 0) return "";
        String db = rest.substring(slash + 1);
        int q = db.indexOf('?');
        return q >= 0 ? db.substring(0, q) : db;
    }

    /** {@code url} with its path replaced by {@code database} (query kept). */
    static String withDatabase(String url, String database) {
        if (!url.startsWith("jdbc:mysql://") && !url.startsWith("jdbc:mariadb://")) {
            throw new UserError("--url must be a jdbc:mysql:// or jdbc:mariadb:// URL, got " + redact(url));
        }
        String scheme = url.substring(0, url.indexOf("://") + 3);
        String rest = url.substring(scheme.length());
        int q = rest.indexOf('?');
        String query = q >= 0 ? rest.substring(q) : "";
        String hostPart = (q >= 0 ? rest.substring(0, q) : rest);
        int slash = hostPart.indexOf('/');
        if (slash >= 0) hostPart = hostPart.substring(0, slash);
        return scheme + hostPart + "/" + database + query;
    }

    /** The URL without its password, for messages. */
    public static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&]*", "$1***").replaceAll("//([^:/@]+):[^@/]*@", "//$1:***@");
    }
}
