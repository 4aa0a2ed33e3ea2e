package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.eval.run.RunDirectory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two identical runs write the same traces, byte for byte, but for their timing fields: each run in its own JVM
 * (a map's iteration order can be salted per JVM, so one JVM could not show it), with its own cache, over every
 * pipeline whose stages record details, on two databases, the oracle at low noise so repairs and refinements run.
 */
class TraceDeterminismTest {

    /** Wall times: the one part of a trace two runs cannot share. */
    private static final Set<String> TIMINGS = Set.of("millis", "prefillMillis", "decodeMillis", "cachedMillis");

    @TempDir Path tmp;

    @Test
    void twoJvmsWriteTheSameTracesButForTimings() throws Exception {
        Path spider = TwoDatabaseBenchmarks.spider(tmp.resolve("spider"));
        Path yaml = tmp.resolve("pipelines.yaml");
        Files.writeString(yaml, """
                name: determinism
                benchmark: %s
                split: dev
                output: %s
                models: {oracle: {engine: oracle, noise: "low,seed=3"}}
                strategies: [prompt-k3, agent-3, structured-search, gsr, soft-attention, progressive]
                """.formatted(spider, tmp.resolve("unused")));
        List<Path> runs = new ArrayList<>();
        for (String name : List.of("first", "second")) {
            Path out = tmp.resolve(name);
            Path log = tmp.resolve(name + ".log");
            Process p = new ProcessBuilder(javaCommand(tmp.resolve(name + "-cache"), "run", yaml.toString(), "--out",
                    out.toString(), "--no-progress")).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("run %s finished", name).isTrue();
            assertThat(p.exitValue()).as(Files.readString(log, StandardCharsets.UTF_8)).isZero();
            runs.add(out);
        }
        List<Path> traces;
        try (Stream<Path> files = Files.list(runs.get(0).resolve(RunDirectory.TRACES))) {
            traces = files.sorted().toList();
        }
        assertThat(traces).hasSize(6);
        int detailed = 0;
        for (Path first : traces) {
            Path second = runs.get(1).resolve(RunDirectory.TRACES).resolve(first.getFileName());
            List<String> a = untimed(first);
            List<String> b = untimed(second);
            assertThat(b).as(first.getFileName().toString()).containsExactlyElementsOf(a);
            detailed += (int) a.stream().filter(line -> line.contains("\"detail\":{")).count();
        }
        // the comparison covers stage records with fields of their own, the place an unordered map would show
        assertThat(detailed).isGreaterThan(0);
    }

    /** Each line of a trace file with the timing fields removed at any depth, as written (key order kept). */
    private static List<String> untimed(Path file) throws Exception {
        ObjectMapper json = new ObjectMapper();
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            JsonNode node = json.readTree(line);
            strip(node);
            out.add(json.writeValueAsString(node));
        }
        return out;
    }

    private static void strip(JsonNode node) {
        if (node instanceof ObjectNode o) o.remove(TIMINGS);
        node.forEach(TraceDeterminismTest::strip);
    }

    /**
     * The classpath travels in an argument file: with the test's classpath spelled out on the command line (about
     * 5,600 characters) the child dies of SIGSEGV when the Hugging Face tokenizer loads; the same classpath from a file
     * or from CLASSPATH runs.
     */
    private List<String> javaCommand(Path cacheDir, String... args) throws Exception {
        Path classpath = tmp.resolve("classpath.args");
        Files.writeString(classpath, "-cp \"" + System.getProperty("java.class.path") + "\"");
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g", "-Dai.djl.offline=true", "-Dladder.cache.dir=" + cacheDir,
                "@" + classpath, "dev.ladder.cli.Ladder"));
        cmd.addAll(List.of(args));
        return cmd;
    }
}
