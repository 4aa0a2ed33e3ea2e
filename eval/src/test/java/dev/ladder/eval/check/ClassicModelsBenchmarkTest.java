package dev.ladder.eval.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.scorer.bench.SqlFeatures;
import dev.ladder.eval.check.Coverage;
import dev.ladder.eval.check.OrderCheck;
import dev.ladder.eval.experiment.ClassicModelsExemplars;
import dev.ladder.pipeline.prompt.Example;
import dev.ladder.pipeline.prompt.FixedExemplars;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.db.Values;
import dev.ladder.sql.schema.Schema;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The bundled benchmark: sizes, executable and deterministic golds, disjoint splits, coverage targets. */
class ClassicModelsBenchmarkTest {

    private static Benchmark bench;
    private static Database db;

    @BeforeAll
    static void load() {
        bench = Benchmarks.load("classicmodels");
        db = TestData.classicModels();
    }

    private static List<BenchmarkItem> all() {
        List<BenchmarkItem> out = new ArrayList<>(bench.split("test"));
        out.addAll(bench.split("train"));
        return out;
    }

    @Test
    void twoHundredTestAndTwoHundredTrainItemsWithUniqueIds() {
        assertThat(bench.split("test")).hasSize(200);
        assertThat(bench.split("train")).hasSize(200);
        Set<String> ids = new HashSet<>();
        for (BenchmarkItem item : all()) assertThat(ids.add(item.id())).as(item.id()).isTrue();
    }

    @Test
    void everyGoldAndAlternativeExecutesAndReturnsRows() {
        List<String> problems = new ArrayList<>();
        for (BenchmarkItem item : all()) {
            List<List<Object>> gold = null;
            for (String sql : item.allGold()) {
                Execution ex = db.execute(sql);
                if (!(ex instanceof Execution.Success ok)) {
                    problems.add(item.id() + ": " + ((Execution.Failure) ex).error());
                    continue;
                }
                if (ok.result().rowCount() == 0) problems.add(item.id() + ": no rows");
                if (ok.result().truncated()) problems.add(item.id() + ": more rows than the cap");
                if (gold == null) {
                    gold = ok.result().rows();
                } else if (!sameBag(gold, ok.result().rows())) {
                    problems.add(item.id() + ": an alternative gives another answer: " + sql);
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    private static boolean sameBag(List<List<Object>> a, List<List<Object>> b) {
        Comparator<List<Object>> byText = Comparator.comparing(r -> r.stream().map(Values::render).toList().toString());
        List<List<Object>> x = new ArrayList<>(a);
        List<List<Object>> y = new ArrayList<>(b);
        x.sort(byText);
        y.sort(byText);
        return x.equals(y);
    }

    @Test
    void difficultyFollowsTheRuleAndOrderedGoldsAreDeterministic() {
        List<String> problems = new ArrayList<>();
        for (BenchmarkItem item : all()) {
            String rule = SqlFeatures.of(item.sql()).hardness();
            if (!rule.equals(item.difficulty())) problems.add(item.id() + ": difficulty " + item.difficulty() + ", rule says " + rule);
            if (item.orderMatters() && !item.sql().toUpperCase(Locale.ROOT).contains("ORDER BY")) {
                problems.add(item.id() + ": order_matters without ORDER BY");
            }
            OrderCheck.problems(db, item.sql(), item.orderMatters()).forEach(p -> problems.add(item.id() + ": " + p));
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void splitsAreDisjoint() {
        Set<String> trainSkeletons = new HashSet<>();
        Set<String> trainQuestions = new HashSet<>();
        for (BenchmarkItem t : bench.split("train")) {
            trainSkeletons.add(Coverage.skeleton(t.sql()));
            trainQuestions.add(Coverage.normalizeQuestion(t.question()));
        }
        List<String> clashes = new ArrayList<>();
        for (BenchmarkItem t : bench.split("test")) {
            if (trainSkeletons.contains(Coverage.skeleton(t.sql()))) clashes.add(t.id() + " has a template sibling in train");
            if (trainQuestions.contains(Coverage.normalizeQuestion(t.question()))) clashes.add(t.id() + " asks a train question");
        }
        assertThat(clashes).isEmpty();
    }

    @Test
    void testSplitMeetsTheCoverageTargets() {
        Schema schema = db.schema();
        Coverage c = Coverage.of(bench.split("test"), schema);
        c.byTable().forEach((t, n) -> assertThat(n).as("items using table " + t).isGreaterThanOrEqualTo(5));
        c.byForeignKey().forEach((fk, n) -> assertThat(n).as("items using foreign key " + fk).isGreaterThanOrEqualTo(5));
        assertThat(c.multiTable()).as("items over two or more tables").isGreaterThanOrEqualTo(40);
        assertThat(c.havingOrNested()).as("items with HAVING or nesting").isGreaterThanOrEqualTo(20);
        assertThat(c.dateArithmetic()).as("items with date arithmetic").isGreaterThanOrEqualTo(10);
        assertThat(c.nullHandling()).as("items with NULL handling").isGreaterThanOrEqualTo(10);
        assertThat(c.orderedProjection()).as("items naming output fields in order").isGreaterThanOrEqualTo(15);
        assertThat(c.templateSiblings()).as("template siblings").isLessThan(20);
        Map<String, Integer> d = c.byDifficulty();
        assertThat(d.get("easy")).as("easy").isBetween(40, 60);
        assertThat(d.get("medium")).as("medium").isBetween(70, 90);
        assertThat(d.get("hard")).as("hard").isBetween(30, 50);
        assertThat(d.get("extra")).as("extra").isBetween(20, 40);
        for (String category : BenchmarkItem.CATEGORIES) {
            assertThat(c.byCategory().get(category)).as("category " + category).isGreaterThan(0);
        }
    }

    private static final Pattern NULL_TEST = Pattern.compile(
            "(?i)([A-Za-z_][A-Za-z0-9_]*)\\s+IS\\s+(?:NOT\\s+)?NULL|(?:COALESCE|IFNULL|NULLIF)\\s*\\(\\s*(?:[A-Za-z_][A-Za-z0-9_]*\\.)?([A-Za-z_][A-Za-z0-9_]*)");

    @Test
    void nullHandlingTestsColumnsThatHoldNulls() {
        List<String> problems = new ArrayList<>();
        for (BenchmarkItem item : bench.split("test")) {
            Matcher m = NULL_TEST.matcher(item.sql());
            if (!m.find()) continue;
            boolean outerJoin = item.sql().toUpperCase(Locale.ROOT).matches("(?s).*\\b(LEFT|RIGHT)\\s+(OUTER\\s+)?JOIN\\b.*");
            boolean nullsInData = false;
            m.reset();
            while (m.find() && !nullsInData) {
                String column = m.group(1) != null ? m.group(1) : m.group(2);
                nullsInData = columnHasNulls(column);
            }
            if (!outerJoin && !nullsInData) problems.add(item.id() + ": NULL handling on columns without NULLs");
        }
        assertThat(problems).isEmpty();
    }

    private static boolean columnHasNulls(String column) {
        for (var t : db.schema().tables()) {
            if (t.column(column).isEmpty()) continue;
            Execution ex = db.execute("SELECT COUNT(*) FROM " + t.name() + " WHERE " + column + " IS NULL");
            if (ex instanceof Execution.Success ok && ((Long) ok.result().rows().get(0).get(0)) > 0) return true;
        }
        return false;
    }

    @Test
    void fixedExemplarsExistInTheTrainingSplit() {
        List<Example> pool = bench.split("train").stream().map(i -> new Example(i.id(), i.question(), i.sql())).toList();
        List<Example> chosen = new FixedExemplars(ClassicModelsExemplars.fixedIds(), pool).select("any question", 3);
        assertThat(chosen).hasSize(3);
    }
}
