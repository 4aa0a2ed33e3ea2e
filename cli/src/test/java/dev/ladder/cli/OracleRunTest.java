package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.pipeline.strategy.Trace;
import dev.ladder.pipeline.strategy.TraceStep;
import dev.ladder.sql.db.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The oracle engine through a whole run on the TRAIN split: the ladder's rungs and every pipeline get answers that
 * execute, so EX, the judge, the pipelines' JSON stages and the report's oracle tables are exercised on realistic
 * answers; at noise none the prompt rungs are perfect, and noisy runs record what was done to each answer.
 */
class OracleRunTest {

    @TempDir static Path tmp;

    @BeforeAll
    static void data() {
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
    }

    private static Path experiment(String name, String noise, int limit) throws Exception {
        Path yaml = tmp.resolve(name + ".yaml");
        Files.writeString(yaml, """
                name: %s
                benchmark: classicmodels
                split: train
                limit: %d
                seeds: [0]
                output: %s
                models:
                  oracle: {engine: oracle, noise: "%s"}
                strategies:
                  - {name: prompt-k0, strategy: prompt-k0, model: oracle}
                  - {name: agent-3, strategy: agent-3, model: oracle}
                  - {name: structured-search, strategy: structured-search, model: oracle}
                  - {name: gsr, strategy: gsr, model: oracle}
                  - {name: gsr-no-linking, strategy: gsr, model: oracle, settings: {gsr: {schema_linking: false}}}
                  - {name: soft-attention, strategy: soft-attention, model: oracle}
                  - {name: progressive, strategy: progressive, model: oracle}
                scorers:
                  ts: none
                  judge: oracle
                """.formatted(name, limit, tmp.resolve("unused-" + name), noise));
        return yaml;
    }

    private static List<ItemResult> rows(Path run) {
        try (ResultsStore store = ResultsStore.openReadOnly(run.resolve(RunDirectory.RESULTS))) {
            return store.results();
        }
    }

    @Test
    void atNoiseNoneThePromptRungIsPerfectAndEveryRungAnswersWithSqlThatRuns() throws Exception {
        Path run = tmp.resolve("none");
        LadderCliTest.Run r = LadderCliTest.run("run", experiment("perfect", "none", 8).toString(), "--out",
                run.toString(), "--no-progress");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("oracle engine: answers written from the gold SQL");
        List<ItemResult> rows = rows(run);
        assertThat(rows).hasSize(56);
        Map<String, List<ItemResult>> byCell = rows.stream().collect(Collectors.groupingBy(ItemResult::cell));
        assertThat(byCell.get("prompt-k0")).allSatisfy(x -> assertThat(x.ex()).as(x.itemId()).isTrue());
        // every rung's answers execute: the paths after execution (scoring, judge, repair, JSON stages) were taken
        assertThat(rows).allSatisfy(x -> assertThat(x.va()).as(x.cell() + " " + x.itemId() + " " + x.predicted()).isTrue());
        // GSR's ablation reuses the clauses gsr asked for (RunCaches): a cached call on its row, not a free one
        Map<String, ItemResult> gsr = byCell.get("gsr").stream().collect(Collectors.toMap(ItemResult::itemId, x -> x));
        assertThat(byCell.get("gsr-no-linking")).allSatisfy(x -> {
            assertThat(x.cachedCalls()).as(x.itemId()).isEqualTo(1);
            assertThat(gsr.get(x.itemId()).cachedCalls()).as(x.itemId()).isZero();
        });
        // the oracle as judge agrees with EX exactly at noise none
        assertThat(rows).allSatisfy(x -> assertThat(x.judge()).as(x.cell() + " " + x.itemId()).isEqualTo(x.ex()));
        String report = Files.readString(run.resolve("report/report.md"));
        assertThat(report).contains("THE ORACLE, noise none").contains("Oracle analysis")
                .contains("a measuring instrument, not a model result");
        assertThat(Files.readString(run.resolve("environment.json"))).contains("\"models.oracle.engine\" : \"oracle\"");
        assertThat(Files.readString(run.resolve("config.yaml"))).contains("engine: oracle").contains("noise: none");
        assertThat(run.resolve("report/oracle-analysis.csv")).exists();
        // agent-3 samples its candidates in one request: more completions than requests; prompt-k0 one of each
        Map<String, ItemResult> k0 = byCell.get("prompt-k0").stream().collect(Collectors.toMap(ItemResult::itemId, x -> x));
        assertThat(k0.values()).allSatisfy(x -> assertThat(x.completions()).isEqualTo(x.calls()));
        assertThat(byCell.get("agent-3")).anySatisfy(x -> assertThat(x.completions()).isGreaterThan(x.calls()));
        assertThat(Files.readAllLines(run.resolve("report/costs.csv")).get(0)).contains("requests/item,completions/item");
        // every rung answers with the judge's own model here: the report says so on each row
        List<String> agreement = Files.readAllLines(run.resolve("report/judge-agreement.csv"));
        assertThat(agreement.get(0)).endsWith(",self-judged");
        assertThat(agreement.subList(1, agreement.size())).allSatisfy(line -> assertThat(line).endsWith(",yes"));
        // ladder view says what the rows are on every page
        Path site = tmp.resolve("view-none");
        LadderCliTest.Run view = LadderCliTest.run("view", run.toString(), "--export", site.toString());
        assertThat(view.code()).as(view.err()).isZero();
        for (String page : List.of("index.html", "items.html", "item/0.html")) {
            assertThat(Files.readString(site.resolve(page))).as(page).contains("id=\"oracle-banner\"")
                    .contains("a measuring instrument, not a model result");
        }
    }

    @Test
    void noisyAnswersAreRecordedPerCallAndRepeatable() throws Exception {
        Path a = tmp.resolve("high-a");
        Path b = tmp.resolve("high-b");
        Path yaml = experiment("noisy", "format=0.5,semantic=0.5,seed=1", 6);
        for (Path run : List.of(a, b)) {
            LadderCliTest.Run r = LadderCliTest.run("run", yaml.toString(), "--out", run.toString(), "--no-progress");
            assertThat(r.code()).as(r.err()).isZero();
        }
        List<ItemResult> first = rows(a);
        assertThat(rows(b)).extracting(ItemResult::predicted).isEqualTo(first.stream().map(ItemResult::predicted).toList());
        List<String> notes;
        try (ResultsStore store = ResultsStore.openReadOnly(a.resolve(RunDirectory.RESULTS))) {
            notes = store.cells().stream().flatMap(c -> store.traces(c.name()).stream()).map(Trace::fromJson)
                    .flatMap(t -> t.steps(TraceStep.Generate.class).stream()).flatMap(g -> g.notes().stream()).toList();
        }
        assertThat(notes).anyMatch(n -> n.contains(": semantic ")).anyMatch(n -> n.contains("format "));
        // noise costs something, and the report counts what was corrupted (the counts read from the traces' notes)
        assertThat(first).anyMatch(x -> !x.ex());
        var analysis = dev.ladder.eval.report.Report.merge(List.of(dev.ladder.eval.report.RunLoader.load(a)),
                dev.ladder.eval.report.Report.Options.DEFAULT).oracleAnalysis().orElseThrow().data();
        assertThat(analysis.intColumn("corrupted").sum()).isPositive();
        assertThat(analysis.intColumn("corrupted, EX").sum()).isLessThanOrEqualTo(analysis.intColumn("corrupted").sum());
        // the pipelines' later mechanisms act on noisy answers, and the table counts how often they gave the answer
        assertThat(analysis.intColumn("later stage chose").sum()).isPositive();
        assertThat(analysis.intColumn("later stage, EX").sum()).isLessThanOrEqualTo(analysis.intColumn("later stage chose").sum());
    }

    @Test
    void aBadNoiseSpecIsOneLine() throws Exception {
        LadderCliTest.Run r = LadderCliTest.run("run", experiment("bad", "format=3", 2).toString(), "--no-progress");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip().lines()).hasSize(1);
        assertThat(r.err()).contains("noise").contains("between 0 and 1");
        LadderCliTest.Run override = LadderCliTest.run("run", experiment("ok", "none", 2).toString(), "--model",
                "oracle:loud", "--no-progress");
        assertThat(override.code()).isEqualTo(2);
        assertThat(override.err()).contains("'loud' is not a level");
    }
}
