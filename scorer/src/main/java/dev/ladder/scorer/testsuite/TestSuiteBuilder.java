package dev.ladder.scorer.testsuite;

import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.scorer.score.ExOptions;
import dev.ladder.scorer.score.ExecutionMatch;
import dev.ladder.scorer.score.ResultComparison;
import dev.ladder.scorer.score.TiedOrder;
import dev.ladder.common.CacheLock;
import dev.ladder.sql.Dialect;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.EmbeddedMariaDb;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionError;
import dev.ladder.sql.db.ExecutionLimits;
import dev.ladder.sql.db.QueryResult;
import dev.ladder.sql.db.UserError;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.Table;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Greedy distillation of a test suite (Zhong, Yu and Klein 2020): for every gold of a benchmark
 * split, its {@link NeighbourQueries neighbours} that run on an empty copy of the schema; those the
 * original database already tells from their gold are done. Then random databases
 * ({@link RandomDatabaseGenerator}) are tried, a window of candidates per suite database: a
 * candidate tells a remaining pair apart when the neighbour's result differs from the gold's by
 * {@link ExecutionMatch#equal}, or the neighbour fails where the gold runs (a gold that fails on a
 * candidate counts for nothing there). The candidate of the window that tells most pairs apart is
 * kept (at least one); the others are emptied and refilled in place. With a window of 1 this is
 * plain first-fit greedy. The build stops when every neighbour is told apart, the suite has
 * {@code size} databases, or the candidate bound is hit. Same seed, same candidates, same suite (see docs/scoring.md).
 * A build that would keep no database, or that runs out of its time limit, stores nothing ({@link Refused}): a suite
 * of the original alone would make TS a copy of EX.
 */
public final class TestSuiteBuilder {

    /**
     * @param database      the original database on the embedded server
     * @param benchmark     benchmark name or path ({@link Benchmarks#load})
     * @param split         its split
     * @param size          most databases in the suite
     * @param seed          seed of neighbours and random databases
     * @param maxCandidates most random databases tried
     * @param timeLimit     the whole build's time; a build that runs out of it stores nothing (null: no limit)
     * @param namePrefix    database names are {@code <prefix>_<database>_s<seed>_NN}
     * @param perDatabase   candidates tried for each database of the suite (the best is kept);
     *                      0: {@code maxCandidates / size}
     */
    public record Options(String database, String benchmark, String split, int size, long seed, int maxCandidates,
                          Duration timeLimit, String namePrefix, int perDatabase) {

        public static final String PREFIX = "ts";

        public Options {
            if (size < 1) throw new UserError("--size must be at least 1, got " + size);
            if (perDatabase < 0) throw new UserError("--per-database must be at least 0, got " + perDatabase);
            if (maxCandidates < 1) throw new UserError("--max-candidates must be at least 1, got " + maxCandidates);
            if (!namePrefix.matches("[a-z][a-z0-9]*")) throw new IllegalArgumentException("bad name prefix " + namePrefix);
            if (!database.matches("[A-Za-z0-9_]+")) throw new UserError("cannot build a test suite for database '" + database + "'");
        }

        public static Options defaults(String database) {
            // no time limit: a deadline makes the suite depend on how busy the machine is (max_candidates bounds the work)
            return new Options(database, database, "test", 10, 1, 300, null, PREFIX, 0);
        }

        public Options withSize(int n) {
            return new Options(database, benchmark, split, n, seed, maxCandidates, timeLimit, namePrefix, perDatabase);
        }

        public Options withSeed(long s) {
            return new Options(database, benchmark, split, size, s, maxCandidates, timeLimit, namePrefix, perDatabase);
        }

        public Options withSplit(String s) {
            return new Options(database, benchmark, s, size, seed, maxCandidates, timeLimit, namePrefix, perDatabase);
        }

        public Options withBenchmark(String b) {
            return new Options(database, b, split, size, seed, maxCandidates, timeLimit, namePrefix, perDatabase);
        }

        public Options withMaxCandidates(int m) {
            return new Options(database, benchmark, split, size, seed, m, timeLimit, namePrefix, perDatabase);
        }

        public Options withTimeLimit(Duration d) {
            return new Options(database, benchmark, split, size, seed, maxCandidates, d, namePrefix, perDatabase);
        }

        public Options withNamePrefix(String p) {
            return new Options(database, benchmark, split, size, seed, maxCandidates, timeLimit, p, perDatabase);
        }

        public Options withPerDatabase(int n) {
            return new Options(database, benchmark, split, size, seed, maxCandidates, timeLimit, namePrefix, n);
        }

        /** Candidates tried per suite database. */
        public int window() {
            return perDatabase > 0 ? perDatabase : Math.max(1, maxCandidates / size);
        }

        /** Common start of every database name of this suite. */
        public String baseName() {
            return (namePrefix + "_" + database + "_s" + Long.toString(seed).replace('-', 'm') + "_").toLowerCase(Locale.ROOT);
        }
    }

    /**
     * What decides a neighbour that runs long: rows examined, not time, so that how busy the machine is never changes
     * the suite. A neighbour (or gold) over this bound tells nothing apart; on ClassicModels it is a second or two of
     * work on an idle machine.
     */
    static final long WORK_BOUND = 5_000_000;
    /** Golds and neighbours in the build: the work bound decides; the time limit is only a backstop against a hang. */
    static final ExecutionLimits BUILD_LIMITS = new ExecutionLimits(Duration.ofSeconds(120), 10_000).withExaminedRows(WORK_BOUND);

    /** Checksumming a suite database's tables: plain scans, so time only guards against a hang. */
    private static final ExecutionLimits FINGERPRINT_LIMITS = new ExecutionLimits(Duration.ofSeconds(120), 10);

    /** A build that stored nothing, and why, in one line: it would have kept no database, or ran out of its time limit. */
    public static final class Refused extends UserError {
        private static final long serialVersionUID = 1L;

        public Refused(String message) {
            super(message);
        }
    }

    /** Runs a gold or neighbour under {@link #BUILD_LIMITS}; a run the clock stopped is counted in {@code timeLimited}. */
    static Execution runBounded(Database db, String sql, int[] timeLimited) {
        Execution e = db.execute(sql, BUILD_LIMITS);
        if (e instanceof Execution.Failure f && f.error().kind() == ExecutionError.Kind.TIMEOUT) timeLimited[0]++;
        return e;
    }

    private final EmbeddedMariaDb server;
    private final Options options;
    private final Consumer<String> progress;
    private final LongSupplier clock;

    public TestSuiteBuilder(EmbeddedMariaDb server, Options options, Consumer<String> progress) {
        this(server, options, progress, System::nanoTime);
    }

    /** As the public constructor, with the clock the time limit reads (nanoseconds): tests move it. */
    TestSuiteBuilder(EmbeddedMariaDb server, Options options, Consumer<String> progress, LongSupplier clock) {
        this.server = server;
        this.options = options;
        this.progress = progress;
        this.clock = clock;
    }

    /** One (gold, neighbour) pair; {@code killer} 0 for the original, k for suite database k, -1 for none yet. */
    private static final class Pair {
        final String neighbour;
        final String prepared;
        int killer = -1;

        Pair(String neighbour) {
            this.neighbour = neighbour;
            this.prepared = ExecutionMatch.prepare(neighbour, ExOptions.DEFAULT, Dialect.MYSQL);
        }
    }

    private record Gold(String itemId, String sql, String prepared, List<Pair> pairs) {}

    /** Builds the suite for the options' benchmark split. */
    public TestSuite build() {
        List<BenchmarkItem> items = Benchmarks.load(options.benchmark(), options.database()).split(options.split());
        return build(items);
    }

    /**
     * Builds the suite for {@code items}, replacing any suite of the same name prefix, database and
     * seed on the server. The manifest is returned, not written.
     */
    public TestSuite build(List<BenchmarkItem> items) {
        return build(items, Set.of());
    }

    /**
     * Builds the suite for {@code items} beside the databases in {@code keep} (the stored suite's), which it never
     * touches: a build that is killed leaves the stored suite whole. Other databases of this name prefix, database and
     * seed (left by a killed build) are dropped first. The new databases get a generation of their own in their names.
     */
    public TestSuite build(List<BenchmarkItem> items, Set<String> keep) {
        long t0 = System.nanoTime();
        TimeLimit limit = new TimeLimit(options.timeLimit(), clock);
        int[] timeLimited = {0};
        String stem = options.baseName();
        for (String old : RandomDatabaseGenerator.databasesStartingWith(server, stem)) {
            if (!keep.contains(old)) RandomDatabaseGenerator.drop(server, old);
        }
        int generation = 0;
        while (generationUsed(keep, stem + "g" + generation + "_")) generation++;
        String base = stem + "g" + generation + "_";
        List<String> created = new ArrayList<>();
        String emptyName = base + "empty";
        RandomDatabaseGenerator generator = null;
        boolean done = false;
        try (Database original = Databases.embedded(server, options.database())) {
            generator = RandomDatabaseGenerator.of(server, options.database(), items.stream().map(BenchmarkItem::sql).toList());
            generator.createEmpty(emptyName);
            created.add(emptyName);
            grant(emptyName);
            limit.check(() -> "reading " + options.database() + " (its schema, value samples and the golds' literals),"
                    + " before any neighbour ran");
            NeighbourQueries nq = new NeighbourQueries(original.schema());

            List<Gold> golds = new ArrayList<>();
            int skipped = 0;
            List<String> neighbourSql = new ArrayList<>();
            int generated = 0;
            // about eight progress lines over the golds: the first phase takes minutes on a small machine
            int every = Math.max(1, (items.size() + 7) / 8);
            int seen = 0;
            try (Database empty = Databases.embedded(server, emptyName)) {
                for (BenchmarkItem item : items) {
                    // said of the golds before this one: every path through the loop below ends its item
                    if (seen > 0 && seen % every == 0) {
                        progress.accept(String.format(Locale.ROOT, "neighbours of %d of %d golds generated and run (%.0f s)",
                                seen, items.size(), (System.nanoTime() - t0) / 1e9));
                    }
                    seen++;
                    String prepared = ExecutionMatch.prepare(item.sql(), ExOptions.DEFAULT, Dialect.MYSQL);
                    Execution goldOriginal = runBounded(original, prepared, timeLimited);
                    if (!(goldOriginal instanceof Execution.Success gs) || !runBounded(empty, prepared, timeLimited).ok()) {
                        skipped++;
                        progress.accept("skipping " + item.id() + ": its gold does not run on " + options.database()
                                + " or on an empty copy");
                        continue;
                    }
                    List<Pair> pairs = new ArrayList<>();
                    Optional<TiedOrder> tied = ties(original, item.sql(), prepared, gs.result());
                    int goldsDone = seen - 1;
                    for (NeighbourQueries.Neighbour n : nq.generate(item.sql(), options.seed())) {
                        limit.check(() -> neighbourProgress(goldsDone, items.size(), limit.elapsedSeconds()));
                        generated++;
                        Pair p = new Pair(n.sql());
                        if (!runBounded(empty, p.prepared, timeLimited).ok()) continue;
                        if (distinguishes(item.sql(), gs.result(), tied, runBounded(original, p.prepared, timeLimited))) p.killer = 0;
                        pairs.add(p);
                        neighbourSql.add(n.sql());
                    }
                    golds.add(new Gold(item.id(), item.sql(), prepared, pairs));
                }
            }
            progress.accept(String.format(Locale.ROOT, "neighbours of %d of %d golds generated and run (%.0f s)",
                    items.size(), items.size(), (System.nanoTime() - t0) / 1e9));
            int total = golds.stream().mapToInt(g -> g.pairs().size()).sum();
            int byOriginal = count(golds, 0);
            progress.accept(String.format(Locale.ROOT, "%d golds, %d neighbours (of %d generated) run on an empty copy;"
                    + " the original tells %d apart (%.1f%%) in %.1f s", golds.size(), total, generated, byOriginal, percent(byOriginal, total), (System.nanoTime() - t0) / 1e9));
            generator.addSeedQueries(neighbourSql);

            List<TestSuite.SuiteDatabase> kept = new ArrayList<>();
            int candidates = 0;
            String slot = null;
            long slotSeed = 0;
            Map<String, Integer> slotSizes = Map.of();
            Database slotDb = null;
            int window = options.window();
            int[] tried = {0};
            Runnable tick = () -> limit.check(() -> String.format(Locale.ROOT, "trying candidate databases (%d of %d"
                    + " candidates tried, %d kept, %d neighbours still to tell apart)", tried[0],
                    options.maxCandidates(), kept.size(), remaining(golds)));
            try {
                while (kept.size() < options.size() && candidates < options.maxCandidates() && remaining(golds) > 0) {
                    // a window of candidates for this slot; the one that tells most pairs apart is kept
                    long bestSeed = 0;
                    int bestKills = 0;
                    int left = remaining(golds);
                    for (int w = 0; w < window && candidates < options.maxCandidates(); w++) {
                        tick.run();
                        long candSeed = mix(options.seed(), candidates);
                        tried[0] = ++candidates;
                        if (slot == null) {
                            slot = String.format(Locale.ROOT, "%s%02d", base, kept.size() + 1);
                            created.add(slot);
                            slotSizes = generator.create(slot, candSeed);
                            grant(slot);
                            slotDb = Databases.embedded(server, slot);
                        } else {
                            slotSizes = generator.refill(slot, candSeed);
                        }
                        slotSeed = candSeed;
                        int kills = evaluate(golds, slotDb, 0, false, timeLimited, tick);
                        if (kills > bestKills) {
                            bestKills = kills;
                            bestSeed = candSeed;
                        }
                        if (kills == left) break;
                    }
                    if (bestKills == 0) continue;
                    Map<String, Integer> sizes = slotSeed == bestSeed ? slotSizes : generator.refill(slot, bestSeed);
                    int index = kept.size() + 1;
                    int kills = evaluate(golds, slotDb, index, true, timeLimited, tick);
                    kept.add(new TestSuite.SuiteDatabase(slot, sizes, kills, bestSeed));
                    progress.accept(String.format(Locale.ROOT, "kept %s after %d candidates: tells %d more apart, %d left",
                            slot, candidates, kills, remaining(golds)));
                    slotDb.close();
                    slotDb = null;
                    slot = null;
                }
            } finally {
                if (slotDb != null) slotDb.close();
                if (slot != null) {
                    RandomDatabaseGenerator.drop(server, slot);
                    created.remove(slot);
                }
            }
            if (kept.isEmpty()) throw new Refused(nothingKept(items.size(), golds.size(), total, byOriginal, candidates));
            RandomDatabaseGenerator.drop(server, emptyName);
            created.remove(emptyName);

            List<TestSuite.Survivor> survivors = new ArrayList<>();
            for (Gold g : golds) {
                for (Pair p : g.pairs()) if (p.killer < 0) survivors.add(new TestSuite.Survivor(g.itemId(), p.neighbour));
            }
            int bySuite = total - byOriginal - survivors.size();
            long elapsed = (System.nanoTime() - t0) / 1_000_000;
            if (timeLimited[0] > 0) {
                progress.accept(timeLimited[0] + " runs were stopped by the time backstop, not the work bound:"
                        + " on a less busy machine this suite could differ (timeLimited in the manifest)");
            }
            done = true;
            return new TestSuite(options.database(), options.benchmark(), options.split(), options.seed(), kept,
                    golds.size(), skipped, total, byOriginal, bySuite, survivors.size(), survivors, candidates, elapsed,
                    fingerprint(server, kept.stream().map(TestSuite.SuiteDatabase::name).toList()), WORK_BOUND,
                    timeLimited[0]);
        } finally {
            if (generator != null) generator.close();
            if (!done) for (String name : created) dropQuietly(name); // a failed build leaves nothing behind
        }
    }

    /** How far the first phase got, and what it needs at this pace: every build runs it in full. */
    private static String neighbourProgress(int done, int golds, double elapsed) {
        String pace = done == 0 ? "" : String.format(Locale.ROOT, "; this phase alone needs about %.0f s at this pace",
                elapsed * golds / done);
        return String.format(Locale.ROOT, "running the golds' neighbours, which come before any candidate database"
                + " (%d of %d golds done%s)", done, golds, pace);
    }

    /** Why a build kept no database: each cause, from the benchmark's golds to the candidates tried. */
    private String nothingKept(int items, int golds, int neighbours, int byOriginal, int candidates) {
        String db = options.database();
        String why;
        if (items == 0) why = "the split has no item";
        else if (golds == 0) why = "none of its " + items + " golds runs on " + db + " and on an empty copy of its schema";
        else if (neighbours == 0) why = "no neighbour of its golds runs on an empty copy of " + db + "'s schema";
        else if (byOriginal == neighbours) why = db + " alone tells all " + neighbours + " neighbours of its golds apart";
        else why = "none of the " + candidates + " candidate databases told any of the " + (neighbours - byOriginal)
                + " neighbours " + db + " leaves undistinguished apart (raise --max-candidates or try another --seed)";
        return "cannot build a test suite of " + db + " for " + options.benchmark() + "/" + options.split() + ": " + why
                + "; a suite without a database beyond the original would make TS a copy of EX, so nothing was stored";
    }

    private static boolean generationUsed(Set<String> names, String base) {
        return names.stream().anyMatch(n -> n.startsWith(base));
    }

    /**
     * Builds the suite and stores it in {@code dir} so that the switch is atomic: the new databases are built beside
     * the stored suite's, the manifest is replaced in one move, and only then are the old databases dropped. Killed at
     * any point before the move, the stored suite is intact; after it, the new one is. Processes sharing the cache
     * (the shards of an array) build in turn: a build drops another build's half-made databases, so two at once would
     * wreck each other.
     */
    public TestSuite buildAndStore(List<BenchmarkItem> items, Path dir) {
        try (CacheLock lock = lockForBuilding(dir)) {
            return buildAndStoreLocked(items, dir);
        } catch (IOException e) {
            throw new UserError("cannot lock " + buildLock(dir) + " to build the test suite: " + e.getMessage());
        }
    }

    /**
     * The suite stored in {@code dir}, built and stored first when there is none. When another process is building it,
     * this one waits and then uses what that one stored: the suite is built once however many shards start at once.
     *
     * @return the suite, and whether this call built it
     */
    public Stored storedOrBuilt(List<BenchmarkItem> items, Path dir) {
        try (CacheLock lock = lockForBuilding(dir)) {
            if (Files.isRegularFile(dir.resolve(TestSuite.MANIFEST))) {
                Optional<TestSuite> there = TestSuite.load(dir);
                // an empty suite (stored before they were refused) is none: build a real one in its place
                if (there.isPresent() && there.get().unusable(dir).isEmpty()) return new Stored(there.get(), false);
            }
            return new Stored(buildAndStoreLocked(items, dir), true);
        } catch (IOException e) {
            throw new UserError("cannot lock " + buildLock(dir) + " to build the test suite: " + e.getMessage());
        }
    }

    /** A stored suite, and whether it was built just now (else another process built it while this one waited). */
    public record Stored(TestSuite suite, boolean builtHere) {}

    /** {@code <suite dir>.build.lock}, beside the suite's folder (the folder itself appears only with the manifest). */
    static Path buildLock(Path dir) {
        Path abs = dir.toAbsolutePath().normalize();
        return abs.resolveSibling(abs.getFileName() + ".build.lock");
    }

    private CacheLock lockForBuilding(Path dir) throws IOException {
        return CacheLock.acquire(buildLock(dir), () -> progress.accept("another process is building the test suite in "
                + dir + "; waiting for it"));
    }

    private TestSuite buildAndStoreLocked(List<BenchmarkItem> items, Path dir) {
        Optional<TestSuite> previous;
        try {
            previous = TestSuite.load(dir);
        } catch (UserError unreadable) {
            previous = Optional.empty(); // an unreadable manifest is replaced
        }
        Set<String> keep = previous.map(p -> Set.copyOf(p.databaseNames())).orElse(Set.of());
        TestSuite suite = build(items, keep);
        suite.write(dir);
        for (String old : keep) if (!suite.databaseNames().contains(old)) RandomDatabaseGenerator.drop(server, old);
        return suite;
    }

    /**
     * SHA-256 over the suite databases' contents: per database and table (in name order) its row count and an
     * order-free checksum of its rows (BIT_XOR of each row's CRC32 over every column, NULL written as \N). Two
     * suites with one fingerprint hold the same data, whatever their database names.
     */
    static String fingerprint(EmbeddedMariaDb server, List<String> names) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String name : names) {
                sha.update(("database\u0000").getBytes(StandardCharsets.UTF_8));
                try (Database db = Databases.embedded(server, name)) {
                    List<Table> tables = new ArrayList<>(db.schema().tables());
                    tables.sort(Comparator.comparing(Table::name));
                    for (Table t : tables) {
                        StringBuilder row = new StringBuilder();
                        for (Column c : t.columns()) {
                            if (row.length() > 0) row.append(", '|', ");
                            row.append("COALESCE(CAST(`").append(c.name()).append("` AS CHAR), '\\\\N')");
                        }
                        String sql = "SELECT COUNT(*), COALESCE(BIT_XOR(CRC32(CONCAT(" + row + "))), 0) FROM `" + t.name() + "`";
                        Execution e = db.execute(sql, FINGERPRINT_LIMITS);
                        if (!(e instanceof Execution.Success ok)) {
                            throw new IllegalStateException("cannot checksum " + name + "." + t.name() + ": " + e);
                        }
                        sha.update((t.name() + "\u0000" + ok.result().rows().get(0) + "\u0000")
                                .getBytes(StandardCharsets.UTF_8));
                    }
                }
            }
            StringBuilder hex = new StringBuilder();
            for (byte b : sha.digest()) hex.append(String.format("%02x", b));
            return hex.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Runs every gold with undistinguished neighbours and those neighbours on {@code db}; counts the
     * pairs it tells apart and, when {@code commit}, marks them with {@code index}. {@code tick} runs before each gold
     * (the time limit).
     */
    private static int evaluate(List<Gold> golds, Database db, int index, boolean commit, int[] timeLimited,
                                Runnable tick) {
        int kills = 0;
        for (Gold g : golds) {
            if (g.pairs().stream().allMatch(p -> p.killer >= 0)) continue;
            tick.run();
            Execution gold = runBounded(db, g.prepared(), timeLimited);
            if (!(gold instanceof Execution.Success gs)) continue; // the gold must run to count
            Optional<TiedOrder> tied = ties(db, g.sql(), g.prepared(), gs.result());
            for (Pair p : g.pairs()) {
                if (p.killer >= 0) continue;
                if (distinguishes(g.sql(), gs.result(), tied, runBounded(db, p.prepared, timeLimited))) {
                    if (commit) p.killer = index;
                    kills++;
                }
            }
        }
        return kills;
    }

    /**
     * The ties of an ordered gold on {@code db} (as the scorer finds them), so that a neighbour is never told apart by
     * the order of rows its sort keys leave open: MariaDB orders such rows differently from one run to the next (a
     * grouped result sorted by COUNT(*) breaks ties by where rows sit in a temporary table), which made a few verdicts,
     * and so the suite, change between builds.
     */
    static Optional<TiedOrder> ties(Database db, String goldSql, String prepared, QueryResult gold) {
        if (gold.truncated() || !ExecutionMatch.goldOrdered(goldSql, Dialect.MYSQL)) return Optional.empty();
        return TiedOrder.of(db, prepared, BUILD_LIMITS);
    }

    static boolean distinguishes(String goldSql, QueryResult gold, Optional<TiedOrder> tied, Execution neighbour) {
        // a neighbour stopped by a bound has no answer to compare: it tells nothing apart (the work bound decides this
        // the same way on every machine; the time backstop is counted where it is hit)
        if (neighbour instanceof Execution.Failure f && (f.error().kind() == ExecutionError.Kind.WORK_LIMIT
                || f.error().kind() == ExecutionError.Kind.TIMEOUT)) return false;
        if (!(neighbour instanceof Execution.Success ns)) return true;
        if (tied.isPresent()) return !ResultComparison.equalTied(tied.get(), ns.result(), ExOptions.DEFAULT);
        return !ExecutionMatch.equal(goldSql, gold, ns.result(), ExOptions.DEFAULT, Dialect.MYSQL);
    }

    private static int count(List<Gold> golds, int killer) {
        int n = 0;
        for (Gold g : golds) for (Pair p : g.pairs()) if (p.killer == killer) n++;
        return n;
    }

    private static int remaining(List<Gold> golds) {
        return count(golds, -1);
    }

    static double percent(int part, int whole) {
        return whole == 0 ? 100.0 : 100.0 * part / whole;
    }

    /** A well-spread seed for candidate {@code i}. */
    static long mix(long seed, long i) {
        long z = seed * 0x9E3779B97F4A7C15L + (i + 1) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private void grant(String name) {
        try {
            server.grantRead(name);
        } catch (SQLException e) {
            throw new UserError("cannot grant read access on " + name + ": " + e.getMessage(), e);
        }
    }

    private void dropQuietly(String name) {
        try {
            RandomDatabaseGenerator.drop(server, name);
        } catch (RuntimeException ignored) {
            // best effort while failing anyway
        }
    }
}
