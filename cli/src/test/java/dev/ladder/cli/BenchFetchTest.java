package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.scorer.SqliteFixtures;
import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.cli.LadderCliTest.Run;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.eval.experiment.RungSpec;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ladder bench fetch}: Spider dev, BIRD dev and the official test suite from archives of the official layout
 * (made here: two or three databases, a few questions) served on 127.0.0.1; what is laid out, that the names then
 * find it, resuming, and the one-line errors that leave nothing half-written.
 */
class BenchFetchTest {

    @TempDir Path tmp;
    private String oldCache;
    private Path home;
    private ArchiveServer server;

    @BeforeEach
    void cacheInTemp() throws IOException {
        oldCache = System.getProperty("ladder.cache.dir");
        System.setProperty("ladder.cache.dir", tmp.resolve("cache").toString());
        home = tmp.resolve("cache").resolve("benchmarks");
        server = new ArchiveServer();
    }

    @AfterEach
    void restore() {
        server.close();
        if (oldCache == null) System.clearProperty("ladder.cache.dir");
        else System.setProperty("ladder.cache.dir", oldCache);
    }

    private static Run run(String... args) {
        return LadderCliTest.run(args);
    }

    // ------------------------------------------------------------------------------------------------ fixtures

    private byte[] sqlite(String name, String... statements) throws IOException {
        Path file = tmp.resolve("fixtures").resolve(name);
        if (Files.isRegularFile(file)) return Files.readAllBytes(file); // made for an earlier archive of this test
        return Files.readAllBytes(SqliteFixtures.create(file, statements));
    }

    private byte[] alpha() throws IOException {
        return sqlite("alpha.sqlite", "CREATE TABLE alpha (id INTEGER PRIMARY KEY, name TEXT)",
                "INSERT INTO alpha VALUES (1, 'kite'), (2, 'anchor'), (3, 'lamp')");
    }

    private byte[] beta() throws IOException {
        return sqlite("beta.sqlite", "CREATE TABLE beta (id INTEGER PRIMARY KEY, score INTEGER)",
                "INSERT INTO beta VALUES (1, 40), (2, 75)");
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Spider's spider_data.zip in small: dev and train question files, three databases named, one not, a test set. */
    private byte[] spiderArchive() throws IOException {
        Map<String, byte[]> e = new LinkedHashMap<>();
        e.put("spider_data/README.txt", utf8("a small archive in Spider's layout"));
        e.put("spider_data/dev.json", utf8("""
                [{"db_id": "db_a", "question": "How many alphas are there?", "query": "SELECT count(*) FROM alpha"},
                 {"db_id": "db_b", "question": "What is the highest score?", "query": "SELECT max(score) FROM beta"},
                 {"db_id": "db_a", "question": "Alpha names in order.", "query": "SELECT name FROM alpha ORDER BY name"}]
                """));
        e.put("spider_data/train_spider.json", utf8("""
                [{"db_id": "db_c", "question": "How many gammas?", "query": "SELECT count(*) FROM gamma"},
                 {"db_id": "db_a", "question": "The largest alpha id?", "query": "SELECT max(id) FROM alpha"}]
                """));
        e.put("spider_data/train_others.json", utf8("[{\"db_id\": \"db_x\", \"question\": \"q\", \"query\": \"SELECT 1\"}]"));
        e.put("spider_data/tables.json", utf8("[{\"db_id\": \"db_a\"}, {\"db_id\": \"db_b\"}, {\"db_id\": \"db_c\"}]"));
        e.put("spider_data/dev_gold.sql", utf8("SELECT count(*) FROM alpha\tdb_a\n"));
        e.put("spider_data/database/db_a/db_a.sqlite", alpha());
        e.put("spider_data/database/db_a/schema.sql", utf8("CREATE TABLE alpha (id INTEGER PRIMARY KEY, name TEXT);"));
        e.put("spider_data/database/db_b/db_b.sqlite", beta());
        e.put("spider_data/database/db_c/db_c.sqlite", sqlite("gamma.sqlite", "CREATE TABLE gamma (id INTEGER)"));
        e.put("spider_data/database/db_unused/db_unused.sqlite", sqlite("unused.sqlite", "CREATE TABLE u (id INTEGER)"));
        e.put("spider_data/test_database/db_a/db_a.sqlite", sqlite("other.sqlite", "CREATE TABLE other (id INTEGER)"));
        e.put("__MACOSX/spider_data/._dev.json", utf8("resource fork"));
        return ArchiveServer.zip(e);
    }

    /** BIRD's dev.zip in small: the databases in a zip inside the zip, evidence with every question. */
    private byte[] birdArchive() throws IOException {
        Map<String, byte[]> dbs = new LinkedHashMap<>();
        dbs.put("dev_databases/db_a/db_a.sqlite", alpha());
        dbs.put("dev_databases/db_a/database_description/alpha.csv", utf8("original_column_name,column_description\nname,the alpha's name\n"));
        dbs.put("dev_databases/db_b/db_b.sqlite", beta());
        dbs.put("__MACOSX/dev_databases/._db_a", utf8("resource fork"));
        Map<String, byte[]> e = new LinkedHashMap<>();
        e.put("dev_20240627/dev.json", utf8("""
                [{"question_id": 0, "db_id": "db_a", "question": "How many kites are there?",
                  "evidence": "kite refers to name = 'kite'", "SQL": "SELECT count(*) FROM alpha WHERE name = 'kite'",
                  "difficulty": "simple"},
                 {"question_id": 1, "db_id": "db_b", "question": "Scores above fifty?", "evidence": "",
                  "SQL": "SELECT score FROM beta WHERE score > 50", "difficulty": "simple"}]
                """));
        e.put("dev_20240627/dev_tables.json", utf8("[{\"db_id\": \"db_a\"}, {\"db_id\": \"db_b\"}]"));
        e.put("dev_20240627/dev.sql", utf8("SELECT count(*) FROM alpha WHERE name = 'kite'\tdb_a\n"));
        e.put("dev_20240627/dev_databases.zip", ArchiveServer.zip(dbs));
        return ArchiveServer.zip(e);
    }

    /** The test-suite database folder: each database's original and its distilled variants. */
    private byte[] suiteArchive() throws IOException {
        Map<String, byte[]> e = new LinkedHashMap<>();
        e.put("database/db_a/db_a.sqlite", alpha());
        e.put("database/db_a/db_a_1.sqlite", sqlite("alpha1.sqlite", "CREATE TABLE alpha (id INTEGER PRIMARY KEY, name TEXT)",
                "INSERT INTO alpha VALUES (7, 'x')"));
        e.put("database/db_b/db_b.sqlite", beta());
        e.put("database/db_b/db_b_1.sqlite", sqlite("beta1.sqlite", "CREATE TABLE beta (id INTEGER PRIMARY KEY, score INTEGER)"));
        return ArchiveServer.zip(e);
    }

    /** A manifest pinning these archives' sizes and SHA-256 under the recipes' names. */
    private Path manifest(Map<String, byte[]> archives) throws IOException {
        StringBuilder json = new StringBuilder("{");
        for (Map.Entry<String, byte[]> a : archives.entrySet()) {
            if (json.length() > 1) json.append(", ");
            json.append('"').append(a.getKey()).append("\": {\"size\": ").append(a.getValue().length)
                    .append(", \"sha256\": \"").append(LocalHub.sha256(a.getValue())).append("\"}");
        }
        Path m = tmp.resolve("manifest-" + archives.keySet().iterator().next() + ".json");
        Files.writeString(m, json.append('}').toString());
        return m;
    }

    private Run fetch(Path manifest, String... names) {
        List<String> args = new ArrayList<>(List.of("bench", "fetch", "--mirror", server.url()));
        if (manifest != null) args.addAll(List.of("--manifest", manifest.toString()));
        args.addAll(Arrays.asList(names));
        return run(args.toArray(String[]::new));
    }

    /** What the benchmarks home holds, the fetch locks aside. */
    private List<String> homeEntries() throws IOException {
        if (!Files.isDirectory(home)) return List.of();
        try (Stream<Path> s = Files.list(home)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".lock")).sorted().toList();
        }
    }

    private static List<String> tree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).map(p -> dir.relativize(p).toString().replace('\\', '/')).sorted().toList();
        }
    }

    private static void assertOneLineError(Run r, String... parts) {
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).startsWith("ladder: ").endsWith("\n");
        assertThat(r.err().strip()).doesNotContain("\n");
        for (String p : parts) assertThat(r.err()).contains(p);
    }

    // ------------------------------------------------------------------------------------------------ tests

    @Test
    void spiderIsLaidOutAsDevAndTrainWithTheirDatabasesAndBenchInfoReadsItByName() throws IOException {
        byte[] archive = spiderArchive();
        server.files.put("spider_data.zip", archive);
        // a fetch killed while unpacking left its hidden folder: the next one removes it
        Files.createDirectories(home.resolve(".spider-dev.tmp-123"));
        Files.writeString(home.resolve(".spider-dev.tmp-123/dev.json"), "[");

        Run r = fetch(manifest(Map.of("spider-dev", archive)), "spider");
        assertThat(r.err()).isEmpty();
        assertThat(r.code()).isZero();
        Path dir = home.resolve("spider-dev");
        assertThat(r.out()).startsWith("spider-dev: laid out in " + dir + " from " + server.url() + "/spider_data.zip ("
                + archive.length + " bytes, SHA-256 " + LocalHub.sha256(archive) + ", pinned SHA-256); use it as"
                + " 'benchmark: spider-dev' or --benchmark spider-dev");
        assertThat(tree(dir)).containsExactly("database/db_a/db_a.sqlite", "database/db_a/schema.sql",
                "database/db_b/db_b.sqlite", "database/db_c/db_c.sqlite", "dev.json", "dev_gold.sql",
                "ladder-fetch.properties", "tables.json", "train.json");
        assertThat(dir.resolve("database/db_a/db_a.sqlite")).hasBinaryContent(alpha());
        assertThat(Files.readString(dir.resolve("ladder-fetch.properties"))).contains("sha256=" + LocalHub.sha256(archive),
                "size=" + archive.length, "archive=spider_data.zip");
        assertThat(homeEntries()).containsExactly("spider-dev");

        Run info = run("bench", "info", "spider-dev");
        assertThat(info.err()).isEmpty();
        assertThat(info.out()).startsWith("spider-dev (database 3 SQLite files)").contains("dev: 3 items", "train: 2 items");
        Benchmark b = Benchmarks.load("spider-dev");
        assertThat(b.databaseOf(b.split("dev").get(1))).isEqualTo(dir.resolve("database/db_b/db_b.sqlite").toString());

        // --benchmark by name: every prediction scored on its own item's database
        Path pred = Files.write(tmp.resolve("pred.jsonl"), List.of(
                "{\"id\": \"dev-1\", \"sql\": \"SELECT count(id) FROM alpha\"}",
                "{\"id\": \"dev-2\", \"sql\": \"SELECT max(score) FROM beta\"}",
                "{\"id\": \"dev-3\", \"sql\": \"SELECT name FROM alpha ORDER BY id\"}"));
        Run eval = run("eval", "--benchmark", "spider-dev", "--split", "dev", "--pred", pred.toString(), "--no-suite", "--json");
        assertThat(eval.err()).isEmpty();
        JsonNode items = new ObjectMapper().readTree(eval.out()).get("items");
        assertThat(List.of(items.get(0).get("EX").asBoolean(), items.get(1).get("EX").asBoolean(),
                items.get(2).get("EX").asBoolean())).containsExactly(true, true, false);

        Run again = fetch(null, "spider-dev");
        assertThat(again.code()).isZero();
        assertThat(again.out()).startsWith("spider-dev: already in " + dir + " (--again fetches it again)");
        assertThat(server.ranges).hasSize(1);
    }

    @Test
    void birdIsLaidOutWithTheDatabasesOfItsNestedZipAndItsEvidence() throws IOException {
        byte[] archive = birdArchive();
        server.files.put("dev.zip", archive);
        Run r = fetch(manifest(Map.of("bird-dev", archive)), "bird");
        assertThat(r.err()).isEmpty();
        assertThat(r.code()).isZero();
        Path dir = home.resolve("bird-dev");
        assertThat(tree(dir)).containsExactly("dev.json", "dev.sql", "dev_databases/db_a/database_description/alpha.csv",
                "dev_databases/db_a/db_a.sqlite", "dev_databases/db_b/db_b.sqlite", "dev_tables.json",
                "ladder-fetch.properties");

        Run info = run("bench", "info", "bird-dev");
        assertThat(info.err()).isEmpty();
        assertThat(info.out()).startsWith("bird-dev (database 2 SQLite files)").contains("dev: 2 items");
        Benchmark b = Benchmarks.load("bird-dev");
        assertThat(b.name()).isEqualTo("bird-dev");
        assertThat(b.split("dev").get(0).evidence()).isEqualTo("kite refers to name = 'kite'");
        assertThat(b.databaseOf(b.split("dev").get(0))).isEqualTo(dir.resolve("dev_databases/db_a/db_a.sqlite").toString());
        Run check = run("bench", "check", "bird-dev");
        assertThat(check.out()).contains("all items ok");
    }

    @Test
    void aBrokenOffDownloadIsKeptAndTheNextFetchResumesItWithARangeRequest() throws IOException {
        byte[] archive = spiderArchive();
        server.files.put("spider_data.zip", archive);
        Path manifest = manifest(Map.of("spider-dev", archive));
        int half = archive.length / 2;
        server.breakAfter = half;

        Run broken = fetch(manifest, "spider");
        assertOneLineError(broken, "spider-dev: the download from " + server.url() + "/spider_data.zip broke off after "
                + half + " of " + archive.length + " bytes", "run the fetch again to resume");
        assertThat(homeEntries()).containsExactly("spider_data.zip.part");
        assertThat(home.resolve("spider_data.zip.part")).hasSize(half);

        Run resumed = fetch(manifest, "spider");
        assertThat(resumed.err()).isEmpty();
        assertThat(resumed.out()).contains("pinned SHA-256, resumed)");
        assertThat(server.ranges).containsExactly("", "bytes=" + half + "-");
        assertThat(server.served.get()).isEqualTo(archive.length);
        assertThat(homeEntries()).containsExactly("spider-dev");
        assertThat(run("bench", "info", "spider-dev").out()).contains("dev: 3 items");
    }

    @Test
    void aFetchKilledMidDownloadLeavesNoFolderAndTheNextResumes() throws Exception {
        byte[] archive = spiderArchive();
        server.files.put("spider_data.zip", archive);
        Path manifest = manifest(Map.of("spider-dev", archive));
        int half = archive.length / 2;
        server.stallAfter = half;
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "-Dladder.cache.dir=" + tmp.resolve("cache"), "-cp", System.getProperty("java.class.path"),
                "dev.ladder.cli.Ladder", "bench", "fetch", "--mirror", server.url(), "--manifest", manifest.toString(),
                "spider").redirectErrorStream(true).redirectOutput(tmp.resolve("child.log").toFile()).start();
        Path part = home.resolve("spider_data.zip.part");
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!(Files.isRegularFile(part) && Files.size(part) == half)) {
            assertThat(child.isAlive()).as(Files.readString(tmp.resolve("child.log"))).isTrue();
            assertThat(System.nanoTime()).as("the child's download never reached half").isLessThan(deadline);
            Thread.sleep(20);
        }
        child.destroyForcibly();
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(homeEntries()).containsExactly("spider_data.zip.part");
        assertOneLineError(run("bench", "info", "spider-dev"), "benchmark 'spider-dev' is not fetched");

        Run resumed = fetch(manifest, "spider");
        assertThat(resumed.err()).isEmpty();
        assertThat(resumed.out()).contains("resumed)");
        assertThat(server.ranges).containsExactly("", "bytes=" + half + "-");
        assertThat(homeEntries()).containsExactly("spider-dev");
    }

    @Test
    void aServerThatIgnoresRangesServesTheWholeArchiveAgain() throws IOException {
        byte[] archive = spiderArchive();
        server.files.put("spider_data.zip", archive);
        server.honourRange = false;
        Files.createDirectories(home);
        Files.write(home.resolve("spider_data.zip.part"), Arrays.copyOf(archive, 100));
        Run r = fetch(manifest(Map.of("spider-dev", archive)), "spider");
        assertThat(r.err()).isEmpty();
        assertThat(r.out()).doesNotContain("resumed");
        assertThat(server.ranges).containsExactly("bytes=100-");
        assertThat(homeEntries()).containsExactly("spider-dev");
    }

    @Test
    void aWrongHashOrSizeLeavesNothing() throws IOException {
        byte[] archive = spiderArchive();
        server.files.put("spider_data.zip", archive);
        Path wrongHash = Files.writeString(tmp.resolve("hash.json"), "{\"spider-dev\": {\"size\": " + archive.length
                + ", \"sha256\": \"" + "0".repeat(64) + "\"}}");
        Run r = fetch(wrongHash, "spider");
        assertOneLineError(r, "spider-dev: the archive from " + server.url() + "/spider_data.zip has SHA-256 "
                + LocalHub.sha256(archive) + ", expected " + "0".repeat(64) + "; it was removed and nothing was laid out");
        assertThat(homeEntries()).isEmpty();

        // the right bytes by the manifest, but not Spider's layout: refused as the wrong archive, nothing laid out
        byte[] other = birdArchive();
        server.files.put("spider_data.zip", other);
        Run notSpider = fetch(manifest(Map.of("spider-dev", other)), "spider");
        assertOneLineError(notSpider, "spider-dev: " + home.resolve("spider_data.zip") + " has no dev_20240627/tables.json (is it the"
                + " right archive? remove it and run the fetch again); nothing was laid out");
        assertThat(homeEntries()).containsExactly("spider_data.zip");
        Files.delete(home.resolve("spider_data.zip"));
        server.files.put("spider_data.zip", archive);

        Path wrongSize = Files.writeString(tmp.resolve("size.json"), "{\"spider-dev\": {\"size\": " + (archive.length + 1) + "}}");
        Run s = fetch(wrongSize, "spider");
        assertOneLineError(s, "serves " + archive.length + " bytes, expected " + (archive.length + 1));
        assertThat(homeEntries()).isEmpty();
        assertOneLineError(run("bench", "info", "spider-dev"), "benchmark 'spider-dev' is not fetched: run 'ladder bench fetch spider'");
    }

    @Test
    void notFoundNoNetworkAndUnknownNamesAreOneLineErrors() throws IOException {
        Run missing = fetch(null, "bird");
        assertOneLineError(missing, "bird-dev: " + server.url() + "/dev.zip answered HTTP 404 (not found); nothing was laid out");
        assertThat(homeEntries()).isEmpty();

        // Google Drive's quota or confirmation page instead of the file
        server.files.put("dev.zip", utf8("<html><body>Quota exceeded</body></html>"));
        server.contentType = "text/html; charset=utf-8";
        assertOneLineError(fetch(null, "bird"), "bird-dev: " + server.url() + "/dev.zip answered a web page, not the archive",
                "put it at " + home.resolve("dev.zip"));
        assertThat(homeEntries()).isEmpty();

        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        Run offline = run("bench", "fetch", "--mirror", "http://127.0.0.1:" + closed, "spider");
        assertOneLineError(offline, "spider-dev: cannot reach http://127.0.0.1:" + closed + "/spider_data.zip",
                "put spider_data.zip at " + home.resolve("spider_data.zip") + " by hand");
        assertThat(homeEntries()).isEmpty();

        // offline: the archive put where the message says is checked and laid out without the network
        byte[] archive = spiderArchive();
        Path manifest = manifest(Map.of("spider-dev", archive));
        Files.write(home.resolve("spider_data.zip"), Arrays.copyOf(archive, archive.length - 1));
        assertOneLineError(run("bench", "fetch", "--mirror", "http://127.0.0.1:" + closed, "--manifest", manifest.toString(),
                "spider"), "spider-dev: " + home.resolve("spider_data.zip") + " is not the expected archive");
        Files.write(home.resolve("spider_data.zip"), archive);
        Run placed = run("bench", "fetch", "--mirror", "http://127.0.0.1:" + closed, "--manifest", manifest.toString(), "spider");
        assertThat(placed.err()).isEmpty();
        assertThat(placed.out()).startsWith("spider-dev: laid out in " + home.resolve("spider-dev"));
        assertThat(homeEntries()).containsExactly("spider-dev");

        assertOneLineError(run("bench", "fetch", "wikisql"),
                "unknown benchmark to fetch 'wikisql'; known: spider (spider-dev), bird (bird-dev), spider-ts");
        assertOneLineError(run("bench", "fetch"), "bench fetch: name what to fetch");
        Path bad = Files.writeString(tmp.resolve("bad.json"), "{\"spider-dev\": {\"sha\": \"x\"}}");
        assertOneLineError(fetch(bad, "spider"), bad + ": spider-dev: unknown field 'sha'");
    }

    @Test
    void aDiskTooSmallForTheArchiveIsRefusedBeforeAByteIsWritten() throws IOException {
        server.files.put("test-suite-database.zip", suiteArchive());
        server.claimedLength = 1L << 60;
        Run r = fetch(null, "spider-ts");
        assertOneLineError(r, "spider-ts: not enough free space in " + home + " for the download");
        assertThat(homeEntries()).isEmpty();
    }

    @Test
    void theSuiteWithoutAPinnedHashIsRecordedOnItsFirstDownloadAndHeldToItAfter() throws IOException {
        byte[] archive = suiteArchive();
        server.files.put("test-suite-database.zip", archive);
        Run r = fetch(null, "spider-ts");
        assertThat(r.err()).isEmpty();
        Path dir = home.resolve("spider-ts");
        assertThat(r.out()).contains("no pinned SHA-256: recorded now in " + home.resolve("spider-ts.sha256"))
                .contains("use it as 'scorers.suite: spider-ts'");
        assertThat(tree(dir)).containsExactly("db_a/db_a.sqlite", "db_a/db_a_1.sqlite", "db_b/db_b.sqlite",
                "db_b/db_b_1.sqlite", "ladder-fetch.properties");
        assertThat(home.resolve("spider-ts.sha256")).hasContent(LocalHub.sha256(archive) + "  " + archive.length
                + "  test-suite-database.zip");

        // another archive under the same address later: refused, the folder laid out before stays whole
        server.files.put("test-suite-database.zip", spiderArchive());
        Run again = fetch(null, "--again", "spider-ts");
        assertOneLineError(again, "expected " + archive.length);
        assertThat(tree(dir)).contains("db_a/db_a_1.sqlite");
        assertThat(homeEntries()).containsExactly("spider-ts", "spider-ts.sha256");

        server.files.put("test-suite-database.zip", archive);
        Run same = fetch(null, "--again", "spider-ts");
        assertThat(same.err()).isEmpty();
        assertThat(same.out()).contains("SHA-256 recorded on the first download");
    }

    @Test
    void theSpiderDevExperimentLoadsAgainstAFetchedSpiderAndSuite() throws IOException {
        byte[] spider = spiderArchive();
        byte[] suite = suiteArchive();
        server.files.put("spider_data.zip", spider);
        server.files.put("test-suite-database.zip", suite);
        Map<String, byte[]> both = new LinkedHashMap<>();
        both.put("spider-dev", spider);
        both.put("spider-ts", suite);
        Run spiderOnly = fetch(manifest(both), "spider");
        assertThat(spiderOnly.code()).isZero();
        Path file = Path.of("..", "experiments", "spider-dev.yaml");
        assertThat(catchThrowable(() -> ExperimentLoader.load(file)))
                .hasMessageContaining("scorers.suite").hasMessageContaining("test suite 'spider-ts' is not fetched: run"
                        + " 'ladder bench fetch spider-ts'");

        Run r = fetch(manifest(both), "spider", "spider-ts");
        assertThat(r.err()).isEmpty();
        assertThat(r.out()).contains("spider-dev: already in", "spider-ts: laid out in");

        Experiment e = ExperimentLoader.load(file);
        assertThat(e.benchmark()).isEqualTo("spider-dev");
        assertThat(e.split()).isEqualTo("dev");
        assertThat(e.rungs()).extracting(RungSpec::strategy).containsExactly("prompt-k0", "prompt-k3",
                "structured-search", "gsr", "soft-attention", "progressive");
        assertThat(e.scorers().suite()).isEqualTo(home.resolve("spider-ts"));
        Benchmark b = Benchmarks.load(e.benchmark(), e.database());
        // the k-shot rungs and the pipelines take their exemplars from the train split
        assertThat(b.splits()).containsKeys("dev", "train");
        assertThat(b.databases()).containsOnlyKeys("db_a", "db_b", "db_c");
    }

    @Test
    void theListSaysWhatIsFetchedAndWhere() throws IOException {
        byte[] archive = birdArchive();
        server.files.put("dev.zip", archive);
        assertThat(fetch(manifest(Map.of("bird-dev", archive)), "bird").code()).isZero();
        Run list = run("bench", "fetch", "--list");
        assertThat(list.err()).isEmpty();
        assertThat(list.out()).containsPattern("(?m)^bird-dev +bird +.*" + Pattern.quote(home.resolve("bird-dev").toString()))
                .containsPattern("(?m)^spider-dev +spider +.* not fetched$")
                .containsPattern("(?m)^spider-ts +spider-ts +.*SHA-256 recorded on the first download +not fetched$");
    }
}
