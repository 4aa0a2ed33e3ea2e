package dev.ladder.eval.score.em;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** EM mode spider-strict: what the official Spider parser cannot read scores 0, hand-made pairs. */
class SpiderStrictTest {

    private static final ExactMatch SEMANTIC = new ExactMatch(EmTestSchema.CLASSIC_MODELS, false);
    private static final ExactMatch STRICT = new ExactMatch(EmTestSchema.CLASSIC_MODELS, false, true, false, EmMode.SPIDER_STRICT);

    /** Gold in the official style; a prediction Ladder reads as the same query, the official cannot. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "SELECT T1.city FROM offices AS T1 WHERE T1.country = 'USA' | SELECT o.city FROM offices o WHERE o.country = 'USA' | after a table",
        "SELECT count(*) FROM offices | SELECT count(1) FROM offices | aggregate",
        "SELECT city FROM offices WHERE country != 'USA' | SELECT city FROM offices WHERE country <> 'USA' | '<>'",
        "SELECT city FROM offices WHERE country = 'USA' | SELECT city FROM offices WHERE country='USA' | without spaces",
        "SELECT city FROM offices WHERE country = 'USA' | SELECT city FROM offices WHERE country = 'USA' -- us only | comment",
        "SELECT count(*) FROM offices | SELECT count(*) AS n FROM offices | column alias",
        "SELECT city FROM offices WHERE officeCode IN (SELECT officeCode FROM employees LIMIT 1) "
            + "| SELECT city FROM offices WHERE officeCode IN (SELECT officeCode FROM employees LIMIT 1 OFFSET 1) | OFFSET",
        "SELECT city FROM offices WHERE state = 'CA' | SELECT city FROM offices WHERE state IS NULL | NULL",
    })
    void unreadablePredictionsScoreZeroInStrictModeOnly(String gold, String pred, String reason) {
        assertThat(SEMANTIC.score(gold, pred).error()).isNull();
        EmScore strict = STRICT.score(gold, pred);
        assertThat(strict.match()).isFalse();
        assertThat(strict.error()).contains("prediction").contains(reason);
    }

    @Test
    void anUnreadableGoldScoresZeroEvenAgainstItself() {
        String gold = "SELECT o.city FROM offices o";
        assertThat(SEMANTIC.score(gold, gold).match()).isTrue();
        EmScore s = STRICT.score(gold, gold);
        assertThat(s.match()).isFalse();
        assertThat(s.error()).contains("gold");
    }

    @Test
    void officialStyleQueriesScoreAsInSemanticMode() {
        String gold = "SELECT T1.city , count(*) FROM offices AS T1 JOIN employees AS T2 ON T1.officeCode = T2.officeCode "
                + "WHERE T1.country = \"USA\" GROUP BY T1.city HAVING count(*) >= 2 ORDER BY count(DISTINCT T2.lastName) DESC LIMIT 3";
        assertThat(STRICT.score(gold, gold).match()).isTrue();
        String other = gold.replace("DESC", "ASC");
        assertThat(STRICT.score(gold, other).match()).isFalse();
        assertThat(STRICT.score(gold, other).error()).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT city FROM offices WHERE officeCode NOT IN (SELECT officeCode FROM employees)",
        "SELECT T1.city FROM offices AS T1 JOIN employees AS T2 ON T1.officeCode = T2.officeCode WHERE T2.jobTitle LIKE '%Sales%'",
        "SELECT city FROM offices WHERE country = 'USA' INTERSECT SELECT city FROM offices WHERE state = 'CA'",
        "SELECT max(creditLimit) , min(creditLimit) FROM customers WHERE creditLimit BETWEEN 10 AND 20",
        "SELECT city FROM offices ORDER BY city LIMIT 1 OFFSET 2",
    })
    void readableQueriesPass(String sql) {
        assertThat(new SpiderParserCheck(java.util.Set.of("city", "country")).unreadable(sql)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT city FROM offices, employees",
        "SELECT city FROM offices LEFT JOIN employees ON offices.officeCode = employees.officeCode",
        "SELECT t.city FROM (SELECT city FROM offices) AS t",
        "SELECT upper(city) FROM offices",
        "SELECT CASE WHEN city = 'x' THEN 1 END FROM offices",
        "SELECT city FROM offices WHERE name = 'it\"s'",
        "SELECT `city` FROM offices",
        "SELECT sum(a * b) FROM t",
    })
    void unreadableQueriesAreNamed(String sql) {
        assertThat(new SpiderParserCheck(java.util.Set.of("city", "country", "a", "b")).unreadable(sql)).isPresent();
    }

    @Test
    void modeLabels() {
        assertThat(EmMode.parse("spider-strict")).contains(EmMode.SPIDER_STRICT);
        assertThat(EmMode.parse("semantic")).contains(EmMode.SEMANTIC);
        assertThat(EmMode.parse("strict")).isEmpty();
    }
}
