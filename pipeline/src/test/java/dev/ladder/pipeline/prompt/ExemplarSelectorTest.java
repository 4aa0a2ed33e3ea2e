package dev.ladder.pipeline.prompt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ExemplarSelectorTest {

    private static final List<Example> POOL = List.of(
            new Example("t1", "How many customers are in France?", "SELECT COUNT(*) FROM customers WHERE country = 'France'"),
            new Example("t2", "List the products of the Motorcycles line", "SELECT productName FROM products WHERE productLine = 'Motorcycles'"),
            new Example("t3", "Total payments received from each customer", "SELECT customerNumber, SUM(amount) FROM payments GROUP BY customerNumber"),
            new Example("t4", "Which employees work in the Paris office?", "SELECT lastName FROM employees JOIN offices USING (officeCode) WHERE city = 'Paris'"),
            new Example("t5", "How many orders have shipped?", "SELECT COUNT(*) FROM orders WHERE status = 'Shipped'"),
            new Example("t6", "Average buy price of products", "SELECT AVG(buyPrice) FROM products"));

    @Test
    void fixedExemplarsComeInTheGivenOrderAndNeverIncludeTheQuestionItself() {
        FixedExemplars fixed = new FixedExemplars(List.of("t3", "t1", "t5"), POOL);
        assertThat(fixed.select("anything", 3)).extracting(Example::id).containsExactly("t3", "t1", "t5");
        assertThat(fixed.select("How many customers are in France?", 3)).extracting(Example::id).containsExactly("t3", "t5");
        assertThat(fixed.select("anything", 2)).extracting(Example::id).containsExactly("t3", "t1");
        assertThatThrownBy(() -> new FixedExemplars(List.of("nope"), POOL)).hasMessageContaining("'nope'");
    }

    @Test
    void similarExemplarsRankByWordOverlap() {
        SimilarExemplars sim = new SimilarExemplars(POOL, 7);
        assertThat(sim.select("How many customers are in Germany?", 1)).extracting(Example::id).containsExactly("t1");
        assertThat(sim.select("Which products belong to the Classic Cars product line?", 1)).extracting(Example::id).containsExactly("t2");
        assertThat(sim.select("Sum of payments per customer", 1)).extracting(Example::id).containsExactly("t3");
    }

    @Test
    void sameSeedSameExemplarsAndTiesFollowTheSeed() {
        String unrelated = "zebra quantum"; // matches nothing: the order is the seeded tie order alone
        List<String> a = new SimilarExemplars(POOL, 42).select(unrelated, 6).stream().map(Example::id).toList();
        List<String> b = new SimilarExemplars(POOL, 42).select(unrelated, 6).stream().map(Example::id).toList();
        assertThat(a).isEqualTo(b).hasSize(6);
        boolean someSeedDiffers = false;
        for (long seed = 0; seed < 20 && !someSeedDiffers; seed++) {
            someSeedDiffers = !new SimilarExemplars(POOL, seed).select(unrelated, 6).stream().map(Example::id).toList().equals(a);
        }
        assertThat(someSeedDiffers).isTrue();
    }

    @Test
    void aPoolQuestionIsNotItsOwnExemplar() {
        SimilarExemplars sim = new SimilarExemplars(POOL, 1);
        assertThat(sim.select("How many orders have shipped?", 3)).extracting(Example::id).doesNotContain("t5");
    }
}
