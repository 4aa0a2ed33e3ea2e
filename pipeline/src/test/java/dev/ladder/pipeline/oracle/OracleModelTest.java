package dev.ladder.pipeline.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.inference.CallTag;
import dev.ladder.inference.Candidate;
import dev.ladder.inference.FinishReason;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.Sampling;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.post.SqlPostProcessor;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The oracle engine on ClassicModels with a gold of the test's own (not from the benchmark): every kind the pipelines
 * declare is taught, noise none answers exactly the gold in the asked form, format noise is what instruct models
 * write and the post-processor still reads the statement, draws are repeatable per (item, call, seed), and calls it
 * cannot answer fail in one line.
 */
class OracleModelTest {

    private static final String GOLD = "SELECT c.city, COUNT(*) AS n FROM customers c JOIN employees e "
            + "ON c.salesRepEmployeeNumber = e.employeeNumber WHERE e.jobTitle = 'Sales Rep' AND c.country <> 'USA' "
            + "GROUP BY c.city HAVING COUNT(*) > 1 ORDER BY n DESC, c.city";
    private static final String ITEM = "made-up-1";

    /** The oracle's key for one item: the gold, and "answers" as the same rows in any order (the run's EX stands here). */
    private static OracleKey key(Database db) {
        return new OracleKey() {
            @Override
            public Optional<String> gold(String itemId) {
                return ITEM.equals(itemId) ? Optional.of(GOLD) : Optional.empty();
            }

            @Override
            public boolean answers(String itemId, String sql) {
                Execution a = db.execute(GOLD);
                Execution b = db.execute(sql);
                return a instanceof Execution.Success x && b instanceof Execution.Success y
                        && new java.util.HashSet<>(x.result().rows()).equals(new java.util.HashSet<>(y.result().rows()))
                        && x.result().rowCount() == y.result().rowCount();
            }
        };
    }

    private static OracleModel oracle(String noise) {
        Database db = TestData.classicModels();
        return new OracleModel(OracleNoise.parse(noise), key(db), db.schema(), db.dialect(),
                dev.ladder.pipeline.strategy.Pipelines.registry().oracleTeachers());
    }

    private static GenerationRequest request(String kind, Map<String, String> facts, String prompt) {
        return new GenerationRequest(prompt, null, 512, Sampling.GREEDY, 1, 0, Set.of(), List.of(),
                new CallTag(kind, ITEM, facts));
    }

    private static Candidate one(OracleModel m, GenerationRequest r) {
        return m.generate(List.of(r)).get(0).candidates().get(0);
    }

    @Test
    void everyPipelineKindIsTaught() {
        assertThat(oracle("none").kinds()).contains("sql", "sql-block", "judge", "search.sketches", "search.repair",
                "gsr.clauses", "gsr.explore", "soft.reasoned", "progressive.subtasks", "progressive.rescore");
    }

    @Test
    void noiseNoneAnswersTheGoldInTheAskedForm() throws Exception {
        OracleModel m = oracle("none");
        assertThat(one(m, request("sql", Map.of(), "Question: q\nSQL:")).text()).isEqualTo(GOLD);
        assertThat(one(m, request("sql-block", Map.of(), "q")).text()).isEqualTo("```sql\n" + GOLD + "\n```");
        JsonNode sketches = new ObjectMapper().readTree(one(m, request("search.sketches", Map.of("k", "2"), "q")).text());
        assertThat(sketches.get("candidates")).hasSize(2);
        JsonNode first = sketches.get("candidates").get(0);
        assertThat(first.get("sql").asText()).isEqualTo(GOLD);
        assertThat(first.get("tables").toString()).contains("customers", "employees");
        assertThat(first.get("joins").get(0).get("on").asText())
                .isEqualTo("customers.salesRepEmployeeNumber = employees.employeeNumber");
        JsonNode tasks = new ObjectMapper().readTree(one(m, request("progressive.subtasks", Map.of(), "q")).text());
        // tables and projection, two conditions, grouping, having, ordering
        assertThat(tasks.get("subtasks")).hasSize(6);
        assertThat(tasks.get("subtasks").get(1).get("fragment").asText()).isEqualTo("WHERE e.jobTitle = 'Sales Rep'");
        assertThat(tasks.get("subtasks").get(1).get("depends_on").toString()).isEqualTo("[\"t1\"]");
        String clauses = one(m, request("gsr.clauses", Map.of(), "q")).text();
        assertThat(clauses.lines()).contains("- where c.country <> 'USA'", "- GROUP BY c.city");
        assertThat(one(m, request("gsr.explore", Map.of("draft", GOLD), "q")).text()).isEqualTo("none");
        assertThat(one(m, request("gsr.explore", Map.of("draft", "SELECT city FROM customers"), "q")).text())
                .contains("employees", "employees.jobTitle");
        assertThat(one(m, request("judge", Map.of("sql", GOLD), "q")).text()).startsWith("CORRECT: YES");
        assertThat(one(m, request("judge", Map.of("sql", "SELECT city, 1 FROM customers"), "q")).text())
                .startsWith("CORRECT: NO");
        assertThat(new ObjectMapper().readTree(one(m, request("progressive.rescore", Map.of("tasks", "t2,t3"), "q"))
                .text()).get("confidences").toString()).isEqualTo("{\"t2\":0.95,\"t3\":0.95}");
        assertThat(one(m, request("sql", Map.of(), "q")).note()).isNull();
    }

    @Test
    void formatNoiseIsNotedAndThePostProcessorStillReadsTheStatement() {
        Database db = TestData.classicModels();
        for (FormatNoise f : List.of(FormatNoise.FENCE, FormatNoise.PROSE_BEFORE, FormatNoise.EXPLANATION,
                FormatNoise.PROMPT_ECHO)) {
            OracleModel m = oracle("format=1,formats=" + f.label());
            Candidate c = one(m, request("sql", Map.of(), "Tables ...\nQuestion: Which cities?\nSQL:"));
            assertThat(c.note()).isEqualTo("format " + f.label());
            assertThat(c.text()).isNotEqualTo(GOLD).contains(GOLD);
            SqlPostProcessor.Cleaned cleaned = SqlPostProcessor.clean(c.text(), db.schema(), db.dialect());
            assertThat(cleaned.ok()).as(f + ": " + c.text()).isTrue();
            assertThat(cleaned.sql().replaceAll("\\s+", " ")).as(f.label()).contains("GROUP BY c.city");
        }
        Candidate cut = one(oracle("format=1,formats=truncated"), request("sql", Map.of(), "q"));
        assertThat(cut.finishReason()).isEqualTo(FinishReason.LENGTH);
        assertThat(GOLD).startsWith(cut.text()).isNotEqualTo(cut.text());
        String raw = one(oracle("format=1,formats=raw_newlines"), request("search.repair", Map.of(), "q")).text();
        assertThat(raw).contains("\nFROM");
        String verdict = one(oracle("format=1,formats=markdown_verdict"), request("judge", Map.of("sql", GOLD), "q")).text();
        assertThat(verdict).startsWith("**CORRECT**: YES");
    }

    @Test
    void semanticNoiseWritesACorruptedGoldAndSaysWhichOperatorWhere() {
        Database db = TestData.classicModels();
        OracleKey key = key(db);
        int changed = 0;
        java.util.Set<String> operators = new java.util.TreeSet<>();
        for (int seed = 0; seed < 12; seed++) {
            Candidate c = one(oracle("semantic=1,seed=" + seed), request("sql", Map.of(), "q"));
            assertThat(c.note()).startsWith("semantic ");
            operators.add(c.note().split(" ")[1]);
            if (!c.text().equals(GOLD)) changed++;
            // the note names a corruption the text really carries: the judge (the run's EX) sees the difference
            if (!c.note().contains("literal_case") && !c.note().contains("syntax_error") && !key.answers(ITEM, c.text())) {
                assertThat(db.execute(c.text()).ok() || c.note().contains("unknown_column")).as(c.note()).isTrue();
            }
        }
        assertThat(changed).isEqualTo(12);
        // the trace's note, as Work.generate writes it, is read back by the one reader of the note format
        assertThat(OracleModel.notes("samples-2: semantic wrong_column (x); format fence", "semantic")).isTrue();
        assertThat(OracleModel.notes("samples-2: semantic wrong_column (x); format fence", "format")).isTrue();
        assertThat(OracleModel.notes("standard: format prose_before", "semantic")).isFalse();
        assertThat(OracleModel.notes("standard: semantic: no operator applies; the gold is written unchanged", "semantic"))
                .isFalse();
        assertThat(operators).hasSizeGreaterThan(3);
        // restricted to one operator, only that one is drawn; the judge flips with the semantic rate
        assertThat(one(oracle("semantic=1,ops=drop_conjunct"), request("sql", Map.of(), "q")).note())
                .startsWith("semantic drop_conjunct");
        assertThat(one(oracle("semantic=1"), request("judge", Map.of("sql", GOLD), "q")).text()).startsWith("CORRECT: NO");
        // a sketch call draws once per candidate
        Candidate sketches = one(oracle("semantic=1,seed=5"), request("search.sketches", Map.of("k", "3"), "q"));
        assertThat(sketches.note().split("; ")).hasSize(3);
    }

    @Test
    void stopStringsAndTheBudgetCutAsAnEngineDoes() {
        OracleModel m = oracle("none");
        GenerationRequest stop = new GenerationRequest("q", null, 512, Sampling.GREEDY, 1, 0, Set.of(), List.of(" GROUP"),
                CallTag.of("sql", ITEM));
        Candidate c = one(m, stop);
        assertThat(c.finishReason()).isEqualTo(FinishReason.STOP_STRING);
        assertThat(c.text()).endsWith("c.country <> 'USA'");
        Candidate small = one(m, new GenerationRequest("q", null, 5, Sampling.GREEDY, 1, 0, Set.of(), List.of(),
                CallTag.of("sql", ITEM)));
        assertThat(small.finishReason()).isEqualTo(FinishReason.LENGTH);
        assertThat(small.tokenIds()).hasSize(5);
        assertThat(small.text()).isEqualTo("SELECT c.city,");
    }

    @Test
    void drawsRepeatPerItemCallAndSeedAndSampledCandidatesDiffer() {
        OracleModel m = oracle("format=0.5,seed=3");
        GenerationRequest sampled = new GenerationRequest("Question: q\nSQL:", null, 512, new Sampling(0.7, 0, 1.0), 8, 11,
                Set.of(), List.of(), CallTag.of("sql", ITEM));
        List<String> a = m.generate(List.of(sampled)).get(0).candidates().stream().map(Candidate::text).toList();
        List<String> b = oracle("format=0.5,seed=3").generate(List.of(sampled)).get(0).candidates().stream()
                .map(Candidate::text).toList();
        assertThat(a).isEqualTo(b);
        assertThat(Set.copyOf(a)).hasSizeGreaterThan(1);
        List<String> otherSeed = m.generate(List.of(sampled.withSampling(new Sampling(0.7, 0, 1.0), 12))).get(0)
                .candidates().stream().map(Candidate::text).toList();
        assertThat(otherSeed).isNotEqualTo(a);
        // greedy candidates are one answer, as a greedy engine's are
        GenerationRequest greedy = sampled.withSampling(Sampling.GREEDY, 0);
        assertThat(Set.copyOf(m.generate(List.of(greedy)).get(0).candidates().stream().map(Candidate::text).toList()))
                .hasSize(1);
    }

    @Test
    void callsItCannotAnswerFailInOneLine() {
        OracleModel m = oracle("none");
        assertThatThrownBy(() -> m.generate(List.of(GenerationRequest.greedy("q", 10))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kind and benchmark item");
        assertThatThrownBy(() -> m.generate(List.of(request("nobody.knows", Map.of(), "q"))))
                .hasMessageContaining("no answer for calls of kind 'nobody.knows'").hasMessageContaining("sql-block");
        assertThatThrownBy(() -> m.generate(List.of(new GenerationRequest("q", null, 9, Sampling.GREEDY, 1, 0, Set.of(),
                List.of(), CallTag.of("sql", "other"))))).hasMessageContaining("no gold for item 'other'");
    }

    @Test
    void noiseSpecsReadAndSayWhatIsWrong() {
        assertThat(OracleNoise.parse("").label()).isEqualTo("none");
        assertThat(OracleNoise.parse("low").label()).isEqualTo("format=0.2,semantic=0.1,seed=0");
        assertThat(OracleNoise.parse("high,seed=4").label()).isEqualTo("format=0.5,semantic=0.3,seed=4");
        assertThat(OracleNoise.parse("semantic=0.25,ops=wrong_column+drop-conjunct").label())
                .isEqualTo("format=0,semantic=0.25,seed=0,ops=wrong_column+drop_conjunct");
        assertThat(OracleNoise.parse(OracleNoise.parse("format=0.3,formats=fence").label()))
                .isEqualTo(OracleNoise.parse("format=0.3,formats=fence"));
        assertThatThrownBy(() -> OracleNoise.parse("format=2")).hasMessageContaining("between 0 and 1");
        assertThatThrownBy(() -> OracleNoise.parse("loud")).hasMessageContaining("not a level");
        assertThatThrownBy(() -> OracleNoise.parse("ops=teleport")).hasMessageContaining("'teleport' is unknown")
                .hasMessageContaining("wrong_column");
        assertThatThrownBy(() -> OracleNoise.parse("colour=red")).hasMessageContaining("key 'colour' is unknown");
    }
}
