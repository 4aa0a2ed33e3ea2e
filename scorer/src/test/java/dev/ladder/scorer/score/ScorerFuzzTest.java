package dev.ladder.scorer.score;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.scorer.testsuite.RandomDatabaseGenerator;
import dev.ladder.common.FileTrees;
import dev.ladder.sql.Dialect;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.EmbeddedMariaDb;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.mutate.Corrupted;
import dev.ladder.sql.mutate.Corruption;
import dev.ladder.sql.mutate.Rewrite;
import dev.ladder.sql.mutate.Rewritten;
import dev.ladder.sql.mutate.SqlCorruptions;
import dev.ladder.sql.mutate.SqlRewrites;
import dev.ladder.sql.schema.Schema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The scorers fuzzed with edits of known effect. Every ClassicModels train gold, and every gold of three made-up SQLite
 * databases ({@link FuzzFixtures}: NULLs, ties, dates, empty results), is scored against itself, against each of its
 * answer-keeping rewrites ({@link SqlRewrites}) and against each of its corruptions ({@link SqlCorruptions}), with VA,
 * EX, EM and TS on a test suite of databases generated from three seeds. EX in SPIDER mode (column order free), on
 * the SQLite fixtures in BIRD mode and with DISTINCT kept too. Each case is scored twice, by two Scoring objects (gold results and tie runs
 * found anew).
 *
 * <p>Invariants: no exception; the gold scores 1 on VA, EX, EM and TS; every rewrite keeps EX and TS at 1, and as the
 * gold it accepts the gold (EM may differ, and is counted); a syntax error never runs (VA 0); a corruption that runs
 * scores the same with its columns permuted (SPIDER mode); both scorings give the same verdicts. A corruption may keep
 * the answer, so no verdict is asserted for one: the summary line per operator says how often EX (and TS) changed.
 */
class ScorerFuzzTest {

    private static final String PREFIX = "ladder_fuzz_";
    private static final long[] SEEDS = {2101, 2102, 2103};
    /**
     * Random draws per operator and gold (different sites of one gold; equal texts are scored once): one on
     * ClassicModels, whose 200 golds give thousands of cases already, two on the small SQLite fixtures.
     */
    private static final int CLASSIC_DRAWS = 1;
    private static final int SQLITE_DRAWS = 2;

    private static final List<Database> classicSuite = new ArrayList<>();
    private static final List<Database> opened = new ArrayList<>();
    private static Benchmark bench;
    private static Path sqliteDir;

    @BeforeAll
    static void setUp() throws Exception {
        bench = Benchmarks.load("classicmodels");
        EmbeddedMariaDb server = EmbeddedMariaDb.shared();
        TestData.classicModels();
        List<String> golds = bench.split("train").stream().map(BenchmarkItem::sql).toList();
        RandomDatabaseGenerator generator = RandomDatabaseGenerator.of(server, "classicmodels", golds);
        try {
            for (long seed : SEEDS) {
                String name = PREFIX + seed;
                generator.create(name, seed);
                server.grantRead(name);
                classicSuite.add(Databases.embedded(server, name));
            }
        } finally {
            generator.close();
        }
        sqliteDir = Files.createTempDirectory("ladder-scorer-fuzz");
    }

    @AfterAll
    static void tearDown() throws Exception {
        classicSuite.forEach(Database::close);
        opened.forEach(Database::close);
        for (long seed : SEEDS) RandomDatabaseGenerator.drop(EmbeddedMariaDb.shared(), PREFIX + seed);
        if (sqliteDir != null) FileTrees.deleteQuietly(sqliteDir);
    }

    @Test
    void classicModelsTrainGolds() {
        Database original = TestData.classicModels();
        Fuzz fuzz = new Fuzz("classicmodels train", original, classicSuite, ExOptions.DEFAULT, CLASSIC_DRAWS);
        for (BenchmarkItem item : bench.split("train")) fuzz.gold(item.id(), item.sql());
        fuzz.report();
        assertThat(fuzz.failures).as(fuzz.failures.size() + " failures").isEmpty();
        assertThat(fuzz.scored).isGreaterThan(5000);
    }

    @Test
    void sqliteFixtureGolds() throws Exception {
        List<String> failures = new ArrayList<>();
        int scored = 0;
        for (FuzzFixtures f : FuzzFixtures.all()) {
            Database original = open(f.original(sqliteDir));
            List<Database> suite = new ArrayList<>();
            for (long seed : SEEDS) suite.add(open(f.suite(sqliteDir, seed)));
            // BIRD mode (its column order counts, so no PERMUTE_COLUMNS there) and --keep-distinct too: cheap here
            for (ExOptions options : List.of(ExOptions.DEFAULT, ExOptions.DEFAULT.withMode(ExMode.BIRD),
                    ExOptions.DEFAULT.withKeepDistinct(true))) {
                Fuzz fuzz = new Fuzz(f.name(), original, suite, options, SQLITE_DRAWS);
                for (int i = 0; i < f.golds().size(); i++) fuzz.gold(f.name() + "-" + (i + 1), f.golds().get(i));
                fuzz.report();
                failures.addAll(fuzz.failures);
                scored += fuzz.scored;
            }
        }
        assertThat(failures).as(failures.size() + " failures").isEmpty();
        assertThat(scored).isGreaterThan(3000);
    }

    private static Database open(Path file) {
        Database db = Databases.sqlite(file);
        opened.add(db);
        return db;
    }

    /** The cases of one database: scores, tallies, failures. */
    private static final class Fuzz {
        final String source;
        final Database original;
        final List<Database> suite;
        final Dialect dialect;
        final Schema schema;
        final ExOptions options;
        final int draws;
        final Scoring first;
        final Scoring second;
        final List<String> failures = new ArrayList<>();
        /** operator label -> {cases, VA 0, EX 0, TS 0 where EX 1, EM 0, milliseconds} */
        final Map<String, int[]> tally = new LinkedHashMap<>();
        int scored;
        int golds;
        final long started = System.nanoTime();

        Fuzz(String source, Database original, List<Database> suite, ExOptions options, int draws) {
            this.draws = draws;
            this.source = source + " (" + options.label() + ")";
            this.original = original;
            this.dialect = original.dialect();
            this.schema = original.schema();
            this.options = options;
            this.suite = List.copyOf(suite);
            // EM as ScoringSetup makes it: keeping DISTINCT makes EM compare it too
            this.first = new Scoring(original, Optional.of(suite), options,
                    new ExactMatch(schema, false, true, options.keepDistinct(), options.emMode()));
            this.second = new Scoring(original, Optional.of(suite), options,
                    new ExactMatch(schema, false, true, options.keepDistinct(), options.emMode()));
            tally.put("gold", new int[6]);
            for (Rewrite r : Rewrite.values()) tally.put("rewrite " + r.label(), new int[6]);
            for (Corruption c : Corruption.values()) tally.put("corruption " + c.label(), new int[6]);
        }

        void gold(String id, String gold) {
            golds++;
            ItemScore self = score(id, "gold", gold, gold);
            if (self != null && !(self.va() && self.ex() && self.em() && Boolean.TRUE.equals(self.ts()))) {
                failures.add(id + " gold does not score 1 against itself: " + self + " | " + gold);
            }
            for (Rewrite r : Rewrite.values()) {
                if (r == Rewrite.PERMUTE_COLUMNS && options.mode() != ExMode.SPIDER) continue;
                Set<String> seen = new LinkedHashSet<>();
                for (int draw = 0; draw < draws; draw++) {
                    Optional<Rewritten> w = SqlRewrites.apply(r, gold, dialect, random(id, r.ordinal(), draw));
                    if (w.isEmpty() || !seen.add(w.get().sql())) continue;
                    ItemScore s = score(id, "rewrite " + r.label(), gold, w.get().sql());
                    if (s != null && !(s.ex() && Boolean.TRUE.equals(s.ts()))) {
                        failures.add(id + " rewrite " + r.label() + " [" + w.get().where() + "] changed the answer: EX=" + s.ex()
                                + " TS=" + s.ts() + " error=" + s.error() + " flags=" + s.flags() + " | " + w.get().sql());
                    }
                    // equivalence is symmetric: the rewrite as the gold accepts the gold
                    ItemScore back = score(id, "rewrite " + r.label() + " as gold", w.get().sql(), gold);
                    if (back != null && !(back.ex() && Boolean.TRUE.equals(back.ts()))) {
                        failures.add(id + " rewrite " + r.label() + " as gold [" + w.get().where() + "] rejects the gold: EX="
                                + back.ex() + " TS=" + back.ts() + " flags=" + back.flags() + " | " + w.get().sql());
                    }
                }
            }
            for (Corruption c : Corruption.values()) {
                Set<String> seen = new LinkedHashSet<>();
                for (int draw = 0; draw < draws; draw++) {
                    Optional<Corrupted> k;
                    try {
                        k = SqlCorruptions.apply(c, gold, schema, dialect, random(id, 100 + c.ordinal(), draw));
                    } catch (RuntimeException e) {
                        failures.add(id + " corruption " + c.label() + " threw " + e);
                        continue;
                    }
                    if (k.isEmpty() || !seen.add(k.get().sql())) continue;
                    ItemScore s = score(id, "corruption " + c.label(), gold, k.get().sql());
                    if (s != null && c == Corruption.SYNTAX_ERROR && s.va()) {
                        failures.add(id + " syntax error ran: " + k.get().sql());
                    }
                    if (s != null && s.va() && draw == 0 && options.mode() == ExMode.SPIDER) permuted(id, c, gold, k.get().sql(), s);
                }
            }
        }

        /**
         * The corrupted query with its columns in another order scores as the corrupted query did (SPIDER mode matches
         * columns up to a permutation): a check of the permutation search on results of every shape.
         */
        private void permuted(String id, Corruption c, String gold, String corrupted, ItemScore was) {
            Optional<Rewritten> w = SqlRewrites.apply(Rewrite.PERMUTE_COLUMNS, corrupted, dialect, random(id, 200 + c.ordinal(), 0));
            if (w.isEmpty()) return;
            ItemScore s = score(id, "corruption " + c.label() + " permuted", gold, w.get().sql());
            if (s != null && (s.va() != was.va() || s.ex() != was.ex() || !java.util.Objects.equals(s.ts(), was.ts()))) {
                failures.add(id + " corruption " + c.label() + " scores differently with its columns permuted: " + was + " vs " + s
                        + " | " + corrupted + " | " + w.get().sql());
            }
        }

        /** Scores one case twice; null (and a failure) when scoring threw or the two verdicts differ. */
        private ItemScore score(String id, String kind, String gold, String predicted) {
            ItemScore a;
            ItemScore b;
            long t0 = System.nanoTime();
            try {
                a = first.score(id, kind, List.of(gold), predicted);
                b = second.score(id, kind, List.of(gold), predicted);
            } catch (RuntimeException e) {
                // where in Ladder it threw (the top frame is often the JDK's)
                StackTraceElement at = java.util.Arrays.stream(e.getStackTrace())
                        .filter(f -> f.getClassName().startsWith("dev.ladder.")).findFirst().orElse(null);
                failures.add(id + " " + kind + " threw " + e + " at " + at + " | gold: " + gold + " | predicted: " + predicted);
                return null;
            } finally {
                scored += 2;
                tally.computeIfAbsent(kind, k -> new int[6])[5] += (int) ((System.nanoTime() - t0) / 1_000_000);
            }
            if (a.va() != b.va() || a.ex() != b.ex() || a.em() != b.em() || !java.util.Objects.equals(a.ts(), b.ts())
                    || !a.flags().equals(b.flags())) {
                failures.add(id + " " + kind + " scored differently twice: " + a + " vs " + b + " | " + predicted
                        + goldFailures(gold));
                return null;
            }
            int[] t = tally.computeIfAbsent(kind, k -> new int[6]);
            t[0]++;
            if (!a.va()) t[1]++;
            if (!a.ex()) t[2]++;
            if (a.ex() && !Boolean.TRUE.equals(a.ts())) t[3]++;
            if (!a.em()) t[4]++;
            return a;
        }

        /** Why the gold failed where it did, by either scoring (their cached results; run now where one never ran it). */
        private String goldFailures(String gold) {
            StringBuilder b = new StringBuilder();
            List<Database> all = new ArrayList<>(List.of(original));
            all.addAll(suite);
            for (Database db : all) {
                for (Scoring s : List.of(first, second)) {
                    if (s.goldResult(db, gold) instanceof Execution.Failure f) {
                        b.append(" | gold failed on ").append(db.name()).append(s == first ? " (first)" : " (second)")
                                .append(": ").append(f.error());
                    }
                }
            }
            return b.toString();
        }

        /** A Random for one gold, operator and draw: mixed, since nearby seeds give java.util.Random nearby first draws. */
        private static Random random(String id, int operator, int draw) {
            long h = id.hashCode() * 1_000_003L + operator * 131L + draw;
            return new Random(h * 0x9E3779B97F4A7C15L);
        }

        void report() {
            double seconds = (System.nanoTime() - started) / 1e9;
            System.out.printf("scorer fuzz %s: %d golds, %d cases scored (each twice: %d scorings) in %.1f s, %d failures%n",
                    source, golds, scored / 2, scored, seconds, failures.size());
            tally.forEach((op, t) -> {
                if (t[0] == 0) return;
                System.out.printf("  %-40s %5d cases  EX changed %5d (VA 0: %4d)  TS only changed %4d  EM changed %5d  %6.1f s%n",
                        op, t[0], t[2], t[1], t[3], t[4], t[5] / 1000.0);
            });
            failures.stream().limit(40).forEach(f -> System.out.println("  FAIL " + f));
        }
    }
}
