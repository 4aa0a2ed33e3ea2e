package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.example.metric.RowCountMatch;
import dev.ladder.sql.db.TestData;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** 'ladder eval' in-process: both input formats, the JSON shape, and one-line user errors. */
class EvalCommandTest {

    record Run(int code, String out, String err) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @BeforeAll
    static void dataDir() {
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Ladder.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(code, out.toString(), err.toString());
    }

    /** The first four test items: three answered with their gold, the fourth with a query that fails. */
    private Path benchmarkPredictions() throws IOException {
        List<BenchmarkItem> items = Benchmarks.load("classicmodels").split("test");
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            lines.add(JSON.createObjectNode().put("id", items.get(i).id()).put("sql", items.get(i).sql()).toString());
        }
        lines.add(JSON.createObjectNode().put("id", items.get(3).id()).put("sql", "SELECT nope FROM customers").toString());
        return Files.write(dir.resolve("pred.jsonl"), lines);
    }

    @Test
    void predictionsOfSomeItemsAreScoredOnThoseItemsAndTheHeaderSaysSo() throws IOException {
        Run r = run("eval", "--benchmark", "classicmodels", "--pred", benchmarkPredictions().toString(), "--no-suite");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("classicmodels test: 4 items").contains("of 200 in the split (--all-items")
                .doesNotContain("without a prediction");
        // 3 of the 4 predicted items right
        assertThat(r.out()).containsPattern("all\\s+4\\s+0\\.750\\s+0\\.750\\s+0\\.750\\s+missing");
        JsonNode root = JSON.readTree(run("eval", "--benchmark", "classicmodels", "--pred",
                benchmarkPredictions().toString(), "--no-suite", "--json").out());
        assertThat(root.get("n").asInt()).isEqualTo(4);
        assertThat(root.get("split_items").asInt()).isEqualTo(200);
    }

    @Test
    void benchmarkModeScoresEveryItemAndCountsMissingPredictions() throws IOException {
        Run r = run("eval", "--benchmark", "classicmodels", "--pred", benchmarkPredictions().toString(), "--no-suite",
                "--all-items");
        assertThat(r.err()).isEmpty();
        assertThat(r.code()).isZero();
        assertThat(r.out()).startsWith("classicmodels test: 200 items, EX mode spider, EM mode semantic")
                .contains("EM (semantic)").doesNotContain("spider-strict")
                .contains("TS missing", "196 items without a prediction", "category", "difficulty");
        // 3 of 200 right on VA, EX and EM
        assertThat(r.out()).containsPattern("all\\s+200\\s+0\\.015\\s+0\\.015\\s+0\\.015\\s+missing");
    }

    @Test
    void spiderStrictEmIsNamedInEveryTable() throws IOException {
        Run r = run("eval", "--benchmark", "classicmodels", "--pred", benchmarkPredictions().toString(), "--no-suite",
                "--em-mode", "spider-strict", "--all-items");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("EM mode spider-strict").doesNotContain("semantic");
        // the summary, category and difficulty tables each name the mode in the EM column
        assertThat(r.out().split("EM \\(spider-strict\\)", -1)).hasSize(4);
    }

    @Test
    void jsonHasSummaryAndOneRowPerItem() throws IOException {
        Run r = run("eval", "--benchmark", "classicmodels", "--pred", benchmarkPredictions().toString(), "--no-suite",
                "--json", "--ex-mode", "bird", "--all-items");
        assertThat(r.code()).isZero();
        JsonNode root = JSON.readTree(r.out());
        assertThat(root.get("n").asInt()).isEqualTo(200);
        assertThat(root.get("VA").asDouble()).isEqualTo(0.015);
        assertThat(root.get("TS").isNull()).isTrue();
        assertThat(root.get("ex_mode").asText()).isEqualTo("bird");
        assertThat(root.get("em_mode").asText()).isEqualTo("semantic");
        JsonNode first = root.get("items").get(0);
        assertThat(first.get("VA").asBoolean()).isTrue();
        assertThat(first.get("EX").asBoolean()).isTrue();
        assertThat(first.get("EM").asBoolean()).isTrue();
        JsonNode failed = root.get("items").get(3);
        assertThat(failed.get("VA").asBoolean()).isFalse();
        assertThat(failed.get("error").asText()).contains("nope");
        assertThat(root.get("items").get(4).get("flags").toString()).contains("no-prediction");
        // a registered metric (the test sources register RowCountMatch) is scored on every item: each item's value
        // (absent where it does not apply) and the mean over the items it applies to
        assertThat(first.get("metrics").get(RowCountMatch.NAME).asDouble()).isEqualTo(1.0);
        assertThat(failed.get("metrics").get(RowCountMatch.NAME).isNull()).isTrue();
        assertThat(root.get("items").get(4).get("metrics").get(RowCountMatch.NAME).isNull()).isTrue();
        assertThat(root.get("metrics").get(RowCountMatch.NAME).asDouble()).isEqualTo(1.0);
    }

    @Test
    void registeredMetricsAreColumnsOfEveryTable() throws IOException {
        Run r = run("eval", "--benchmark", "classicmodels", "--pred", benchmarkPredictions().toString(), "--no-suite",
                "--all-items");
        assertThat(r.code()).isZero();
        // the summary, category and difficulty tables each have the column; items without a value do not count
        assertThat(r.out().split("\\b" + RowCountMatch.NAME + "\\b", -1)).hasSize(4);
        assertThat(r.out()).containsPattern("all\\s+200\\s+0\\.015\\s+0\\.015\\s+0\\.015\\s+missing\\s+1\\.000");
    }

    @Test
    void spiderFilesAreScoredLineByLine() throws IOException {
        Path gold = Files.write(dir.resolve("gold.txt"), List.of(
                "SELECT count(*) FROM customers\tclassicmodels",
                "SELECT city FROM offices ORDER BY city\tclassicmodels",
                "SELECT customerName FROM customers WHERE creditLimit > 100000\tclassicmodels"));
        Path pred = Files.write(dir.resolve("pred.txt"), List.of(
                "SELECT COUNT(*) FROM customers",
                "SELECT city FROM offices",
                "SELECT customerName FROM customers WHERE creditLimit >= 100000"));
        Run r = run("eval", "--gold", gold.toString(), "--pred", pred.toString(), "--no-suite", "--json");
        assertThat(r.err()).isEmpty();
        JsonNode items = JSON.readTree(r.out()).get("items");
        assertThat(items.get(0).get("EX").asBoolean()).isTrue();
        assertThat(items.get(0).get("EM").asBoolean()).isTrue();
        // the gold orders the rows, the prediction does not: a different answer under Spider rules
        assertThat(items.get(1).get("EX").asBoolean()).isFalse();
        // >= and > agree on the original data (no customer has exactly 100000) but are not the same query
        assertThat(items.get(2).get("EX").asBoolean()).isTrue();
        assertThat(items.get(2).get("EM").asBoolean()).isFalse();
    }

    @Test
    void userErrorsAreOneLineAndExitTwo() throws IOException {
        Path pred = Files.write(dir.resolve("p.jsonl"), List.of("{\"id\":\"cm-test-999\",\"sql\":\"SELECT 1\"}"));
        Path gold = Files.write(dir.resolve("g.txt"), List.of("SELECT 1\tclassicmodels", "SELECT 2\tclassicmodels"));
        Path onePred = Files.write(dir.resolve("one.txt"), List.of("SELECT 1"));
        Path twoPred = Files.write(dir.resolve("two.txt"), List.of("SELECT 1", "SELECT 2"));
        Path emptyDir = Files.createDirectories(dir.resolve("nosuite"));
        Path sqlite = dir.resolve("one.sqlite");
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + sqlite);
             java.sql.Statement st = c.createStatement()) {
            st.execute("CREATE TABLE t (x INTEGER)");
        } catch (java.sql.SQLException e) {
            throw new IOException(e);
        }
        List<List<String>> cases = List.of(
                List.of("eval", "--benchmark", "classicmodels", "--pred", pred.toString(), "--no-suite"),
                List.of("eval", "--gold", gold.toString(), "--pred", onePred.toString(), "--no-suite"),
                List.of("eval", "--benchmark", "classicmodels", "--pred", dir.resolve("absent.jsonl").toString()),
                List.of("eval", "--gold", gold.toString(), "--pred", onePred.toString(), "--ex-mode", "fuzzy"),
                List.of("eval", "--gold", gold.toString(), "--pred", onePred.toString(), "--em-mode", "strict"),
                List.of("eval", "--gold", gold.toString(), "--pred", twoPred.toString(), "--suite", emptyDir.toString()),
                List.of("eval", "--benchmark", "classicmodels", "--gold", gold.toString(), "--pred", onePred.toString()),
                List.of("eval", "--db", sqlite.toString(), "--gold", gold.toString(), "--pred", twoPred.toString(), "--suite", emptyDir.toString()));
        List<String> expected = List.of("cm-test-999", "has 1 predictions but", "no such prediction file",
                "unknown --ex-mode 'fuzzy'", "unknown --em-mode 'strict'", "manifest", "mutually exclusive", "no test suite for one in");
        for (int i = 0; i < cases.size(); i++) {
            Run r = run(cases.get(i).toArray(String[]::new));
            assertThat(r.code()).as(String.join(" ", cases.get(i))).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", cases.get(i))).startsWith("ladder: ").contains(expected.get(i)).hasLineCount(1);
            assertThat(r.out()).isEmpty();
        }
    }
    /** A SQLite database with one table t(x): 1, 2. */
    private Path smallSqlite() throws IOException {
        Path sqlite = dir.resolve("small.sqlite");
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + sqlite);
             java.sql.Statement st = c.createStatement()) {
            st.execute("CREATE TABLE t (x INTEGER)");
            st.execute("INSERT INTO t VALUES (1), (2)");
        } catch (java.sql.SQLException e) {
            throw new IOException(e);
        }
        return sqlite;
    }

    @Test
    void deeplyNestedPredictionIsAnInvalidItemNotACrash() throws IOException {
        Path sqlite = smallSqlite();
        Path gold = Files.write(dir.resolve("deep-gold.txt"), List.of(
                "SELECT x FROM t\tsmall", "SELECT x FROM t\tsmall", "SELECT x FROM t\tsmall"));
        Path pred = Files.write(dir.resolve("deep-pred.txt"), List.of(
                "SELECT x FROM t WHERE x IN " + "(".repeat(1_000) + "1, 2" + ")".repeat(1_000),
                "SELECT " + "(".repeat(20_000) + "x" + ")".repeat(20_000) + " FROM t",
                "SELECT x FROM t"));
        Run r = run("eval", "--db", sqlite.toString(), "--gold", gold.toString(), "--pred", pred.toString(),
                "--no-suite", "--json");
        assertThat(r.err()).isEmpty();
        assertThat(r.code()).isZero();
        JsonNode items = JSON.readTree(r.out()).get("items");
        assertThat(items.get(0).get("VA").asBoolean()).isFalse();
        assertThat(items.get(1).get("VA").asBoolean()).isFalse();
        assertThat(items.get(2).get("EX").asBoolean()).isTrue();
    }

    @Test
    void anEmptySuiteManifestLeavesTsMissingWithTheReasonNeverEx() throws IOException {
        // as a build stored one before empty suites were refused: no database, the SHA-256 of nothing
        Path suite = Files.createDirectories(dir.resolve("empty-suite"));
        Files.writeString(suite.resolve("manifest.json"), """
                {"database": "classicmodels", "benchmark": "classicmodels", "split": "test", "seed": 1,
                 "databases": [], "candidates": 0,
                 "fingerprint": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}
                """);
        String why = "the test suite in " + suite + " has no database beyond the original (0 candidates tried, none"
                + " kept), so its TS would be EX: rebuild it with 'ladder testsuite build classicmodels'";
        Run r = run("eval", "--benchmark", "classicmodels", "--pred", benchmarkPredictions().toString(), "--suite",
                suite.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).isEmpty();
        assertThat(r.out().lines().findFirst().orElseThrow()).contains("; TS missing (" + why + ")");
        assertThat(r.out()).containsPattern("all\\s+4\\s+0\\.750\\s+0\\.750\\s+0\\.750\\s+missing");
        JsonNode root = JSON.readTree(run("eval", "--benchmark", "classicmodels", "--pred",
                benchmarkPredictions().toString(), "--suite", suite.toString(), "--json").out());
        assertThat(root.get("EX").asDouble()).isEqualTo(0.75);
        assertThat(root.get("TS").isNull()).isTrue();
        assertThat(root.get("ts_missing").asText()).isEqualTo(why);
        assertThat(root.get("items").get(0).has("TS")).isFalse();
    }

    @Test
    void anEmptySqliteSuiteFolderLeavesTsMissingWithTheReason() throws IOException {
        Path sqlite = smallSqlite();
        Path suites = dir.resolve("suites");
        Path folder = Files.createDirectories(suites.resolve("small"));
        Path gold = Files.write(dir.resolve("small-gold.txt"), List.of("SELECT x FROM t\tsmall", "SELECT x FROM t WHERE x > 1\tsmall"));
        Path pred = Files.write(dir.resolve("small-pred.txt"), List.of("SELECT x FROM t", "SELECT x FROM t WHERE x = 2"));
        String[] args = {"eval", "--db", sqlite.toString(), "--gold", gold.toString(), "--pred", pred.toString(),
                "--suite", suites.toString()};
        Run r = run(args);
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out().lines().findFirst().orElseThrow()).contains("; TS missing (the test-suite folder " + folder
                + " holds no SQLite file, so TS would be EX (expected " + folder + "/*.sqlite, the layout of the official"
                + " test-suite databases))");
        assertThat(r.out()).containsPattern("all\\s+2\\s+1\\.000\\s+1\\.000\\s+\\S+\\s+missing");
        // the original's copy alone (as the official folders hold it beside the distilled ones) is no suite either
        Files.copy(sqlite, folder.resolve("small.sqlite"));
        JsonNode root = JSON.readTree(run(append(args, "--json")).out());
        assertThat(root.get("EX").asDouble()).isEqualTo(1.0);
        assertThat(root.get("TS").isNull()).isTrue();
        assertThat(root.get("ts_missing").asText()).isEqualTo("the test-suite folder " + folder + " holds only copies of"
                + " the original (small.sqlite), so TS would be EX (the official suites add distilled databases beside it)");
    }

    private static String[] append(String[] args, String more) {
        String[] out = Arrays.copyOf(args, args.length + 1);
        out[args.length] = more;
        return out;
    }

    @Test
    void emptyPredictionFileIsAUserError() throws IOException {
        Path empty = Files.write(dir.resolve("empty.jsonl"), new byte[0]);
        Run r = run("eval", "--benchmark", "classicmodels", "--pred", empty.toString(), "--no-suite");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("ladder: " + empty + ": no predictions (the file is empty)" + System.lineSeparator());
        assertThat(r.out()).isEmpty();
    }

    @Test
    void aGoldLineForAnotherDatabaseThanDbIsOneLineError() throws IOException {
        Path sqlite = smallSqlite();
        Path gold = Files.write(dir.resolve("mixed-gold.txt"), List.of("SELECT x FROM t\tsmall", "SELECT x FROM t\tnosuchdb"));
        Path pred = Files.write(dir.resolve("mixed-pred.txt"), List.of("SELECT x FROM t", "SELECT x FROM t"));
        Run r = run("eval", "--db", sqlite.toString(), "--gold", gold.toString(), "--pred", pred.toString(), "--no-suite");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).startsWith("ladder: " + gold + ":2: db_id 'nosuchdb' is not the database given with --db (small)")
                .hasLineCount(1);
        assertThat(r.out()).isEmpty();
    }

    @Test
    void goldsThatCannotBeReadAreExcludedAndNamed() throws IOException {
        Path sqlite = smallSqlite();
        Path gold = Files.write(dir.resolve("broken-gold.txt"), List.of(
                "SELECT x FROM t\tsmall", "SELECT x FROM t WHERE\tsmall", "SELECT max(x) FROM t\tsmall"));
        Path pred = Files.write(dir.resolve("broken-pred.txt"), List.of("SELECT x FROM t", "SELECT x FROM t", "SELECT 1"));
        Run r = run("eval", "--db", sqlite.toString(), "--gold", gold.toString(), "--pred", pred.toString(), "--no-suite");
        assertThat(r.err()).isEmpty();
        assertThat(r.code()).isZero();
        assertThat(r.out().lines().findFirst().orElseThrow()).startsWith("broken-gold.txt: 2 items, ")
                .contains("; 1 item excluded, its gold cannot be read or run: " + gold + ":2");
        // 1 of the 2 scored items right
        assertThat(r.out()).containsPattern("all\\s+2\\s+1\\.000\\s+0\\.500\\s+0\\.500\\s+missing");

        Run json = run("eval", "--db", sqlite.toString(), "--gold", gold.toString(), "--pred", pred.toString(), "--no-suite",
                "--json");
        assertThat(json.code()).isZero();
        JsonNode root = JSON.readTree(json.out());
        assertThat(root.get("n").asInt()).isEqualTo(2);
        assertThat(root.get("items")).extracting(i -> i.get("id").asText()).containsExactly("1", "3");
        JsonNode excluded = root.get("gold_errors").get(0);
        assertThat(excluded.get("id").asText()).isEqualTo("2");
        assertThat(excluded.get("where").asText()).isEqualTo(gold + ":2");
        assertThat(excluded.get("error").asText()).contains("cannot parse");
    }

    @Test
    void aGoldThatFailsOnTheDatabaseIsExcludedAndEveryOutcomeIsApart() throws IOException {
        Path sqlite = smallSqlite();
        Path gold = Files.write(dir.resolve("outcome-gold.txt"), List.of(
                "SELECT x FROM t\tsmall", "SELECT x FROM t\tsmall", "SELECT x FROM t WHERE x > 1\tsmall",
                "SELECT x FROM t\tsmall", "SELECT x FROM archived_t\tsmall", "SELECT x FROM t\tsmall"));
        Path pred = Files.write(dir.resolve("outcome-pred.txt"), List.of(
                "SELECT x FROM t", "SELECT x FROM t WHERE x > 5", "SELECT x FROM t WHERE x < 2", "SELEC x FROM t",
                "SELECT x FROM t", "SELECT y FROM t"));
        Run r = run("eval", "--db", sqlite.toString(), "--gold", gold.toString(), "--pred", pred.toString(), "--no-suite");
        assertThat(r.code()).as(r.err()).isZero();
        // the gold that reads a missing table is not the model's error: left out, named
        assertThat(r.out().lines().findFirst().orElseThrow()).startsWith("outcome-gold.txt: 5 items, ")
                .contains("; 1 item excluded, its gold cannot be read or run: " + gold + ":5");
        assertThat(r.out()).contains("outcomes: correct 1, mismatch 1, empty-result 1, pred-error:syntax 1,"
                + " pred-error:unknown-column 1");
        JsonNode root = JSON.readTree(run("eval", "--db", sqlite.toString(), "--gold", gold.toString(), "--pred",
                pred.toString(), "--no-suite", "--json").out());
        assertThat(root.get("items")).extracting(i -> i.get("outcome").asText())
                .containsExactly("correct", "empty-result", "mismatch", "pred-error:syntax", "pred-error:unknown-column");
        JsonNode excluded = root.get("gold_errors").get(0);
        assertThat(excluded.get("outcome").asText()).isEqualTo("gold-error");
        assertThat(excluded.get("error").asText()).startsWith("the gold could not run: UNKNOWN_TABLE");
    }

    @Test
    void everyGoldUnreadableIsOneLineError() throws IOException {
        Path sqlite = smallSqlite();
        Path gold = Files.write(dir.resolve("all-broken.txt"), List.of("SELECT x FROM t WHERE\tsmall"));
        Path pred = Files.write(dir.resolve("one-pred.txt"), List.of("SELECT x FROM t"));
        Run r = run("eval", "--db", sqlite.toString(), "--gold", gold.toString(), "--pred", pred.toString(), "--no-suite");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).startsWith("ladder: " + gold + ":1: gold cannot be read").hasLineCount(1);
        assertThat(r.out()).isEmpty();
    }
}
