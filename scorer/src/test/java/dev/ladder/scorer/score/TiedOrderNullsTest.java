package dev.ladder.scorer.score;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.scorer.MariaDbFixtures;
import dev.ladder.scorer.SqliteFixtures;
import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.QueryResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Ordered golds whose compared rows hold NULLs: in a sort key, in another column, in a whole column, inside a tie
 * group that LIMIT cuts. As runs of {@link TiedOrder}, and end to end through {@link Scoring} (EX, and TS over a
 * second database) on SQLite and on the embedded MariaDB; both sort NULLs first in ASC.
 */
class TiedOrderNullsTest {

    private static final String MARIADB = "ladder_tied_nulls";
    private static final String MARIADB_SUITE = "ladder_tied_nulls_suite";

    @TempDir
    static Path dir;
    /** engine -> [original, suite database] */
    private static final Map<String, List<Database>> engines = new LinkedHashMap<>();

    /** Made-up people: scores 3, 2, 2 and three NULLs; notes partly NULL; {@code blank} always NULL. */
    private static String[] fixture(String... people) {
        List<String> s = new ArrayList<>(List.of(
                "CREATE TABLE people (id INTEGER PRIMARY KEY, name VARCHAR(20), score INTEGER, note VARCHAR(20), blank VARCHAR(20))",
                "CREATE TABLE teams (id INTEGER PRIMARY KEY, person_id INTEGER, team VARCHAR(20))",
                "INSERT INTO teams VALUES (1, 1, 'red'), (2, 3, 'blue')"));
        s.add("INSERT INTO people VALUES " + String.join(", ", people));
        return s.toArray(String[]::new);
    }

    private static final String[] ORIGINAL = fixture("(1, 'ann', 3, 'x', NULL)", "(2, 'bob', NULL, NULL, NULL)",
            "(3, 'cy', 2, NULL, NULL)", "(4, 'dee', NULL, 'y', NULL)", "(5, 'eve', 2, 'z', NULL)", "(6, 'fay', NULL, NULL, NULL)");
    /** The suite database moves the NULLs: other rows tie, another row's note is missing. */
    private static final String[] SUITE = fixture("(1, 'ann', NULL, NULL, NULL)", "(2, 'bob', 5, 'p', NULL)",
            "(3, 'cy', NULL, NULL, NULL)", "(4, 'dee', 5, NULL, NULL)", "(5, 'eve', 1, 'z', NULL)", "(6, 'fay', 1, NULL, NULL)",
            "(7, 'gus', NULL, 'q', NULL)");

    @BeforeAll
    static void setUp() throws Exception {
        engines.put("sqlite", List.of(
                Databases.sqlite(SqliteFixtures.create(dir.resolve("nulls.sqlite"), ORIGINAL)),
                Databases.sqlite(SqliteFixtures.create(dir.resolve("nulls_suite.sqlite"), SUITE))));
        engines.put("mariadb", List.of(MariaDbFixtures.create(MARIADB, ORIGINAL), MariaDbFixtures.create(MARIADB_SUITE, SUITE)));
    }

    @AfterAll
    static void tearDown() throws Exception {
        engines.values().forEach(dbs -> dbs.forEach(Database::close));
        MariaDbFixtures.drop(MARIADB);
        MariaDbFixtures.drop(MARIADB_SUITE);
    }

    private static ItemScore score(String engine, String gold, String predicted) {
        List<Database> dbs = engines.get(engine);
        Database original = dbs.get(0);
        Scoring s = new Scoring(original, Optional.of(dbs.subList(1, 2)), ExOptions.DEFAULT, new ExactMatch(original.schema(), false));
        return s.score("q", "test", List.of(gold), predicted);
    }

    private static void holds(String engine, String gold, String predicted) {
        ItemScore s = score(engine, gold, predicted);
        assertThat(s.ex()).as(predicted + " " + s).isTrue();
        assertThat(s.ts()).as(predicted + " " + s).isTrue();
    }

    private static void failsEx(String engine, String gold, String predicted) {
        assertThat(score(engine, gold, predicted).ex()).as(predicted).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "mariadb"})
    void nullSortKeysTieAndComeFirstInAscendingOrder(String engine) {
        String gold = "SELECT name, score FROM people ORDER BY score";
        holds(engine, gold, gold);
        holds(engine, gold, "SELECT score, name FROM people ORDER BY score, name DESC");
        failsEx(engine, gold, "SELECT name, score FROM people ORDER BY score DESC");
        String desc = "SELECT name FROM people ORDER BY score DESC";
        holds(engine, desc, desc);
        holds(engine, desc, "SELECT name FROM people ORDER BY score DESC, id DESC");
        failsEx(engine, desc, "SELECT name FROM people ORDER BY score");
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "mariadb"})
    void aNullTieGroupCutByLimitAcceptsAnyOfItsRows(String engine) {
        String gold = "SELECT name, note FROM people ORDER BY score LIMIT 2";
        holds(engine, gold, gold);
        holds(engine, gold, "SELECT name, note FROM people ORDER BY score, id DESC LIMIT 2");
        // on the original, two of the three NULL-score rows, in any order; not a scored row
        assertThat(score(engine, gold, "SELECT name, note FROM people WHERE id IN (6, 4) ORDER BY id DESC").ex()).isTrue();
        failsEx(engine, gold, "SELECT name, note FROM people WHERE id IN (1, 2)");
        failsEx(engine, gold, "SELECT name, note FROM people ORDER BY score DESC LIMIT 2");
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "mariadb"})
    void nullsInColumnsThatAreNoSortKey(String engine) {
        String gold = "SELECT name, note FROM people ORDER BY id LIMIT 4";
        holds(engine, gold, gold);
        failsEx(engine, gold, "SELECT name, COALESCE(note, '') FROM people ORDER BY id LIMIT 4");
        String allNull = "SELECT blank, name FROM people ORDER BY name DESC";
        holds(engine, allNull, allNull);
        holds(engine, allNull, "SELECT name, NULL FROM people ORDER BY name DESC");
        failsEx(engine, allNull, "SELECT blank, name FROM people ORDER BY name");
        String byBlank = "SELECT name, blank FROM people ORDER BY blank LIMIT 3";
        holds(engine, byBlank, byBlank);
        holds(engine, byBlank, "SELECT name, blank FROM people ORDER BY id DESC LIMIT 3");
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "mariadb"})
    void aLeftJoinOrderedByItsKeyWithMissingPartners(String engine) {
        String gold = "SELECT p.id, t.team FROM people p LEFT JOIN teams t ON t.person_id = p.id ORDER BY p.id";
        holds(engine, gold, gold);
        holds(engine, gold, "SELECT t.team, p.id FROM teams t RIGHT JOIN people p ON t.person_id = p.id ORDER BY p.id");
        failsEx(engine, gold, "SELECT p.id, t.team FROM people p JOIN teams t ON t.person_id = p.id ORDER BY p.id");
        String first = "SELECT note, name FROM people ORDER BY note ASC LIMIT 1";
        holds(engine, first, first);
    }

    private static List<Object> row(Object... values) {
        return Arrays.asList(values);
    }

    @Test
    void runsOfNullKeys() {
        List<List<Object>> rows = List.of(row("a", null), row("b", null), row("c", 1), row("d", null));
        TiedOrder t = TiedOrder.runs(rows, 2, List.of(1), 0, null);
        assertThat(t.runs()).extracting(TiedOrder.Run::size).containsExactly(2, 1, 1);
        assertThat(t.runs().get(0).pool()).containsExactly(row("a", null), row("b", null));
        // NULL in a column that is no key, and a column of NULLs only
        TiedOrder other = TiedOrder.runs(List.of(row(null, 1, null), row("x", 1, null), row(null, 2, null)), 3, List.of(1), 0, null);
        assertThat(other.runs()).extracting(TiedOrder.Run::size).containsExactly(2, 1);
        TiedOrder allNull = TiedOrder.runs(List.of(row("x", null), row("y", null)), 1, List.of(1), 0, null);
        assertThat(allNull.runs()).hasSize(1);
        assertThat(allNull.runs().get(0).pool()).containsExactly(row("x"), row("y"));
    }

    @Test
    void aNullTieGroupReachingPastTheLimitIsThePool() {
        List<List<Object>> rows = List.of(row("a", 1), row("b", null), row("c", null), row("d", null), row("e", 0));
        TiedOrder t = TiedOrder.runs(rows, 1, List.of(1), 0, 2L);
        assertThat(t.rowCount()).isEqualTo(2);
        assertThat(t.runs().get(1).size()).isEqualTo(1);
        assertThat(t.runs().get(1).pool()).containsExactly(row("b"), row("c"), row("d"));
        // the comparison takes pools with NULLs: any one of the tied rows, in second place
        ExOptions o = ExOptions.DEFAULT;
        assertThat(ResultComparison.equalTied(t, result(row("a"), row("d")), o)).isTrue();
        assertThat(ResultComparison.equalTied(t, result(row("a"), row((Object) null)), o)).isFalse();
        TiedOrder nullRows = TiedOrder.runs(List.of(row(null, null), row(null, null), row("z", 1)), 1, List.of(1), 1, 2L);
        assertThat(ResultComparison.equalTied(nullRows, result(row((Object) null)), o)).isTrue();
        assertThat(ResultComparison.equalTied(nullRows, result(row("z")), o)).isFalse();
        assertThat(ResultComparison.equalTied(nullRows, result(row((Object) null)), o.withTolerance(1e-6))).isTrue();
    }

    private static QueryResult result(List<Object>... rows) {
        List<String> columns = new ArrayList<>();
        for (int i = 0; i < rows[0].size(); i++) columns.add("c" + i);
        return new QueryResult(columns, List.of(rows), false, 0);
    }
}
