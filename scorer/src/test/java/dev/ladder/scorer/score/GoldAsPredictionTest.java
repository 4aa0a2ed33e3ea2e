package dev.ladder.scorer.score;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.scorer.testsuite.RandomDatabaseGenerator;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.EmbeddedMariaDb;
import dev.ladder.sql.db.TestData;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sanity of the whole scorer: every gold query of both splits, submitted as its own prediction, scores
 * VA = EX = EM = TS = 1 (TS over three random databases generated from three seeds, with both splits' golds
 * as the generator's seed queries, so one suite serves both splits).
 */
class GoldAsPredictionTest {

    private static final String PREFIX = "ladder_gold_self_";
    private static final long[] SEEDS = {1000, 1001, 1002};
    private static final List<Database> suite = new ArrayList<>();
    private static Benchmark bench;

    @BeforeAll
    static void setUp() {
        bench = Benchmarks.load("classicmodels");
        EmbeddedMariaDb server = EmbeddedMariaDb.shared();
        TestData.classicModels();
        List<String> golds = new ArrayList<>();
        for (String split : List.of("test", "train")) golds.addAll(bench.split(split).stream().map(BenchmarkItem::sql).toList());
        RandomDatabaseGenerator generator = RandomDatabaseGenerator.of(server, "classicmodels", golds);
        try {
            for (int i = 0; i < SEEDS.length; i++) {
                String name = PREFIX + i;
                generator.create(name, SEEDS[i]);
                server.grantRead(name);
                suite.add(Databases.embedded(server, name));
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        } finally {
            generator.close();
        }
    }

    @AfterAll
    static void tearDown() {
        suite.forEach(Database::close);
        for (int i = 0; i < SEEDS.length; i++) RandomDatabaseGenerator.drop(EmbeddedMariaDb.shared(), PREFIX + i);
    }

    @ParameterizedTest
    @ValueSource(strings = {"test", "train"})
    void everyGoldScoresOneOnEveryMetric(String split) {
        Database original = TestData.classicModels();
        for (ExOptions options : List.of(ExOptions.DEFAULT, new ExOptions(ExMode.BIRD, false, 0))) {
            Scoring scoring = new Scoring(original, Optional.of(suite), options, new ExactMatch(original.schema(), false));
            List<ItemScore> scores = new ArrayList<>();
            List<String> misses = new ArrayList<>();
            for (BenchmarkItem item : bench.split(split)) {
                ItemScore s = scoring.score(item.id(), item.category(), item.allGold(), item.sql());
                scores.add(s);
                if (!(s.va() && s.ex() && s.em() && Boolean.TRUE.equals(s.ts()))) misses.add(s.toString());
            }
            assertThat(misses).as(split + " " + options.label()).isEmpty();
            ScoreSummary all = ScoreSummary.of(scores);
            assertThat(all.items()).isEqualTo(200);
            assertThat(List.of(all.va(), all.ex(), all.em(), all.ts())).containsOnly(1.0);
        }
    }
}
