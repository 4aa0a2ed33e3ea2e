package dev.ladder.scorer.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Spider folders, BIRD files and plain JSON arrays built here, imported; ClassicModels exported to Spider. */
class ImportExportTest {

    @TempDir Path tmp;

    private static void makeSqlite(Path file) throws SQLException, IOException {
        Files.createDirectories(file.getParent());
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT, age INTEGER)");
            st.execute("CREATE TABLE song (song_id INTEGER PRIMARY KEY, title TEXT, singer_id INTEGER REFERENCES singer(singer_id))");
            st.execute("INSERT INTO singer VALUES (1,'Ana','France',31),(2,'Bo','Japan',45),(3,'Cy','France',28)");
            st.execute("INSERT INTO song VALUES (10,'Rain',1),(11,'Sun',1),(12,'Snow',2)");
        }
    }

    @Test
    void importsASpiderFolder() throws Exception {
        Path dir = tmp.resolve("spider");
        makeSqlite(dir.resolve("database/concert/concert.sqlite"));
        Files.writeString(dir.resolve("tables.json"), "[{\"db_id\":\"concert\"}]");
        Files.writeString(dir.resolve("dev.json"), """
                [{"db_id":"concert","question":"How many singers are there?","query":"SELECT count(*) FROM singer"},
                 {"db_id":"concert","question":"Names of singers from France, oldest first.",
                  "query":"SELECT name FROM singer WHERE country = 'France' ORDER BY age DESC"}]
                """);
        Benchmark b = Benchmarks.load(dir.toString());
        assertThat(b.splits()).containsOnlyKeys("dev");
        List<BenchmarkItem> items = b.split("dev");
        assertThat(items).extracting(BenchmarkItem::question)
                .containsExactly("How many singers are there?", "Names of singers from France, oldest first.");
        assertThat(items.get(0).difficulty()).isEqualTo("easy");
        assertThat(items.get(1).orderMatters()).isTrue();
        try (Database db = Databases.open(b.databaseOf(items.get(1)))) {
            Execution ex = db.execute(items.get(1).sql());
            assertThat(((Execution.Success) ex).result().rows()).containsExactly(List.of("Ana"), List.of("Cy"));
        }
    }

    @Test
    void importsABirdFileWithEvidence() throws Exception {
        makeSqlite(tmp.resolve("bird/dev_databases/music/music.sqlite"));
        Path file = tmp.resolve("bird/dev.json");
        Files.writeString(file, """
                [{"question_id":7,"db_id":"music","question":"Which singers are seniors?",
                  "evidence":"senior refers to age > 40","SQL":"SELECT name FROM singer WHERE age > 40","difficulty":"simple"}]
                """);
        Benchmark b = Benchmarks.load(file.toString());
        BenchmarkItem item = b.split("dev").get(0);
        assertThat(item.id()).isEqualTo("dev-7");
        assertThat(item.evidence()).isEqualTo("senior refers to age > 40");
        assertThat(item.db()).isEqualTo("music");
        try (Database db = Databases.open(b.databaseOf(item))) {
            assertThat(((Execution.Success) db.execute(item.sql())).result().rows()).containsExactly(List.of("Bo"));
        }
    }

    @Test
    void importsAPlainArrayAgainstANamedDatabase() throws IOException {
        Path file = tmp.resolve("mine.json");
        Files.writeString(file, """
                [{"nlq":"How many offices are there?","sql":"SELECT COUNT(*) FROM offices"},
                 {"question":"List office cities","query":"SELECT city FROM offices"}]
                """);
        Benchmark b = Benchmarks.load(file.toString(), "classicmodels");
        assertThat(b.defaultDatabase()).isEqualTo("classicmodels");
        assertThat(b.split("mine")).extracting(BenchmarkItem::sql)
                .containsExactly("SELECT COUNT(*) FROM offices", "SELECT city FROM offices");
    }

    @Test
    void malformedFilesNameTheProblem() throws IOException {
        Path file = tmp.resolve("bad.json");
        Files.writeString(file, "[{\"question\":\"no sql here\"}]");
        assertThatThrownBy(() -> Benchmarks.load(file.toString())).isInstanceOf(UserError.class)
                .hasMessageContaining("bad.json item 0").hasMessageContaining("missing SQL");
        Path jsonl = tmp.resolve("bad.jsonl");
        Files.writeString(jsonl, "{\"id\":\"x\",\"question\":\"q\",\"sql\":\"SELECT 1\",\"category\":\"weird\",\"difficulty\":\"easy\"}\n");
        assertThatThrownBy(() -> Benchmarks.load(jsonl.toString())).isInstanceOf(UserError.class)
                .hasMessageContaining("bad.jsonl:1").hasMessageContaining("unknown category 'weird'");
        Path birdNoDb = tmp.resolve("nodb.json");
        Files.writeString(birdNoDb, "[{\"db_id\":\"ghost\",\"question\":\"q\",\"SQL\":\"SELECT 1\"}]");
        assertThatThrownBy(() -> Benchmarks.load(birdNoDb.toString())).isInstanceOf(UserError.class)
                .hasMessageContaining("database 'ghost' not found");
    }

    @Test
    void exportsToSpiderAndImportsBack() throws IOException {
        Path file = tmp.resolve("few.json");
        Files.writeString(file, """
                [{"question":"How many offices are there?","sql":"SELECT COUNT(*) FROM offices"},
                 {"question":"Cities of the offices in the USA","sql":"SELECT city\\nFROM offices WHERE country = 'USA'"}]
                """);
        Benchmark b = Benchmarks.load(file.toString(), "classicmodels");
        Path out = tmp.resolve("spider-out");
        SpiderFormat.export(b, out);
        JsonNode tables = new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.resolve("tables.json").toFile());
        assertThat(tables.get(0).get("db_id").asText()).isEqualTo("few");
        assertThat(tables.get(0).get("table_names_original")).hasSize(8);
        assertThat(tables.get(0).get("foreign_keys")).hasSize(8);
        assertThat(tables.get(0).get("column_names_original").get(0).get(1).asText()).isEqualTo("*");
        assertThat(Files.readAllLines(out.resolve("few_gold.sql")))
                .containsExactly("SELECT COUNT(*) FROM offices\tfew", "SELECT city FROM offices WHERE country = 'USA'\tfew");
        Benchmark back = Benchmarks.load(out.toString());
        assertThat(back.split("few")).extracting(BenchmarkItem::question)
                .containsExactly("How many offices are there?", "Cities of the offices in the USA");
        try (Database db = Databases.open(back.databaseOf(back.split("few").get(1)))) {
            assertThat(((Execution.Success) db.execute("SELECT COUNT(*) FROM customers")).result().rows().get(0).get(0))
                    .isEqualTo(122L);
        }
    }
}
