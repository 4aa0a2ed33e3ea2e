package dev.ladder.pipeline.search;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.pipeline.kit.JoinGraph;
import dev.ladder.pipeline.kit.SentenceEmbedder;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SchemaBinding;
import dev.ladder.sql.schema.Schema;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two-phase retrieval and the evidence package on a database of the tests' own (the Spider-style bookshop, SQLite)
 * and on ClassicModels, with answers known from the schemas.
 */
class RetrievalTest {

    @TempDir static Path dir;
    static SentenceEmbedder embedder;
    static Database bookshop;
    static Schema schema;
    static SchemaIndex index;

    @BeforeAll
    static void load() {
        embedder = SentenceEmbedder.load();
        bookshop = Bookshop.open(dir);
        schema = bookshop.schema();
        index = SchemaIndex.build(schema, embedder);
    }

    @AfterAll
    static void close() {
        embedder.close();
        bookshop.close();
    }

    static Retrieval retrieval(String question) {
        return new Retrieval(schema, index, new JoinGraph(schema), embedder, SearchSettings.DEFAULT, question);
    }

    /** A candidate's evidence when its sketch predicts the tables its SQL reads (the usual case). */
    static Evidence evidence(Retrieval r, String source, SchemaBinding b) {
        List<String> predicted = new ArrayList<>(b.tables());
        predicted.addAll(b.unknownTables());
        return r.evidence(source, b, predicted);
    }

    @Test
    void theFixtureHasItsForeignKeysAndAMultiHopPathThroughTheLineTable() {
        JoinGraph graph = new JoinGraph(schema);
        assertThat(graph.shortestPath("customer", "book")).get().extracting(p -> p.stream().map(JoinGraph.Edge::condition).toList())
                .isEqualTo(List.of("customer.customer_id = purchase.customer_id",
                        "purchase.purchase_id = purchase_line.purchase_id", "purchase_line.book_id = book.book_id"));
        assertThat(graph.shortestPath("customer", "shift")).isEmpty();
        assertThat(graph.followsKey("book", "author_id", "author", "author_id")).isTrue();
        assertThat(graph.followsKey("author", "author_id", "book", "author_id")).isTrue();
        assertThat(graph.followsKey("customer", "city", "author", "nationality")).isFalse();
    }

    @Test
    void foreignKeyEdgesAreIndexedAndRecalledForTheQuestion() {
        assertThat(index.entries()).filteredOn(e -> e.edge() != null).extracting(SchemaIndex.Entry::text)
                .contains("book author id refers to author author id");
        Evidence e = evidence(retrieval("Which writer wrote each book?"), "c",
                Query.read("SELECT title FROM book").binding(schema));
        assertThat(e.alignedJoins()).isNotEmpty().hasSizeLessThanOrEqualTo(SearchSettings.DEFAULT.tableK());
        assertThat(e.alignedJoins().get(0).condition()).isEqualTo("book.author_id = author.author_id");
        assertThat(e.alignedJoins().get(0).score()).isEqualTo(1.0);
        assertThat(new JoinGraph(schema).edgesAmong(schema.tables().stream().map(t -> t.name()).toList()))
                .extracting(JoinGraph.Edge::condition).containsAll(e.alignedJoins().stream()
                        .map(Evidence.AlignedJoin::condition).toList());
    }

    @Test
    void phaseOneRecallsTheTablesAQuestionIsAbout() {
        assertThat(retrieval("Which writers come from Ireland?").recalledTables().get(0)).isEqualTo("author");
        assertThat(retrieval("Who works on Mondays?").recalledTables().subList(0, 2)).contains("shift");
    }

    @Test
    void phaseOneRecallsFromTheTablesTheSketchPredictsThenTheQuestion() {
        // the question alone points at the shift table; the sketch predicts an authors table, which the schema calls author
        Retrieval r = retrieval("Who works on Mondays?");
        Evidence e = r.evidence("c1", Query.read("SELECT name FROM authors").binding(schema), List.of("authors"));
        assertThat(e.recalledTables()).extracting(Evidence.Aligned::table).first().isEqualTo("author");
        assertThat(e.recalledTables()).extracting(Evidence.Aligned::table).contains("shift")
                .hasSize(SearchSettings.DEFAULT.tableK());
        // switched off: the question's tables only, as before
        Retrieval off = new Retrieval(schema, index, new JoinGraph(schema), embedder,
                SearchSettings.DEFAULT.withSketchRecall(false), "Who works on Mondays?");
        assertThat(off.evidence("c1", Query.read("SELECT name FROM authors").binding(schema), List.of("authors"))
                .recalledTables()).extracting(Evidence.Aligned::table).isEqualTo(off.recalledTables());
    }

    @Test
    void legalJoinsScoreOneAndAnIllegalJoinZero() {
        Retrieval r = retrieval("What titles did customers from Leeds buy?");
        String legal = "SELECT DISTINCT b.title FROM customer c JOIN purchase p ON c.customer_id = p.customer_id "
                + "JOIN purchase_line l ON l.purchase_id = p.purchase_id JOIN book b ON b.book_id = l.book_id WHERE c.city = 'Leeds'";
        Evidence e = evidence(r, "c1", Query.read(legal).binding(schema));
        assertThat(e.joins()).hasSize(3).allSatisfy(j -> assertThat(j.legal()).isTrue());
        assertThat(e.joinScore()).isEqualTo(1.0);
        assertThat(e.tables()).extracting(Evidence.TableHit::table).containsExactly("customer", "purchase", "purchase_line", "book");
        assertThat(e.allowedJoins()).contains("purchase_line.book_id = book.book_id", "purchase.customer_id = customer.customer_id");
        assertThat(e.joinSuggestions()).isEmpty();

        String illegal = "SELECT c.full_name FROM customer c JOIN author a ON c.city = a.nationality";
        Evidence bad = evidence(r, "c2", Query.read(illegal).binding(schema));
        assertThat(bad.joins()).singleElement().satisfies(j -> assertThat(j.legal()).isFalse());
        assertThat(bad.joinScore()).isZero();
    }

    @Test
    void unknownNamesGetTheNearestLegalNameAndUnjoinedTablesAPath() {
        Retrieval r = retrieval("List the titles of travel books.");
        Evidence e = evidence(r, "c1", Query.read("SELECT book_title FROM book WHERE genre = 'travel'").binding(schema));
        assertThat(e.columns()).anySatisfy(c -> {
            assertThat(c.column()).isEqualTo("book_title");
            assertThat(c.legal()).isFalse();
            assertThat(c.score()).isZero();
        });
        assertThat(e.replacements()).singleElement().extracting(Evidence.Replacement::suggestion).isEqualTo("book.title");

        Evidence t = evidence(r, "c2", Query.read("SELECT title FROM books").binding(schema));
        assertThat(t.tables()).anySatisfy(h -> assertThat(h.legal()).isFalse());
        assertThat(t.replacements()).extracting(Evidence.Replacement::suggestion).contains("book");

        // customer and book read together but not joined: the path through purchase and purchase_line is suggested
        Evidence apart = evidence(r, "c3", Query.read("SELECT title FROM book WHERE book_id IN (SELECT customer_id FROM customer)")
                .binding(schema));
        assertThat(apart.joinSuggestions()).singleElement().satisfies(s -> assertThat(s.path()).hasSize(3));
        // a table no foreign key reaches: the suggestion says there is no path
        Evidence island = evidence(r, "c4", Query.read("SELECT full_name FROM customer, shift").binding(schema));
        assertThat(island.joinSuggestions()).singleElement().satisfies(s -> {
            assertThat(s.table()).isEqualTo("shift");
            assertThat(s.path()).isEmpty();
        });
    }

    @Test
    void evidenceIsDeterministic() {
        String sql = "SELECT genre, COUNT(*) FROM book GROUP BY genre";
        Evidence a = evidence(retrieval("How many books are there of each genre?"), "c", Query.read(sql).binding(schema));
        Evidence b = evidence(retrieval("How many books are there of each genre?"), "c", Query.read(sql).binding(schema));
        assertThat(a).isEqualTo(b);
        assertThat(a.tableScore()).isEqualTo(a.tables().get(0).score());
    }

    @Test
    void sampleValuesAndRowCountsEnterTheIndexTextsWhenAskedFor() {
        Map<String, List<String>> values = SearchResources.sampleValues(bookshop, schema);
        assertThat(values.get("customer.city")).containsExactly("Leeds", "Porto");
        assertThat(values).doesNotContainKey("customer.signup_year");
        SchemaIndex withValues = SchemaIndex.build(schema, embedder, values);
        assertThat(withValues.entries()).anySatisfy(e -> assertThat(e.text()).isEqualTo("customer city (text), e.g. Leeds, Porto"));
        assertThat(withValues.entries()).anySatisfy(e -> assertThat(e.text()).endsWith("(3 rows)"));
        assertThat(SchemaIndex.fingerprint(schema, values)).isNotEqualTo(SchemaIndex.fingerprint(schema));
    }

    @Test
    void classicModelsCustomersReachProductsThroughOrdersAndOrderDetails() {
        Database cm = TestData.classicModels();
        JoinGraph graph = new JoinGraph(cm.schema());
        assertThat(graph.shortestPath("customers", "products")).get()
                .extracting(p -> p.stream().map(JoinGraph.Edge::to).toList())
                .isEqualTo(List.of("orders", "orderdetails", "products"));
    }
}
