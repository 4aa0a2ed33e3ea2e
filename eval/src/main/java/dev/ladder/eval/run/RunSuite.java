package dev.ladder.eval.run;

import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ScorerSpec;
import dev.ladder.scorer.score.Scoring;
import dev.ladder.scorer.testsuite.SqliteSuite;
import dev.ladder.scorer.testsuite.TestSuite;
import dev.ladder.scorer.testsuite.TestSuiteBuilder;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.DatabaseKind;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.EmbeddedMariaDb;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.sql.db.UserError;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The test suite a run scores TS on: built first when a ladder needs one, fingerprinted, or why there is none. */
final class RunSuite {

    /** The results store's meta key of the suite fingerprint TS was scored on. */
    static final String TS_FINGERPRINT = "ts.fingerprint";

    /** The meta key prefix of each database's suite fingerprint in a run of several databases. */
    static final String TS_FINGERPRINT_OF = "ts.fingerprint.db.";

    private final Experiment experiment;
    /** Why a build this run asked for stored nothing, by database name (TS is then missing with that reason). */
    private final Map<String, String> refused = new LinkedHashMap<>();

    RunSuite(Experiment experiment) {
        this.experiment = experiment;
    }

    /**
     * What a run's databases have for TS.
     *
     * @param withSuite   every database has a suite, so TS is scored (on each item's own database's suite)
     * @param built       what was built first, one line each
     * @param missing     why TS is missing, or null when it is scored
     * @param fingerprint what TS is scored on: the suite's fingerprint, or over several databases one SHA-256 of each
     *                    database's (null when TS is missing)
     * @param perDatabase each database's suite fingerprint, by database id (a run of several databases only)
     */
    record Status(boolean withSuite, List<String> built, String missing, String fingerprint,
                  Map<String, String> perDatabase) {}

    /**
     * Builds what a ladder needs, then checks every scope: its golds can be read, its suite opens (a suite built for
     * another database, or a folder without it, is one line now). TS is scored only when every database has a suite:
     * a mean over the databases that have one would be a number about another set of items.
     */
    Status check(DatabaseScopes scopes, Benchmark benchmark, List<BenchmarkItem> items, PrintWriter log) {
        List<String> built = new ArrayList<>();
        Map<String, String> prints = new LinkedHashMap<>();
        Map<String, String> missing = new LinkedHashMap<>();
        for (DatabaseScopes.Scope scope : scopes.all()) {
            String b = buildIfNeeded(scope.db(), benchmark, log);
            if (b != null) built.add(b);
            try (DatabaseScopes.ScopeScoring scoring = scopes.scoring(scope, true)) {
                // a gold EM cannot read is the benchmark's fault: one line now, not a crash or a silent 0 hours later
                for (int i : scope.positions()) {
                    BenchmarkItem item = items.get(i);
                    Optional<String> why = scoring.main().unreadableGold(item.allGold());
                    if (why.isPresent()) {
                        throw new UserError(benchmark.name() + " " + experiment.split() + " item " + item.id()
                                + ": gold cannot be read: " + why.get() + " (fix or remove the item)");
                    }
                }
                String why = missing(scope.db(), scoring.main());
                if (why == null) prints.put(scope.id(), fingerprint(scope.db()));
                else missing.put(scope.id(), why);
            }
        }
        if (!scopes.several()) {
            String why = missing.values().stream().findFirst().orElse(null);
            return new Status(why == null, built, why, why == null ? prints.values().iterator().next() : null, Map.of());
        }
        if (missing.isEmpty()) return new Status(true, built, null, combined(prints), prints);
        String why = experiment.scorers().ts() == ScorerSpec.Ts.NONE ? "TS is off (scorers.ts: none)"
                : "no test suite for " + missing.size() + " of " + scopes.all().size() + " databases ("
                + String.join(", ", missing.keySet().stream().limit(5).toList()) + (missing.size() > 5 ? ", ..." : "")
                + "), so TS is missing for every item: " + missing.values().iterator().next();
        return new Status(false, built, why, null, Map.of());
    }

    /** One fingerprint over several databases' suites: SHA-256 of their (id, fingerprint) lines, sorted by id. */
    static String combined(Map<String, String> prints) {
        StringBuilder lines = new StringBuilder();
        new TreeMap<>(prints).forEach((id, print) -> lines.append(id).append('\t').append(print).append('\n'));
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(lines.toString().getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The fingerprint of the suite this run scores TS on ("unrecorded" for a manifest older than fingerprints). */
    String fingerprint(Database db) {
        Path explicit = experiment.scorers().suite();
        if (explicit != null && db.kind() == DatabaseKind.SQLITE_FILE && SqliteSuite.isLayout(explicit)) {
            return SqliteSuite.find(explicit, db.name()).map(SqliteSuite::fingerprint).orElse(null);
        }
        Path dir = explicit != null ? explicit : TestSuite.defaultDir(db.name());
        return TestSuite.load(dir).map(TestSuite::fingerprint).map(f -> f == null ? "unrecorded" : f).orElse(null);
    }

    /** Why TS is missing from this run, or null when it has a suite. */
    String missing(Database db, Scoring scoring) {
        if (scoring.hasSuite()) return null;
        if (experiment.scorers().ts() == ScorerSpec.Ts.NONE) return "TS is off (scorers.ts: none)";
        if (refused.containsKey(db.name())) return refused.get(db.name());
        if (scoring.whyNoSuite().isPresent()) return scoring.whyNoSuite().get();
        if (db.kind() == DatabaseKind.SQLITE_FILE) {
            return "no test suite for " + db.name() + ": a SQLite database's TS runs on its published distilled databases"
                    + " (scorers.suite: DIR, with DIR/" + db.name() + "/*.sqlite as in the official test-suite databases)";
        }
        if (db.kind() != DatabaseKind.EMBEDDED_MARIADB) {
            return "no test suite for " + db.name() + ": suites live on the embedded MariaDB, and this run's database is a "
                    + db.kind() + " database";
        }
        return "no test suite for " + db.name() + ": TS and its comparisons are missing (build one with 'ladder testsuite"
                + " build " + db.name() + "', about 2 minutes, or set scorers.ts: suite in an experiment with agent rungs)";
    }

    /**
     * Whether a usable suite is stored in {@code dir}: a manifest with a database beyond the original. An unreadable
     * manifest counts as stored (opening it for scoring says what is wrong with it); an empty one is built again.
     */
    private static boolean storedUsable(Path dir) {
        if (!Files.isRegularFile(dir.resolve(TestSuite.MANIFEST))) return false;
        try {
            return TestSuite.load(dir).map(s -> s.unusable(dir).isEmpty()).orElse(false);
        } catch (UserError unreadable) {
            return true;
        }
    }

    /**
     * With {@code ts: suite}, a ladder that has agent rungs and no stored suite builds one first: an agent executes
     * its candidates on the very database that judges EX, so TS is the metric that catches the coincidences it can
     * select for. Only the embedded databases Ladder knows hold suites. Returns what was done, or null.
     */
    String buildIfNeeded(Database db, Benchmark benchmark, PrintWriter log) {
        ScorerSpec sc = experiment.scorers();
        if (sc.ts() != ScorerSpec.Ts.SUITE || sc.suite() != null) return null;
        if (experiment.rungs().stream().noneMatch(r -> r.strategy().startsWith("agent-"))) return null;
        if (db.kind() != DatabaseKind.EMBEDDED_MARIADB || !Databases.KNOWN.contains(db.name())) {
            return null;
        }
        Path dir = TestSuite.defaultDir(db.name());
        if (storedUsable(dir)) return null;
        log.println("building the test suite of " + db.name() + " first (the ladder has agent rungs; 2 to 5"
                + " minutes, once per machine; scorers.ts: stored skips this)");
        log.flush();
        long t0 = System.nanoTime();
        TestSuiteBuilder.Options o = TestSuiteBuilder.Options.defaults(db.name())
                .withBenchmark(experiment.benchmark()).withSplit(experiment.split());
        // the build takes minutes: its progress goes to the log, never silence after one line; shards starting at once
        // build it once (the others wait, then read what the first stored)
        TestSuiteBuilder.Stored stored;
        try {
            stored = new TestSuiteBuilder(EmbeddedMariaDb.shared(), o, m -> {
                log.println("  test suite: " + m);
                log.flush();
            }).storedOrBuilt(benchmark.split(experiment.split()), dir);
        } catch (TestSuiteBuilder.Refused nothing) {
            // a suite of the original alone would make TS a copy of EX: the run scores the rest, TS missing with why
            refused.put(db.name(), nothing.getMessage());
            return null;
        }
        TestSuite suite = stored.suite();
        return String.format(Locale.ROOT, "test suite of %s %s in %.0f s: %d databases, in %s", db.name(),
                stored.builtHere() ? "built" : "built by another process while this one waited",
                (System.nanoTime() - t0) / 1e9, suite.databaseNames().size(), dir);
    }
}
