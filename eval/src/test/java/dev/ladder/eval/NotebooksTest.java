package dev.ladder.eval;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Colab notebooks under {@code notebooks/} are committed clean and their Python is syntactically valid.
 *
 * <p>Each notebook must be nbformat 4 with no outputs and no execution counts. Its code cells are joined into one
 * Python file and compiled with {@code python3 -m py_compile} (skipped when there is no {@code python3} on the
 * PATH). IPython shell and magic lines — lines whose first non-blank character is {@code !} or {@code %}, such as
 * {@code %pip install ...} — are not Python and are dropped first; the notebooks keep such lines at the top level
 * of a cell so that dropping them cannot leave an empty block.
 */
class NotebooksTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    static Path notebooks() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path dir = p.resolve("notebooks");
            if (Files.isRegularFile(dir.resolve("qlora_train.ipynb"))) return dir;
        }
        throw new AssertionError("no notebooks/ folder above " + Path.of("").toAbsolutePath());
    }

    @ParameterizedTest
    @ValueSource(strings = {"qlora_train.ipynb", "results_analysis.ipynb", "ladder_colab.ipynb"})
    void cleanNbformat4WithCompilingPython(String name) throws IOException, InterruptedException {
        JsonNode nb = JSON.readTree(notebooks().resolve(name).toFile());
        assertThat(nb.path("nbformat").asInt()).as("nbformat").isEqualTo(4);
        assertThat(nb.path("metadata").path("kernelspec").path("language").asText()).isEqualTo("python");
        List<String> code = new ArrayList<>();
        int markdown = 0;
        for (JsonNode cell : nb.path("cells")) {
            String type = cell.path("cell_type").asText();
            if (type.equals("markdown")) {
                markdown++;
                assertThat(cell.has("outputs")).as("markdown cell with outputs").isFalse();
                continue;
            }
            assertThat(type).isEqualTo("code");
            assertThat(cell.path("outputs").isArray() && cell.path("outputs").isEmpty()).as("outputs of a code cell are []").isTrue();
            assertThat(cell.has("execution_count") && cell.get("execution_count").isNull()).as("execution_count is null").isTrue();
            code.add(source(cell));
        }
        assertThat(markdown).as("explained: markdown cells").isGreaterThan(3);
        assertThat(code).as("code cells").hasSizeGreaterThan(3);

        StringBuilder py = new StringBuilder();
        for (String cell : code) {
            for (String line : cell.split("\n", -1)) {
                String t = line.stripLeading();
                if (t.startsWith("!") || t.startsWith("%")) continue; // shell and magic lines are not Python
                py.append(line).append('\n');
            }
            py.append('\n');
        }
        Assumptions.assumeTrue(hasPython3(), "python3 is not on the PATH");
        Path file = tmp.resolve(name.replace(".ipynb", ".py"));
        Files.writeString(file, py.toString(), StandardCharsets.UTF_8);
        Process p = new ProcessBuilder("python3", "-m", "py_compile", file.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(name + ": " + out).isZero();
    }

    /**
     * The Colab notebook runs the README's commands, so the two cannot drift apart: every line of a code cell that
     * invokes {@code ./scripts/setup} or {@code ./scripts/ladder} (its {@code !} and surrounding space dropped) is a
     * line of README.md, and the launcher's {@code LADDER_TORCH=pip} that README exports the notebook sets too.
     */
    @Test
    void colabNotebookRunsExactlyTheReadmeCommands() throws IOException {
        Path nbFile = notebooks().resolve("ladder_colab.ipynb");
        Path readme = notebooks().getParent().resolve("README.md");
        JsonNode nb = JSON.readTree(nbFile.toFile());
        List<String> commands = new ArrayList<>();
        StringBuilder code = new StringBuilder();
        for (JsonNode cell : nb.path("cells")) {
            if (!cell.path("cell_type").asText().equals("code")) continue;
            String src = source(cell);
            code.append(src).append('\n');
            for (String line : src.split("\n")) {
                String t = line.strip();
                if (t.startsWith("!")) t = t.substring(1).strip();
                if (t.contains("./scripts/setup") || t.contains("./scripts/ladder")) commands.add(t);
            }
        }
        assertThat(commands).as("ladder commands in " + nbFile).isNotEmpty();
        assertThat(commands).as("the notebook sets up and runs the ladder")
                .anyMatch(c -> c.startsWith("./scripts/setup"))
                .anyMatch(c -> c.startsWith("./scripts/ladder run "));
        Set<String> readmeLines = Files.readAllLines(readme, StandardCharsets.UTF_8).stream()
                .map(String::strip).collect(Collectors.toSet());
        assertThat(commands.stream().filter(c -> !readmeLines.contains(c)).toList())
                .as("commands of %s that are not lines of README.md", nbFile.getFileName()).isEmpty();
        // setup --gpu chooses the torch mode (a bridge for Colab's own torch): neither forces pip or installs 2.7.1
        assertThat(readmeLines).doesNotContain("export LADDER_TORCH=pip");
        assertThat(code.toString()).doesNotContain("LADDER_TORCH").doesNotContain("torch==2.7.1");
    }

    /**
     * The training notebook, the ladder notebook, the README and the ladder's experiment file agree: one adapter per
     * QLoRA rung, trained with that rung's k, on the base model the README's GPU command runs, written where the
     * experiment file looks for it (the ladder notebook links the training notebook's adapter folder as models/).
     */
    @Test
    void qloraAdaptersAreWhereTheLadderLooksForThem() throws IOException {
        Path root = notebooks().getParent();
        String train = code(notebooks().resolve("qlora_train.ipynb"));
        String colab = code(notebooks().resolve("ladder_colab.ipynb"));
        String readme = Files.readString(root.resolve("README.md"), StandardCharsets.UTF_8);
        var ladder = dev.ladder.eval.experiment.ExperimentLoader.load(root.resolve("experiments/classicmodels-ladder.yaml"));

        java.util.Map<Integer, String> adapterByK = new java.util.TreeMap<>();
        for (var rung : ladder.rungs()) {
            var model = ladder.models().get(rung.model());
            if (!model.hasAdapter()) continue;
            var k = java.util.regex.Pattern.compile("^prompt-k(\\d+)$").matcher(rung.strategy());
            assertThat(k.find()).as("QLoRA rung %s is a prompt rung", rung.name()).isTrue();
            String before = adapterByK.put(Integer.parseInt(k.group(1)), model.adapter());
            assertThat(before).as("one adapter per k").isNull();
        }
        assertThat(adapterByK).as("the ladder's QLoRA rungs").containsOnlyKeys(0, 3);
        var kValues = java.util.regex.Pattern.compile("(?m)^K_VALUES = \\[([\\d, ]+)\\]$").matcher(train);
        assertThat(kValues.find()).as("K_VALUES in qlora_train.ipynb").isTrue();
        assertThat(kValues.group(1).replace(" ", "")).isEqualTo(adapterByK.keySet().stream().map(String::valueOf)
                .collect(Collectors.joining(",")));
        var name = java.util.regex.Pattern.compile("(?m)^ADAPTER_NAME = \"([^\"]+)\"").matcher(train);
        assertThat(name.find()).as("ADAPTER_NAME in qlora_train.ipynb").isTrue();
        adapterByK.forEach((k, path) -> {
            assertThat(path).isEqualTo("models/" + name.group(1).replace("{k}", String.valueOf(k)));
            assertThat(readme).contains(path);
        });
        // the training notebook saves into STATE/adapters; the ladder notebook links that folder as the checkout's models/
        assertThat(train).contains("ADAPTERS = STATE / \"adapters\"").contains("STATE = Path(\"/content/drive/MyDrive/ladder-state\")");
        assertThat(colab).contains("models.symlink_to(STATE / \"adapters\"").contains("STATE = Path(\"/content/drive/MyDrive/ladder-state\")");
        // trained on the base the README's GPU command runs
        var base = java.util.regex.Pattern.compile("(?m)^BASE_MODEL = \"([^\"]+)\"").matcher(train);
        assertThat(base.find()).isTrue();
        assertThat(readme).contains("./scripts/ladder run experiments/classicmodels-ladder.yaml --model " + base.group(1) + " ");
        assertThat(colab).contains("--model " + base.group(1) + " ");
        // a T4 computes in float16: bf16 is decided by compute capability, not by torch.cuda.is_bf16_supported()
        assertThat(train).contains("get_device_capability").doesNotContain("is_bf16_supported");
    }

    private static String code(Path notebook) throws IOException {
        StringBuilder b = new StringBuilder();
        for (JsonNode cell : JSON.readTree(notebook.toFile()).path("cells")) {
            if (cell.path("cell_type").asText().equals("code")) b.append(source(cell)).append('\n');
        }
        return b.toString();
    }

    private static String source(JsonNode cell) {
        JsonNode s = cell.path("source");
        if (s.isTextual()) return s.asText();
        StringBuilder b = new StringBuilder();
        s.forEach(line -> b.append(line.asText()));
        return b.toString();
    }

    private static boolean hasPython3() {
        try {
            Process p = new ProcessBuilder("python3", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
