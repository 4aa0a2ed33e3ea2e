package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Benchmarks of several databases (Spider's and BIRD's layouts, made here as SQLite files): every item is answered,
 * executed and scored on its own database, through {@code ladder run}, {@code eval}, {@code report} and {@code view},
 * with the oracle engine at noise none, and TS on each database's own suite (the official test-suite layout,
 * {@code DIR/<db_id>/*.sqlite}). The two databases share no table name: an item run on the other one cannot execute.
 */
class MultiDatabaseRunTest {

    @TempDir static Path tmp;
    private static Path spider;
    private static Path bird;
    private static Path suites;

    /** The dev items by database: shop's tables are customers and orders, library's authors and books. */
    private static final Map<String, String> DB_OF = Map.of("dev-1", "shop", "dev-2", "library", "dev-3", "shop",
            "dev-4", "library", "dev-5", "shop", "dev-6", "library", "dev-7", "shop", "dev-8", "library");

    @BeforeAll
    static void benchmarks() throws Exception {
        spider = TwoDatabaseBenchmarks.spider(tmp.resolve("spider"));
        bird = TwoDatabaseBenchmarks.bird(tmp.resolve("bird"));
        suites = TwoDatabaseBenchmarks.suites(tmp.resolve("suites"));
    }

    private static Path experiment(String name, Path benchmark, String extra) throws Exception {
        Path yaml = tmp.resolve(name + ".yaml");
        Files.writeString(yaml, """
                name: %s
                benchmark: %s
                split: dev
                output: %s
                models: {oracle: {engine: oracle, noise: none}}
                strategies: [prompt-k0, prompt-k3, agent-3]
                %s
                """.formatted(name, benchmark, tmp.resolve(name + "-run"), extra));
        return yaml;
    }

    private static List<ItemResult> rows(Path run) {
        try (ResultsStore store = ResultsStore.openReadOnly(run.resolve(RunDirectory.RESULTS))) {
            return store.results();
        }
    }

    private static Map<String, String> meta(Path run) {
        try (ResultsStore store = ResultsStore.openReadOnly(run.resolve(RunDirectory.RESULTS))) {
            return store.metaEntries();
        }
    }

    @Test
    void aSpiderFolderIsAnsweredAndScoredDatabaseByDatabaseWithEachOnesSuite() throws Exception {
        Path run = tmp.resolve("spider-run");
        Path yaml = experiment("spider", spider, "scorers: {suite: " + suites + "}");
        // a cluster's setup job readies every database of the run and names each one's suite
        LadderCliTest.Run prepared = LadderCliTest.run("run", yaml.toString(), "--prepare");
        assertThat(prepared.code()).as(prepared.err()).isZero();
        assertThat(prepared.out()).contains("database shop (4 items of spider dev)", "database library (4 items of spider dev)",
                "test suite of shop stored (fingerprint", "test suite of library stored (fingerprint");
        assertThat(run).doesNotExist();
        LadderCliTest.Run r = LadderCliTest.run("run", yaml.toString(), "--no-progress", "--no-generation-cache");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("prompt-k0 on shop: 4 items", "prompt-k0 on library: 4 items");

        List<ItemResult> rows = rows(run);
        assertThat(rows).hasSize(24);
        assertThat(rows).allSatisfy(x -> {
            assertThat(x.database()).as(x.itemId()).isEqualTo(DB_OF.get(x.itemId()));
            // every gold ran on its own database: none is left out as the benchmark's fault
            assertThat(x.goldFailed()).as(x.itemId() + " " + x.outcome()).isFalse();
            assertThat(x.va()).as(x.cell() + " " + x.itemId() + " " + x.error()).isTrue();
            assertThat(x.ts()).as(x.itemId()).isNotNull();
        });
        assertThat(rows.stream().filter(x -> x.cell().startsWith("prompt-")))
                .allSatisfy(x -> assertThat(x.ex() && x.ts()).as(x.cell() + " " + x.itemId()).isTrue());

        // each database's suite fingerprint is recorded, and one over both is what TS is scored on
        Map<String, String> meta = meta(run);
        assertThat(meta).containsKeys("ts.fingerprint", "ts.fingerprint.db.shop", "ts.fingerprint.db.library")
                .doesNotContainKey("ts.missing");
        assertThat(meta.get("ts.fingerprint.db.shop")).isNotEqualTo(meta.get("ts.fingerprint.db.library"));

        // the report breaks the results down by database beside the categories
        String report = Files.readString(run.resolve(RunDirectory.REPORT).resolve("report.md"));
        assertThat(report).contains("EX by database", "TS by database", "| shop", "| library");
        assertThat(run.resolve(RunDirectory.REPORT).resolve("database-ex.csv")).isNotEmptyFile();
        assertThat(report).doesNotContain("could not be run");

        // the Spider and BIRD prediction files name each item's own database
        List<String> bird = Files.readAllLines(run.resolve(RunDirectory.PREDICTIONS).resolve("prompt-k0.json"));
        assertThat(String.join("\n", bird)).contains("----- bird -----\\tshop").doesNotContain("\\tspider");

        // ladder eval scores the run's predictions the same way, TS on each database's suite
        JsonNode eval = new ObjectMapper().readTree(LadderCliTest.run("eval", "--benchmark", spider.toString(),
                "--split", "dev", "--pred", run.resolve(RunDirectory.PREDICTIONS).resolve("prompt-k0.jsonl").toString(),
                "--suite", suites.toString(), "--json").out());
        assertThat(eval.get("EX").asDouble()).isEqualTo(1.0);
        assertThat(eval.get("TS").asDouble()).isEqualTo(1.0);

        // ladder view: the items page filters by database, an item's page runs its gold on the item's database
        Path view = tmp.resolve("spider-view");
        LadderCliTest.Run v = LadderCliTest.run("view", run.toString(), "--export", view.toString());
        assertThat(v.code()).as(v.err()).isZero();
        assertThat(Files.readString(view.resolve("items.html"))).contains("id=\"f-database\"", "\"database\":\"library\"");
        for (int i = 0; i < 8; i++) {
            String page = Files.readString(view.resolve("item").resolve(i + ".html"));
            assertThat(page).contains("database ").doesNotContain("no such table");
        }
    }

    @Test
    void tsIsPerDatabaseACoincidenceOnOneDatabaseIsCaughtByItsOwnSuite() throws Exception {
        // right on library's original rows (Austen and Borges have ids 1 and 2), wrong on its variant
        Path pred = tmp.resolve("coincidence.jsonl");
        Files.writeString(pred, """
                {"id": "dev-6", "sql": "SELECT name FROM authors WHERE id IN (1, 2)"}
                {"id": "dev-1", "sql": "SELECT city, COUNT(*) FROM customers GROUP BY city"}
                """);
        JsonNode eval = new ObjectMapper().readTree(LadderCliTest.run("eval", "--benchmark", spider.toString(),
                "--split", "dev", "--pred", pred.toString(), "--suite", suites.toString(), "--json").out());
        assertThat(eval.get("EX").asDouble()).isEqualTo(1.0);
        assertThat(eval.get("TS").asDouble()).isEqualTo(0.5);
    }

    @Test
    void aBirdFileIsAnsweredOnEachItemsDatabase() throws Exception {
        Path run = tmp.resolve("bird-run");
        Path yaml = tmp.resolve("bird.yaml");
        Files.writeString(yaml, """
                name: bird
                benchmark: %s
                split: dev
                output: %s
                models: {oracle: {engine: oracle, noise: none}}
                strategies: [prompt-k0, agent-1]
                settings: {agent_k: 0}
                scorers: {suite: %s, ex_mode: bird}
                """.formatted(bird.resolve("dev.json"), run, suites));
        LadderCliTest.Run r = LadderCliTest.run("run", yaml.toString(), "--no-progress", "--no-generation-cache");
        assertThat(r.code()).as(r.err()).isZero();
        List<ItemResult> rows = rows(run);
        assertThat(rows).hasSize(8).allSatisfy(x -> {
            assertThat(x.goldFailed()).as(x.itemId()).isFalse();
            assertThat(x.ex()).as(x.cell() + " " + x.itemId() + " " + x.predicted()).isTrue();
            assertThat(x.ts()).isNotNull();
        });
        Map<String, String> byItem = rows.stream().collect(Collectors.toMap(ItemResult::itemId, ItemResult::database, (a, b) -> a));
        assertThat(byItem).containsEntry("dev-0", "library").containsEntry("dev-1", "shop")
                .containsEntry("dev-2", "library").containsEntry("dev-3", "shop");
        LadderCliTest.Run report = LadderCliTest.run("report", run.toString(), "--out", tmp.resolve("bird-report").toString());
        assertThat(report.code()).as(report.err()).isZero();
        assertThat(Files.readString(tmp.resolve("bird-report").resolve("report.md"))).contains("EX by database");
    }

    @Test
    void suiteFoldersThatHoldNothingBeyondTheOriginalLeaveTsMissingWithTheReason() throws Exception {
        // shop's folder holds only the original's copy, library's no file at all: neither can tell anything apart
        Path empty = tmp.resolve("empty-suites");
        TwoDatabaseBenchmarks.shop(empty.resolve("shop/shop.sqlite"), false);
        Files.createDirectories(empty.resolve("library"));
        String why = "the test-suite folder " + empty.resolve("shop") + " holds only copies of the original (shop.sqlite)";
        Path run = tmp.resolve("empty-suites-run");
        Files.writeString(tmp.resolve("empty-suites.yaml"), """
                name: empty-suites
                benchmark: %s
                split: dev
                output: %s
                models: {oracle: {engine: oracle, noise: none}}
                strategies: [prompt-k0]
                scorers: {suite: %s}
                """.formatted(spider, run, empty));
        LadderCliTest.Run r = LadderCliTest.run("run", tmp.resolve("empty-suites.yaml").toString(), "--no-progress",
                "--no-generation-cache");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out() + r.err()).contains("warning: no test suite for 2 of 2 databases (shop, library), so TS is"
                + " missing for every item: " + why);
        assertThat(rows(run)).hasSize(8).allSatisfy(x -> {
            assertThat(x.ex()).as(x.itemId()).isTrue();
            assertThat(x.ts()).as(x.itemId()).isNull();
        });
        assertThat(meta(run)).doesNotContainKey("ts.fingerprint").hasEntrySatisfying("ts.missing",
                m -> assertThat(m).contains(why));
        assertThat(Files.readString(run.resolve(RunDirectory.REPORT).resolve("report.md")))
                .contains("TS: test-suite accuracy over the items that have a suite (missing for every rung: ")
                .contains(why);
    }

    @Test
    void shardsAndAResumedRunEndWithTheWholeRunsRows() throws Exception {
        String extra = "scorers: {ts: none}";
        Path whole = tmp.resolve("whole-run");
        assertThat(LadderCliTest.run("run", experiment("whole", spider, extra).toString(), "--no-progress",
                "--no-generation-cache").code()).isZero();
        Path yaml = experiment("sharded", spider, extra);
        for (int i = 1; i <= 2; i++) {
            LadderCliTest.Run s = LadderCliTest.run("run", yaml.toString(), "--shard", i + "/2", "--no-progress",
                    "--no-generation-cache", "--out", tmp.resolve("shard-" + i).toString());
            assertThat(s.code()).as(s.err()).isZero();
        }
        Path merged = tmp.resolve("merged");
        LadderCliTest.Run m = LadderCliTest.run("merge", tmp.resolve("shard-1").toString(), tmp.resolve("shard-2").toString(),
                "--out", merged.toString());
        assertThat(m.code()).as(m.err()).isZero();
        assertThat(key(rows(merged))).isEqualTo(key(rows(whole)));

        // a run that lost some rows (as a kill leaves it) answers exactly those again, on their own databases
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + whole.resolve(RunDirectory.RESULTS));
             Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM scores WHERE cell = 'agent-3' AND item_id IN ('dev-2', 'dev-7')");
            s.executeUpdate("DELETE FROM results WHERE cell = 'agent-3' AND item_id IN ('dev-2', 'dev-7')");
        }
        LadderCliTest.Run again = LadderCliTest.run("run", experiment("whole", spider, extra).toString(), "--no-progress",
                "--no-generation-cache");
        assertThat(again.code()).as(again.err()).isZero();
        assertThat(again.err()).contains("agent-3 on shop: 1 items", "agent-3 on library: 1 items");
        assertThat(key(rows(whole))).isEqualTo(key(rows(merged)));
    }

    /** What a row says, without its timings. */
    private static List<String> key(List<ItemResult> rows) {
        return rows.stream().map(x -> x.cell() + "|" + x.itemId() + "|" + x.database() + "|" + x.predicted() + "|"
                + x.ex() + "|" + x.outcome()).toList();
    }
}
