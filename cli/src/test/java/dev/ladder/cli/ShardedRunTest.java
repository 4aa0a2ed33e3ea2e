package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.sql.db.TestData;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ladder run --shard i/N} and {@code ladder merge} on the tiny real engine: one experiment run whole, in 2 shards
 * and in 3 shards; each merge is the whole run, file for file (timings aside), and every way shards can fail to make
 * one run is one line, exit 2, with nothing written.
 */
class ShardedRunTest {

    @TempDir static Path tmp;
    static Path experiment;
    static Path whole;
    static List<Path> twoShards;
    static List<Path> threeShards;

    private static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void runWholeAndSharded() throws IOException {
        System.setProperty("ai.djl.offline", "true");
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
        Path model = tmp.resolve("tiny");
        TinyModels.write(model, TinyModels.Shape.TINY, 1, DType.F32);
        whole = tmp.resolve("whole");
        experiment = tmp.resolve("shards.yaml");
        // 7 items: shards of unequal size (4+3, 3+2+2); two seeds: agent-0 runs per seed, prompt-k3's second seed
        // reuses its first's rows, and agent-0's first candidate is prompt-k3's prompt (a generation-cache hit within
        // an item); the qlora rung has no adapter yet and is skipped
        Files.writeString(experiment, """
                name: shard-check
                benchmark: classicmodels
                split: test
                limit: 7
                seeds: [0, 1]
                output: %s
                models:
                  base: {path: %s}
                  qlora: {path: %s, adapter: %s}
                strategies:
                  - prompt-k3
                  - agent-0
                  - {name: qlora-k0, strategy: prompt-k0, model: qlora}
                settings:
                  max_new_tokens: 8
                  gate_budget: 1
                scorers:
                  ts: none
                """.formatted(whole, model, model, tmp.resolve("no-adapter-yet")));

        run("run", experiment.toString(), "--generation-cache", tmp.resolve("cache-whole.sqlite").toString(), "--no-progress");
        // two shards in their default directories, sharing one fresh cache (their items are disjoint)
        twoShards = new ArrayList<>();
        for (int i = 1; i <= 2; i++) {
            run("run", experiment.toString(), "--shard", i + "/2", "--generation-cache",
                    tmp.resolve("cache-two.sqlite").toString(), "--no-progress");
            twoShards.add(tmp.resolve("whole-shard-" + i + "-of-2"));
        }
        threeShards = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            Path out = tmp.resolve("three").resolve("s" + i);
            run("run", experiment.toString(), "--shard", i + "/3", "--out", out.toString(), "--generation-cache",
                    tmp.resolve("cache-three-" + i + ".sqlite").toString(), "--no-progress");
            threeShards.add(out);
        }
        // each run dates itself by its first start; the merge takes its shards' earliest, so the whole run is given
        // that date and its report written again (the only line of a report that depends on when it ran)
        String early = "2030-01-02T03:04:05Z";
        dateRun(whole, early);
        run("report", whole.toString());
        dateRun(twoShards.get(0), "2030-01-02T09:00:00Z");
        dateRun(twoShards.get(1), early);
        dateRun(threeShards.get(0), "2030-01-02T09:00:00Z");
        dateRun(threeShards.get(1), "2030-01-02T08:00:00Z");
        dateRun(threeShards.get(2), early);
    }

    @Test
    void mergedShardsAreTheWholeRun() throws Exception {
        Path two = tmp.resolve("merged-two");
        LadderCliTest.Run merge2 = LadderCliTest.run("merge", twoShards.get(1).toString(), twoShards.get(0).toString(),
                "--out", two.toString());
        assertThat(merge2.code()).as(merge2.err()).isZero();
        assertThat(merge2.out()).startsWith("2 shards merged: 6 cells, " + (4 * 7) + " rows");
        Path three = tmp.resolve("merged-three");
        Files.createDirectories(three); // an empty directory is a fine target
        // a merge into it killed before: its staging folder (its process is gone); and one of a merge still running
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path killed = Files.createDirectories(tmp.resolve(".merged-three.merge-" + gone.pid() + "-1"));
        Files.writeString(killed.resolve(RunDirectory.RESULTS), "half a merge");
        Path running = Files.createDirectories(tmp.resolve(".merged-three.merge-" + ProcessHandle.current().pid() + "-2"));
        LadderCliTest.Run merge3 = LadderCliTest.run("merge", threeShards.get(2).toString(), threeShards.get(0).toString(),
                threeShards.get(1).toString(), "--out", three.toString());
        assertThat(merge3.code()).as(merge3.err()).isZero();
        assertThat(killed).as("a killed merge's staging folder is removed by the next merge").doesNotExist();
        assertThat(running).as("a running merge's folder is left alone").isDirectory();
        Files.delete(running);

        for (Path merged : List.of(two, three)) assertSameRun(merged);

        // the merged environment keeps the earliest start and names its shards
        Map<String, String> env = dev.ladder.eval.report.RunLoader.environment(two);
        assertThat(env).containsEntry("run.started", "2030-01-02T03:04:05Z").containsEntry("merge.shard_count", "2")
                .containsEntry("merge.shard.1", twoShards.get(0).toString()).doesNotContainKey("run.shard");
        assertThat(dev.ladder.eval.report.RunLoader.environment(twoShards.get(1))).containsEntry("run.shard", "2/2");
        // 'ladder report' on the merged run writes the merge's report again, byte for byte
        Path again = tmp.resolve("report-again");
        assertThat(LadderCliTest.run("report", three.toString(), "--out", again.toString()).code()).isZero();
        assertThat(Files.readAllBytes(again.resolve("report.md"))).isEqualTo(Files.readAllBytes(three.resolve("report/report.md")));
        // a shard writes no report of its own; asked for one, its provenance says it is a shard
        assertThat(names(twoShards.get(0).resolve(RunDirectory.REPORT))).isEmpty();
        Path shardReport = tmp.resolve("shard-report");
        assertThat(LadderCliTest.run("report", twoShards.get(0).toString(), "--out", shardReport.toString()).code()).isZero();
        assertThat(Files.readString(shardReport.resolve("report.md")))
                .contains("only shard 1/2 of them (the items at positions p with p mod 2 = 0), not the whole run");
        assertThat(Files.readString(whole.resolve("report/report.md"))).doesNotContain("shard");
    }

    /** Everything a run directory holds, compared with the whole run (timings aside). */
    private static void assertSameRun(Path merged) throws IOException {
        assertThat(Files.readAllBytes(merged.resolve(RunDirectory.CONFIG))).isEqualTo(Files.readAllBytes(whole.resolve(RunDirectory.CONFIG)));
        try (ResultsStore a = ResultsStore.openReadOnly(whole.resolve(RunDirectory.RESULTS));
             ResultsStore b = ResultsStore.openReadOnly(merged.resolve(RunDirectory.RESULTS))) {
            assertThat(b.cells()).isEqualTo(a.cells());
            assertThat(b.metaEntries()).isEqualTo(a.metaEntries());
            assertThat(withoutTimes(b.results())).isEqualTo(withoutTimes(a.results()));
            assertThat(a.results()).hasSize(4 * 7);
            assertThat(a.results().stream().mapToInt(ItemResult::cachedCalls).sum()).as("cache hits and reuse").isPositive();
            for (var cell : a.cells()) assertThat(b.itemOrders(cell.name())).isEqualTo(a.itemOrders(cell.name()));
        }
        int compared = 0;
        for (String sub : List.of(RunDirectory.PREDICTIONS, RunDirectory.TRACES, RunDirectory.REPORT)) {
            assertThat(names(merged.resolve(sub))).as(sub).isEqualTo(names(whole.resolve(sub)));
            for (String name : names(whole.resolve(sub))) {
                Path expected = whole.resolve(sub).resolve(name);
                Path actual = merged.resolve(sub).resolve(name);
                if (name.startsWith("costs.")) continue; // wall times per item
                if (sub.equals(RunDirectory.TRACES)) {
                    assertThat(untimed(actual)).as(name).isEqualTo(untimed(expected));
                } else {
                    assertThat(Files.readAllBytes(actual)).as(sub + "/" + name).isEqualTo(Files.readAllBytes(expected));
                }
                compared++;
            }
        }
        assertThat(compared).isGreaterThan(20);
    }

    @Test
    void shardsThatDoNotMakeOneRunAreRefusedInOneLine() throws Exception {
        Path out = tmp.resolve("refused");
        Path s1 = threeShards.get(0);
        Path s2 = threeShards.get(1);
        Path s3 = threeShards.get(2);
        assertRefused(merge(out, s1, s2), "shard 3/3 is missing: pass all 3 shard directories");
        Path copy = copyOf(s2, "copy-of-s2");
        assertRefused(merge(out, s1, s2, s3, copy), "shard 2/3 is given twice: " + s2 + " and " + copy);
        assertRefused(merge(out, s1, twoShards.get(1)), "but " + twoShards.get(1) + " is shard 2/2");
        assertRefused(merge(out, whole, s1), whole + " is a whole run, not a shard");

        Path other = copyOf(s3, "other-experiment");
        Path config = other.resolve(RunDirectory.CONFIG);
        Files.writeString(config, Files.readString(config).replace("max_new_tokens: 8", "max_new_tokens: 9"));
        assertRefused(merge(out, s1, s2, other), "are runs of different experiments (config.yaml line")
                .contains("max_new_tokens: 9");

        Path otherModel = copyOf(s3, "other-weights");
        sql(otherModel, "UPDATE meta SET value = 'f00d' WHERE key = 'fingerprint.models.base.path'");
        assertRefused(merge(out, s1, s2, otherModel), "ran on different files (fingerprint.models.base.path");

        Path unfinished = copyOf(s3, "unfinished");
        sql(unfinished, "DELETE FROM results WHERE cell = 'agent-0@1' AND item_order = (SELECT MAX(item_order) FROM "
                + "results WHERE cell = 'agent-0@1')");
        assertRefused(merge(out, s1, s2, unfinished), "shard 3/3 (" + unfinished + ") is unfinished: cell agent-0@1 "
                + "has 1 of its 2 items; resume it with the same command");

        Files.createDirectories(out);
        Files.writeString(out.resolve("keep.txt"), "mine");
        assertRefused(merge(out, s1, s2, s3), "--out " + out + " exists and is not empty");
        assertThat(names(out)).containsExactly("keep.txt");
        // nothing half-written beside the target either
        try (Stream<Path> beside = Files.list(tmp)) {
            assertThat(beside.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains(".merge-"));
        }
    }

    @Test
    void badShardsAndResumingAsAnotherShardAreRefused() {
        for (String bad : List.of("0/2", "3/2", "a/b", "1/0", "2", "1/2/3")) {
            Path out = tmp.resolve("never-" + bad.replace('/', '-'));
            LadderCliTest.Run r = LadderCliTest.run("run", experiment.toString(), "--shard", bad, "--out", out.toString(),
                    "--no-progress");
            assertRefused(r, "--shard " + bad + ": expected i/N with 1 <= i <= N");
            assertThat(out).doesNotExist();
        }
        Path s1 = twoShards.get(0);
        assertRefused(LadderCliTest.run("run", experiment.toString(), "--shard", "2/2", "--out", s1.toString(), "--no-progress"),
                s1 + " holds shard 1/2, not shard 2/2: resume it with --shard 1/2, or pass --out NEW_DIR");
        assertRefused(LadderCliTest.run("run", experiment.toString(), "--out", s1.toString(), "--no-progress"),
                s1 + " holds shard 1/2, not a whole run (no --shard)");
        assertRefused(LadderCliTest.run("run", experiment.toString(), "--shard", "1/2", "--out", whole.toString(), "--no-progress"),
                whole + " holds a whole run (no --shard), not shard 1/2: resume it with no --shard");
    }

    // ---- helpers -----------------------------------------------------------------------------------------------

    private static void run(String... args) {
        LadderCliTest.Run r = LadderCliTest.run(args);
        assertThat(r.code()).as(String.join(" ", args) + ": " + r.err()).isZero();
    }

    private static LadderCliTest.Run merge(Path out, Path... shards) {
        List<String> args = new ArrayList<>(List.of("merge"));
        for (Path s : shards) args.add(s.toString());
        args.addAll(List.of("--out", out.toString()));
        return LadderCliTest.run(args.toArray(String[]::new));
    }

    private static org.assertj.core.api.AbstractStringAssert<?> assertRefused(LadderCliTest.Run r, String message) {
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.err().strip()).doesNotContain("\n");
        return assertThat(r.err()).startsWith("ladder: ").contains(message);
    }

    private static void dateRun(Path run, String started) throws IOException {
        Map<String, String> env = new TreeMap<>(dev.ladder.eval.report.RunLoader.environment(run));
        env.put("run.started", started);
        RunDirectory.create(run).writeEnvironment(env);
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static Path copyOf(Path run, String name) throws IOException {
        Path to = tmp.resolve(name);
        try (Stream<Path> files = Files.walk(run)) {
            for (Path p : files.toList()) {
                Path dest = to.resolve(run.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(dest);
                else Files.copy(p, dest);
            }
        }
        return to;
    }

    private static void sql(Path run, String statement) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + run.resolve(RunDirectory.RESULTS));
             Statement s = c.createStatement()) {
            s.executeUpdate(statement);
        }
    }

    private static List<ItemResult> withoutTimes(List<ItemResult> rows) {
        return rows.stream().map(r -> new ItemResult(r.cell(), r.itemId(), r.category(), r.difficulty(), r.question(),
                r.gold(), r.predicted(), r.va(), r.ex(), r.em(), r.ts(), r.error(), r.errorClass(), r.chosen(),
                r.promptTokens(), r.generatedTokens(), 0, r.tables(), r.joins(), r.aggregates(), r.nesting(),
                r.calls(), r.cachedCalls(), r.exAlt())).toList();
    }

    /** A traces file with every timing field ({@code millis}, {@code prefillMillis}, ...) removed. */
    private static List<JsonNode> untimed(Path traces) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(traces, StandardCharsets.UTF_8)) {
            JsonNode node = JSON.readTree(line);
            strip(node);
            out.add(node);
        }
        return out;
    }

    private static void strip(JsonNode node) {
        if (node instanceof ObjectNode o) {
            for (Iterator<String> names = o.fieldNames(); names.hasNext(); ) {
                if (names.next().toLowerCase(java.util.Locale.ROOT).endsWith("millis")) names.remove();
            }
        }
        node.forEach(ShardedRunTest::strip);
    }
}
