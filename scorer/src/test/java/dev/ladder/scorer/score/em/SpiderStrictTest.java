package dev.ladder.scorer.score.em;

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

    /** The official parser stops reading after the last ORDER BY or GROUP BY item, after LIMIT n and after ';'. */
    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT city FROM offices ORDER BY city -- by name",
        "SELECT city FROM offices ORDER BY city DESC /* newest first */",
        "SELECT city , country FROM offices ORDER BY country , city ASC # two keys",
        "SELECT country , count(*) FROM offices GROUP BY country -- per country",
        "SELECT city FROM offices ORDER BY city LIMIT 1 -- the first",
        "SELECT city FROM offices ORDER BY count(*) DESC LIMIT 1 /* top */",
        "SELECT city FROM offices ORDER BY city -- a note\nLIMIT 1",
        "SELECT city FROM offices ; -- done",
        "SELECT city FROM offices WHERE country = 'USA' UNION SELECT city FROM offices ORDER BY city -- both",
    })
    void aCommentWhereTheOfficialParserHasStoppedReadingPasses(String sql) {
        assertThat(new SpiderParserCheck(java.util.Set.of("city", "country")).unreadable(sql)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT city -- the city\nFROM offices",
        "SELECT city FROM offices -- all of them",
        "SELECT city FROM offices WHERE country = 'USA' -- us",
        "SELECT country FROM offices GROUP BY country HAVING count(*) > 1 -- several",
        "SELECT city FROM offices ORDER BY -- key\ncity",
        "SELECT city FROM offices ORDER BY city LIMIT -- one\n1",
        "SELECT city FROM offices WHERE country IN (SELECT country FROM offices ORDER BY country -- inner\n)",
        "-- cities\nSELECT city FROM offices",
    })
    void aCommentTheOfficialParserReadsFails(String sql) {
        assertThat(new SpiderParserCheck(java.util.Set.of("city", "country")).unreadable(sql))
                .hasValueSatisfying(r -> assertThat(r).contains("comment"));
    }

    /** parse_condition reads a column (val_unit) first: no unary NOT, no value on the left. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "SELECT city FROM offices WHERE NOT country = 'USA' | NOT",
        "SELECT city FROM offices WHERE country = 'USA' AND NOT city = 'Paris' | NOT",
        "SELECT city FROM offices WHERE ( NOT country = 'USA' ) | NOT",
        "SELECT city FROM offices WHERE NOT EXISTS (SELECT * FROM employees) | NOT",
        "SELECT city FROM offices WHERE 1 = country | value on the left",
        "SELECT city FROM offices WHERE 'USA' = country | value on the left",
        "SELECT city FROM offices WHERE country = 'USA' OR 'Paris' = city | value on the left",
        "SELECT country FROM offices GROUP BY country HAVING 2 < count(*) | value on the left",
        "SELECT T1.city FROM offices AS T1 JOIN employees AS T2 ON 1 = T2.officeCode | value on the left",
    })
    void aConditionThatDoesNotStartWithAColumnFails(String sql, String reason) {
        assertThat(new SpiderParserCheck(java.util.Set.of("city", "country")).unreadable(sql))
                .hasValueSatisfying(r -> assertThat(r).contains(reason));
    }

    @Test
    void strictEmReadsWhatTheOfficialReads() {
        String gold = "SELECT city FROM offices WHERE country = 'USA' ORDER BY city LIMIT 1";
        assertThat(STRICT.score(gold, gold + " -- the first").match()).isTrue();
        EmScore not = STRICT.score("SELECT city FROM offices WHERE country != 'USA'", "SELECT city FROM offices WHERE NOT country = 'USA'");
        assertThat(SEMANTIC.score("SELECT city FROM offices WHERE country != 'USA'", "SELECT city FROM offices WHERE NOT country = 'USA'").match())
                .isTrue();
        assertThat(not.match()).isFalse();
        assertThat(not.error()).contains("prediction");
        EmScore flipped = STRICT.score("SELECT city FROM offices WHERE country = 'USA'", "SELECT city FROM offices WHERE 'USA' = country");
        assertThat(flipped.match()).isFalse();
        assertThat(flipped.error()).contains("prediction");
    }
}
