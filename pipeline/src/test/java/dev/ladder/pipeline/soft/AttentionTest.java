package dev.ladder.pipeline.soft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.inference.text.CompletionFormat;
import dev.ladder.sql.Dialect;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Question mining, the weights on ClassicModels and on a schema with same-named columns, and the prompt's two forms. */
class AttentionTest {

    static Schema classic;

    /** Two tables with a column of the same name. */
    static final Schema LIBRARY = new Schema("library", List.of(
            new Table("author", List.of(new Column("author_id", "INT", false), new Column("name", "TEXT", true)),
                    List.of("author_id"), 3),
            new Table("book", List.of(new Column("book_id", "INT", false), new Column("name", "TEXT", true),
                    new Column("author_id", "INT", true)), List.of("book_id"), 5)),
            List.of(new ForeignKey("book", List.of("author_id"), "author", List.of("author_id"))));

    @BeforeAll
    static void open() {
        classic = TestData.classicModels().schema();
    }

    @Test
    void theMinerFindsNounPhrasesAndTheRelationsBetweenThem() {
        QuestionMiner.Mined m = QuestionMiner.mine("Which employees manage customers in Madrid?");
        assertThat(m.entities()).contains("employees", "customers", "Madrid");
        assertThat(m.relations()).anySatisfy(r -> {
            assertThat(r.left()).isEqualTo("employees");
            assertThat(r.via()).isEqualTo("manage");
            assertThat(r.right()).isEqualTo("customers");
        });
        assertThat(m.tokens()).contains("Madrid/PROPN");
        assertThat(QuestionMiner.mine("Show orders with the status 'On Hold'.").entities()).contains("On Hold");
    }

    @Test
    void theTablesAndColumnsAQuestionNamesRiseAndTheWeightsAreNormalised() {
        AttentionWeights.Weights w = AttentionWeights.compute(classic,
                QuestionMiner.mine("What is the credit limit of each customer in Madrid?"));
        assertThat(w.weights().values()).allSatisfy(v -> assertThat(v).isBetween(0.0, 1.0));
        assertThat(w.weights().values()).contains(1.0);
        assertThat(w.of("customers", null)).isGreaterThan(w.of("offices", null));
        assertThat(w.of("customers", "creditLimit")).isGreaterThan(w.of("customers", "phone"));
        assertThat(w.hits()).containsKeys(new AttentionWeights.Key("customers", null),
                new AttentionWeights.Key("customers", "creditLimit"));
        // unmatched tables and columns keep their baselines' ratio
        assertThat(w.of("offices", null) / w.of("offices", "city")).isCloseTo(0.5 / 0.3, org.assertj.core.data.Offset.offset(0.1));
    }

    /** Table names written as one lower-case word of two. */
    static final Schema STORE = new Schema("store", List.of(
            new Table("salesitems", List.of(new Column("item_id", "INT", false), new Column("price", "DECIMAL", true)),
                    List.of("item_id"), 4),
            new Table("stockroom", List.of(new Column("room_id", "INT", false)), List.of("room_id"), 2),
            new Table("items", List.of(new Column("id", "INT", false)), List.of("id"), 2)),
            List.of());

    @Test
    void aLowerCaseCompoundTableNameIsMatchedByItsWords() {
        // "sales items" names salesitems; "items" alone does not, and the words must make the whole name
        AttentionWeights.Weights w = AttentionWeights.compute(STORE, QuestionMiner.mine("List the price of every sales item."));
        assertThat(w.hits()).containsKey(new AttentionWeights.Key("salesitems", null));
        assertThat(w.of("salesitems", null)).isGreaterThan(w.of("stockroom", null));
        assertThat(AttentionWeights.matchesTable(AttentionWeights.words("items"), AttentionWeights.words("salesitems")))
                .isFalse();
        assertThat(AttentionWeights.matchesTable(AttentionWeights.words("stock room"), AttentionWeights.words("stockroom")))
                .isTrue();
    }

    @Test
    void sameNamedColumnsOfTwoTablesAreWeighedApart() {
        AttentionWeights.Weights w = AttentionWeights.compute(LIBRARY, QuestionMiner.mine("List the author name of every book."));
        assertThat(w.of("author", "name")).isGreaterThan(w.of("book", "name"));
        assertThat(w.weights()).containsKeys(new AttentionWeights.Key("author", "name"), new AttentionWeights.Key("book", "name"));
    }

    @Test
    void thePromptShowsTheWeightsInlineAndAsABlockEachSwitchable() {
        AttentionWeights.Weights w = AttentionWeights.compute(LIBRARY, QuestionMiner.mine("List the author name of every book."));
        CompletionFormat f = new CompletionFormat("");
        String both = AttentionPrompt.generate(f, Dialect.SQLITE, LIBRARY, w, SoftSettings.DEFAULT, null, "q?");
        assertThat(both).contains("CREATE TABLE author ( -- attention: ").contains("  name TEXT, -- attention: ")
                .contains(AttentionPrompt.BLOCK_HEADING).contains("author.name: ").contains("(other columns: ");
        String inline = AttentionPrompt.generate(f, Dialect.SQLITE, LIBRARY, w, SoftSettings.DEFAULT.withWeights(true, false), null, "q?");
        assertThat(inline).contains("-- attention: ").doesNotContain(AttentionPrompt.BLOCK_HEADING);
        String block = AttentionPrompt.generate(f, Dialect.SQLITE, LIBRARY, w, SoftSettings.DEFAULT.withWeights(false, true), null, "q?");
        assertThat(block).doesNotContain("-- attention: ").contains(AttentionPrompt.BLOCK_HEADING);
        String plain = AttentionPrompt.generate(f, Dialect.SQLITE, LIBRARY, null, SoftSettings.DEFAULT.withWeights(false, false), null, "q?");
        assertThat(plain).doesNotContain("attention").contains("CREATE TABLE book (\n  book_id INT NOT NULL,")
                .contains("FOREIGN KEY (author_id) REFERENCES author (author_id)\n);");
        String cot = AttentionPrompt.generate(f, Dialect.SQLITE, LIBRARY, null, SoftSettings.DEFAULT.withPrompting(false, true), null, "q?");
        assertThat(cot).contains("reason briefly");
    }
}
