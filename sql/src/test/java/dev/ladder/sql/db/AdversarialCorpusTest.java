package dev.ladder.sql.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.sql.schema.Schema;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs the adversarial corpus through guarded execution on the embedded MariaDB and on a SQLite
 * copy: every statement is refused, fails, or times out within the limit plus one second, and
 * the data is byte-for-byte the same afterwards.
 */
class AdversarialCorpusTest {

    /** Short limit so the corpus runs fast; the property under test does not depend on its size. */
    private static final ExecutionLimits LIMITS = ExecutionLimits.DEFAULT.withTimeout(Duration.ofSeconds(2));

    private static final java.util.Set<ExecutionError.Kind> REFUSALS = java.util.EnumSet.of(
            ExecutionError.Kind.REJECTED, ExecutionError.Kind.SYNTAX, ExecutionError.Kind.TIMEOUT);

    static List<String> corpus() throws IOException {
        try (InputStream in = AdversarialCorpusTest.class.getResourceAsStream("/adversarial/statements.sql")) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            List<String> out = new ArrayList<>();
            for (String part : text.split("(?m)^====\\s*$")) {
                String stmt = Arrays.stream(part.split("\n"))
                        .dropWhile(l -> l.startsWith("-- Adversarial") || l.startsWith("-- Every one"))
                        .reduce((a, b) -> a + "\n" + b).orElse("").strip();
                if (!stmt.isEmpty()) out.add(stmt);
            }
            return out;
        }
    }

    static Stream<Arguments> databases() {
        return Stream.of(Arguments.of("mariadb"), Arguments.of("sqlite"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void everyStatementIsRefusedOrStoppedAndNothingChanges(String kind) throws IOException {
        Database db = kind.equals("mariadb") ? TestData.classicModels() : TestData.classicModelsSqlite();
        List<String> corpus = corpus();
        assertThat(corpus).hasSizeGreaterThanOrEqualTo(40);
        String before = TestData.checksum(db);
        String schemaBefore = SchemaRenderer.createTables(db.schema());

        List<String> problems = new ArrayList<>();
        for (String sql : corpus) {
            long t0 = System.nanoTime();
            Execution ex = db.execute(sql, LIMITS);
            long millis = (System.nanoTime() - t0) / 1_000_000;
            if (ex instanceof Execution.Failure f && !REFUSALS.contains(f.error().kind())) {
                problems.add("failed as " + f.error() + " instead of being refused: " + sql);
            }
            if (ex.ok()) problems.add("ran: " + sql);
            if (millis > LIMITS.timeout().toMillis() + 1000) problems.add("took " + millis + " ms: " + sql);
        }
        assertThat(problems).isEmpty();
        assertThat(java.nio.file.Path.of("/tmp/ladder-pwned.txt")).doesNotExist();
        assertThat(TestData.checksum(db)).isEqualTo(before);
        Schema fresh = kind.equals("mariadb")
                ? Databases.embedded(EmbeddedMariaDb.shared(), ClassicModels.NAME).schema()
                : Databases.sqlite(TestData.classicModelsSqlitePath()).schema();
        assertThat(SchemaRenderer.createTables(fresh)).isEqualTo(schemaBefore);
    }
}
