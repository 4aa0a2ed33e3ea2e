package dev.ladder.pipeline.gsr;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.pipeline.kit.SentenceEmbedder;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.TestData;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The value index on ClassicModels: keywords find the stored spelling of a value, by each rule. */
class ValueIndexTest {

    static Database db;
    static ValueIndex index;

    @BeforeAll
    static void open() {
        db = TestData.classicModels();
        index = new ValueIndex(db, 2000, SentenceEmbedder.shared());
    }

    @Test
    void aCountryAndAProductLineAreFoundFromTheQuestionsWords() {
        List<String> words = ValueIndex.keywords("Count the clients located in Norway.");
        assertThat(index.similar("customers", "country", words, 3)).first()
                .satisfies(m -> {
                    assertThat(m.value()).isEqualTo("Norway");
                    assertThat(m.how()).isEqualTo("exact");
                });
        assertThat(index.similar("productlines", "productLine", ValueIndex.keywords("list the motorcycles we sell"), 3))
                .first().satisfies(m -> {
                    assertThat(m.value()).isEqualTo("Motorcycles");
                    assertThat(m.how()).isEqualTo("case");
                });
    }

    @Test
    void misspellingsAndWordsInsideLongerValuesAreFound() {
        assertThat(index.similar("customers", "country", List.of("Norwey"), 1)).singleElement()
                .satisfies(m -> {
                    assertThat(m.value()).isEqualTo("Norway");
                    assertThat(m.how()).isEqualTo("edit");
                });
        assertThat(index.similar("productlines", "productLine", List.of("Cars"), 3))
                .extracting(ValueIndex.Match::value).contains("Classic Cars", "Vintage Cars");
        assertThat(ValueIndex.lexical("Classic Cars", "cars").how()).isEqualTo("word");
        assertThat(ValueIndex.lexical("Ships", "Planes")).isNull();
    }

    @Test
    void embeddingsFindAValueByMeaningAndResultsAreDeterministic() {
        List<ValueIndex.Match> a = index.similar("productlines", "productLine", List.of("boats"), 1);
        List<ValueIndex.Match> b = index.similar("productlines", "productLine", List.of("boats"), 1);
        assertThat(a).isEqualTo(b).singleElement().satisfies(m -> {
            assertThat(m.value()).isEqualTo("Ships");
            assertThat(m.how()).isEqualTo("embedding");
        });
    }

    @Test
    void aColumnIsIndexedUpToItsLimitAndSaysSo() {
        ValueIndex small = new ValueIndex(db, 5, null);
        ValueIndex.Column names = small.column("customers", "customerName");
        assertThat(names.values()).hasSize(5).doesNotHaveDuplicates();
        assertThat(names.truncated()).isTrue();
        assertThat(new ValueIndex(db, 10, null).column("productlines", "productLine").truncated()).isFalse();
    }

    @Test
    void keywordsAreContentWordsAndTheirRuns() {
        assertThat(ValueIndex.keywords("Which orders of 'Land of Toys' shipped in 2004?"))
                .contains("Land of Toys", "orders", "shipped", "2004", "Land", "Toys")
                .doesNotContain("of", "Which", "in");
        assertThat(ValueIndex.keywords("total price of classic cars")).contains("classic cars", "total price")
                .doesNotContain("price classic");
        assertThat(ValueIndex.editDistance("kitten", "sitting")).isEqualTo(3);
    }
}
