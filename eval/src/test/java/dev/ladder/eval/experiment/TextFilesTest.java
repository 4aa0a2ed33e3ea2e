package dev.ladder.eval.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.scorer.io.TextFiles;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.scorer.score.Predictions;
import dev.ladder.sql.db.UserError;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One rule for every text input: strict UTF-8, a leading BOM skipped, bad bytes named by file and line. */
class TextFilesTest {

    private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    /** Latin-1 'é': not UTF-8 on its own. */
    private static final byte LATIN1_E_ACUTE = (byte) 0xE9;

    @TempDir Path dir;

    private Path write(String name, byte[]... parts) throws IOException {
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) all.writeBytes(p);
        return Files.write(dir.resolve(name), all.toByteArray());
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void bomIsSkippedAndLinesSplitLikeReadLine() throws IOException {
        Path f = write("a.txt", BOM, utf8("första\r\nzweite\n\nlast\n"));
        assertThat(TextFiles.lines(f)).containsExactly("första", "zweite", "", "last");
        assertThat(TextFiles.read(f)).startsWith("första");
        // a BOM later in the file is content, not a mark
        assertThat(TextFiles.decode(utf8("a\uFEFF"), "x")).isEqualTo("a\uFEFF");
    }

    @Test
    void bytesThatAreNotUtf8NameTheirLine() throws IOException {
        Path f = write("bad.txt", utf8("ok\nok\ncaf"), new byte[] {LATIN1_E_ACUTE}, utf8("\nok\n"));
        assertThatThrownBy(() -> TextFiles.lines(f)).isInstanceOf(UserError.class)
                .hasMessage(f + ": not UTF-8 at line 3");
        assertThatThrownBy(() -> TextFiles.read(new ByteArrayInputStream(new byte[] {(byte) 0xC3}), "stdin"))
                .hasMessage("stdin: not UTF-8 at line 1");
        assertThatThrownBy(() -> TextFiles.read(dir.resolve("absent"))).hasMessage("no such file: " + dir.resolve("absent"));
    }

    @Test
    void predictionsAndGoldAcceptABomAndRejectBadBytes() throws IOException {
        Path pred = write("p.jsonl", BOM, utf8("{\"id\":\"a\",\"sql\":\"SELECT 1\"}\n"));
        assertThat(Predictions.readJsonl(pred)).containsExactly(Map.entry("a", "SELECT 1"));
        Path gold = write("gold.txt", BOM, utf8("SELECT 1\tdb\n"));
        assertThat(Predictions.readGold(gold)).containsExactly(new Predictions.GoldLine("SELECT 1", "db", 1));
        Path sqlLines = write("pred.txt", BOM, utf8("SELECT 1\n"));
        assertThat(Predictions.readSqlLines(sqlLines)).containsExactly("SELECT 1");
        Path bad = write("bad.jsonl", utf8("{\"id\":\"a\",\"sql\":\"SELECT 1\"}\n{\"id\":\"b\",\"sql\":\"SELECT '"),
                new byte[] {LATIN1_E_ACUTE}, utf8("'\"}\n"));
        assertThatThrownBy(() -> Predictions.readJsonl(bad)).hasMessage(bad + ": not UTF-8 at line 2");
    }

    @Test
    void benchmarksFollowTheSameRule() throws IOException {
        String item = "{\"id\":\"x-1\",\"question\":\"How many offices?\",\"sql\":\"SELECT COUNT(*) FROM offices\","
                + "\"category\":\"aggregate\",\"difficulty\":\"easy\"}\n";
        Path withBom = write("bom.jsonl", BOM, utf8(item));
        List<BenchmarkItem> items = Benchmarks.load(withBom.toString()).split("bom");
        assertThat(items).extracting(BenchmarkItem::id).containsExactly("x-1");
        // before: bench read these bytes as U+FFFD while eval refused them
        Path bad = write("bad.jsonl", utf8(item), utf8(item.replace("x-1", "x-2").replace("offices?", "offices")),
                utf8("{\"id\":\"x-3\",\"question\":\"Caf"), new byte[] {LATIN1_E_ACUTE}, utf8("?\"}\n"));
        assertThatThrownBy(() -> Benchmarks.load(bad.toString())).isInstanceOf(UserError.class)
                .hasMessage(bad + ": not UTF-8 at line 3");
        Path folder = Files.createDirectories(dir.resolve("folder"));
        Files.write(folder.resolve("test.jsonl"), utf8(item));
        write("folder/database.txt", BOM, utf8("classicmodels\n"));
        assertThat(Benchmarks.load(folder.toString()).defaultDatabase()).isEqualTo("classicmodels");
    }

    @Test
    void experimentFilesFollowTheSameRule() throws IOException {
        Path smoke = Path.of("..", "experiments", "smoke.yaml");
        byte[] text = Files.readAllBytes(smoke);
        Path withBom = write("smoke.yaml", BOM, text);
        Experiment e = ExperimentLoader.load(withBom);
        Experiment plain = ExperimentLoader.load(smoke);
        assertThat(e.name()).isEqualTo(plain.name());
        assertThat(e.cells()).isEqualTo(plain.cells());
        Path bad = write("bad.yaml", utf8("# caf"), new byte[] {LATIN1_E_ACUTE}, utf8("\n"), text);
        assertThatThrownBy(() -> ExperimentLoader.load(bad)).isInstanceOf(UserError.class)
                .hasMessage(bad + ": not UTF-8 at line 1");
    }
}
