package dev.ladder.scorer.testsuite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.score.ExOptions;
import dev.ladder.scorer.score.ExecutionMatch;
import dev.ladder.sql.Dialect;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.EmbeddedMariaDb;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.db.UserError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Suites here use the name prefix tsjunit (databases tsjunit_classicmodels_s*), never ts. */
class TestSuiteBuilderTest {

    static final String GOLD = "SELECT customerName FROM customers WHERE creditLimit > 100000";
    /** Same answer as GOLD on ClassicModels (no credit limit is exactly 100000), not the same query. */
    static final String COINCIDENTAL = "SELECT customerName FROM customers WHERE creditLimit >= 100000";

    static final List<BenchmarkItem> ITEMS = List.of(
            item("t1", GOLD),
            item("t2", "SELECT phone FROM offices WHERE city = 'Paris'"),
            item("t3", "SELECT country, COUNT(*) FROM customers GROUP BY country HAVING COUNT(*) > 5"),
            item("t4", "SELECT checkNumber FROM payments WHERE paymentDate BETWEEN '2004-06-01' AND '2004-06-30'"),
            item("t5", "SELECT productName FROM products ORDER BY MSRP DESC LIMIT 5"),
            item("t6", "SELECT c.customerName FROM customers c JOIN employees e ON c.salesRepEmployeeNumber = e.employeeNumber"
                    + " WHERE e.lastName = 'Jennings'"),
            item("t7", "SELECT productLine FROM productlines WHERE textDescription LIKE '%plastic%'"));

    static EmbeddedMariaDb server;
    static TestSuite suite;
    static TestSuiteBuilder.Options options;
    static final List<String> progress = new ArrayList<>();

    static BenchmarkItem item(String id, String sql) {
        return new BenchmarkItem(id, "q", sql, "filter", "easy", false, List.of(), "", "");
    }

    @BeforeAll
    static void build() {
        TestData.classicModels();
        server = EmbeddedMariaDb.shared();
        options = TestSuiteBuilder.Options.defaults("classicmodels").withNamePrefix("tsjunit").withSeed(7)
                .withSize(4).withMaxCandidates(40);
        suite = new TestSuiteBuilder(server, options, progress::add).build(ITEMS);
    }

    @AfterAll
    static void cleanUp() {
        for (String prefix : List.of("tsjunit_", "tsjunitb_", "tsjunitc_", "tsjunitd_", "tsjunite_")) {
            for (String name : RandomDatabaseGenerator.databasesStartingWith(server, prefix)) RandomDatabaseGenerator.drop(server, name);
        }
    }

    @Test
    void theSuiteTellsMoreNeighboursApartThanTheOriginal() {
        assertThat(suite.golds()).isEqualTo(ITEMS.size());
        assertThat(suite.neighbours()).isGreaterThan(50);
        assertThat(suite.killedBySuite()).isPositive();
        assertThat(suite.databases()).isNotEmpty().hasSizeLessThanOrEqualTo(4);
        assertThat(suite.databases()).allMatch(d -> d.kills() > 0);
        assertThat(suite.killedByOriginal() + suite.killedBySuite() + suite.neverKilledCount()).isEqualTo(suite.neighbours());
        assertThat(suite.databases().stream().mapToInt(TestSuite.SuiteDatabase::kills).sum()).isEqualTo(suite.killedBySuite());
        assertThat(suite.databaseNames()).allMatch(n -> n.startsWith("tsjunit_classicmodels_s7_"));
        assertThat(progress).isNotEmpty();
        // the first phase says how far it is, not one line and then silence
        assertThat(progress).anyMatch(m -> m.startsWith("neighbours of 1 of 7 golds generated and run ("))
                .anyMatch(m -> m.startsWith("neighbours of 7 of 7 golds generated and run ("));
    }

    @Test
    void aCoincidentalPredictionIsCaughtByTheSuite() {
        List<Database> dbs = suite.open(server);
        assertThat(dbs.get(0).name()).isEqualTo("classicmodels");
        assertThat(dbs.subList(1, dbs.size()).stream().map(Database::name).toList()).isEqualTo(suite.databaseNames());
        // on the original alone the prediction looks right
        assertThat(sameAnswer(dbs.get(0), GOLD, COINCIDENTAL)).isTrue();
        // some suite database tells it apart
        assertThat(dbs.subList(1, dbs.size())).anyMatch(db -> !sameAnswer(db, GOLD, COINCIDENTAL));
        // and the gold agrees with itself everywhere
        assertThat(dbs).allMatch(db -> sameAnswer(db, GOLD, GOLD));
        dbs.forEach(Database::close);
    }

    static boolean sameAnswer(Database db, String gold, String predicted) {
        Execution g = db.execute(ExecutionMatch.prepare(gold, ExOptions.DEFAULT, Dialect.MYSQL));
        Execution p = db.execute(ExecutionMatch.prepare(predicted, ExOptions.DEFAULT, Dialect.MYSQL));
        assertThat(g).isInstanceOf(Execution.Success.class);
        return p instanceof Execution.Success ps
                && ExecutionMatch.equal(gold, ((Execution.Success) g).result(), ps.result(), ExOptions.DEFAULT, Dialect.MYSQL);
    }

    @Test
    void aNeighbourThatExplodesIsDecidedByTheWorkBoundNotTheClock() {
        // a join whose conditions were dropped: about a hundred million row combinations. Under a time limit its fate
        // depended on the machine's load; under the work bound it is stopped the same way every time
        String exploding = "SELECT o.orderNumber FROM orders o, orderdetails d, products p"
                + " ORDER BY d.quantityOrdered * p.MSRP DESC LIMIT 3";
        try (Database original = dev.ladder.sql.db.Databases.embedded(server, "classicmodels")) {
            int[] timeLimited = {0};
            Execution e = TestSuiteBuilder.runBounded(original, exploding, timeLimited);
            assertThat(e).as(e.toString()).isInstanceOf(Execution.Failure.class);
            assertThat(((Execution.Failure) e).error().kind()).isEqualTo(dev.ladder.sql.db.ExecutionError.Kind.WORK_LIMIT);
            assertThat(timeLimited[0]).isZero();
            Execution gold = TestSuiteBuilder.runBounded(original, GOLD, timeLimited);
            assertThat(TestSuiteBuilder.distinguishes(GOLD, ((Execution.Success) gold).result(), java.util.Optional.empty(), e)).isFalse();
        }
        assertThat(suite.workBound()).isEqualTo(TestSuiteBuilder.WORK_BOUND);
        assertThat(suite.timeLimited()).isZero();
    }

    @Test
    void rowsAnOrderedGoldLeavesTiedNeverTellANeighbourApart() {
        // sorted by a count with ties (two statuses share a count): MariaDB may order the tied groups differently
        // from one run to the next, so a strict row-by-row verdict could change between builds
        String gold = "SELECT status FROM orders GROUP BY status ORDER BY COUNT(*)";
        String prepared = ExecutionMatch.prepare(gold, ExOptions.DEFAULT, Dialect.MYSQL);
        try (Database original = dev.ladder.sql.db.Databases.embedded(server, "classicmodels")) {
            int[] timeLimited = {0};
            var goldResult = ((Execution.Success) TestSuiteBuilder.runBounded(original, prepared, timeLimited)).result();
            var tied = TestSuiteBuilder.ties(original, gold, prepared, goldResult);
            assertThat(tied).isPresent();
            for (int i = 0; i < 20; i++) {
                // the gold itself, run again, is never its own neighbour's killer
                Execution again = TestSuiteBuilder.runBounded(original, prepared, timeLimited);
                assertThat(TestSuiteBuilder.distinguishes(gold, goldResult, tied, again)).isFalse();
            }
            // a neighbour that reverses the order is still told apart
            Execution reversed = TestSuiteBuilder.runBounded(original,
                    "SELECT status FROM orders GROUP BY status ORDER BY COUNT(*) DESC", timeLimited);
            assertThat(TestSuiteBuilder.distinguishes(gold, goldResult, tied, reversed)).isTrue();
        }
    }

    @Test
    void sameSeedSameSuite() {
        List<String> rerun = new ArrayList<>();
        TestSuite again = new TestSuiteBuilder(server, options, rerun::add).build(ITEMS);
        assertThat(again.databases()).isEqualTo(suite.databases());
        assertThat(again.neverKilled()).isEqualTo(suite.neverKilled());
        assertThat(again.killedByOriginal()).isEqualTo(suite.killedByOriginal());
        // the rebuild replaced the databases of the first build, it did not add to them
        assertThat(RandomDatabaseGenerator.databasesStartingWith(server, options.baseName())).isEqualTo(suite.databaseNames());
        // the same contents, the same fingerprint
        assertThat(again.fingerprint()).hasSize(64).isEqualTo(suite.fingerprint());
    }

    @Test
    void aKilledRebuildLeavesTheStoredSuiteWholeAndASwitchIsOneMove(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("stored");
        TestSuiteBuilder.Options o = options.withNamePrefix("tsjunitb").withSize(2).withMaxCandidates(10);
        TestSuite first = new TestSuiteBuilder(server, o, m -> {}).buildAndStore(ITEMS, dir);
        assertThat(first.databaseNames()).isNotEmpty();
        // a rebuild killed once it has kept a database: the stored suite is whole while it runs and after it died
        List<Boolean> storedWhileBuilding = new ArrayList<>();
        assertThatThrownBy(() -> new TestSuiteBuilder(server, o, m -> {
            if (m.startsWith("kept")) {
                storedWhileBuilding.add(first.databaseNames().stream().allMatch(TestSuiteBuilderTest::exists));
                throw new IllegalStateException("killed while building");
            }
        }).buildAndStore(ITEMS, dir)).hasMessage("killed while building");
        assertThat(storedWhileBuilding).containsExactly(true);
        assertThat(TestSuite.load(dir).orElseThrow()).isEqualTo(first);
        assertThat(RandomDatabaseGenerator.databasesStartingWith(server, o.baseName())).isEqualTo(first.databaseNames());
        // a rebuild that finishes switches to its own databases and drops the old ones only then
        TestSuite second = new TestSuiteBuilder(server, o, m -> {}).buildAndStore(ITEMS, dir);
        assertThat(second.databaseNames()).doesNotContainAnyElementsOf(first.databaseNames());
        assertThat(TestSuite.load(dir).orElseThrow()).isEqualTo(second);
        assertThat(RandomDatabaseGenerator.databasesStartingWith(server, o.baseName())).isEqualTo(second.databaseNames());
        // other names, the same data: the fingerprint is the contents'
        assertThat(second.fingerprint()).isEqualTo(first.fingerprint());
    }

    @Test
    void shardsStartingAtOnceBuildTheSuiteOnceTheOthersWaitAndReadIt(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("shared");
        TestSuiteBuilder.Options o = options.withNamePrefix("tsjunitc").withSize(2).withMaxCandidates(10);
        CountDownLatch firstHolds = new CountDownLatch(1);
        CountDownLatch secondWaits = new CountDownLatch(1);
        List<String> secondSaid = new CopyOnWriteArrayList<>();
        // the first build holds on at its first progress line until the second has said it waits: they overlap
        CompletableFuture<TestSuiteBuilder.Stored> first = CompletableFuture.supplyAsync(() ->
                new TestSuiteBuilder(server, o, m -> {
                    firstHolds.countDown();
                    try {
                        secondWaits.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }).storedOrBuilt(ITEMS, dir));
        assertThat(firstHolds.await(60, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<TestSuiteBuilder.Stored> second = CompletableFuture.supplyAsync(() ->
                new TestSuiteBuilder(server, o, m -> {
                    secondSaid.add(m);
                    if (m.startsWith("another process is building")) secondWaits.countDown();
                }).storedOrBuilt(ITEMS, dir));
        TestSuiteBuilder.Stored a = first.get(120, TimeUnit.SECONDS);
        TestSuiteBuilder.Stored b = second.get(120, TimeUnit.SECONDS);
        assertThat(a.builtHere()).isTrue();
        assertThat(b.builtHere()).isFalse();
        assertThat(b.suite()).isEqualTo(a.suite());
        assertThat(secondSaid).containsExactly("another process is building the test suite in " + dir + "; waiting for it");
        // nothing of a second build on the server: only the stored suite's databases
        assertThat(RandomDatabaseGenerator.databasesStartingWith(server, o.baseName())).isEqualTo(a.suite().databaseNames());
        // stored now: a later call reads it without building
        assertThat(new TestSuiteBuilder(server, o, m -> {}).storedOrBuilt(ITEMS, dir)).isEqualTo(b);
        for (String name : a.suite().databaseNames()) RandomDatabaseGenerator.drop(server, name);
    }

    @Test
    void aBuildThatRunsOutOfItsTimeLimitStoresNothingAndSaysWhereItStopped(@TempDir Path tmp) {
        Path dir = tmp.resolve("stored");
        TestSuiteBuilder.Options o = options.withNamePrefix("tsjunitd").withSize(2).withMaxCandidates(10);
        TestSuite stored = new TestSuiteBuilder(server, o, m -> {}).buildAndStore(ITEMS, dir);
        Duration limit = Duration.ofSeconds(30);
        // the clock the limit reads jumps past it at a progress line: in the first phase, then among the candidates
        assertThat(outOfTime(o.withTimeLimit(limit), dir, "neighbours of 3 of 7 golds", limit))
                .startsWith("the test suite build ran out of its time limit (30 s) while running the golds' neighbours,"
                        + " which come before any candidate database (3 of 7 golds done; this phase alone needs about")
                .contains("nothing was stored (a stored suite is unchanged): raise --time-limit");
        assertThat(outOfTime(o.withTimeLimit(limit), dir, "kept ", limit))
                .startsWith("the test suite build ran out of its time limit (30 s) while trying candidate databases (")
                .contains("candidates tried, 1 kept, ");
        // the stored suite is whole: its manifest and its databases, and nothing of either build is left
        assertThat(TestSuite.load(dir).orElseThrow()).isEqualTo(stored);
        assertThat(RandomDatabaseGenerator.databasesStartingWith(server, o.baseName())).isEqualTo(stored.databaseNames());
        assertThat(stored.databaseNames()).allMatch(TestSuiteBuilderTest::exists);
    }

    /** The one-line refusal of a build whose clock jumps {@code limit} ahead at the progress line {@code at}. */
    private static String outOfTime(TestSuiteBuilder.Options o, Path dir, String at, Duration limit) {
        AtomicLong clock = new AtomicLong();
        TestSuiteBuilder builder = new TestSuiteBuilder(server, o, m -> {
            if (m.startsWith(at)) clock.addAndGet(limit.toNanos());
        }, clock::get);
        Throwable refused = catchThrowable(() -> builder.buildAndStore(ITEMS, dir));
        assertThat(refused).isInstanceOf(TestSuiteBuilder.Refused.class);
        assertThat(refused.getMessage()).doesNotContain("\n");
        return refused.getMessage();
    }

    @Test
    void aBuildThatWouldKeepNoDatabaseStoresNothingAndSaysWhy(@TempDir Path tmp) {
        Path dir = tmp.resolve("none");
        TestSuiteBuilder.Options o = options.withNamePrefix("tsjunite").withSize(2).withMaxCandidates(3);
        // a gold that does not run has no neighbours: there is nothing a suite could tell apart
        Throwable noGold = catchThrowable(() -> new TestSuiteBuilder(server, o, m -> {})
                .buildAndStore(List.of(item("x1", "SELECT nope FROM customers")), dir));
        assertThat(noGold).isInstanceOf(TestSuiteBuilder.Refused.class).hasMessage("cannot build a test suite of"
                + " classicmodels for classicmodels/test: none of its 1 golds runs on classicmodels and on an empty copy"
                + " of its schema; a suite without a database beyond the original would make TS a copy of EX, so"
                + " nothing was stored");
        assertThat(dir).doesNotExist();
        assertThat(RandomDatabaseGenerator.databasesStartingWith(server, "tsjunite_")).isEmpty();
    }

    @Test
    void anEmptyStoredSuiteIsNoSuiteItIsBuiltAgainInItsPlace(@TempDir Path tmp) {
        Path dir = tmp.resolve("empty");
        TestSuite empty = emptySuite();
        empty.write(dir);
        assertThat(empty.unusable(dir)).hasValue("the test suite in " + dir + " has no database beyond the original"
                + " (300 candidates tried, none kept), so its TS would be EX: rebuild it with 'ladder testsuite build"
                + " classicmodels'");
        TestSuiteBuilder.Options o = options.withNamePrefix("tsjunite").withSize(1).withMaxCandidates(5);
        TestSuiteBuilder.Stored stored = new TestSuiteBuilder(server, o, m -> {}).storedOrBuilt(ITEMS, dir);
        assertThat(stored.builtHere()).isTrue();
        assertThat(stored.suite().databases()).hasSize(1);
        assertThat(stored.suite().unusable(dir)).isEmpty();
        assertThat(TestSuite.load(dir).orElseThrow()).isEqualTo(stored.suite());
        for (String name : stored.suite().databaseNames()) RandomDatabaseGenerator.drop(server, name);
    }

    /** A manifest as the builder wrote one before empty suites were refused: no database, the SHA-256 of nothing. */
    static TestSuite emptySuite() {
        return new TestSuite("classicmodels", "classicmodels", "test", 1, List.of(), 200, 0, 5428, 5126, 0, 302,
                List.of(), 300, 1000, TestSuite.EMPTY_FINGERPRINT, TestSuiteBuilder.WORK_BOUND, 0);
    }

    @Test
    void theFingerprintOfNoDatabaseIsTheEmptyOne() {
        assertThat(TestSuiteBuilder.fingerprint(server, List.of())).isEqualTo(TestSuite.EMPTY_FINGERPRINT);
    }

    private static boolean exists(String database) {
        try {
            return server.hasDatabase(database);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void manifestRoundTrip(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("testsuites").resolve("classicmodels");
        assertThat(TestSuite.load(dir)).isEmpty();
        suite.write(dir);
        assertThat(Files.exists(dir.resolve("manifest.json"))).isTrue();
        TestSuite loaded = TestSuite.load(dir).orElseThrow();
        assertThat(loaded).isEqualTo(suite);

        Path bare = Files.createDirectories(tmp.resolve("bare"));
        assertThatThrownBy(() -> TestSuite.load(bare)).isInstanceOf(UserError.class).hasMessageContaining("no test suite manifest");
        Files.writeString(bare.resolve("manifest.json"), "{ not json");
        assertThatThrownBy(() -> TestSuite.load(bare)).isInstanceOf(UserError.class)
                .hasMessageContaining("cannot read the test suite manifest").hasMessageNotContaining("\n");
    }

    @Test
    void defaultDirIsUnderTheCache() {
        assertThat(TestSuite.defaultDir("classicmodels").toString()).endsWith("testsuites/classicmodels");
    }
}
