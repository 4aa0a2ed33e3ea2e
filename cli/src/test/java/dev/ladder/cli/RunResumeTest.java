package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.adapters.TinyAdapters;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.sql.db.TestData;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ladder run} on the tiny real engine: a run killed midway (a real process kill of a separate JVM) and started
 * again ends with the same results and byte-identical tables as an uninterrupted run, without redoing finished items.
 */
class RunResumeTest {

    @TempDir static Path tmp;
    static Path experiment;

    @BeforeAll
    static void tinyModelAndExperiment() throws IOException {
        System.setProperty("ai.djl.offline", "true");
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
        Path model = tmp.resolve("tiny");
        TinyModels.write(model, TinyModels.Shape.TINY, 1, DType.F32);
        Path adapter = tmp.resolve("tiny-adapter");
        TinyAdapters.write(model, adapter, 2, 1);
        experiment = tmp.resolve("ladder.yaml");
        // the whole ladder (QLoRA rungs included) on a few items, with short completions so the test stays quick
        Files.writeString(experiment, """
                name: resume-check
                benchmark: classicmodels
                split: test
                limit: 8
                seeds: [0]
                output: %s
                models:
                  base: {path: %s}
                  qlora: {path: %s, adapter: %s}
                strategies:
                  - prompt-k0
                  - prompt-k3
                  - {name: qlora-k0, strategy: prompt-k0, model: qlora}
                  - {name: qlora-k3, strategy: prompt-k3, model: qlora}
                  - agent-0
                  - agent-1
                  - agent-2
                  - agent-3
                settings:
                  max_new_tokens: 12
                  candidates: 2
                  gate_budget: 1      # the gate's seeded sample resumes too; one keeps the random model's rungs quick
                scorers:
                  ts: none
                """.formatted(tmp.resolve("unused"), model, model, adapter));
    }

    @Test
    void killedRunResumesToTheSameTables() throws Exception {
        Path whole = tmp.resolve("whole");
        LadderCliTest.Run uninterrupted = LadderCliTest.run("run", experiment.toString(), "--out", whole.toString(),
                "--generation-cache", tmp.resolve("cache-whole.sqlite").toString(), "--no-progress");
        assertThat(uninterrupted.code()).as(uninterrupted.err()).isZero();
        int total;
        try (ResultsStore store = ResultsStore.openReadOnly(whole.resolve(RunDirectory.RESULTS))) {
            total = store.results().size();
        }
        assertThat(total).isEqualTo(8 * 8);
        // a random-weight model's run says so: in the log, the report's provenance and every page of the view
        assertThat(uninterrupted.err()).contains("RANDOM WEIGHTS");
        assertThat(Files.readString(whole.resolve("report/report.md"))).contains("RANDOM WEIGHTS");
        Path site = tmp.resolve("whole-view");
        assertThat(LadderCliTest.run("view", whole.toString(), "--export", site.toString()).code()).isZero();
        for (String page : List.of("index.html", "items.html", "item/0.html")) {
            assertThat(Files.readString(site.resolve(page))).as(page).contains("id=\"random-weights-banner\"");
        }

        Path resumed = tmp.resolve("resumed");
        Path cache = tmp.resolve("cache-resumed.sqlite");
        Path childCache = tmp.resolve("child-cache");
        Process child = new ProcessBuilder(javaCommand(childCache, "run", experiment.toString(), "--out",
                resumed.toString(), "--generation-cache", cache.toString(), "--no-progress"))
                .redirectErrorStream(true).redirectOutput(tmp.resolve("child.log").toFile()).start();
        int atKill = waitForRows(resumed.resolve(RunDirectory.RESULTS), total / 3, child);
        child.destroyForcibly();
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        int survived = rows(resumed.resolve(RunDirectory.RESULTS));
        assertThat(survived).as("killed midway").isGreaterThanOrEqualTo(atKill).isLessThan(total);

        // resumed the way a user would: the same command, in a new process, with the killed run's embedded server
        // still running (the new process stops it and starts its own)
        Path log = tmp.resolve("resume.log");
        Process again = new ProcessBuilder(javaCommand(childCache, "run", experiment.toString(), "--out",
                resumed.toString(), "--generation-cache", cache.toString(), "--no-progress"))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertThat(again.waitFor(5, TimeUnit.MINUTES)).isTrue();
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(again.exitValue()).as(output).isZero();
        assertThat(output).contains((total - survived) + " items answered, " + survived + " already done");

        try (ResultsStore a = ResultsStore.openReadOnly(whole.resolve(RunDirectory.RESULTS));
             ResultsStore b = ResultsStore.openReadOnly(resumed.resolve(RunDirectory.RESULTS))) {
            assertThat(withoutTimes(b.results())).isEqualTo(withoutTimes(a.results()));
            assertThat(b.cells()).isEqualTo(a.cells());
        }
        // every table but the timings, every prediction file: byte for byte
        List<Path> compared = new ArrayList<>();
        for (String sub : List.of(RunDirectory.REPORT, RunDirectory.PREDICTIONS)) {
            try (Stream<Path> files = Files.list(whole.resolve(sub))) {
                for (Path f : files.sorted().toList()) {
                    String name = f.getFileName().toString();
                    if (name.startsWith("costs.")) continue; // wall times
                    if (name.equals("report.md") || name.equals("report.json")) {
                        // the provenance dates each run by its own first start: the one line the two may differ in
                        assertThat(undated(resumed.resolve(sub).resolve(name))).as(name).isEqualTo(undated(f));
                        compared.add(f);
                        continue;
                    }
                    assertThat(Files.readAllBytes(resumed.resolve(sub).resolve(name))).as(name)
                            .isEqualTo(Files.readAllBytes(f));
                    compared.add(f);
                }
            }
        }
        assertThat(compared).hasSizeGreaterThan(10);
    }

    @Test
    void resumingWithChangedWeightsOrAnotherExperimentIsRefused() throws IOException {
        Path model = tmp.resolve("tiny-changing");
        TinyModels.write(model, TinyModels.Shape.TINY, 2, DType.F32);
        Path yaml = tmp.resolve("small.yaml");
        Files.writeString(yaml, """
                benchmark: classicmodels
                limit: 2
                output: %s
                models: {base: {path: %s}}
                strategies: [prompt-k0]
                settings: {max_new_tokens: 4}
                scorers: {ts: none}
                """.formatted(tmp.resolve("small-run"), model));
        LadderCliTest.Run first = LadderCliTest.run("run", yaml.toString(), "--no-generation-cache", "--no-progress");
        assertThat(first.code()).as(first.err()).isZero();
        // the run names its EM mode in its config and its environment
        assertThat(Files.readString(tmp.resolve("small-run").resolve("config.yaml"))).contains("em_mode: semantic");
        assertThat(Files.readString(tmp.resolve("small-run").resolve("environment.json"))).contains("\"scorers.em_mode\" : \"semantic\"");

        // another limit is another experiment: refused, one line naming config.yaml
        LadderCliTest.Run other = LadderCliTest.run("run", yaml.toString(), "--limit", "1", "--no-generation-cache", "--no-progress");
        assertThat(other.code()).isEqualTo(2);
        assertThat(other.err()).startsWith("ladder: ").contains("config.yaml holds another experiment").contains("--out");
        assertThat(other.err().strip()).doesNotContain("\n");

        // a config.yaml an earlier version wrote in another layout (here: every string quoted) is still this experiment
        Path config = tmp.resolve("small-run").resolve("config.yaml");
        String layout = Files.readString(config);
        var yamlMapper = new com.fasterxml.jackson.dataformat.yaml.YAMLMapper();
        String relaid = yamlMapper.writeValueAsString(yamlMapper.readTree(layout));
        assertThat(relaid).isNotEqualTo(layout);
        Files.writeString(config, relaid);
        LadderCliTest.Run again = LadderCliTest.run("run", yaml.toString(), "--no-generation-cache", "--no-progress");
        assertThat(again.code()).as(again.err()).isZero();
        Files.writeString(config, layout);

        // the same experiment on other weights would mix two models in one run
        TinyModels.write(model, TinyModels.Shape.TINY, 3, DType.F32);
        LadderCliTest.Run changed = LadderCliTest.run("run", yaml.toString(), "--no-generation-cache", "--no-progress");
        assertThat(changed.code()).isEqualTo(2);
        assertThat(changed.err()).startsWith("ladder: " + model).contains("changed since this run started");
        assertThat(changed.err().strip()).doesNotContain("\n");

        // a model directory that is not there: one line, and no run directory left behind
        Path nowhere = tmp.resolve("never-made");
        LadderCliTest.Run missing = LadderCliTest.run("run", yaml.toString(), "--model", tmp.resolve("no-model").toString(),
                "--out", nowhere.toString(), "--no-progress");
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err()).startsWith("ladder: model override: models.*.path: model directory not found");
        assertThat(missing.err().strip()).doesNotContain("\n");
        assertThat(nowhere).doesNotExist();
        LadderCliTest.Run noAdapter = LadderCliTest.run("run", yaml.toString(), "--adapter", tmp.resolve("no-lora").toString(),
                "--out", nowhere.toString(), "--no-progress");
        assertThat(noAdapter.code()).isEqualTo(2);
        assertThat(noAdapter.err()).startsWith("ladder: --adapter ").contains("no PEFT adapter there");
        assertThat(nowhere).doesNotExist();

        assertThat(Files.readString(tmp.resolve("small-run").resolve(RunDirectory.ENVIRONMENT)))
                .contains("fingerprint.models.base.path").contains("java.version").contains("\"models.base.cpu_threads\" : \"")
                .containsPattern("\"models.base.small_batch_forms\" : \"\\d+ x \\d+: 1 ");
    }

    @Test
    void aHubModelThatCannotBePulledEndsInOneLineBeforeAnythingIsMade() {
        String oldCache = System.getProperty("ladder.cache.dir");
        System.setProperty("ladder.cache.dir", tmp.resolve("empty-cache").toString());
        System.setProperty("ladder.hf.endpoint", "http://127.0.0.1:9"); // nothing listens: offline
        try {
            Path out = tmp.resolve("offline-run");
            LadderCliTest.Run run = LadderCliTest.run("run", Path.of("..", "experiments", "smoke.yaml").toString(),
                    "--out", out.toString(), "--no-progress");
            assertThat(run.code()).isEqualTo(2);
            String last = run.err().strip().lines().reduce((a, b) -> b).orElse("");
            // the cause in words (here a refused connection to the endpoint tried), the store, and the way out
            assertThat(last).startsWith("ladder: model 'Qwen/Qwen2.5-0.5B-Instruct' is not in the store (")
                    .contains("could not be pulled: connection refused or unreachable: http://127.0.0.1:9 (HF_ENDPOINT)")
                    .contains("--model DIR").contains("Hugging Face cache snapshot folder");
            assertThat(out).doesNotExist();
        } finally {
            if (oldCache == null) System.clearProperty("ladder.cache.dir");
            else System.setProperty("ladder.cache.dir", oldCache);
            System.clearProperty("ladder.hf.endpoint");
        }
    }

    private static List<ItemResult> withoutTimes(List<ItemResult> rows) {
        return rows.stream().map(r -> new ItemResult(r.cell(), r.itemId(), r.category(), r.difficulty(), r.question(),
                r.gold(), r.predicted(), r.va(), r.ex(), r.em(), r.ts(), r.error(), r.errorClass(), r.chosen(),
                r.promptTokens(), r.generatedTokens(), 0, r.tables(), r.joins(), r.aggregates(), r.nesting())).toList();
    }

    private static List<String> javaCommand(Path cacheDir, String... args) {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g", "-Dai.djl.offline=true", "-Dladder.cache.dir=" + cacheDir,
                "-Dladder.data.dir=" + System.getProperty("ladder.data.dir", ""),
                "-cp", System.getProperty("java.class.path"), "dev.ladder.cli.Ladder"));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** Waits until the child has stored at least {@code n} rows; fails if it ends first. */
    private static int waitForRows(Path results, int n, Process child) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (System.nanoTime() < deadline) {
            assertThat(child.isAlive()).as("the run ended before it could be killed: see " + tmp.resolve("child.log")).isTrue();
            int rows = Files.isRegularFile(results) ? rows(results) : 0;
            if (rows >= n) return rows;
            Thread.sleep(50);
        }
        throw new AssertionError("no " + n + " rows after 5 minutes: see " + tmp.resolve("child.log"));
    }

    private static int rows(Path results) {
        try (ResultsStore store = ResultsStore.openReadOnly(results)) {
            return store.results().size();
        } catch (RuntimeException notReadyYet) {
            return 0; // created but its schema not written yet
        }
    }


    private static String undated(Path report) throws IOException {
        return Files.readString(report, StandardCharsets.UTF_8)
                .replaceAll("started \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ", "started (date)");
    }
}
