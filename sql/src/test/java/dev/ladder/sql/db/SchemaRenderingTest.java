package dev.ladder.sql.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.SqlTypes;
import dev.ladder.sql.schema.Table;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The schema text prompts embed must be byte-stable across runs and database kinds. */
class SchemaRenderingTest {

    private static String golden(String name) throws IOException {
        try (InputStream in = SchemaRenderingTest.class.getResourceAsStream("/golden/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void summaryMatchesTheReviewedSnapshotOnMariaDbAndSqlite() throws IOException {
        String expected = golden("classicmodels-summary.txt");
        // fresh Database objects introspect again: stability across instances, not a cached string
        Schema mariadb = Databases.embedded(EmbeddedMariaDb.shared(), ClassicModels.NAME).schema();
        Schema sqlite = Databases.sqlite(TestData.classicModelsSqlitePath()).schema();
        assertThat(SchemaRenderer.summary(mariadb)).isEqualTo(expected);
        assertThat(SchemaRenderer.summary(sqlite)).isEqualTo(expected);
        assertThat(SchemaRenderer.summary(TestData.classicModels().schema())).isEqualTo(expected);
    }

    @Test
    void createTablesMatchesTheSnapshotOnBothKinds() throws IOException {
        String expected = golden("classicmodels-create.sql");
        assertThat(SchemaRenderer.createTables(TestData.classicModels().schema())).isEqualTo(expected);
        assertThat(SchemaRenderer.createTables(TestData.classicModelsSqlite().schema())).isEqualTo(expected);
    }

    @Test
    void renderingDoesNotDependOnTheOrderTablesWereFound() {
        Schema s = TestData.classicModels().schema();
        List<Table> reversed = new java.util.ArrayList<>(s.tables());
        java.util.Collections.reverse(reversed);
        List<ForeignKey> fks = new java.util.ArrayList<>(s.foreignKeys());
        java.util.Collections.reverse(fks);
        Schema shuffled = new Schema(s.database(), reversed, fks);
        assertThat(SchemaRenderer.summary(shuffled)).isEqualTo(SchemaRenderer.summary(s));
    }

    @Test
    void compositeForeignKeysAreListedSeparately() {
        Table parent = new Table("parent", List.of(new Column("a", "int", false), new Column("b", "int", false)),
                List.of("a", "b"), 0);
        Table child = new Table("child", List.of(new Column("id", "int", false), new Column("pa", "int", true),
                new Column("pb", "int", true)), List.of("id"), 0);
        Schema s = new Schema("t", List.of(parent, child),
                List.of(new ForeignKey("child", List.of("pa", "pb"), "parent", List.of("a", "b"))));
        assertThat(SchemaRenderer.summary(s)).isEqualTo(
                "child(id int PK, pa int, pb int)\n"
                        + "parent(a int PK, b int PK)\n"
                        + "Composite foreign keys:\n"
                        + "child(pa, pb) -> parent(a, b)\n");
    }

    @Test
    void integerDisplayWidthsAndCaseAreNormalised() {
        assertThat(SqlTypes.normalize("INT(11)")).isEqualTo("int");
        assertThat(SqlTypes.normalize("smallint(6) unsigned")).isEqualTo("smallint unsigned");
        assertThat(SqlTypes.normalize("DECIMAL(10, 2)")).isEqualTo("decimal(10, 2)");
        assertThat(SqlTypes.normalize("varchar(50)")).isEqualTo("varchar(50)");
    }
}
