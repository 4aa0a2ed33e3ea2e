package dev.ladder.inference.llm;

import ai.djl.engine.Engine;
import ai.djl.pytorch.jni.JniUtils;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.common.StorePaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The small-batch forms a machine measured, kept between loads in {@code <cache>/small-batch-forms.json}: per machine
 * key (CPU model, cores, intra-op threads, libtorch version, the row classes and margin) and weight shape, the form of
 * each row class. A model whose shapes are all there loads without measuring, and every load on one machine runs the
 * same forms, so its numbers do not move with a near-tie between two forms. Delete the file to measure again (after a
 * BLAS or hardware change the key changes by itself).
 */
final class SmallBatchPlans {

    /** Loads of fewer weight bytes than this measure in milliseconds and are not stored (tests' tiny models). */
    static final long STORE_FROM_BYTES = 64L << 20;

    private final Path file;
    private final String machine;

    SmallBatchPlans(Path file, String machine) {
        this.file = file;
        this.machine = machine;
    }

    /** The store of this machine under the user cache. */
    static SmallBatchPlans forThisMachine() {
        return new SmallBatchPlans(StorePaths.cacheDir().resolve("small-batch-forms.json"), machineKey());
    }

    /** What decides which form is fastest: the CPU, how many threads share it, the libtorch, the measuring rule. */
    static String machineKey() {
        StringBuilder sb = new StringBuilder();
        sb.append("cpu=").append(cpuModel().orElse(System.getProperty("os.arch")));
        sb.append("; cores=").append(Runtime.getRuntime().availableProcessors());
        sb.append("; threads=").append(JniUtils.getNumThreads());
        sb.append("; torch=").append(Engine.getEngine("PyTorch").getVersion());
        sb.append("; classes=");
        for (int i = 0; i < SmallBatchLinear.ROW_CLASSES.length; i++) sb.append(i == 0 ? "" : ",").append(SmallBatchLinear.ROW_CLASSES[i]);
        sb.append("; margin=").append(SmallBatchLinear.MARGIN);
        return sb.toString();
    }

    private static Optional<String> cpuModel() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            return lines.filter(l -> l.startsWith("model name")).map(l -> l.substring(l.indexOf(':') + 1).strip()).findFirst();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Forms stored for this machine, by weight shape (empty when none, or when the file cannot be read). */
    Map<String, SmallBatchLinear.Form[]> read() {
        Map<String, SmallBatchLinear.Form[]> out = new LinkedHashMap<>();
        JsonNode entry = readAll().path(machine);
        if (!entry.isObject()) return out;
        entry.fields().forEachRemaining(e -> {
            SmallBatchLinear.Form[] forms = parse(e.getValue());
            if (forms != null) out.put(e.getKey(), forms);
        });
        return out;
    }

    /** Adds {@code forms} to this machine's entry (the others kept); a failure to write only costs a later re-measure. */
    void write(Map<String, SmallBatchLinear.Form[]> forms) {
        ObjectNode all = readAll();
        ObjectNode entry = all.path(machine).isObject() ? (ObjectNode) all.get(machine) : all.putObject(machine);
        forms.forEach((shape, f) -> {
            ArrayNode a = entry.putArray(shape);
            for (SmallBatchLinear.Form form : f) a.add(SmallBatchLinear.label(form));
        });
        try {
            Files.createDirectories(file.getParent());
            Path tmp = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
            try {
                new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(tmp.toFile(), all);
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            // the forms were measured and are used; only the next load measures them again
        }
    }

    private ObjectNode readAll() {
        ObjectMapper mapper = new ObjectMapper();
        if (!Files.isRegularFile(file)) return mapper.createObjectNode();
        try {
            JsonNode n = mapper.readTree(file.toFile());
            return n instanceof ObjectNode o ? o : mapper.createObjectNode();
        } catch (IOException e) {
            return mapper.createObjectNode();   // a damaged file is measured over and replaced
        }
    }

    private static SmallBatchLinear.Form[] parse(JsonNode a) {
        if (!a.isArray() || a.size() != SmallBatchLinear.ROW_CLASSES.length) return null;
        SmallBatchLinear.Form[] forms = new SmallBatchLinear.Form[a.size()];
        for (int i = 0; i < forms.length; i++) {
            forms[i] = SmallBatchLinear.formOf(a.get(i).asText());
            if (forms[i] == null) return null;
        }
        return forms;
    }
}
