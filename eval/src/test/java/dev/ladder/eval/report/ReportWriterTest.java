package dev.ladder.eval.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

class ReportWriterTest {

    private static final Report REPORT = Report.of(SyntheticRun.cells(), SyntheticRun.results(true));

    @TempDir
    Path tmp;

    @Test
    void everyFormatIsWrittenWellFormedAndByteIdenticalOnASecondWrite() throws Exception {
        Path first = tmp.resolve("first");
        Path second = tmp.resolve("second");
        List<Path> written = ReportWriter.write(REPORT, first, ReportWriter.Format.all());
        ReportWriter.write(REPORT, second, ReportWriter.Format.all());

        List<String> names = written.stream().map(p -> p.getFileName().toString()).toList();
        assertThat(names).contains("report.md", "costs.md", "report.json", "costs.json", "summary.csv",
                "category-ts.tex", "comparisons.tex", "attribution.csv", "errors.csv", "costs.tex", "ex-by-rung.svg",
                "ex-by-rung.png", "category-ex.svg", "category-ex.png");
        assertThat(names).hasSize(2 + 10 + 10 + 2 + 2 + 2);
        for (Path p : written) {
            assertThat(Files.size(p)).as(p.toString()).isPositive();
            assertThat(Files.readAllBytes(second.resolve(p.getFileName()))).as(p.getFileName().toString())
                    .isEqualTo(Files.readAllBytes(p));
        }

        String md = Files.readString(first.resolve("report.md"));
        assertThat(md).startsWith("# Experiment report").contains("## Accuracy by rung", "## Error taxonomy by rung",
                "| prompt-k0 | 20 | 0.900 [", "B = 1000 resamples, seed 0", "## Provenance\n\n- Run: no config.yaml", "Wilson score")
                .doesNotContain("p50 ms");
        // the provenance once, at the top; each table refers to it instead of repeating it
        String provenance = REPORT.provenance().get(0);
        assertThat(md.split(java.util.regex.Pattern.quote(provenance), -1)).hasSize(2);
        assertThat(md).contains("(Runs: see Provenance above.)");

        JsonNode json = new ObjectMapper().readTree(first.resolve("report.json").toFile());
        assertThat(json.at("/parameters/resamples").asInt()).isEqualTo(1000);
        assertThat(json.at("/tables/summary/rows/0/EX").decimalValue()).isEqualByComparingTo("0.400");
        assertThat(json.at("/tables/summary/rows/0/TS").isNull()).isTrue();
        assertThat(json.at("/tables/comparisons/rows/0/b").asInt()).isEqualTo(2);
        assertThat(json.at("/tables/comparisons/rows/0/c").asInt()).isEqualTo(8);
        assertThat(json.at("/tables/comparisons/rows/0/p").asDouble()).isEqualTo(0.109375);
        assertThat(json.at("/rungs/2/name").asText()).isEqualTo(SyntheticRun.C);
        assertThat(json.at("/tables").has("costs")).isFalse();
        assertThat(new ObjectMapper().readTree(first.resolve("costs.json").toFile()).at("/rows/0/p50 ms")
                .asDouble()).isEqualTo(109.5);

        String tex = Files.readString(first.resolve("summary.tex"));
        assertThat(tex).contains("\\begin{tabular}{lrrrrr}", "\\toprule", "\\midrule", "\\bottomrule",
                "VA [95\\% CI]", "agent\\_2 & 20", "& --- \\\\").doesNotContain("\\documentclass", "—");
        assertThat(Files.readString(first.resolve("comparisons.tex"))).contains("+0.300 [");

        assertThat(Files.readString(first.resolve("summary.csv"))).startsWith(
                "rung,n,VA,VA_lo,VA_hi,EX,EX_lo,EX_hi,EM,EM_lo,EM_hi,TS,TS_lo,TS_hi\nprompt-k0,20,0.900,");
        assertThat(Files.readString(first.resolve("errors.csv")).lines().toList()).contains("(none),0,0,1");

        for (String svg : List.of("ex-by-rung.svg", "category-ex.svg")) {
            Document doc = xml(first.resolve(svg));
            assertThat(doc.getDocumentElement().getNodeName()).isEqualTo("svg");
            assertThat(Files.readString(first.resolve(svg))).contains("EX by");
        }
        for (String png : List.of("ex-by-rung.png", "category-ex.png")) {
            byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(first.resolve(png)), 8);
            assertThat(head).containsExactly(0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n');
        }
        assertThat(leftovers()).isEmpty();
    }

    @Test
    void csvIsRfc4180WithTheRawHeaderAndNewlineLineEnds() {
        Table data = Table.create("t", StringColumn.create("rung, name", "plain", "a,b", "say \"hi\"", "two\nlines", "cr\rhere"),
                IntColumn.create("n", 1, 2, 3, 4, 5));
        ReportTable table = new ReportTable("t", "T", "d", data, Map.of(), Set.of());
        assertThat(TableText.csv(table)).isEqualTo("""
                "rung, name",n
                plain,1
                "a,b",2
                "say ""hi""\",3
                "two
                lines",4
                "cr\rhere",5
                """);
    }

    @Test
    void latexEscapesSpecialCharactersAndGuardsLeadingBrackets() {
        assertThat(TableText.texEscape("a_b & 5% #1 $x {y} ~^ <0.0001 —"))
                .isEqualTo("a\\_b \\& 5\\% \\#1 \\$x \\{y\\} \\textasciitilde{}\\textasciicircum{} "
                        + "\\textless{}0.0001 ---");
        String tex = TableText.latex(REPORT.comparisons());
        assertThat(tex).doesNotContain("<0.0001").contains("0.1094").contains("exemplars k");
    }

    @Test
    void rewritingReplacesFilesKeepsOthersAndDropsTablesTheNewReportLacks() throws IOException {
        Path out = tmp.resolve("report");
        ReportWriter.write(REPORT, out, EnumSet.of(ReportWriter.Format.CSV, ReportWriter.Format.MD));
        Files.writeString(out.resolve("notes.txt"), "mine");
        assertThat(out.resolve("category-ts.csv")).exists();

        Report noTs = Report.of(SyntheticRun.cells(), SyntheticRun.results(false));
        List<Path> written = ReportWriter.write(noTs, out, EnumSet.of(ReportWriter.Format.CSV));
        assertThat(written).noneMatch(p -> p.getFileName().toString().endsWith("-ts.csv"));
        assertThat(out.resolve("category-ts.csv")).doesNotExist();
        assertThat(out.resolve("difficulty-ts.csv")).doesNotExist();
        assertThat(out.resolve("notes.txt")).hasContent("mine");
        assertThat(out.resolve("report.md")).exists(); // a format not written this time is left as it was
        assertThat(Files.readString(out.resolve("summary.csv"))).contains("prompt-k0,20,0.900,0.699,0.972,0.400");
        assertThat(leftovers()).isEmpty();
    }

    @Test
    void aTargetThatIsAFileFailsWithoutWritingAnything() throws IOException {
        Path file = Files.writeString(tmp.resolve("taken"), "x");
        assertThatThrownBy(() -> ReportWriter.write(REPORT, file, ReportWriter.Format.all()))
                .isInstanceOf(UserError.class).hasMessageContaining("taken");
        assertThat(file).hasContent("x");
        try (Stream<Path> s = Files.list(tmp)) {
            assertThat(s.toList()).containsExactly(file);
        }
        assertThatThrownBy(() -> ReportWriter.write(REPORT, tmp.resolve("r"), EnumSet.noneOf(ReportWriter.Format.class)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void formatsParseByName() {
        assertThat(ReportWriter.Format.parse("TeX")).isEqualTo(ReportWriter.Format.TEX);
        assertThat(ReportWriter.Format.parse("markdown")).isEqualTo(ReportWriter.Format.MD);
        assertThatThrownBy(() -> ReportWriter.Format.parse("pdf")).hasMessageContaining("md, csv, tex");
    }

    private List<Path> leftovers() throws IOException {
        try (Stream<Path> s = Files.list(tmp)) {
            return s.filter(p -> p.getFileName().toString().startsWith(".")).toList();
        }
    }

    private static Document xml(Path file) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        // the SVG names the W3C DTD; never fetch it
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        f.setValidating(false);
        return f.newDocumentBuilder().parse(new java.io.ByteArrayInputStream(
                Files.readString(file).getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void stagingFoldersOfDeadWritersAreRemovedOnTheNextWrite() throws Exception {
        Path out = tmp.resolve("report");
        // a process that has exited: its pid names a writer killed mid-write
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path stale = Files.createDirectories(tmp.resolve(".report.tmp-" + gone.pid() + "-12345"));
        Files.writeString(stale.resolve("summary.csv"), "half");
        Path live = Files.createDirectories(tmp.resolve(".report.tmp-" + ProcessHandle.current().pid() + "-1"));
        Path otherReport = Files.createDirectories(tmp.resolve(".other.tmp-" + gone.pid() + "-1"));
        ReportWriter.write(REPORT, out, EnumSet.of(ReportWriter.Format.CSV));
        assertThat(stale).doesNotExist();
        assertThat(live).as("a running writer's folder stays").isDirectory();
        assertThat(otherReport).as("another target's folder is not ours to clean").isDirectory();
        assertThat(out.resolve("summary.csv")).isRegularFile();
    }
}
