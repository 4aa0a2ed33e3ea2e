package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ladder run} beyond ClassicModels: a JSONL benchmark on a SQLite database, k-shot exemplars by similarity. */
class RunOtherBenchmarkTest {

    @TempDir Path tmp;

    @Test
    void runsAJsonlBenchmarkOnSqlite() throws Exception {
        System.setProperty("ai.djl.offline", "true");
        Path db = tmp.resolve("school.sqlite");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            s.executeUpdate("CREATE TABLE students(student_id INTEGER PRIMARY KEY, name TEXT, grade INTEGER)");
            s.executeUpdate("CREATE TABLE courses(course_id INTEGER PRIMARY KEY, title TEXT)");
            s.executeUpdate("INSERT INTO students VALUES (1, 'Ann', 9), (2, 'Bo', 10), (3, 'Cy', 9)");
            s.executeUpdate("INSERT INTO courses VALUES (1, 'Math'), (2, 'Art')");
        }
        Path bench = tmp.resolve("school");
        Files.createDirectories(bench);
        Files.writeString(bench.resolve("train.jsonl"), """
                {"id":"tr1","question":"How many students are there?","sql":"SELECT COUNT(*) FROM students","category":"aggregate","difficulty":"easy"}
                {"id":"tr2","question":"List the course titles.","sql":"SELECT title FROM courses","category":"lookup","difficulty":"easy"}
                {"id":"tr3","question":"Which students are in grade 9?","sql":"SELECT name FROM students WHERE grade = 9","category":"filter","difficulty":"easy"}
                """);
        Files.writeString(bench.resolve("test.jsonl"), """
                {"id":"te1","question":"How many courses are there?","sql":"SELECT COUNT(*) FROM courses","category":"aggregate","difficulty":"easy"}
                {"id":"te2","question":"List the names of students in grade 10.","sql":"SELECT name FROM students WHERE grade = 10","category":"filter","difficulty":"easy"}
                """);
        Path model = tmp.resolve("tiny");
        TinyModels.write(model, TinyModels.Shape.QWEN2_TINY, 1, DType.F32);
        Path yaml = tmp.resolve("school.yaml");
        Files.writeString(yaml, """
                benchmark: %s
                database: %s
                output: %s
                models: {base: {path: %s}}
                strategies: [prompt-k0, prompt-k3, agent-3]
                settings: {max_new_tokens: 6, candidates: 1}
                scorers: {ts: none}
                """.formatted(bench, db, tmp.resolve("run"), model));

        LadderCliTest.Run run = LadderCliTest.run("run", yaml.toString(), "--no-generation-cache", "--no-progress");

        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.err()).contains("exemplars: the train questions of school most similar to each question");
        try (ResultsStore store = ResultsStore.openReadOnly(tmp.resolve("run").resolve(RunDirectory.RESULTS))) {
            assertThat(store.results()).hasSize(6);
            assertThat(store.cells()).extracting(c -> c.name()).containsExactly("prompt-k0", "prompt-k3", "agent-3");
        }
        assertThat(Files.readAllLines(tmp.resolve("run").resolve(RunDirectory.PREDICTIONS).resolve("agent-3.sql"))).hasSize(2);
        assertThat(tmp.resolve("run").resolve(RunDirectory.REPORT).resolve("summary.tex")).isNotEmptyFile();
    }
}
