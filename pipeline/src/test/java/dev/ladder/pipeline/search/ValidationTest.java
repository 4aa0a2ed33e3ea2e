package dev.ladder.pipeline.search;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.pipeline.kit.IntentClassifier;
import dev.ladder.pipeline.kit.JoinGraph;
import dev.ladder.pipeline.prompt.FixedExemplars;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.ScriptedLanguageModel;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.pipeline.strategy.Work;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.schema.Schema;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Each validation level with SQL that passes and SQL that fails, on ClassicModels. */
class ValidationTest {

    static Database db;
    static Schema schema;
    static JoinGraph graph;

    @BeforeAll
    static void open() {
        db = TestData.classicModels();
        schema = db.schema();
        graph = new JoinGraph(schema);
    }

    static Validation.Verdict l0(String sql) {
        return Validation.staticChecks(sql, Query.read(sql).binding(schema), graph, schema, List.of());
    }

    static Work work() {
        StrategyContext ctx = StrategyContext.of(new ScriptedLanguageModel(), db, new FixedExemplars(List.of(), List.of()),
                Settings.DEFAULT);
        return new Work(new Question("v1", "a question"), ctx, StructuredSearchStrategy.NAME);
    }

    @Test
    void levelZeroPassesLegalSqlAndNamesEachStaticViolation() {
        assertThat(l0("SELECT c.customerName, COUNT(*) FROM customers c JOIN orders o ON o.customerNumber = c.customerNumber "
                + "GROUP BY c.customerNumber").passed()).isTrue();
        assertThat(l0("SELECT customerName FROM customers WHERE credit_limit > 100").violations())
                .singleElement().asString().contains("credit_limit");
        assertThat(l0("SELECT * FROM offices").violations()).singleElement().asString().startsWith("SELECT *");
        assertThat(l0("SELECT country, city, COUNT(*) FROM customers GROUP BY country").violations())
                .singleElement().asString().contains("city").contains("neither grouped nor aggregated");
        // an equality off the foreign keys (a self-join, a join on shared values) is legal SQL: a warning, not a violation
        Validation.Verdict offKey = l0("SELECT c.customerName FROM customers c JOIN employees e ON c.city = e.lastName");
        assertThat(offKey.passed()).isTrue();
        assertThat(offKey.warnings()).singleElement().asString().contains("follows no foreign key");
        Validation.Verdict selfJoin = l0("SELECT a.customerName FROM customers a JOIN customers b ON a.city = b.city "
                + "WHERE a.customerNumber <> b.customerNumber");
        assertThat(selfJoin.passed()).isTrue();
        assertThat(selfJoin.warnings()).singleElement().asString().contains("customers.city = customers.city");
        assertThat(l0("SELECT e.lastName FROM employees e JOIN employees m ON e.reportsTo = m.employeeNumber").warnings()).isEmpty();
        assertThat(l0("SELECT city FROM offices WHERE country = :country").violations())
                .singleElement().asString().isEqualTo("placeholder :country has no value");
        assertThat(l0("SELECT name FROM nowhere").violations()).contains("table nowhere is not in the schema");
        assertThat(l0("SELEC city FROM offices").violations()).singleElement().asString().startsWith("the SQL does not parse");
    }

    @Test
    void levelOneExplainsThenExecutes() {
        Validation.Executed ok = Validation.lightExecution(work(), "c", "SELECT city FROM offices ORDER BY city");
        assertThat(ok.verdict().passed()).isTrue();
        assertThat(ok.verdict().note()).contains("explained").contains("7 rows");
        assertThat(ok.result()).isNotNull();
        // parses and names only real columns, but the server refuses it
        Validation.Executed bad = Validation.lightExecution(work(), "c", "SELECT city FROM offices WHERE NO_SUCH_FUNCTION(city) = 1");
        assertThat(bad.verdict().passed()).isFalse();
        assertThat(bad.verdict().violations()).singleElement().asString().startsWith("EXPLAIN fails");
        assertThat(bad.result()).isNull();
        Validation.Executed writes = Validation.lightExecution(work(), "c", "DELETE FROM offices");
        assertThat(writes.verdict().passed()).isFalse();
    }

    @Test
    void levelTwoHoldsTheShapeAgainstTheQuestionsIntent() {
        String q = "Which 3 customers have the highest credit limit?";
        var intent = IntentClassifier.classify(q, schema);
        assertThat(Validation.semanticChecks(q, intent,
                Query.read("SELECT customerName FROM customers ORDER BY creditLimit DESC LIMIT 3"), 3).passed()).isTrue();
        assertThat(Validation.semanticChecks(q, intent, Query.read("SELECT customerName FROM customers"), 122).violations())
                .anySatisfy(v -> assertThat(v).contains("no LIMIT"));
        assertThat(Validation.semanticChecks(q, intent,
                Query.read("SELECT customerName FROM customers ORDER BY creditLimit DESC LIMIT 5"), 5).violations())
                .anySatisfy(v -> assertThat(v).contains("LIMIT is 5"));

        String count = "How many orders were placed in 2004?";
        var countIntent = IntentClassifier.classify(count, schema);
        assertThat(Validation.semanticChecks(count, countIntent,
                Query.read("SELECT COUNT(*) FROM orders WHERE YEAR(orderDate) = 2004"), 1).passed()).isTrue();
        assertThat(Validation.semanticChecks(count, countIntent, Query.read("SELECT orderNumber FROM orders"), 326).violations())
                .anySatisfy(v -> assertThat(v).contains("aggregate"))
                .anySatisfy(v -> assertThat(v).contains("year 2004"));
        assertThat(Validation.semanticChecks(count, countIntent,
                Query.read("SELECT COUNT(*) FROM orders WHERE YEAR(orderDate) = 2004 AND 1 = 0"), 0).violations())
                .contains("the SQL returns no rows");
    }

    @Test
    void levelThreeCatchesACountMultipliedByAJoin() {
        Work w = work();
        String fanOut = "SELECT COUNT(*) FROM customers c JOIN orders o ON o.customerNumber = c.customerNumber";
        Execution.Success first = (Execution.Success) w.execute("c", fanOut);
        Validation.Verdict bad = Validation.recheck(w, "c", fanOut, Query.read(fanOut), schema, first);
        assertThat(bad.passed()).isFalse();
        assertThat(bad.violations()).singleElement().asString().contains("326 joined rows").contains("98 distinct customers");

        String oneToOne = "SELECT COUNT(*) FROM orders o JOIN customers c ON o.customerNumber = c.customerNumber";
        Execution.Success second = (Execution.Success) w.execute("c", oneToOne);
        Validation.Verdict good = Validation.recheck(w, "c", oneToOne, Query.read(oneToOne), schema, second);
        assertThat(good.passed()).isTrue();
        assertThat(good.note()).contains("COUNT(DISTINCT o.orderNumber) = 326");

        String plain = "SELECT COUNT(*) FROM customers";
        assertThat(Validation.recheck(w, "c", plain, Query.read(plain), schema,
                (Execution.Success) w.execute("c", plain)).note()).isEqualTo("not applicable");
    }
}
