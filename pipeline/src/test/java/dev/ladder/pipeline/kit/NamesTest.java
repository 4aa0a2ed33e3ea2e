package dev.ladder.pipeline.kit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The agent's one word normaliser: identifier parts and question words fold alike. */
class NamesTest {

    @Test
    void pluralsFoldOntoTheirSingular() {
        for (String[] pair : new String[][] {
                {"sizes", "size"}, {"clauses", "clause"}, {"buses", "bus"}, {"statuses", "status"}, {"categories", "category"},
                {"movies", "movie"}, {"addresses", "address"}, {"boxes", "box"}, {"matches", "match"}, {"dishes", "dish"},
                {"series", "series"}, {"people", "person"}}) {
            assertThat(Names.stem(pair[0])).as(pair[0]).isEqualTo(Names.stem(pair[1]));
        }
        assertThat(Names.singular("sizes")).isEqualTo("size");
        assertThat(Names.singular("buses")).isEqualTo("bus");
        assertThat(Names.singular("status")).isEqualTo("status");
    }

    @Test
    void identifiersSplitAtCaseDigitsAndPunctuation() {
        assertThat(Names.parts("salesRepEmployeeNumber")).containsExactly("sales", "rep", "employee", "number");
        assertThat(Names.parts("order_details")).containsExactly("order", "details");
        assertThat(Names.parts("HTMLPage2x")).containsExactly("html", "page", "2", "x");
        assertThat(Names.identifierWords("product_sizes")).containsExactly("product", "size");
        assertThat(Names.key("productLines")).isEqualTo(Names.key("product_line"));
    }
}
