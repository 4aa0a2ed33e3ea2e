package dev.ladder.scorer.score;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.scorer.SqliteFixtures;
import dev.ladder.scorer.score.em.EmMode;
import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A gold that EM cannot read is a flag on the row (and a reason from {@link Scoring#unreadableGold}), never a crash. */
class UnreadableGoldTest {

    @TempDir Path dir;

    private Scoring scoring(Database db) {
        return new Scoring(db, Optional.empty(), new ExOptions(ExMode.SPIDER, false, 0, EmMode.SEMANTIC),
                new ExactMatch(db.schema(), false));
    }

    @Test
    void anUnparseableGoldScoresEmFalseWithAFlag() throws IOException {
        Path file = SqliteFixtures.create(dir.resolve("pets.sqlite"), "CREATE TABLE pet (name TEXT, age INTEGER)",
                "INSERT INTO pet VALUES ('rex', 3), ('tom', 5)");
        try (Database db = Databases.sqlite(file)) {
            Scoring s = scoring(db);
            String broken = "SELECT name FROM pet WHERE";
            ItemScore row = s.score("1", "", List.of(broken), "SELECT name FROM pet");
            assertThat(row.va()).isTrue();
            assertThat(row.em()).isFalse();
            assertThat(row.ex()).isFalse();
            assertThat(row.flags()).contains("gold-unreadable");
            assertThat(s.unreadableGold(List.of(broken))).hasValueSatisfying(why -> assertThat(why).contains("cannot parse"));

            // an unreadable alternative, reached because the gold does not match
            ItemScore alt = s.score("2", "", List.of("SELECT name FROM pet", broken), "SELECT age FROM pet");
            assertThat(alt.em()).isFalse();
            assertThat(alt.flags()).contains("gold-unreadable");
            assertThat(s.unreadableGold(List.of("SELECT name FROM pet"))).isEmpty();
        }
    }

    /** 'ladder run' refuses a benchmark with an unreadable gold or alternative: the bundled one must have none. */
    @Test
    void everyBundledGoldAndAlternativeIsReadable() {
        Database cm = dev.ladder.sql.db.TestData.classicModels();
        Scoring s = scoring(cm);
        for (String split : List.of("train", "test")) {
            for (var item : dev.ladder.scorer.bench.Benchmarks.load("classicmodels").split(split)) {
                assertThat(s.unreadableGold(item.allGold())).as(item.id()).isEmpty();
            }
        }
    }
}
