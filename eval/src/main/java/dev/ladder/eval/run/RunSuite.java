package dev.ladder.eval.run;

import dev.ladder.eval.bench.Benchmark;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ScorerSpec;
import dev.ladder.eval.score.Scoring;
import dev.ladder.eval.testsuite.TestSuite;
import dev.ladder.eval.testsuite.TestSuiteBuilder;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.DatabaseKind;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.EmbeddedMariaDb;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** The test suite a run scores TS on: built first when a ladder needs one, fingerprinted, or why there is none. */
final class RunSuite {

    /** The results store's meta key of the suite fingerprint TS was scored on. */
    static final String TS_FINGERPRINT = "ts.fingerprint";

    private final Experiment experiment;

    RunSuite(Experiment experiment) {
        this.experiment = experiment;
    }

    /** The fingerprint of the suite this run scores TS on ("unrecorded" for a manifest older than fingerprints). */
    String fingerprint(Database db) {
        Path dir = experiment.scorers().suite() != null ? experiment.scorers().suite() : TestSuite.defaultDir(db.name());
        return TestSuite.load(dir).map(TestSuite::fingerprint).map(f -> f == null ? "unrecorded" : f).orElse(null);
    }

    /** Why TS is missing from this run, or null when it has a suite. */
    String missing(Database db, Scoring scoring) {
        if (scoring.hasSuite()) return null;
        if (experiment.scorers().ts() == ScorerSpec.Ts.NONE) return "TS is off (scorers.ts: none)";
        if (db.kind() != DatabaseKind.EMBEDDED_MARIADB) {
            return "no test suite for " + db.name() + ": suites live on the embedded MariaDB, and this run's database is a "
                    + db.kind() + " database";
        }
        return "no test suite for " + db.name() + ": TS and its comparisons are missing (build one with 'ladder testsuite"
                + " build " + db.name() + "', about 2 minutes, or set scorers.ts: suite in an experiment with agent rungs)";
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
        if (Files.isRegularFile(dir.resolve(TestSuite.MANIFEST))) return null;
        log.println("building the test suite of " + db.name() + " first (the ladder has agent rungs; 2 to 5"
                + " minutes, once per machine; scorers.ts: stored skips this)");
        log.flush();
        long t0 = System.nanoTime();
        TestSuiteBuilder.Options o = TestSuiteBuilder.Options.defaults(db.name())
                .withBenchmark(experiment.benchmark()).withSplit(experiment.split());
        // the build takes minutes: its progress goes to the log, never silence after one line; shards starting at once
        // build it once (the others wait, then read what the first stored)
        TestSuiteBuilder.Stored stored = new TestSuiteBuilder(EmbeddedMariaDb.shared(), o, m -> {
            log.println("  test suite: " + m);
            log.flush();
        })
                .storedOrBuilt(benchmark.split(experiment.split()), dir);
        TestSuite suite = stored.suite();
        return String.format(Locale.ROOT, "test suite of %s %s in %.0f s: %d databases, in %s", db.name(),
                stored.builtHere() ? "built" : "built by another process while this one waited",
                (System.nanoTime() - t0) / 1e9, suite.databaseNames().size(), dir);
    }
}
