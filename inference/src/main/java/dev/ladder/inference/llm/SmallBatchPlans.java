package dev.ladder.inference.llm;

import ai.djl.engine.Engine;
import ai.djl.pytorch.jni.JniUtils;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.common.StorePaths;
import dev.ladder.inference.llm.SmallBatchLinear.Form;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The small-batch forms a machine measured quietly, kept between loads in {@code <cache>/small-batch-forms.json}: per
 * machine key (CPU model, cores, intra-op threads, libtorch version, the row classes and margin) and weight shape, the
 * form of each row class, when and under what load they were measured, and when and under what load a later load last
 * confirmed them ({@link SmallBatchRule} decides what is stored and dropped). A model whose shapes are all there
 * loads after a short confirmation instead of a measurement, and every quiet load on one machine runs the same forms,
 * so its numbers do not move with a near-tie between two forms. Delete the file to measure again (after a BLAS or
 * hardware change the key changes by itself).
 *
 * <p>Files written before loads were recorded hold a bare list of forms per shape: those read as {@link
 * Entry#provisional provisional} entries, used (after confirmation) until a quiet load measures the shape again.
 */
final class SmallBatchPlans {

    /** Loads of fewer weight bytes than this measure in milliseconds and are not stored (tests' tiny models). */
    static final long STORE_FROM_BYTES = 64L << 20;

    /**
     * One shape's stored forms.
     *
     * @param forms         one per {@link SmallBatchLinear#ROW_CLASSES} entry
     * @param measuredAt    when they were measured (null: a file that did not record it)
     * @param load          others' load during that measurement
     * @param spread        the measurement's largest timing spread ({@link SmallBatchRule#spread}; NaN: unknown)
     * @param confirmedAt   the last load that confirmed them (null: none yet)
     * @param confirmedLoad others' load during that confirmation
     */
    record Entry(List<Form> forms, Instant measuredAt, MachineLoad.Load load, double spread, Instant confirmedAt,
                 MachineLoad.Load confirmedLoad) {
        Entry {
            forms = List.copyOf(forms);
        }

        /** From a file that recorded no load: its forms may have been measured under load. */
        boolean provisional() {
            return measuredAt == null;
        }

        Entry confirmed(Instant at, MachineLoad.Load l) {
            return new Entry(forms, measuredAt, load, spread, at, l);
        }
    }

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
        sb.append("; margin=").append(SmallBatchRule.MARGIN);
        return sb.toString();
    }

    private static Optional<String> cpuModel() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            return lines.filter(l -> l.startsWith("model name")).map(l -> l.substring(l.indexOf(':') + 1).strip()).findFirst();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Entries stored for this machine, by weight shape (empty when none, or when the file cannot be read). */
    Map<String, Entry> read() {
        Map<String, Entry> out = new LinkedHashMap<>();
        JsonNode entry = readAll().path(machine);
        if (!entry.isObject()) return out;
        entry.fields().forEachRemaining(e -> {
            Entry parsed = parse(e.getValue());
            if (parsed != null) out.put(e.getKey(), parsed);
        });
        return out;
    }

    /**
     * Puts {@code put} into this machine's entry and removes {@code remove} from it (other shapes and machines kept);
     * a failure to write only costs a later re-measure.
     */
    void write(Map<String, Entry> put, Set<String> remove) {
        if (put.isEmpty() && remove.isEmpty()) return;
        ObjectNode all = readAll();
        ObjectNode entry = all.path(machine).isObject() ? (ObjectNode) all.get(machine) : all.putObject(machine);
        remove.forEach(entry::remove);
        put.forEach((shape, e) -> entry.set(shape, json(e)));
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

    private static ObjectNode json(Entry e) {
        ObjectNode o = new ObjectMapper().createObjectNode();
        var forms = o.putArray("forms");
        for (Form f : e.forms()) forms.add(SmallBatchLinear.label(f));
        if (e.measuredAt() != null) {
            o.put("measured_at", e.measuredAt().truncatedTo(ChronoUnit.SECONDS).toString());
            o.set("measured_load", json(e.load()));
            if (!Double.isNaN(e.spread())) o.put("spread", round(e.spread()));
        }
        if (e.confirmedAt() != null) {
            o.put("confirmed_at", e.confirmedAt().truncatedTo(ChronoUnit.SECONDS).toString());
            o.set("confirmed_load", json(e.confirmedLoad()));
        }
        return o;
    }

    private static ObjectNode json(MachineLoad.Load l) {
        ObjectNode o = new ObjectMapper().createObjectNode();
        if (l.known()) o.put("others_cores", round(l.othersCores()));
        o.put("cores", l.cores());
        if (!Double.isNaN(l.loadAverage1())) o.put("load_average_1m", l.loadAverage1());
        return o;
    }

    /** Three decimals: what the file's reader needs, without the float noise. */
    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    /** An entry: an object (this format) or a bare list of forms (files before loads were recorded); null if neither. */
    private static Entry parse(JsonNode n) {
        if (n.isArray()) {
            List<Form> forms = forms(n);
            return forms == null ? null : new Entry(forms, null, MachineLoad.Load.UNKNOWN, Double.NaN, null, null);
        }
        List<Form> forms = forms(n.path("forms"));
        if (forms == null) return null;
        Instant measured = instant(n.path("measured_at"));
        Instant confirmed = instant(n.path("confirmed_at"));
        return new Entry(forms, measured, load(n.path("measured_load")), n.path("spread").asDouble(Double.NaN),
                confirmed, confirmed == null ? null : load(n.path("confirmed_load")));
    }

    private static List<Form> forms(JsonNode a) {
        if (!a.isArray() || a.size() != SmallBatchLinear.ROW_CLASSES.length) return null;
        List<Form> forms = new ArrayList<>();
        for (JsonNode label : a) {
            Form f = SmallBatchLinear.formOf(label.asText());
            if (f == null) return null;
            forms.add(f);
        }
        return forms;
    }

    private static MachineLoad.Load load(JsonNode o) {
        return new MachineLoad.Load(o.path("others_cores").asDouble(Double.NaN), o.path("cores").asInt(0),
                o.path("load_average_1m").asDouble(Double.NaN));
    }

    /** An ISO-8601 instant, or null when absent or malformed (the entry then reads as provisional). */
    private static Instant instant(JsonNode n) {
        if (!n.isTextual()) return null;
        try {
            return Instant.parse(n.asText());
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
