package dev.ladder.eval.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.run.ItemResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ReportTest {

    private static final Report WITH_TS = Report.of(SyntheticRun.cells(), SyntheticRun.results(true));

    @Test
    void summaryHasOneRowPerRungInIndexOrderWithIntervals() {
        ReportTable t = WITH_TS.summary();
        assertThat(WITH_TS.rungs()).containsExactly(SyntheticRun.A, SyntheticRun.B, SyntheticRun.C);
        assertThat(column(t, "rung")).containsExactly(SyntheticRun.A, SyntheticRun.B, SyntheticRun.C);
        assertThat(column(t, "n")).containsExactly("20", "20", "20");
        assertThat(column(t, "VA")).containsExactly("0.900", "1.000", "1.000");
        assertThat(column(t, "EX")).containsExactly("0.400", "0.700", "0.900");
        assertThat(column(t, "EM")).containsExactly("0.200", "0.300", "0.500");
        assertThat(column(t, "TS")).containsExactly("", "0.650", "0.850"); // A has no suite
        // Wilson: 20/20 gives [20 / (20 + z^2), 1] = [0.839, 1], not the bootstrap's [1, 1]
        assertThat(column(t, "VA_lo")).element(1).isEqualTo("0.839");
        assertThat(column(t, "VA_hi")).element(1).isEqualTo("1.000");
        for (int r = 0; r < 3; r++) {
            for (String m : List.of("VA", "EX", "EM")) {
                double lo = Double.parseDouble(t.csvCell(r, m + "_lo"));
                double hi = Double.parseDouble(t.csvCell(r, m + "_hi"));
                assertThat(Double.parseDouble(t.csvCell(r, m))).isBetween(lo, hi);
            }
        }
        assertThat(t.displayHeader()).containsExactly("rung", "n", "VA [95% CI]", "EX [95% CI]", "EM [95% CI]",
                "TS [95% CI]");
        List<String> first = t.displayRows().get(0);
        assertThat(first.get(3)).matches("0\\.400 \\[0\\.\\d{3}, 0\\.\\d{3}\\]");
        assertThat(first.get(5)).isEqualTo(Style.MISSING);
        assertThat(WITH_TS.cells().get(2).adapter()).isEqualTo("qlora");
        assertThat(WITH_TS.cells()).extracting(Cell::index).containsExactly(0, 1, 2);
    }

    @Test
    void breakdownsByCategoryAndDifficulty() {
        ReportTable cat = WITH_TS.categoryEx();
        assertThat(column(cat, "category")).containsExactly("aggregation", "filter", "join");
        assertThat(column(cat, "items")).containsExactly("6", "6", "8");
        assertThat(column(cat, SyntheticRun.A)).containsExactly("0.000", "0.000", "1.000");
        assertThat(column(cat, SyntheticRun.B)).containsExactly("1.000", "0.333", "0.750");
        assertThat(column(cat, SyntheticRun.C)).containsExactly("1.000", "0.667", "1.000");

        ReportTable diff = WITH_TS.difficultyEx();
        assertThat(column(diff, "difficulty")).containsExactly("easy", "medium", "hard"); // canonical, not sorted
        assertThat(column(diff, "items")).containsExactly("7", "7", "6");
        assertThat(column(diff, SyntheticRun.A)).containsExactly("1.000", "0.143", "0.000");
        assertThat(column(diff, SyntheticRun.B)).containsExactly("0.857", "0.857", "0.333");
        assertThat(column(diff, SyntheticRun.C)).containsExactly("1.000", "1.000", "0.667");

        ReportTable catTs = WITH_TS.categoryTs().orElseThrow();
        assertThat(column(catTs, SyntheticRun.A)).containsExactly("", "", "");
        assertThat(column(catTs, SyntheticRun.B)).containsExactly("1.000", "0.333", "0.625"); // q00 fails TS
        assertThat(column(WITH_TS.difficultyTs().orElseThrow(), SyntheticRun.B))
                .containsExactly("0.714", "0.857", "0.333");
    }

    @Test
    void withoutAConfigTheDefaultFamilyComesFromTheCellsAndMatchesHandCountedDiscordantPairs() {
        ReportTable t = WITH_TS.comparisons();
        // the cells alone: prompt-k0 -> prompt-k3 on one model is H1; agent_2 runs on another model (an adapter)
        assertThat(column(t, "metric")).containsExactly("EX", "TS");
        assertThat(column(t, "label")).containsExactly("H1", "H1");
        assertThat(column(t, "from")).containsExactly(SyntheticRun.A, SyntheticRun.A);
        assertThat(column(t, "to")).containsExactly(SyntheticRun.B, SyntheticRun.B);
        // EX: b = {q06, q07}, c = {q08..q15}; p = 2 (1 + 10 + 45) / 1024; alone in its family, so Holm leaves it
        // TS: A has no suite, so no pairs and no test
        assertThat(column(t, "n")).containsExactly("20", "0");
        assertThat(column(t, "b")).containsExactly("2", "0");
        assertThat(column(t, "c")).containsExactly("8", "0");
        assertThat(column(t, "p")).containsExactly("0.109375", "");
        assertThat(column(t, "p_holm")).containsExactly("0.109375", "");
        assertThat(column(t, "diff")).containsExactly("0.300", "");
        assertThat(column(t, "differs in")).containsExactly("exemplars k", "exemplars k");
        assertThat(column(t, "confounded")).containsExactly("no", "no");
        assertThat(column(t, "family")).containsExactly("ladder", "ladder");
        assertThat(t.displayRows().get(0).get(8)).matches("\\+0\\.300 \\[[+-]0\\.\\d{3}, \\+0\\.\\d{3}\\]");
        assertThat(t.displayRows().get(1).get(9)).isEqualTo(Style.MISSING);
        assertThat(t.description()).contains("Holm-Bonferroni adjusted over the comparisons of one metric and one family");

        ReportTable a = WITH_TS.attribution().orElseThrow();
        assertThat(column(a, "factor")).containsExactly("exemplars k");
        assertThat(column(a, "change")).containsExactly("0 -> 3");
        assertThat(column(a, "EX from")).containsExactly("0.400");
        assertThat(column(a, "EX to")).containsExactly("0.700");
        assertThat(column(a, "diff")).containsExactly("0.300");
    }

    @Test
    void errorTaxonomyListsCanonicalClassesFirstThenOthersThenNone() {
        ReportTable t = WITH_TS.errors();
        assertThat(column(t, "error class")).containsExactly("correct", "not-executable", "wrong-column",
                "wrong-join", "wrong-filter", "other", "alias-mismatch", Report.NONE);
        assertThat(column(t, SyntheticRun.A)).containsExactly("8", "2", "0", "6", "4", "0", "0", "0");
        assertThat(column(t, SyntheticRun.B)).containsExactly("14", "0", "2", "0", "3", "0", "1", "0");
        assertThat(column(t, SyntheticRun.C)).containsExactly("18", "0", "0", "0", "0", "1", "0", "1");
    }

    @Test
    void costsArePerItemWithPercentilesOfTheUncachedItems() {
        ReportTable t = WITH_TS.costs();
        assertThat(column(t, "EX")).containsExactly("0.400", "0.700", "0.900");
        // A: 100..119 ms: p50 = 109.5, p95 = 118 + 0.05 (type 7, h = 19 * 0.95 = 18.05)
        assertThat(column(t, "p50 ms")).containsExactly("109.5", "200.0", "319.0");
        assertThat(column(t, "p95 ms")).containsExactly("118.1", "200.0", "336.1");
        assertThat(column(t, "prompt tokens/item")).containsExactly("50.0", "50.0", "50.0");
        assertThat(column(t, "generated tokens/item")).containsExactly("9.5", "9.5", "9.5");
        // these rows were written without call counts: unknown, not zero
        assertThat(column(t, "requests/item")).containsExactly("", "", "");
        assertThat(column(t, "timed items")).containsExactly("20", "20", "20");
        assertThat(WITH_TS.tables()).noneMatch(x -> x.id().equals("costs"));
    }

    @Test
    void withoutTestSuitesTsIsMissingEverywhere() {
        Report r = Report.of(SyntheticRun.cells(), SyntheticRun.results(false));
        assertThat(r.hasTs()).isFalse();
        assertThat(column(r.summary(), "TS")).containsExactly("", "", "");
        assertThat(r.summary().displayRows()).allSatisfy(row -> assertThat(row.get(5)).isEqualTo(Style.MISSING));
        assertThat(r.categoryTs()).isEmpty();
        assertThat(r.difficultyTs()).isEmpty();
        assertThat(column(r.comparisons(), "metric")).containsExactly("EX");
        assertThat(r.summary().description()).contains("missing for every rung: no result has a test-suite outcome");
        assertThat(r.tables()).extracting(ReportTable::id)
                .containsExactly("summary", "category-ex", "difficulty-ex", "comparisons", "attribution", "outcomes", "errors");
    }

    @Test
    void rowOrderOfTheInputDoesNotChangeAnyNumber() {
        List<ItemResult> shuffled = new ArrayList<>(SyntheticRun.results(true));
        Collections.shuffle(shuffled, new Random(5));
        Report again = Report.of(SyntheticRun.cells(), shuffled);
        for (int i = 0; i < WITH_TS.tables().size(); i++) {
            assertThat(TableText.csv(again.tables().get(i))).isEqualTo(TableText.csv(WITH_TS.tables().get(i)));
        }
    }

    @Test
    void optionsChangeTheBootstrapButNotThePointEstimates() {
        Report other = Report.of(SyntheticRun.cells(), SyntheticRun.results(true), new Report.Options(200, 9));
        assertThat(column(other.summary(), "EX")).isEqualTo(column(WITH_TS.summary(), "EX"));
        assertThat(other.options().resamples()).isEqualTo(200);
        assertThatThrownBy(() -> new Report.Options(0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void mergedRunsPrefixOnlyTheRungNamesTheyShare() {
        List<Cell> cellsB = List.of(new Cell(0, SyntheticRun.A, "llama", "", "prompt-k0", 8),
                new Cell(1, "extra-rung", "llama", "", "prompt-k5", 8));
        List<ItemResult> resultsB = SyntheticRun.results(false).stream()
                .filter(r -> r.cell().equals(SyntheticRun.A)).toList();
        Report merged = Report.merge(List.of(
                Report.Run.of(Path.of("runs", "first"), SyntheticRun.cells(), SyntheticRun.results(true)),
                new Report.Run("second", cellsB, resultsB)), Report.Options.DEFAULT);
        assertThat(merged.rungs()).containsExactly("first/" + SyntheticRun.A, SyntheticRun.B, SyntheticRun.C,
                "second/" + SyntheticRun.A, "extra-rung");
        assertThat(column(merged.summary(), "n")).containsExactly("20", "20", "20", "20", "0");
        // the last rung has no results: its row is there with nothing to show
        assertThat(column(merged.summary(), "EX")).containsExactly("0.400", "0.700", "0.900", "0.400", "");
        // each run's own family: first's H1 pair; second has no research pair, so its consecutive rungs
        assertThat(column(merged.comparisons(), "from")).containsExactly("first/" + SyntheticRun.A,
                "second/" + SyntheticRun.A, "first/" + SyntheticRun.A, "second/" + SyntheticRun.A);
        assertThat(column(merged.comparisons(), "to")).containsExactly(SyntheticRun.B, "extra-rung", SyntheticRun.B,
                "extra-rung");
        assertThat(column(merged.comparisons(), "label")).containsOnly("H1", "declared");
    }

    @Test
    void inconsistentInputIsRefused() {
        List<ItemResult> stray = new ArrayList<>(SyntheticRun.results(false));
        stray.add(stray.get(0));
        assertThatThrownBy(() -> Report.of(SyntheticRun.cells(), stray))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("two results for item q00");
        List<Cell> fewer = SyntheticRun.cells().subList(0, 2);
        assertThatThrownBy(() -> Report.of(fewer, SyntheticRun.results(false)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not have");
        Report.Run same = new Report.Run("x", SyntheticRun.cells(), SyntheticRun.results(false));
        assertThatThrownBy(() -> Report.merge(List.of(same, same), Report.Options.DEFAULT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("distinct directory names");
        assertThatThrownBy(() -> Report.of(List.of(new Cell(0, "Items", "m", "", "prompt-k0", 0)), List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot be named 'Items'");
    }

    private static List<String> column(ReportTable t, String name) {
        List<String> values = new ArrayList<>();
        for (int r = 0; r < t.rowCount(); r++) values.add(t.csvCell(r, name));
        return values;
    }
}
