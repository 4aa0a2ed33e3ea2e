package dev.ladder.cli;

import dev.ladder.scorer.SqliteFixtures;
import dev.ladder.cli.LadderCliTest.Run;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** 'ladder sql DB' takes the query as an argument, from --file PATH or from stdin ('-'): exactly one of them. */
class SqlInputTest {

    @TempDir Path dir;

    private static Run run(String... args) {
        return LadderCliTest.run(args);
    }

    private Path sqlite() throws IOException {
        return SqliteFixtures.create(dir.resolve("n.sqlite"), "CREATE TABLE n (v INTEGER)",
                "INSERT INTO n VALUES (1), (2), (3)");
    }

    /** Longer than one argument may be on Linux (MAX_ARG_STRLEN, 128 KiB). */
    private static String longQuery() {
        StringBuilder sql = new StringBuilder("SELECT COUNT(*) AS c FROM n WHERE v IN (1");
        while (sql.length() < 300_000) sql.append(", 1");
        return sql.append(")").toString();
    }

    @Test
    void aQueryFromAFileRunsEvenWhenTooLongForAnArgument() throws IOException {
        Path db = sqlite();
        Path file = dir.resolve("q.sql");
        // a BOM from a Windows editor is skipped
        Files.write(file, ("\uFEFF" + longQuery() + "\n").getBytes(StandardCharsets.UTF_8));
        Run r = run("sql", db.toString(), "--file", file.toString());
        assertThat(r.err()).isEmpty();
        assertThat(r.code()).isZero();
        assertThat(r.out()).startsWith("c\n-\n1\n").contains("(1 row, ");
    }

    @Test
    void aQueryFromStdin() throws IOException {
        Path db = sqlite();
        InputStream saved = System.in;
        try {
            System.setIn(new ByteArrayInputStream("SELECT SUM(v) AS s FROM n".getBytes(StandardCharsets.UTF_8)));
            Run r = run("sql", db.toString(), "-");
            assertThat(r.code()).isZero();
            assertThat(r.out()).startsWith("s\n-\n6\n");
        } finally {
            System.setIn(saved);
        }
    }

    @Test
    void exactlyOneSourceOfSql() throws IOException {
        Path db = sqlite();
        Path file = Files.writeString(dir.resolve("q.sql"), "SELECT 1");
        Path latin1 = Files.write(dir.resolve("bad.sql"), new byte[] {'S', 'E', 'L', 'E', 'C', 'T', ' ', '\'', (byte) 0xE9, '\''});
        String[][] cases = {
            {"sql", db.toString()},
            {"sql", db.toString(), "SELECT 1", "--file", file.toString()},
            {"sql", db.toString(), "-", "--file", file.toString()},
            {"sql", db.toString(), "--file", dir.resolve("absent.sql").toString()},
            {"sql", db.toString(), "--file", latin1.toString()},
        };
        String[] expected = {"missing SQL", "got both an SQL argument and --file", "got both '-' and --file",
            "no such SQL file: ", latin1 + ": not UTF-8 at line 1"};
        for (int i = 0; i < cases.length; i++) {
            Run r = run(cases[i]);
            assertThat(r.code()).as(String.join(" ", cases[i])).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", cases[i])).startsWith("ladder: ").contains(expected[i]).hasLineCount(1);
            assertThat(r.out()).isEmpty();
        }
    }
}
