package dev.ladder.example.metric;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.cli.LadderCliTestAccess;
import dev.ladder.cli.LadderCliTestAccess.Run;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.scorer.score.Metrics;
import dev.ladder.scorer.score.MetricValue;
import dev.ladder.sql.db.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proof that a metric plugs in through one class and one registration line: {@link RowCountMatch} lives only in
 * test sources, and {@code ladder run} scores every row with it, the results store keeps it as rows of its own (no
 * column, no migration), the report adds its table and {@code ladder view} shows it on item pages. The oracle engine
 * answers (train split): at noise none every prediction is the gold, so every value is 1; with noise some are not.
 */
class RowCountMatchTest {

    @TempDir static Path tmp;

    @BeforeAll
    static void data() {
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
    }

    @Test
    void aRunScoresStoresReportsAndShowsIt() throws Exception {
        assertThat(Metrics.registered()).extracting(m -> m.name()).contains(RowCountMatch.NAME);
        Path yaml = tmp.resolve("rows.yaml");
        Files.writeString(yaml, """
                name: rows
                benchmark: classicmodels
                split: train
                limit: 8
                models:
                  perfect: {engine: oracle, noise: none}
                  noisy: {engine: oracle, noise: "high,seed=5"}
                strategies:
                  - {name: perfect, strategy: prompt-k0, model: perfect}
                  - {name: noisy, strategy: prompt-k0, model: noisy}
                scorers: {ts: none}
                """);
        Path run = tmp.resolve("run");
        Run r = LadderCliTestAccess.run("run", yaml.toString(), "--out", run.toString(), "--no-progress");
        assertThat(r.code()).as(r.err()).isZero();

        List<ItemResult> rows;
        try (ResultsStore store = ResultsStore.openReadOnly(run.resolve(RunDirectory.RESULTS))) {
            rows = store.results();
            assertThat(store.metrics()).containsSubsequence("VA", "EX", "EM", RowCountMatch.NAME);
        }
        assertThat(rows.stream().filter(x -> x.cell().equals("perfect")))
                .hasSize(8).allSatisfy(x -> assertThat(x.score(RowCountMatch.NAME).holds()).as(x.itemId()).isTrue());
        // a prediction that does not run has no row count to compare
        assertThat(rows).filteredOn(x -> !x.va()).allSatisfy(x -> assertThat(x.score(RowCountMatch.NAME))
                .isEqualTo(MetricValue.ABSENT));

        List<String> table = Files.readAllLines(run.resolve("report/metrics.csv"));
        assertThat(table.get(0)).isEqualTo("rung,n," + RowCountMatch.NAME);
        assertThat(table.get(1)).startsWith("perfect,8,1");
        assertThat(Files.readString(run.resolve("report/report.md"))).contains("Other metrics by rung",
                "the prediction returns as many rows as the gold");

        Run view = LadderCliTestAccess.run("view", run.toString(), "--export", tmp.resolve("site").toString());
        assertThat(view.code()).as(view.err()).isZero();
        try (var pages = Files.list(tmp.resolve("site/item"))) {
            assertThat(pages.filter(p -> {
                try {
                    return Files.readString(p).contains(RowCountMatch.NAME + " 1");
                } catch (java.io.IOException e) {
                    return false;
                }
            }).count()).isPositive();
        }
    }
}
