package dev.ladder.pipeline.search;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.pipeline.kit.SentenceEmbedder;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SchemaIndexTest {

    static SentenceEmbedder embedder;

    /** A small shop of its own (not a benchmark's): names as a Spider database might spell them. */
    static final Schema SHOP = new Schema("shop", List.of(
            new Table("customer", List.of(new Column("customer_id", "INT", false), new Column("full_name", "VARCHAR(80)", false),
                    new Column("creditLimit", "DECIMAL(10,2)", true)), List.of("customer_id"), 0),
            new Table("invoice", List.of(new Column("invoice_id", "INT", false), new Column("customer_id", "INT", false),
                    new Column("amount_due", "DECIMAL(10,2)", false), new Column("issued_on", "DATE", false)), List.of("invoice_id"), 0),
            new Table("warehouse", List.of(new Column("warehouse_id", "INT", false), new Column("city", "VARCHAR(40)", false),
                    new Column("capacity", "INT", false)), List.of("warehouse_id"), 0)),
            List.of(new ForeignKey("invoice", List.of("customer_id"), "customer", List.of("customer_id"))));

    @BeforeAll
    static void load() {
        embedder = SentenceEmbedder.load();
    }

    @AfterAll
    static void close() {
        embedder.close();
    }

    @Test
    void retrievesTablesThenColumnsByMeaning() {
        SchemaIndex index = SchemaIndex.build(SHOP, embedder);
        float[] q = embedder.embed("how much money is owed on each bill");
        assertThat(index.tables(q, 1)).singleElement().extracting(SchemaIndex.Hit::table).isEqualTo("invoice");
        assertThat(index.columns(q, List.of("invoice"), 1)).singleElement().extracting(SchemaIndex.Hit::column)
                .isEqualTo("amount_due");
        float[] storage = embedder.embed("which depot holds the most stock");
        assertThat(index.tables(storage, 1).get(0).table()).isEqualTo("warehouse");
        assertThat(index.columns(embedder.embed("how much credit a buyer may use"), List.of("customer"), 1).get(0).column())
                .isEqualTo("creditLimit");
        assertThat(SchemaIndex.columnText(SHOP.tables().get(0), SHOP.tables().get(0).columns().get(2)))
                .isEqualTo("customer credit limit (decimal(10,2))");
    }

    @Test
    void theCacheGivesBackTheSameVectorsAndFollowsTheSchema(@TempDir Path dir) throws Exception {
        SchemaIndex first = SchemaIndex.cached(SHOP, embedder, dir);
        List<Path> files;
        try (var s = Files.list(dir)) {
            files = s.toList();
        }
        assertThat(files).singleElement().asString().contains("schema-index-shop-");
        SchemaIndex again = SchemaIndex.cached(SHOP, embedder, dir);
        assertThat(again.entries()).hasSameSizeAs(first.entries());
        for (int i = 0; i < first.entries().size(); i++) {
            assertThat(again.entries().get(i).vector()).containsExactly(first.entries().get(i).vector());
            assertThat(again.entries().get(i).text()).isEqualTo(first.entries().get(i).text());
            assertThat(again.entries().get(i).edge()).isEqualTo(first.entries().get(i).edge());
        }
        // another schema (a column more) is another file
        Schema changed = new Schema("shop", SHOP.tables().subList(0, 2), SHOP.foreignKeys());
        SchemaIndex.cached(changed, embedder, dir);
        try (var s = Files.list(dir)) {
            assertThat(s.count()).isEqualTo(2);
        }
    }
}
