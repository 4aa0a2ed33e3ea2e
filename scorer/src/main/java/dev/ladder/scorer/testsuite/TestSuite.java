package dev.ladder.scorer.testsuite;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.ladder.sql.db.ConnectionTimeouts;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.EmbeddedMariaDb;
import dev.ladder.sql.db.LadderPaths;
import dev.ladder.sql.db.SqlMode;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A distilled test suite of one database (its manifest): the databases of the suite on the embedded
 * MariaDB, and how well they tell the benchmark's gold queries from their neighbours.
 *
 * @param database         the original database, e.g. {@code classicmodels}
 * @param benchmark        benchmark whose golds the suite was distilled for
 * @param split            split of that benchmark
 * @param seed             the seed; same seed, same suite
 * @param databases        suite databases in order (the original is not listed: it always comes first)
 * @param golds            golds used
 * @param goldsSkipped     golds that failed on the original or on an empty copy (no neighbours)
 * @param neighbours       neighbour queries in total (all run on an empty copy of the schema)
 * @param killedByOriginal neighbours the original database already tells from their gold
 * @param killedBySuite    further neighbours told apart by the suite databases
 * @param neverKilledCount neighbours nothing told apart (some are equivalent to their gold)
 * @param neverKilled      the first of those, as (item id, SQL)
 * @param candidates       random databases tried
 * @param elapsedMillis    build time
 * @param fingerprint      SHA-256 over every suite database's tables, row counts and row checksums (order-free): two
 *                         suites with one fingerprint hold the same data, so their TS numbers compare; null in
 *                         manifests written before it was recorded
 * @param workBound        rows a gold or neighbour may examine while the suite is built ({@code LIMIT ROWS EXAMINED});
 *                         what passes it counts as telling nothing apart, the same way on an idle and a busy machine.
 *                         0 in manifests written before it (their builds decided by a time limit)
 * @param timeLimited      runs in the build that the time backstop, not the work bound, stopped: the only decisions a
 *                         busy machine could change (0 expected; the build says so when it is not)
 */
public record TestSuite(
        String database,
        String benchmark,
        String split,
        long seed,
        List<SuiteDatabase> databases,
        int golds,
        int goldsSkipped,
        int neighbours,
        int killedByOriginal,
        int killedBySuite,
        int neverKilledCount,
        List<Survivor> neverKilled,
        int candidates,
        long elapsedMillis,
        String fingerprint,
        long workBound,
        int timeLimited) {

    /** At most this many never-killed neighbours are written to the manifest. */
    public static final int NEVER_KILLED_CAP = 500;
    public static final String MANIFEST = "manifest.json";
    /** The fingerprint of a suite without databases: SHA-256 of nothing (manifests stored before such suites were refused). */
    public static final String EMPTY_FINGERPRINT = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /**
     * One database of the suite.
     *
     * @param name       database name on the embedded server
     * @param tableSizes rows per table
     * @param kills      neighbours it was the first to tell from their gold
     * @param seed       the generator seed it was made from
     */
    public record SuiteDatabase(String name, Map<String, Integer> tableSizes, int kills, long seed) {
        public SuiteDatabase {
            tableSizes = Map.copyOf(tableSizes);
        }
    }

    /** A neighbour no database told from its gold. */
    public record Survivor(String itemId, String sql) {}

    public TestSuite {
        databases = databases == null ? null : List.copyOf(databases); // load() names a manifest without them
        // a manifest written by hand may leave the survivors out
        neverKilled = neverKilled == null ? List.of()
                : List.copyOf(neverKilled.subList(0, Math.min(neverKilled.size(), NEVER_KILLED_CAP)));
    }

    /** This manifest with its contents' fingerprint. */
    public TestSuite withFingerprint(String print) {
        return new TestSuite(database, benchmark, split, seed, databases, golds, goldsSkipped, neighbours, killedByOriginal,
                killedBySuite, neverKilledCount, neverKilled, candidates, elapsedMillis, print, workBound, timeLimited);
    }

    /** Share of neighbours told apart by the original or the suite, in percent. */
    @JsonIgnore
    public double distinguishedPercent() {
        return neighbours == 0 ? 100.0 : 100.0 * (killedByOriginal + killedBySuite) / neighbours;
    }

    /**
     * Why this suite, stored in {@code dir}, cannot judge TS, as one line, or empty when it can. A suite judges TS only
     * with a database beyond the original: without one, TS is EX under another name. (A database the builder keeps
     * always told a neighbour apart that the original did not, so a suite with a database distinguishes something.)
     */
    public Optional<String> unusable(Path dir) {
        if (!databases.isEmpty()) return Optional.empty();
        return Optional.of("the test suite in " + dir + " has no database beyond the original (" + candidates
                + " candidates tried, none kept), so its TS would be EX: rebuild it with 'ladder testsuite build "
                + database + "'");
    }

    @JsonIgnore
    public List<String> databaseNames() {
        return databases.stream().map(SuiteDatabase::name).toList();
    }

    /** {@code <cache>/testsuites/<database>}. */
    public static Path defaultDir(String database) {
        return LadderPaths.cacheDir().resolve("testsuites").resolve(database);
    }

    /**
     * The suite whose manifest is in {@code dir}: empty when the directory does not exist; a
     * {@link UserError} when it exists but has no readable manifest.
     */
    public static Optional<TestSuite> load(Path dir) {
        if (!Files.isDirectory(dir)) return Optional.empty();
        Path manifest = dir.resolve(MANIFEST);
        if (!Files.isRegularFile(manifest)) {
            throw new UserError("no test suite manifest in " + dir + " (expected " + MANIFEST
                    + "); build one with 'ladder testsuite build'");
        }
        try {
            TestSuite suite = JSON.readValue(manifest.toFile(), TestSuite.class);
            if (suite.database() == null || suite.databases() == null) throw new IOException("database or databases missing");
            return Optional.of(suite);
        } catch (IOException | RuntimeException e) {
            throw new UserError("cannot read the test suite manifest " + manifest + ": " + oneLine(e)
                    + "; rebuild it with 'ladder testsuite build'");
        }
    }

    /** Writes {@code manifest.json} into {@code dir} (atomically: a reader sees the old or the new one). */
    public void write(Path dir) {
        try {
            Files.createDirectories(dir);
            Path tmp = dir.resolve(MANIFEST + ".tmp");
            JSON.writeValue(tmp.toFile(), this);
            Files.move(tmp, dir.resolve(MANIFEST), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UserError("cannot write the test suite manifest into " + dir + ": " + e.getMessage(), e);
        }
    }

    /**
     * Guarded read-only databases: the original first, then each suite database. A suite database
     * missing from the server is a {@link UserError} (rebuild the suite).
     */
    public List<Database> open(EmbeddedMariaDb server) {
        return open(server, SqlMode.SERVER);
    }

    /** As {@link #open(EmbeddedMariaDb)}, every session in {@code mode} (the original's and the suite's alike). */
    public List<Database> open(EmbeddedMariaDb server, SqlMode mode) {
        List<Database> out = new ArrayList<>();
        out.add(Databases.embedded(server, database, ConnectionTimeouts.DEFAULT, mode));
        for (SuiteDatabase db : databases) {
            try {
                if (!server.hasDatabase(db.name())) {
                    throw new UserError("test suite database " + db.name() + " is missing from the embedded server;"
                            + " rebuild the suite with 'ladder testsuite build " + database + " --seed " + seed + "'");
                }
                server.grantRead(db.name());
            } catch (SQLException e) {
                throw new UserError("cannot open test suite database " + db.name() + ": " + e.getMessage(), e);
            }
            out.add(Databases.embedded(server, db.name(), ConnectionTimeouts.DEFAULT, mode));
        }
        return out;
    }

    private static String oneLine(Exception e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
