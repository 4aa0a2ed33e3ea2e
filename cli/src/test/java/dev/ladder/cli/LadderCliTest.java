package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.sql.db.ClassicModels;
import dev.ladder.sql.db.TestData;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The CLI in-process: exact shapes of output, exit codes, one-line user errors. */
class LadderCliTest {

    record Run(int code, String out, String err) {}

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

    @Test
    void dbInfoPrintsEightTablesWithTheirRowCounts() {
        Run r = run("db", "info", "classicmodels");
        assertThat(r.code()).isZero();
        for (Map.Entry<String, Long> e : ClassicModels.EXPECTED_ROWS.entrySet()) {
            assertThat(r.out()).containsPattern("(?m)^" + e.getKey() + " +" + e.getValue() + " ");
        }
        assertThat(r.out()).contains("8 tables, 3864 rows, 8 foreign keys");
        assertThat(r.out()).contains("customerNumber -> customers.customerNumber");
    }

    @Test
    void dbSchemaPrintsTheSummaryPromptsEmbed() throws IOException {
        Run r = run("db", "schema", "classicmodels");
        assertThat(r.code()).isZero();
        try (InputStream in = TestData.class.getResourceAsStream("/golden/classicmodels-summary.txt")) {
            assertThat(r.out()).isEqualTo(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        assertThat(run("db", "schema", "classicmodels", "--format", "create").out()).startsWith("CREATE TABLE customers (");
    }

    @Test
    void sqlPrintsATable() {
        Run r = run("sql", "classicmodels", "SELECT officeCode, city FROM offices ORDER BY officeCode LIMIT 2");
        assertThat(r.code()).isZero();
        assertThat(r.out()).isEqualTo("""
                officeCode  city
                ----------  -------------
                1           San Francisco
                2           Boston
                (2 rows, %s ms)
                """.formatted(r.out().replaceAll("(?s).*, (\\d+) ms\\)\\n$", "$1")));
    }

    @Test
    void sqlFailuresPrintTheStructuredErrorAndExitOne() {
        Run r = run("sql", "classicmodels", "DROP TABLE customers");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).startsWith("error: REJECTED: ");
        Run unknown = run("sql", "classicmodels", "SELECT nope FROM customers");
        assertThat(unknown.code()).isEqualTo(1);
        assertThat(unknown.err()).startsWith("error: UNKNOWN_COLUMN: ");
    }

    @Test
    void userErrorsAreOneLineAndExitTwo() {
        for (String[] args : new String[][] {
            {"db", "info", "classicmodels", "--bogus"},
            {"db", "info", "no_such_db"},
            {"sql", "classicmodels", "SELECT 1", "--timeout", "-1"},
            {"sql", "/no/such/file.sqlite", "SELECT 1"},
            {"frobnicate"},
        }) {
            Run r = run(args);
            assertThat(r.code()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.err().strip()).as(String.join(" ", args)).startsWith("ladder: ").doesNotContain("\n");
            assertThat(r.out()).isEmpty();
        }
    }

    @Test
    void helpAndVersion() {
        Run help = run("--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("db", "sql");
        Run version = run("--version");
        assertThat(version.code()).isZero();
        assertThat(version.out()).startsWith("ladder ");
    }

    @Test
    void benchInfoPrintsSplitsWithBreakdowns() {
        Run r = run("bench", "info", "classicmodels");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("test: 200 items", "train: 200 items");
        assertThat(r.out()).containsPattern("(?m)^category +items +share$");
        assertThat(r.out()).containsPattern("(?m)^difficulty +items +share$");
        assertThat(r.out()).containsPattern("(?m)^self-join +\\d+ +\\d+\\.\\d%$");
        assertThat(run("bench", "info", "nope").code()).isEqualTo(2);
    }

    @Test
    void benchExportWritesSpiderFormat(@org.junit.jupiter.api.io.TempDir java.nio.file.Path out) throws IOException {
        Run r = run("bench", "export", "classicmodels", "--format", "spider", "--out", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(out.resolve("tables.json")).exists();
        assertThat(out.resolve("database/classicmodels/classicmodels.sqlite")).exists();
        assertThat(java.nio.file.Files.readAllLines(out.resolve("test_gold.sql"))).hasSize(200)
                .allMatch(l -> l.endsWith("\tclassicmodels"));
        assertThat(run("bench", "export", "classicmodels", "--format", "xml", "--out", out.toString()).code()).isEqualTo(2);
    }
}
