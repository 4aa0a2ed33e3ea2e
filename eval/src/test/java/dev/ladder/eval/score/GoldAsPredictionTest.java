package dev.ladder.eval.score;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.eval.bench.Benchmark;
import dev.ladder.eval.bench.BenchmarkItem;
import dev.ladder.eval.bench.Benchmarks;
import dev.ladder.eval.score.em.ExactMatch;
import dev.ladder.eval.testsuite.RandomDatabaseGenerator;
import dev.ladder.pipeline.db.Database;
import dev.ladder.pipeline.db.Databases;
import dev.ladder.pipeline.db.EmbeddedMariaDb;
import dev.ladder.pipeline.db.TestData;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Sanity of the whole scorer: every gold query of the test split, submitted as its own prediction,
 * scores VA = EX = EM = TS = 1 (TS over two freshly generated random databases).
 */
class GoldAsPredictionTest {

    private static final String PREFIX = "ladder_gold_self_";
    private static final List<Database> suite = new ArrayList<>();
    private static Benchmark bench;

    @BeforeAll
    static void setUp() {
        bench = Benchmarks.load("classicmodels");
        EmbeddedMariaDb server = EmbeddedMariaDb.shared();
        TestData.classicModels();
        List<String> golds = bench.split("test").stream().map(BenchmarkItem::sql).toList();
        RandomDatabaseGenerator generator = RandomDatabaseGenerator.of(server, "classicmodels", golds);
        try {
            for (int i = 0; i < 2; i++) {
                String name = PREFIX + i;
                generator.create(name, 1000 + i);
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
        for (int i = 0; i < 2; i++) RandomDatabaseGenerator.drop(EmbeddedMariaDb.shared(), PREFIX + i);
    }

    @Test
    void everyTestGoldScoresOneOnEveryMetric() {
        Database original = TestData.classicModels();
        for (ExOptions options : List.of(ExOptions.DEFAULT, new ExOptions(ExMode.BIRD, false, 0))) {
            Scoring scoring = new Scoring(original, Optional.of(suite), options, new ExactMatch(original.schema(), false));
            List<ItemScore> scores = new ArrayList<>();
            List<String> misses = new ArrayList<>();
            for (BenchmarkItem item : bench.split("test")) {
                ItemScore s = scoring.score(item.id(), item.category(), item.allGold(), item.sql());
                scores.add(s);
                if (!(s.va() && s.ex() && s.em() && Boolean.TRUE.equals(s.ts()))) misses.add(s.toString());
            }
            assertThat(misses).as(options.label()).isEmpty();
            ScoreSummary all = ScoreSummary.of(scores);
            assertThat(all.items()).isEqualTo(200);
            assertThat(List.of(all.va(), all.ex(), all.em(), all.ts())).containsOnly(1.0);
        }
    }
}
