package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.eval.experiment.Cell;
import dev.ladder.scorer.score.Predictions;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunDirectoryTest {

    @TempDir Path tmp;

    static final Cell K0 = ResultsStoreTest.K0;
    static final Cell QLORA = ResultsStoreTest.QLORA;
    static final Map<String, String> DB = Map.of("dev-1", "concert_singer", "dev-2", "concert_singer", "dev-3", "pets_1");

    /** (cell, item, order, predicted, trace) rows of a small two-cell run. */
    static List<Object[]> rows() {
        return List.of(
                new Object[] {K0, "dev-1", 0, "SELECT count(*)\n  FROM singer", "{\"questionId\":\"dev-1\",\n \"steps\": []}"},
                new Object[] {K0, "dev-2", 1, "", "{}"},
                new Object[] {K0, "dev-3", 2, "SELECT\tname FROM pets  WHERE age > 3 ", "{\"questionId\":\"dev-3\"}"},
                new Object[] {QLORA, "dev-1", 0, "SELECT 1", "{\"questionId\":\"dev-1\"}"},
                new Object[] {QLORA, "dev-3", 2, "SELECT * FROM pets", "{\"questionId\":\"dev-3\"}"});
    }

    private static void put(ResultsStore s, Object[] row) {
        Cell cell = (Cell) row[0];
        s.put(ResultsStoreTest.result(cell, (String) row[1], (String) row[3], true), (Integer) row[2], (String) row[4]);
    }

    private static Map<String, byte[]> files(Path dir) throws IOException {
        Map<String, byte[]> out = new java.util.TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                String name = dir.relativize(p).toString();
                if (!name.startsWith("results.sqlite")) out.put(name, Files.readAllBytes(p));
            }
        }
        return out;
    }

    private static void writeAll(RunDirectory run, ResultsStore s) {
        run.writeConfig("experiment: ablation\ncells: 2");
        run.writeEnvironment(Map.of("java.version", "17", "git.sha", "abc"));
        run.writePredictions(s, DB);
        run.writeTraces(s);
    }

    @Test
    void resumedAndUninterruptedRunsWriteTheSameBytes() throws IOException {
        RunDirectory straight = RunDirectory.create(tmp.resolve("straight"));
        try (ResultsStore s = straight.openResults()) {
            s.putCell(K0);
            s.putCell(QLORA);
            rows().forEach(r -> put(s, r));
            writeAll(straight, s);
            writeAll(straight, s);   // writing again changes nothing
        }
        RunDirectory resumed = RunDirectory.create(tmp.resolve("resumed"));
        List<Object[]> shuffled = new ArrayList<>(rows());
        java.util.Collections.reverse(shuffled);
        try (ResultsStore s = resumed.openResults()) {
            s.putCell(QLORA);
            for (Object[] r : shuffled.subList(0, 2)) put(s, r);
            writeAll(resumed, s);    // a partial write before the "crash"
        }
        try (ResultsStore s = resumed.openResults()) {
            s.putCell(K0);
            s.putCell(QLORA);
            for (Object[] r : shuffled.subList(2, shuffled.size())) put(s, r);
            writeAll(resumed, s);
        }
        Map<String, byte[]> a = files(straight.dir());
        Map<String, byte[]> b = files(resumed.dir());
        assertThat(a.keySet()).containsExactly("config.yaml", "environment.json", "predictions/prompt-k0.json",
                "predictions/prompt-k0.jsonl", "predictions/prompt-k0.sql", "predictions/qlora-k3.json",
                "predictions/qlora-k3.jsonl", "predictions/qlora-k3.sql", "traces/prompt-k0.jsonl",
                "traces/qlora-k3.jsonl");
        assertThat(b.keySet()).isEqualTo(a.keySet());
        a.forEach((name, bytes) -> assertThat(b.get(name)).as(name).isEqualTo(bytes));
        assertThat(Files.isDirectory(straight.report())).isTrue();
    }

    @Test
    void aPipelinesEvidenceAndReviewPackagesGetOneFilePerItem() throws IOException {
        RunDirectory run = RunDirectory.create(tmp.resolve("packages-run"));
        String withPackages = "{\"questionId\":\"dev/1\",\"strategy\":\"structured-search\",\"sql\":\"SELECT 1\","
                + "\"chosen\":\"sketch-1\",\"steps\":[{\"kind\":\"stage\",\"source\":\"sketch-1\",\"stage\":\"evidence\","
                + "\"summary\":\"s\",\"detail\":{\"source\":\"sketch-1\",\"tableScore\":1.0}},{\"kind\":\"stage\","
                + "\"stage\":\"review\",\"summary\":\"r\",\"detail\":{\"reason\":\"no candidate is schema-valid\"}}]}";
        try (ResultsStore s = run.openResults()) {
            s.putCell(K0);
            s.put(ResultsStoreTest.result(K0, "dev/1", "SELECT 1", true), 0, withPackages);
            s.put(ResultsStoreTest.result(K0, "dev-2", "SELECT 2", true), 1, "{\"questionId\":\"dev-2\",\"steps\":[]}");
            run.writeTraces(s);
        }
        try (Stream<Path> files = Files.list(run.packages(K0.name()))) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("dev_1.json");
        }
        JsonNode pkg = new ObjectMapper().readTree(run.packages(K0.name()).resolve("dev_1.json").toFile());
        assertThat(pkg.get("item").asText()).isEqualTo("dev/1");
        assertThat(pkg.get("chosen").asText()).isEqualTo("sketch-1");
        assertThat(pkg.get("evidence")).hasSize(1);
        assertThat(pkg.get("evidence").get(0).get("tableScore").asDouble()).isEqualTo(1.0);
        assertThat(pkg.get("review").get("reason").asText()).isEqualTo("no candidate is schema-valid");
    }

    @Test
    void predictionFilesFollowSpiderBirdAndLadderFormats() throws IOException {
        RunDirectory run = RunDirectory.create(tmp.resolve("run"));
        try (ResultsStore s = run.openResults()) {
            s.putCell(K0);
            s.putCell(QLORA);
            rows().forEach(r -> put(s, r));
            run.writePredictions(s, DB);
            run.writeTraces(s);
        }
        assertThat(Files.readString(run.spiderPredictions(K0.name())))
                .isEqualTo("SELECT count(*) FROM singer\nSELECT\nSELECT name FROM pets WHERE age > 3\n");
        assertThat(Predictions.readSqlLines(run.spiderPredictions(QLORA.name())))
                .containsExactly("SELECT 1", "SELECT * FROM pets");

        JsonNode bird = new ObjectMapper().readTree(run.birdPredictions(K0.name()).toFile());
        assertThat(bird.fieldNames()).toIterable().containsExactly("0", "1", "2");
        assertThat(bird.get("0").asText()).isEqualTo("SELECT count(*) FROM singer\t----- bird -----\tconcert_singer");
        assertThat(bird.get("1").asText()).isEqualTo("\t----- bird -----\tconcert_singer");
        assertThat(bird.get("2").asText()).endsWith("\tpets_1");
        assertThat(new ObjectMapper().readTree(run.birdPredictions(QLORA.name()).toFile()).fieldNames())
                .toIterable().containsExactly("0", "2");

        assertThat(Predictions.readJsonl(run.jsonlPredictions(K0.name()))).containsExactly(
                Map.entry("dev-1", "SELECT count(*) FROM singer"), Map.entry("dev-2", ""),
                Map.entry("dev-3", "SELECT name FROM pets WHERE age > 3"));

        List<String> traces = Files.readAllLines(run.traces(K0.name()));
        assertThat(traces).containsExactly("{\"questionId\":\"dev-1\",\"steps\":[]}", "{}", "{\"questionId\":\"dev-3\"}");

        try (Stream<Path> all = Files.walk(run.dir())) {
            assertThat(all.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
        }
    }

    @Test
    void refusesUnsafeCellNamesAndItemsWithoutADatabase() {
        RunDirectory run = RunDirectory.create(tmp.resolve("run"));
        assertThatThrownBy(() -> run.traces("../escape")).isInstanceOf(UserError.class).hasMessageContaining("cannot name a file");
        assertThatThrownBy(() -> run.spiderPredictions(".hidden")).isInstanceOf(UserError.class);
        try (ResultsStore s = run.openResults()) {
            s.putCell(K0);
            put(s, rows().get(0));
            assertThatThrownBy(() -> run.writePredictions(s, Map.of())).isInstanceOf(UserError.class)
                    .hasMessageContaining("dev-1").hasMessageContaining("no database id");
        }
    }

    @Test
    void dbIdsFallBackToTheBenchmarkName() {
        var own = new dev.ladder.scorer.bench.BenchmarkItem("a", "q", "SELECT 1", "lookup", "easy", false, List.of(), "pets_1", "");
        var dflt = new dev.ladder.scorer.bench.BenchmarkItem("b", "q", "SELECT 1", "lookup", "easy", false, List.of(), "", "");
        var bench = new dev.ladder.scorer.bench.Benchmark("classicmodels", "classicmodels", Map.of(), Map.of("dev", List.of(own, dflt)));
        assertThat(RunDirectory.dbIds(bench, bench.split("dev"))).containsExactly(Map.entry("a", "pets_1"),
                Map.entry("b", "classicmodels"));
    }

    @Test
    void atomicWritesGetTheModeOfAnyNewFileNotOwnerOnly() throws IOException {
        Path normal = Files.writeString(tmp.resolve("normal.txt"), "x");
        Path written = tmp.resolve("predictions").resolve("cell.jsonl");
        RunDirectory.writeAtomically(written, "{\"id\":\"a\",\"sql\":\"SELECT 1\"}\n");
        RunDirectory.writeAtomically(written, "{\"id\":\"a\",\"sql\":\"SELECT 2\"}\n");
        // predictions, traces and reports follow the umask like every other file (0644 under umask 022)
        assertThat(Files.getPosixFilePermissions(written)).isEqualTo(Files.getPosixFilePermissions(normal));
        try (Stream<Path> left = Files.list(written.getParent())) {
            assertThat(left).containsExactly(written);
        }
    }
}
