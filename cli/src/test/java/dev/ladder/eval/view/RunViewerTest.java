package dev.ladder.eval.view;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.scorer.score.ItemOutcome;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pages without a browser: several runs side by side, escaping, and the command's one-line refusals. */
class RunViewerTest {

    @TempDir Path tmp;

    Path run(String name, boolean highFixes) {
        Path run = tmp.resolve(name);
        RunDirectory dir = RunDirectory.create(run);
        try (ResultsStore s = dir.openResults()) {
            Cell c = new Cell(0, "agent-1", "m", "", "agent-1", 0);
            s.putCell(c);
            s.put(ViewBrowserTest.row("agent-1", "q1", "Which cities have offices?", "SELECT city FROM offices", highFixes,
                    highFixes ? "correct" : "wrong-column"), 0, ViewBrowserTest.trace("q1", "agent-1", "x", "SELECT city FROM offices"));
        }
        return run;
    }

    static String page(RunViewer v, String path) {
        return new String(v.pages().get(path), StandardCharsets.UTF_8);
    }

    @Test
    void severalRunsShowTheSameItemSideBySideAndARunAgainstRunTable() {
        RunViewer v = RunViewer.of(List.of(run("a", true), run("b", false)));
        assertThat(page(v, "index.html")).contains("Run against run").contains("<td class=\"num\">1</td><td class=\"num\">0</td>");
        assertThat(page(v, "item/0.html")).contains("run 1 · agent-1").contains("run 2 · agent-1");
    }

    @Test
    void everyTextIsEscapedAndScriptDataCannotCloseItsElement() {
        assertThat(Html.text("<script>a & 'b' \"c\"</script>")).isEqualTo("&lt;script&gt;a &amp; &#39;b&#39; &quot;c&quot;&lt;/script&gt;");
        assertThat(Html.json(List.of("</script><script>alert(1)</script>"))).doesNotContain("<").doesNotContain(">");
        String timeline = RunViewer.timeline(ViewBrowserTest.trace("q", "s", "<b>bold</b>", "SELECT '<i>' FROM t"));
        assertThat(timeline).contains("&lt;b&gt;bold&lt;/b&gt;").doesNotContain("<b>bold").doesNotContain("<i>");
    }

    @Test
    void theCommandExportsAndRefusesWhatIsNotARun() throws Exception {
        Path out = tmp.resolve("site");
        dev.ladder.cli.LadderCliTestAccess.Run r = dev.ladder.cli.LadderCliTestAccess.run("view", run("c", true).toString(),
                "--export", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("wrote 3 pages");
        assertThat(Files.readString(out.resolve("items.html"))).contains("q1");
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        var bad = dev.ladder.cli.LadderCliTestAccess.run("view", empty.toString(), "--export", out.toString());
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err().strip()).contains("not a run directory").doesNotContain("\tat ");
        var port = dev.ladder.cli.LadderCliTestAccess.run("view", run("d", true).toString(), "--port", "70000");
        assertThat(port.code()).isEqualTo(2);
        assertThat(port.err()).contains("--port must be <= 65535, got 70000");
    }

    @Test
    void aCutResultSaysHowManyRowsItShowsOfHowMany() {
        var db = dev.ladder.sql.db.TestData.classicModels();
        String cut = RunViewer.result(db, "SELECT orderNumber FROM orders ORDER BY orderNumber;");
        assertThat(cut).contains("(the first 10 of 326 rows)");
        assertThat(cut.split("<tr>", -1)).hasSize(1 + 1 + 10); // before the table, the header, ten rows
        assertThat(RunViewer.result(db, "SELECT city FROM offices")).doesNotContain("first");
    }

    @Test
    void theItemsAndItemPagesSayEachOutcomeAndAGoldFailureIsNotTheModels() {
        Path run = tmp.resolve("outcomes");
        RunDirectory dir = RunDirectory.create(run);
        try (ResultsStore s = dir.openResults()) {
            s.putCell(new Cell(0, "agent-1", "m", "", "agent-1", 0));
            ItemResult wrong = ViewBrowserTest.row("agent-1", "q1", "Which cities have offices?", "SELECT city FROM offices",
                    false, "wrong-column");
            s.put(new ItemResult(wrong.cell(), "q1", wrong.category(), wrong.difficulty(), wrong.question(), "SELECT city FROM gone",
                    wrong.predicted(), null, wrong.errorClass(), wrong.chosen(), 1, 1, 1, 1, 0, 0, 0, 1, 0, null,
                    wrong.scores(), 1, ItemOutcome.GOLD_ERROR), 0, ViewBrowserTest.trace("q1", "agent-1", "x", "SELECT city FROM offices"));
        }
        RunViewer v = RunViewer.of(List.of(run));
        assertThat(page(v, "items.html")).contains("<th>outcome</th>").contains("\"outcome\":\"gold-error\"")
                .contains("every outcome");
        assertThat(page(v, "item/0.html")).contains("outcome <span class=\"warn\">gold-error (the gold could not run: not"
                + " scored, not the model's error)</span>");
    }
}
