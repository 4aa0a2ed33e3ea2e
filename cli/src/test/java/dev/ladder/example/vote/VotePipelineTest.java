package dev.ladder.example.vote;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.cli.LadderCliTestAccess;
import dev.ladder.cli.LadderCliTestAccess.Run;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.pipeline.strategy.Pipelines;
import dev.ladder.pipeline.strategy.Strategies;
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
 * The proof that a pipeline plugs in through its package and one registration line: {@link VotePipeline} lives only
 * in test sources, and {@code ladder run}, {@code report}, {@code view} and {@code ask} know its strategy, its
 * settings block, its factor and its diagnosis categories with no edit anywhere else. The oracle engine answers (on
 * the train split), so the vote sees candidates that execute and disagree.
 */
class VotePipelineTest {

    @TempDir static Path tmp;

    @BeforeAll
    static void data() {
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
    }

    private static Path experiment(String name, String settings) throws Exception {
        Path yaml = tmp.resolve(name + ".yaml");
        Files.writeString(yaml, """
                name: %s
                benchmark: classicmodels
                split: train
                limit: 10
                models:
                  oracle: {engine: oracle, noise: "high,seed=3"}
                strategies:
                  - {name: prompt-k0, strategy: prompt-k0, model: oracle}
                  - {name: vote, strategy: execution-vote, model: oracle}
                  - {name: vote-off, strategy: execution-vote, model: oracle, settings: {execution_vote: {vote: false}}}
                  - {name: vote-starved, strategy: execution-vote, model: oracle, settings: {max_new_tokens: 1}}
                settings: %s
                scorers: {ts: none}
                """.formatted(name, settings));
        return yaml;
    }

    @Test
    void theRegistryListsItAfterTheBuiltInPipelines() {
        assertThat(Strategies.names()).startsWith("prompt-k0", "prompt-k3").endsWith(ExecutionVoteStrategy.NAME);
        assertThat(Pipelines.registry().pipelineOf(ExecutionVoteStrategy.NAME).settings()).isSameAs(VoteSettings.BLOCK);
        assertThat(Pipelines.registry().diagnosisCategories()).containsSubsequence("syntax", "none-executes", "split-vote");
    }

    @Test
    void runReportViewAndAskKnowIt() throws Exception {
        Path run = tmp.resolve("run");
        Run r = LadderCliTestAccess.run("run", experiment("vote", "{execution_vote: {samples: 5}}").toString(),
                "--out", run.toString(), "--no-progress");
        assertThat(r.code()).as(r.err()).isZero();

        // the block is resolved with every key, the rung's override on top of the experiment's
        String resolved = Files.readString(run.resolve("config.yaml"));
        assertThat(resolved).contains("execution_vote:\n", "samples: 5", "vote: false");

        List<ItemResult> rows;
        List<Trace> votes;
        List<Trace> votesOff;
        try (ResultsStore store = ResultsStore.openReadOnly(run.resolve(RunDirectory.RESULTS))) {
            rows = store.results();
            votes = store.traces("vote").stream().map(Trace::fromJson).toList();
            votesOff = store.traces("vote-off").stream().map(Trace::fromJson).toList();
        }
        Map<String, List<ItemResult>> byCell = rows.stream().collect(Collectors.groupingBy(ItemResult::cell));
        assertThat(byCell.get("vote")).hasSize(10);
        // the vote ran on executing candidates: one greedy and five samples, grouped by result
        assertThat(votes).hasSize(10).allSatisfy(t -> assertThat(t.steps(TraceStep.Generate.class))
                .extracting(TraceStep.Generate::source).containsExactly("greedy", "samples"));
        assertThat(votes).anySatisfy(t -> assertThat(t.steps(TraceStep.Stage.class)).extracting(TraceStep.Stage::stage)
                .contains("vote"));
        assertThat(byCell.get("vote")).anySatisfy(x -> assertThat(x.va()).isTrue());
        // switched off, the first executing candidate answers and no vote is taken
        assertThat(votesOff).hasSize(10).allSatisfy(t -> assertThat(t.steps(TraceStep.Stage.class))
                .extracting(TraceStep.Stage::stage).doesNotContain("vote"));

        // the report: the comparison of the two vote rungs names the block's factor, and its categories are rows
        String report = Files.readString(run.resolve("report/report.md"));
        assertThat(report).contains("execution vote");
        // one token is no query: nothing executes, and the error analysis says so for every item
        assertThat(Files.readAllLines(run.resolve("report/diagnoses.csv"))).contains("none-executes,0,0,0,10")
                .anySatisfy(line -> assertThat(line).startsWith("split-vote,"));

        Run view = LadderCliTestAccess.run("view", run.toString(), "--export", tmp.resolve("site").toString());
        assertThat(view.code()).as(view.err()).isZero();
        assertThat(Files.readString(tmp.resolve("site/index.html"))).contains("vote-off");

        String question = Benchmarks.load("classicmodels").splits().get("train").get(0).question();
        Run ask = LadderCliTestAccess.run("ask", "classicmodels", question, "--model", "oracle", "--strategy",
                ExecutionVoteStrategy.NAME);
        assertThat(ask.code()).as(ask.err()).isZero();
        assertThat(ask.out()).containsIgnoringCase("select");
        // its block is settable from ask too: no samples leaves the greedy candidate alone
        Run greedy = LadderCliTestAccess.run("ask", "classicmodels", question, "--model", "oracle", "--strategy",
                ExecutionVoteStrategy.NAME, "--set", "execution_vote.samples=0", "--trace-json");
        assertThat(greedy.code()).as(greedy.err()).isZero();
        assertThat(Trace.fromJson(greedy.out().strip()).steps(TraceStep.Generate.class))
                .extracting(TraceStep.Generate::source).containsExactly("greedy");
        Run help = LadderCliTestAccess.run("ask", "--help");
        assertThat(help.out()).contains(ExecutionVoteStrategy.NAME);
    }

    @Test
    void itsBlockIsCheckedLikeEveryOther() throws Exception {
        Run bad = LadderCliTestAccess.run("run", experiment("bad", "{execution_vote: {samples: -1}}").toString(),
                "--out", tmp.resolve("bad").toString(), "--no-progress");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("settings.execution_vote.samples: must be >= 0, got -1").doesNotContain("\tat ");
        Run typo = LadderCliTestAccess.run("run", experiment("typo", "{execution_vote: {votes: false}}").toString(),
                "--out", tmp.resolve("typo").toString(), "--no-progress");
        assertThat(typo.code()).isEqualTo(2);
        assertThat(typo.err()).contains("settings.execution_vote.votes: unknown field (did you mean 'vote'?)");
        assertThat(Files.exists(tmp.resolve("bad"))).isFalse();
    }
}
