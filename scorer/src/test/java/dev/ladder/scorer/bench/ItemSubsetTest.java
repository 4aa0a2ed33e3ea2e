package dev.ladder.scorer.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** How {@code limit} picks its items: proportional strata, seeded, in file order; or the first N. */
class ItemSubsetTest {

    /** 20 invented items in file order grouped by category, as benchmark files often are: 10 lookup, 6 join, 4 top-k. */
    private static final List<BenchmarkItem> ITEMS = items();

    private static List<BenchmarkItem> items() {
        List<BenchmarkItem> out = new ArrayList<>();
        String[][] strata = {{"lookup", "easy", "10"}, {"join", "medium", "6"}, {"top-k", "hard", "4"}};
        for (String[] s : strata) {
            for (int i = 0; i < Integer.parseInt(s[2]); i++) {
                out.add(new BenchmarkItem(s[0] + "-" + i, "question " + out.size(), "SELECT 1", s[0], s[1], false,
                        List.of(), "", ""));
            }
        }
        return out;
    }

    private static Map<String, Long> perCategory(List<BenchmarkItem> items) {
        return items.stream().collect(Collectors.groupingBy(BenchmarkItem::category, Collectors.counting()));
    }

    @Test
    void aStratifiedSubsetIsProportionalToTheStrataAndKeepsFileOrder() {
        ItemSubset.Selection s = new ItemSubset(ItemSubset.Method.STRATIFIED, 0).select(ITEMS, 5);
        // 5 * 10/20 = 2.5, 5 * 6/20 = 1.5, 5 * 4/20 = 1.0: floors 2, 1, 1 and the one left goes to the larger of the
        // two equal remainders (lookup)
        assertThat(perCategory(s.items())).isEqualTo(Map.of("lookup", 3L, "join", 1L, "top-k", 1L));
        assertThat(s.items()).isSortedAccordingTo((a, b) -> Integer.compare(ITEMS.indexOf(a), ITEMS.indexOf(b)));
        assertThat(s.description()).isEqualTo("5 of 20 items, stratified by category and difficulty (proportional allocation, seed 0)");
    }

    @Test
    void theSameSeedGivesTheSameItemsAndOtherSeedsOtherOnes() {
        Function<Long, List<String>> ids = seed -> new ItemSubset(ItemSubset.Method.STRATIFIED, seed).select(ITEMS, 5)
                .items().stream().map(BenchmarkItem::id).toList();
        assertThat(ids.apply(3L)).isEqualTo(ids.apply(3L));
        assertThat(java.util.stream.LongStream.range(0, 10).mapToObj(ids::apply).distinct().count()).isGreaterThan(1);
    }

    @Test
    void firstTakesTheFileOrderAndALimitAtOrAboveTheSizeTakesEverything() {
        ItemSubset.Selection first = new ItemSubset(ItemSubset.Method.FIRST, 0).select(ITEMS, 5);
        assertThat(first.items()).isEqualTo(ITEMS.subList(0, 5));
        assertThat(first.description()).isEqualTo("the first 5 of 20 items in file order");
        assertThat(ItemSubset.DEFAULT.select(ITEMS, 20).items()).isEqualTo(ITEMS);
        assertThat(ItemSubset.DEFAULT.select(ITEMS, null).description()).isEqualTo("all 20 items of the split");
    }

    @Test
    void everyStratumOfTheBundledTrainSplitIsRepresentedInProportion() {
        List<BenchmarkItem> train = Benchmarks.load("classicmodels", null).split("train");
        List<BenchmarkItem> chosen = ItemSubset.DEFAULT.select(train, 50).items();
        assertThat(chosen).hasSize(50);
        Map<String, Long> all = perCategory(train);
        perCategory(chosen).forEach((category, n) ->
                assertThat((double) n).isCloseTo(50.0 * all.get(category) / train.size(), org.assertj.core.data.Offset.offset(2.0)));
    }
}
