package dev.ladder.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.eval.experiment.ClassicModelsExemplars;
import dev.ladder.inference.ChatMessage;
import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.text.PromptFormats;
import dev.ladder.pipeline.prompt.Example;
import dev.ladder.pipeline.prompt.ExemplarSelector;
import dev.ladder.pipeline.prompt.SqlPrompt;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.SchemaRenderer;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ladder adapters export-train}: a QLoRA training set in which every prompt is byte for byte the prompt the
 * prompt-only rungs feed the model ({@link SqlPrompt} in the chosen {@link PromptFormat}), and every completion is the
 * gold SQL and the format's end of turn. One JSON object per line:
 * {@code {"id", "messages": [system, user, assistant = gold SQL], "prompt", "completion", "exemplars": [ids]}}.
 *
 * <p>Exemplars (k = 3) are the benchmark's fixed exemplars from its train split; an item that is itself one of the
 * three gets the other two and the spare fourth listed in {@code fixed-exemplars.txt} (never itself).
 */
@Command(name = "export-train", mixinStandardHelpOptions = true,
        description = {"Write a QLoRA training set (JSONL) whose prompts are exactly the prompts Ladder uses at inference.",
                "Each line: {\"id\", \"messages\":[system,user,assistant], \"prompt\", \"completion\", \"exemplars\"};"
                        + " prompt + completion is the formatted prompt followed by the gold SQL and the end-of-turn token."})
public final class AdaptersExportCommand implements Callable<Integer> {

    /** Output formats this command writes. */
    public static final List<String> FORMATS = List.of("chat-jsonl");

    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec CommandSpec spec;

    @Option(names = "--benchmark", required = true, paramLabel = "NAME|PATH",
            description = "classicmodels, or a benchmark folder/file as 'ladder bench info' takes.")
    String benchmark;

    @Option(names = "--split", defaultValue = "train", paramLabel = "SPLIT", description = "Split to export (default: ${DEFAULT-VALUE}).")
    String split;

    @Option(names = "--format", defaultValue = "chat-jsonl", paramLabel = "chat-jsonl",
            description = "Output format (default: ${DEFAULT-VALUE}).")
    String format;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "JSONL file to write (replaced atomically).")
    Path out;

    @Option(names = "--k", defaultValue = "0", paramLabel = "0|3",
            description = "Exemplars in each prompt: 0, or 3 fixed exemplars from the train split (default: ${DEFAULT-VALUE}).")
    int k;

    @Option(names = "--prompt-format", defaultValue = "llama3-chat", paramLabel = "llama3-chat|chatml|completion",
            description = "Prompt format of the model to train (default: ${DEFAULT-VALUE}).")
    String promptFormat;

    @Mixin DatabaseOptions database = new DatabaseOptions();

    @Override
    public Integer call() {
        if (!FORMATS.contains(format.strip().toLowerCase(Locale.ROOT))) {
            throw new UserError("--format must be one of " + String.join(", ", FORMATS) + ", got '" + format + "'");
        }
        if (k != 0 && k != 3) throw new UserError("--k must be 0 or 3, got " + k);
        PromptFormat pf;
        try {
            pf = PromptFormats.byName(promptFormat);
        } catch (IllegalArgumentException e) {
            throw new UserError("--prompt-format: " + e.getMessage());
        }
        if (Files.isDirectory(out)) throw new UserError("--out " + out + " is a directory: name a file");
        Benchmark b = Benchmarks.load(benchmark);
        List<BenchmarkItem> items = b.split(split);
        if (items.isEmpty()) throw new UserError("benchmark " + b.name() + " split " + split + " has no items");
        ExemplarSelector selector = k == 0 ? null : fixedSelector(b);
        List<String> lines = lines(b, items, selector, SqlPrompt.of(pf));
        write(lines);
        spec.commandLine().getOut().printf(Locale.ROOT, "wrote %d training items (%s %s, k=%d, %s) to %s%n",
                lines.size(), b.name(), split, k, pf.name(), out);
        return 0;
    }

    private static ExemplarSelector fixedSelector(Benchmark b) {
        try {
            return ClassicModelsExemplars.selector(b, "fixed", ClassicModelsExemplars.DEFAULT_SEED);
        } catch (IllegalArgumentException e) {
            throw new UserError("--k 3 uses the fixed exemplars of classicmodels (fixed-exemplars.txt), but benchmark "
                    + b.name() + " does not have them: " + e.getMessage());
        }
    }

    private List<String> lines(Benchmark b, List<BenchmarkItem> items, ExemplarSelector selector, SqlPrompt prompt) {
        Map<String, String> summaries = new HashMap<>();
        List<String> lines = new ArrayList<>(items.size());
        List<Database> opened = new ArrayList<>();
        try {
            for (BenchmarkItem item : items) {
                String schema = summaries.computeIfAbsent(b.databaseOf(item), dbSpec -> {
                    Database db = database.open(dbSpec);
                    opened.add(db);
                    return SchemaRenderer.summary(db.schema());
                });
                List<Example> exemplars = selector == null ? List.of() : selector.select(item.question(), k);
                for (Example e : exemplars) {
                    if (e.id().equals(item.id())) throw new IllegalStateException(item.id() + " would be its own exemplar");
                }
                lines.add(line(item, exemplars, schema, prompt));
            }
        } finally {
            opened.forEach(Database::close);
        }
        return lines;
    }

    /** One JSONL line for an item (package-private for tests). */
    static String line(BenchmarkItem item, List<Example> exemplars, String schema, SqlPrompt prompt) {
        List<ChatMessage> messages = new ArrayList<>(prompt.messages(schema, exemplars, item.question()));
        messages.add(ChatMessage.assistant(item.sql()));
        SqlPrompt.Training t = prompt.training(schema, exemplars, item.question(), item.sql());
        ObjectNode o = JSON.createObjectNode();
        o.put("id", item.id());
        ArrayNode ms = o.putArray("messages");
        for (ChatMessage m : messages) {
            ms.addObject().put("role", m.role().name().toLowerCase(Locale.ROOT)).put("content", m.content());
        }
        o.put("prompt", t.prompt());
        o.put("completion", t.completion());
        ArrayNode ids = o.putArray("exemplars");
        exemplars.forEach(e -> ids.add(e.id()));
        return o.toString();
    }

    /** Writes a temporary file beside {@code out}, then moves it into place: never a half-written file. */
    private void write(List<String> lines) {
        Path target = out.toAbsolutePath();
        Path dir = target.getParent();
        Path tmp = null;
        try {
            Files.createDirectories(dir);
            tmp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
            try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                for (String line : lines) w.write(line + "\n");
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
        } catch (IOException e) {
            throw new UserError("cannot write --out " + out + ": " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()), e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // best effort: the temporary file is hidden and named after the target
                }
            }
        }
    }
}
