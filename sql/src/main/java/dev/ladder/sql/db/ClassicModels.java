package dev.ladder.sql.db;

import dev.ladder.sql.Dialect;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ClassicModels sample database (mysqltutorial.org, version 3.1): where its dump comes from,
 * how it is loaded, and how a load is verified (8 tables with known row counts).
 */
public final class ClassicModels {

    private static final Logger log = LoggerFactory.getLogger(ClassicModels.class);

    public static final String NAME = "classicmodels";
    public static final String DUMP_FILE = "mysqlsampledatabase.sql";
    public static final String DUMP_SHA256 = "94cdaf7167f74f3c08d30d78774ad5345e15c009e23abfc0f1125f278533a10c";
    /** The dump as published, pinned to one commit of a public mirror (same bytes as mysqltutorial.org's v3.1). */
    public static final URI DEFAULT_URL = URI.create("https://raw.githubusercontent.com/hhorak/mysql-sample-db/"
            + "07992002687b6cc73ba79bd7a3b6abb18a774d99/mysqlsampledatabase.sql");

    /** Row counts of a correct load (MariaDB 10.11); a load that differs is rejected. */
    public static final Map<String, Long> EXPECTED_ROWS = expectedRows();

    private ClassicModels() {}

    private static Map<String, Long> expectedRows() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("customers", 122L);
        m.put("employees", 23L);
        m.put("offices", 7L);
        m.put("orderdetails", 2996L);
        m.put("orders", 326L);
        m.put("payments", 273L);
        m.put("productlines", 7L);
        m.put("products", 110L);
        return Collections.unmodifiableMap(m);
    }

    /** Download source: {@code LADDER_CLASSICMODELS_URL} / {@code ladder.classicmodels.url}, else the public mirror. */
    static URI downloadUrl() {
        String prop = System.getProperty("ladder.classicmodels.url");
        if (prop == null || prop.isBlank()) prop = System.getenv("LADDER_CLASSICMODELS_URL");
        return prop == null || prop.isBlank() ? DEFAULT_URL : URI.create(prop);
    }

    /**
     * The dump file: from the data directory if it has one ({@code <dir>/classicmodels/} or
     * {@code <dir>/}), else from the user cache, downloading it there first if needed.
     */
    public static Path resolveDump(Optional<Path> dataDir) {
        return resolveDump(dataDir, LadderPaths.cacheDir(), downloadUrl());
    }

    static Path resolveDump(Optional<Path> dataDir, Path cacheDir, URI url) {
        if (dataDir.isPresent()) {
            for (Path candidate : List.of(dataDir.get().resolve(NAME).resolve(DUMP_FILE), dataDir.get().resolve(DUMP_FILE))) {
                if (Files.isRegularFile(candidate)) return candidate;
            }
            log.warn("data directory {} has no {}/{}; using the user cache", dataDir.get(), NAME, DUMP_FILE);
        }
        Path cached = cacheDir.resolve("data").resolve(NAME).resolve(DUMP_FILE);
        if (!Files.isRegularFile(cached)) {
            System.err.println("Downloading the ClassicModels dump from " + url);
            Downloads.fetch(url, cached, DUMP_SHA256, "classicmodels");
        }
        return cached;
    }

    /** Reads the dump as text (UTF-8; the file mixes CR and CRLF line ends, which SQL does not care about). */
    static String readDump(Path dump) {
        try {
            return Files.readString(dump, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UserError("cannot read the ClassicModels dump " + dump + ": " + e.getMessage(), e);
        }
    }

    /**
     * Loads the dump into the server behind {@code admin} as database {@code target}, replacing
     * what was there, and verifies the row counts. The dump's own CREATE DATABASE and USE are
     * skipped so that it can load under any name. On any failure the database is dropped again,
     * so a failed load leaves nothing behind.
     */
    static void load(Connection admin, Path dump, String target) {
        String script = readDump(dump);
        List<String> statements = SqlScript.split(script, dump.toString());
        String quoted = SchemaIntrospector.quote(Dialect.MYSQL, target);
        try (Statement st = admin.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + quoted);
            try {
                st.execute("CREATE DATABASE " + quoted + " DEFAULT CHARACTER SET latin1");
                st.execute("USE " + quoted);
                for (String s : statements) {
                    if (SqlScript.isSetNames(s) || SqlScript.isDatabaseSwitch(s)) continue;
                    st.execute(s);
                }
                verify(rowCounts(admin, target), dump.toString());
            } catch (SQLException | UserError e) {
                st.execute("DROP DATABASE IF EXISTS " + quoted);
                throw e;
            }
        } catch (SQLException e) {
            throw new UserError("loading " + dump + " failed: " + e.getMessage(), e);
        }
    }

    /** Row counts of the current database ({@code USE}d by the caller). */
    static Map<String, Long> rowCounts(Connection c, String database) throws SQLException {
        Map<String, Long> counts = new TreeMap<>();
        try (var ps = c.prepareStatement("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?")) {
            ps.setString(1, database);
            try (var rs = ps.executeQuery()) {
                while (rs.next()) counts.put(rs.getString(1), null);
            }
        }
        for (String t : counts.keySet()) {
            counts.put(t, SchemaIntrospector.countRows(c, Dialect.MYSQL, t));
        }
        return counts;
    }

    /** Fails unless {@code counts} are exactly the 8 tables and row counts of {@link #EXPECTED_ROWS}. */
    static void verify(Map<String, Long> counts, String origin) {
        if (!new TreeMap<>(EXPECTED_ROWS).equals(new TreeMap<>(counts))) {
            throw new UserError(origin + " did not load as ClassicModels v3.1: expected tables and rows "
                    + new TreeMap<>(EXPECTED_ROWS) + ", got " + counts);
        }
    }

    /**
     * Makes sure the embedded server holds a verified ClassicModels; loads it on first use only.
     * The marker file records the dump's hash, so a different dump triggers a reload.
     */
    public static void ensureLoaded(EmbeddedMariaDb server, Optional<Path> dataDir) {
        Path marker = server.markerFile(NAME);
        try {
            if (Files.isRegularFile(marker) && server.hasDatabase(NAME)) return;
            Path dump = resolveDump(dataDir);
            String sha = Downloads.sha256(dump);
            if (!DUMP_SHA256.equals(sha)) {
                log.warn("{} has SHA-256 {} (expected {}); loading it anyway and checking row counts", dump, sha, DUMP_SHA256);
            }
            long t0 = System.nanoTime();
            try (Connection admin = server.adminConnection()) {
                load(admin, dump, NAME);
            }
            server.grantRead(NAME);
            Properties p = new Properties();
            p.setProperty("dump", dump.toString());
            p.setProperty("sha256", sha);
            p.setProperty("loadMillis", Long.toString((System.nanoTime() - t0) / 1_000_000));
            Files.createDirectories(marker.getParent());
            Path tmp = marker.resolveSibling(marker.getFileName() + ".tmp");
            try (var out = Files.newBufferedWriter(tmp)) {
                p.store(out, "ClassicModels loaded and verified");
            }
            Files.move(tmp, marker, StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        } catch (SQLException e) {
            throw new UserError("cannot load ClassicModels into the embedded database: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UserError("cannot record the ClassicModels load under " + marker.getParent() + ": " + e.getMessage(), e);
        }
    }

    /**
     * {@code ladder db load classicmodels --url ...}: loads and verifies ClassicModels on an external
     * MySQL/MariaDB server using the URL's account. An existing {@code classicmodels} database is
     * only replaced when {@code replace} is set.
     */
    public static void loadExternal(String serverUrl, Optional<Path> dataDir, boolean replace) {
        String url = Databases.withDatabase(serverUrl, "").replaceFirst("^jdbc:mariadb:", "jdbc:mysql:");
        try (Connection admin = DriverManager.getConnection(url)) {
            boolean exists;
            try (var ps = admin.prepareStatement("SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?")) {
                ps.setString(1, NAME);
                try (var rs = ps.executeQuery()) {
                    exists = rs.next();
                }
            }
            if (exists && !replace) {
                throw new UserError("database " + NAME + " already exists on " + Databases.redact(serverUrl)
                        + "; pass --replace to drop and reload it");
            }
            load(admin, resolveDump(dataDir), NAME);
        } catch (SQLException e) {
            throw new UserError("cannot load ClassicModels into " + Databases.redact(serverUrl) + ": " + e.getMessage(), e);
        }
    }
}
