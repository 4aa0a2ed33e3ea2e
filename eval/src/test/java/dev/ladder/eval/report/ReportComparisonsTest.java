package dev.ladder.eval.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.eval.run.ItemResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reports of runs with their experiment: declared families, Holm, factors, seeds, skipped cells, provenance. */
class ReportComparisonsTest {

    @TempDir Path tmp;

    private static final String MODELS = """
            benchmark: classicmodels
            models:
              base: {path: Qwen/Qwen2.5-0.5B-Instruct}
              qlora: {path: Qwen/Qwen2.5-0.5B-Instruct, adapter: models/x, merge_base: nf4}
            """;

    private static Experiment experiment(String yaml) {
        return ExperimentLoader.parse("name: t\n" + MODELS + yaml, "t.yaml");
    }

    /**
     * 20 items; prompt-k3 right on q00..q09. prompt-k0: k3 less q00..q05 (b = 0, c = 6); qlora-k0: k3 less q00, plus
     * q10..q16 (b = 1, c = 7); agent-0: k3 less q00, q01, plus q10..q17 (b = 2, c = 8).
     */
    private static List<ItemResult> fourRungs() {
        List<ItemResult> rows = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            boolean k3 = i <= 9;
            rows.add(row("prompt-k0", i, k3 && i > 5, null));
            rows.add(row("prompt-k3", i, k3, null));
            rows.add(row("qlora-k0", i, (k3 && i != 0) || (i >= 10 && i <= 16), null));
            rows.add(row("agent-0", i, (k3 && i > 1) || (i >= 10 && i <= 17), null));
        }
        return rows;
    }

    @Test
    void holmRunsOverTheDeclaredFamilyAndAConfoundedPairIsFlagged() {
        Experiment e = experiment("""
                strategies: [prompt-k0, prompt-k3, {name: qlora-k0, strategy: prompt-k0, model: qlora}, agent-0]
                comparisons: [[prompt-k0, prompt-k3], [prompt-k3, qlora-k0], [prompt-k3, agent-0]]
                """);
        List<ItemResult> rows = fourRungs();
        Report r = Report.of(new Report.Run("t", e.cells(), rows, new RunInfo(e, Map.of(), Map.of())),
                Report.Options.DEFAULT);
        ReportTable t = r.comparisons();
        assertThat(column(t, "label")).containsExactly("H1", "declared", "H3");
        assertThat(column(t, "b")).containsExactly("0", "1", "2");
        assertThat(column(t, "c")).containsExactly("6", "7", "8");
        // exact p: 2/64, 2 (1 + 8)/256, 2 (1 + 10 + 45)/1024; Holm: 3 x 0.03125, then max(2 x 0.0703125, 0.109375)
        assertThat(column(t, "p")).containsExactly("0.03125", "0.0703125", "0.109375");
        assertThat(column(t, "p_holm")).containsExactly("0.09375", "0.140625", "0.140625");
        assertThat(column(t, "differs in")).containsExactly("exemplars k", "adapter, exemplars k", "execution gate");
        assertThat(column(t, "factors")).containsExactly("1", "2", "1");
        assertThat(column(t, "confounded")).containsExactly("no", "yes", "no");

        ReportTable a = r.attribution().orElseThrow();
        assertThat(column(a, "from")).containsExactly("prompt-k0", "prompt-k3");
        assertThat(column(a, "to")).containsExactly("prompt-k3", "agent-0");
        assertThat(column(a, "change")).containsExactly("0 -> 3", "off -> on (budget 4)");
        assertThat(column(a, "EX from")).containsExactly("0.200", "0.500");
        assertThat(column(a, "EX to")).containsExactly("0.500", "0.800");
        assertThat(column(a, "p_holm")).containsExactly("0.09375", "0.140625");
    }

    @Test
    void holmAdjustsWithinEachFamilyAndAThirdElementDeclaresOne() {
        Experiment e = experiment("""
                strategies: [prompt-k0, prompt-k3, {name: qlora-k0, strategy: prompt-k0, model: qlora}, agent-0]
                comparisons: [[prompt-k0, prompt-k3], [prompt-k3, qlora-k0], [prompt-k3, agent-0, agent-study]]
                """);
        List<ItemResult> rows = fourRungs();
        ReportTable t = Report.of(new Report.Run("t", e.cells(), rows, new RunInfo(e, Map.of(), Map.of())),
                Report.Options.DEFAULT).comparisons();
        assertThat(column(t, "family")).containsExactly("ladder", "ladder", "agent-study");
        // the same p-values as one family of three (0.09375, 0.140625, 0.140625), now two families: Holm over the
        // first two (2 x 0.03125, then max(0.0625, 0.0703125)); the third alone keeps its p
        assertThat(column(t, "p")).containsExactly("0.03125", "0.0703125", "0.109375");
        assertThat(column(t, "p_holm")).containsExactly("0.0625", "0.0703125", "0.109375");
    }

    @Test
    void severalSeedsGiveASeedsTableAndComparisonsPerSeedAndPooled() {
        Experiment e = experiment("seeds: [0, 1]\nstrategies: [prompt-k0, prompt-k3]\n");
        assertThat(e.cells()).extracting(Cell::name).containsExactly("prompt-k0@0", "prompt-k0@1", "prompt-k3@0",
                "prompt-k3@1");
        // item:      q00 q01 q02 q03 q04
        // k0 seed 0:  0   0   1   1   0      k3 seed 0: 1 1 0 1 1
        // k0 seed 1:  0   0   1   1   1      k3 seed 1: 1 0 1 1 1
        // d (mean over seeds of k3 - k0): 1, 0.5, -0.5, 0, 0.5 -> b = 1 (q02), c = 3, p = 2 (1 + 4) / 16, diff 0.3
        boolean[][] k0 = {{false, false, true, true, false}, {false, false, true, true, true}};
        boolean[][] k3 = {{true, true, false, true, true}, {true, false, true, true, true}};
        List<ItemResult> rows = new ArrayList<>();
        for (int s = 0; s < 2; s++) {
            for (int i = 0; i < 5; i++) {
                rows.add(row("prompt-k0@" + s, i, k0[s][i], null));
                rows.add(row("prompt-k3@" + s, i, k3[s][i], null));
            }
        }
        Report r = Report.of(new Report.Run("t", e.cells(), rows, new RunInfo(e, Map.of(), Map.of())),
                Report.Options.DEFAULT);
        ReportTable t = r.comparisons();
        assertThat(column(t, "seed")).containsExactly("0", "1", "pooled");
        assertThat(column(t, "from")).containsOnly("prompt-k0");
        assertThat(column(t, "n")).containsExactly("5", "5", "5");
        assertThat(column(t, "b")).containsExactly("1", "0", "1");
        assertThat(column(t, "c")).containsExactly("3", "1", "3");
        assertThat(column(t, "p")).containsExactly("0.625", "1", "0.625");
        assertThat(column(t, "diff")).containsExactly("0.400", "0.200", "0.300");
        // each row is its own family (one comparison per metric and seed): Holm leaves the p-values
        assertThat(column(t, "p_holm")).isEqualTo(column(t, "p"));
        assertThat(column(r.attribution().orElseThrow(), "seed").isEmpty()).isTrue();

        ReportTable seeds = r.seeds().orElseThrow();
        assertThat(column(seeds, "rung")).containsExactly("prompt-k0", "prompt-k3");
        assertThat(column(seeds, "seeds")).containsExactly("2", "2");
        // k0 EX: 0.4 and 0.6 -> mean 0.5, sd sqrt(0.02); k3: 0.8 and 0.8 -> sd 0
        assertThat(column(seeds, "EX mean")).containsExactly("0.500", "0.800");
        assertThat(column(seeds, "EX sd")).containsExactly("0.141", "0.000");
        assertThat(column(r.summary(), "rung")).containsExactly("prompt-k0@0", "prompt-k0@1", "prompt-k3@0",
                "prompt-k3@1");
    }

    @Test
    void withOneSeedInCommonThePooledSignTestIsMcNemarsTest() {
        Experiment e = experiment("seeds: [0, 1]\nstrategies: [prompt-k0, prompt-k3]\n");
        List<Cell> cells = e.cells().stream().filter(c -> !c.name().equals("prompt-k3@1")).toList();
        List<ItemResult> rows = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            rows.add(row("prompt-k0@0", i, i % 3 == 0, null));
            rows.add(row("prompt-k0@1", i, i % 2 == 0, null));
            rows.add(row("prompt-k3@0", i, i % 4 != 1, null));
        }
        Report r = Report.of(new Report.Run("t", cells, rows, new RunInfo(e, Map.of(), Map.of())),
                Report.Options.DEFAULT);
        ReportTable t = r.comparisons();
        assertThat(column(t, "seed")).containsExactly("0", "pooled"); // only the seed both rungs ran with
        for (String c : List.of("n", "b", "c", "p", "diff", "diff_lo", "diff_hi")) {
            assertThat(t.csvCell(1, c)).as(c).isEqualTo(t.csvCell(0, c));
        }
        assertThat(column(r.seeds().orElseThrow(), "seeds")).containsExactly("2", "1");
    }

    @Test
    void aSkippedRungIsListedWithItsReasonAndProvenanceComesFromTheRun() throws Exception {
        Experiment e = experiment("limit: 10\nstrategies: [prompt-k0, {name: qlora-k0, strategy: prompt-k0, model: qlora}]\n");
        List<ItemResult> rows = new ArrayList<>();
        for (int i = 0; i < 10; i++) rows.add(row("prompt-k0", i, i < 4, i < 6));
        Map<String, String> env = Map.of("run.started", "2024-05-01T10:00:00Z", "git.sha", "abc123",
                "git.dirty", "false", "models.base.device", "cuda:0", "models.base.dtype", "f16");
        Map<String, String> meta = Map.of("skipped.qlora-k0", "no PEFT adapter at models/x",
                "items.selection", "first 10 of 200", "ts.missing", "no stored suite for classicmodels",
                "scorers.ex_modes", "spider,bird");
        Report r = Report.of(new Report.Run("run-a", e.cells(), rows, new RunInfo(e, env, meta)),
                Report.Options.DEFAULT);
        ReportTable s = r.summary();
        assertThat(column(s, "rung")).containsExactly("prompt-k0", "qlora-k0");
        assertThat(column(s, "n")).containsExactly("10", "0");
        assertThat(column(s, "note")).containsExactly("", "skipped: no PEFT adapter at models/x");
        assertThat(column(r.costs(), "note")).containsExactly("", "skipped: no PEFT adapter at models/x");
        assertThat(s.description()).contains("missing for every rung: no stored suite for classicmodels");
        // EX in the second mode beside EX, compared too
        assertThat(column(s, "EX (bird)")).containsExactly("0.600", "");
        assertThat(column(r.comparisons(), "metric")).containsExactly("EX", "EX (bird)");
        assertThat(column(r.comparisons(), "n")).containsExactly("0", "0"); // nothing to pair with a skipped rung
        assertThat(column(r.comparisons(), "p")).containsExactly("", "");

        String line = r.provenance().get(0);
        assertThat(line).startsWith("Run: model base = Qwen/Qwen2.5-0.5B-Instruct (engine djl, device cuda:0, "
                + "dtype f16); qlora = Qwen/Qwen2.5-0.5B-Instruct + adapter models/x (merged into nf4) (engine djl, "
                + "device auto, dtype auto)")
                .contains("benchmark classicmodels, split test, items: first 10 of 200, n = 10")
                .contains("scorers: EX spider and bird, EM semantic, TS stored suite (missing: no stored suite")
                .contains("started 2024-05-01T10:00:00Z").endsWith("git abc123.");
        for (ReportTable t : r.tables()) assertThat(t.description()).as(t.id()).endsWith(line);

        Path first = tmp.resolve("a");
        Path second = tmp.resolve("b");
        List<Path> files = ReportWriter.write(r, first, ReportWriter.Format.all());
        ReportWriter.write(Report.of(new Report.Run("run-a", e.cells(), rows, new RunInfo(e, env, meta)),
                Report.Options.DEFAULT), second, ReportWriter.Format.all());
        for (Path f : files) {
            assertThat(Files.readAllBytes(second.resolve(f.getFileName()))).as(f.getFileName().toString())
                    .isEqualTo(Files.readAllBytes(f));
        }
        assertThat(Files.readString(first.resolve("report.md"))).startsWith("# Experiment report\n\n## Provenance\n\n- "
                + line + "\n");
    }

    @Test
    void costsCountCallsAndTimeOnlyTheItemsTheCacheDidNotAnswer() {
        Experiment e = experiment("strategies: [agent-0]\n");
        List<ItemResult> rows = new ArrayList<>();
        // 4 items, 2 calls each; q00 and q01 fully cached (2 ms), q02 half cached, q03 not cached (1000 ms)
        int[] cached = {2, 2, 1, 0};
        long[] ms = {2, 2, 500, 1000};
        for (int i = 0; i < 4; i++) {
            rows.add(new ItemResult("agent-0", id(i), "c", "easy", "question", "SELECT 1", "SELECT 1", true, i < 3,
                    false, null, null, "correct", "standard", 100, 10, ms[i], 1, 0, 0, 0, 2, cached[i], null));
        }
        Report r = Report.of(new Report.Run("t", e.cells(), rows, new RunInfo(e, Map.of(), Map.of())),
                Report.Options.DEFAULT);
        ReportTable c = r.costs();
        assertThat(column(c, "requests/item")).containsExactly("2.0");
        // rows built without a completion count ask one completion per request
        assertThat(column(c, "completions/item")).containsExactly("2.0");
        assertThat(column(c, "share of calls cached")).containsExactly("0.625"); // 5 of 8
        assertThat(column(c, "items with a cached call")).containsExactly("3");
        assertThat(column(c, "timed items")).containsExactly("1");
        assertThat(column(c, "p50 ms")).containsExactly("1000.0");
        assertThat(column(c, "EX")).containsExactly("0.750");
    }

    @Test
    void aRungWhoseAnswersAllCameFromTheCacheHasItsOriginalCallsCostMarkedAsSuch() {
        Experiment e = experiment("strategies: [agent-0]\n");
        List<ItemResult> rows = new ArrayList<>();
        // every call cached: 3 ms of the rung's own work per item, plus what the original calls took
        long[] original = {400, 600, 800};
        for (int i = 0; i < 3; i++) {
            ItemResult plain = new ItemResult("agent-0", id(i), "c", "easy", "question", "SELECT 1", "SELECT 1", true, true,
                    false, null, null, "correct", "standard", 100, 10, 3, 1, 0, 0, 0, 1, 1, null);
            rows.add(new ItemResult(plain.cell(), plain.itemId(), plain.category(), plain.difficulty(), plain.question(),
                    plain.gold(), plain.predicted(), null, plain.errorClass(), plain.chosen(), 100, 10, 3, 1, 0, 0, 0, 1, 1,
                    null, plain.scores(), 1, original[i], "correct"));
        }
        ReportTable c = Report.of(new Report.Run("t", e.cells(), rows, new RunInfo(e, Map.of(), Map.of())),
                Report.Options.DEFAULT).costs();
        assertThat(column(c, "timed items")).containsExactly("0");
        assertThat(column(c, "p50 ms")).containsExactly("");
        assertThat(column(c, "p50 ms, all items")).containsExactly("603.0");
        assertThat(column(c, "p95 ms, all items")).containsExactly("783.0");
        assertThat(column(c, "timing")).containsExactly("every item cached: its calls at their original cost");
        assertThat(c.description()).contains("a cached call at what its original call took");
        // a reply kept from another rung (or a row stored before schema 6) has no recorded cost: said, not hidden
        List<ItemResult> unrecorded = rows.stream().map(r -> new ItemResult(r.cell(), r.itemId(), r.category(),
                r.difficulty(), r.question(), r.gold(), r.predicted(), null, r.errorClass(), r.chosen(), 100, 10, 3, 1, 0,
                0, 0, 1, 1, null, r.scores(), 1, 0, "correct")).toList();
        ReportTable u = Report.of(new Report.Run("t", e.cells(), unrecorded, new RunInfo(e, Map.of(), Map.of())),
                Report.Options.DEFAULT).costs();
        assertThat(column(u, "timing")).containsExactly("every item cached: its calls at their original cost"
                + " (3 with no original cost recorded: counted at their own time)");
    }

    @Test
    void anItemWhoseGoldFailedInOneCellIsLeftOutOfEveryCellOfItsRun() {
        Experiment e = experiment("strategies: [prompt-k0, agent-0]\n");
        List<ItemResult> rows = new ArrayList<>();
        for (String cell : List.of("prompt-k0", "agent-0")) {
            for (int i = 0; i < 3; i++) {
                ItemResult plain = new ItemResult(cell, id(i), "c", "easy", "question", "SELECT 1", "SELECT 1", true, true,
                        false, null, null, "correct", "standard", 100, 10, 3, 1, 0, 0, 0, 1, 0, null);
                // q02's gold timed out while agent-0 was scored (a busy machine), not while prompt-k0 was
                String outcome = cell.equals("agent-0") && i == 2 ? "gold-timeout" : "correct";
                rows.add(new ItemResult(cell, plain.itemId(), "c", "easy", "question", "SELECT 1", "SELECT 1", null,
                        "correct", "standard", 100, 10, 3, 1, 0, 0, 0, 1, 0, null, plain.scores(), 1, outcome));
            }
        }
        Report r = Report.of(new Report.Run("t", e.cells(), rows, new RunInfo(e, Map.of(), Map.of())), Report.Options.DEFAULT);
        assertThat(column(r.summary(), "n")).containsExactly("2", "2");
        assertThat(r.provenance().get(0)).contains("of which 1 item's gold could not be run (1 timed out, 0 failed)");
    }

    private static String id(int i) {
        return String.format(Locale.ROOT, "q%02d", i);
    }

    private static ItemResult row(String cell, int i, boolean ex, Boolean exAlt) {
        return new ItemResult(cell, id(i), "c", "easy", "question", "SELECT 1", "SELECT 1", true, ex, false, null,
                null, ex ? "correct" : "other", "standard", 10, 5, 100, 1, 0, 0, 0, 1, 0, exAlt);
    }

    private static List<String> column(ReportTable t, String name) {
        List<String> values = new ArrayList<>();
        if (!t.columns().contains(name)) return values;
        for (int r = 0; r < t.rowCount(); r++) values.add(t.csvCell(r, name));
        return values;
    }
}
