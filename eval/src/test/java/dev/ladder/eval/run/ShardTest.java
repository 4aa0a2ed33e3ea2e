package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.eval.experiment.Cell;
import dev.ladder.sql.db.UserError;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardTest {

    @TempDir Path tmp;

    @Test
    void theShardsOfASelectionAreDisjointAndCoverIt() {
        List<Integer> all = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            Shard s = Shard.parse(i + "/3", "--shard");
            List<Integer> mine = s.positions(8);
            mine.forEach(p -> assertThat(s.owns(p)).isTrue());
            all.addAll(mine);
        }
        assertThat(all).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(new Shard(2, 3).positions(8)).containsExactly(1, 4, 7);
        assertThat(new Shard(3, 3).positions(2)).isEmpty();
        assertThat(new Shard(1, 1).positions(3)).containsExactly(0, 1, 2);
        assertThat(new Shard(2, 4).directoryBeside(Path.of("runs", "ladder"))).isEqualTo(Path.of("runs", "ladder-shard-2-of-4"));
        assertThat(Shard.parse(" 12/12 ", "--shard").label()).isEqualTo("12/12");
        for (String bad : List.of("0/2", "3/2", "a/b", "1/0", "", "1/2/3", "99999999999/1")) {
            assertThatThrownBy(() -> Shard.parse(bad, "--shard")).isInstanceOf(UserError.class)
                    .hasMessageContaining("expected i/N with 1 <= i <= N");
        }
    }

    @Test
    void aTransactionStoresAllOrNothing() {
        Cell cell = ResultsStoreTest.K0;
        try (ResultsStore s = ResultsStore.open(tmp.resolve("results.sqlite"))) {
            s.putCell(cell);
            assertThatThrownBy(() -> s.inOneTransaction(() -> {
                s.put(ResultsStoreTest.result(cell, "q-1", "SELECT 1", null), 0, "{}");
                s.putMeta("k", "v");
                throw new IllegalStateException("stop");
            })).hasMessage("stop");
            assertThat(s.results()).isEmpty();
            assertThat(s.metaEntries()).isEmpty();
            s.inOneTransaction(() -> {
                s.put(ResultsStoreTest.result(cell, "q-1", "SELECT 1", null), 0, "{}");
                s.putMeta("k", "v");
            });
            assertThat(s.results()).hasSize(1);
            assertThat(s.metaEntries()).containsExactly(java.util.Map.entry("k", "v"));
            s.putMeta("after", "auto-commit again");
        }
        try (ResultsStore s = ResultsStore.openReadOnly(tmp.resolve("results.sqlite"))) {
            assertThat(s.metaEntries()).containsOnlyKeys("after", "k");
        }
    }
}
