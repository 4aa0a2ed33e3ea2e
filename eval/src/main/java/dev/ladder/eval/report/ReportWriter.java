package dev.ladder.eval.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.common.StableJson;
import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.run.WriteFailures;
import dev.ladder.common.FileTrees;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Writes a {@link Report} to a directory in the chosen formats, all or nothing: files are made in a temporary
 * directory beside the target and moved in only once every one of them was written.
 */
public final class ReportWriter {

    /** An output format and the files it writes. */
    public enum Format {
        /** {@code report.md} with the provenance and every table under headings; {@code costs.md}. */
        MD,
        /** One {@code <table>.csv} per table, {@code costs.csv} included. */
        CSV,
        /** One booktabs {@code <table>.tex} tabular per table, {@code costs.tex} included. */
        TEX,
        /** {@code report.json} with parameters, provenance, rungs and every table; {@code costs.json}. */
        JSON,
        /** {@code ex-by-rung.png} and {@code category-ex.png}. */
        PNG,
        /** {@code ex-by-rung.svg} and {@code category-ex.svg}. */
        SVG;

        /** The file extension, without the dot. */
        public String extension() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The format with this name ({@code md}, {@code markdown}, {@code csv}, ...; any case). */
        public static Format parse(String name) {
            String n = name.trim().toLowerCase(Locale.ROOT);
            if (n.equals("markdown")) return MD;
            if (n.equals("latex")) return TEX;
            for (Format f : values()) if (f.extension().equals(n)) return f;
            throw new IllegalArgumentException("unknown report format '" + name + "'; use md, csv, tex, json, png or svg");
        }

        /** Every format. */
        public static Set<Format> all() {
            return EnumSet.allOf(Format.class);
        }
    }

    private static final String COSTS = "costs";
    /** What the costs were called before; removed on a rewrite so no stale file stays. */
    private static final String OLD_TIMINGS = "timings";

    private ReportWriter() {
    }

    /**
     * Writes the report's files for each format into {@code outDir}, creating it when missing, and returns the
     * files written, sorted. Files a format could write but this report has not (e.g. {@code category-ts.csv}
     * when no result has TS) are removed from {@code outDir} so no stale table stays beside fresh ones; other
     * files in {@code outDir} are left alone. On failure nothing in {@code outDir} has changed.
     *
     * @throws UserError when the directory cannot be written (it is a file, no permission, disk full, ...)
     */
    public static List<Path> write(Report report, Path outDir, Set<Format> formats) {
        if (formats.isEmpty()) throw new IllegalArgumentException("no report format chosen");
        Path target = outDir.toAbsolutePath().normalize();
        Map<String, byte[]> files;
        try {
            files = render(report, formats);
        } catch (IOException e) {
            throw new UncheckedIOException("rendering the report failed", e);
        }
        try {
            place(target, files, formats);
        } catch (IOException e) {
            throw WriteFailures.orElse(target, e, new UserError("cannot write the report to " + target + ": " + e, e));
        }
        List<Path> written = new ArrayList<>();
        for (String name : files.keySet()) written.add(target.resolve(name));
        written.sort(Comparator.naturalOrder());
        return written;
    }

    private static void place(Path target, Map<String, byte[]> files, Set<Format> formats) throws IOException {
        Path parent = target.getParent();
        if (parent == null) throw new IOException("the root directory cannot hold a report");
        if (Files.exists(target) && !Files.isDirectory(target)) throw new IOException("it is a file, not a directory");
        Files.createDirectories(parent);
        removeStaleStaging(parent, target.getFileName().toString());
        Path staging = stagingDirectory(parent, target.getFileName().toString());
        try {
            for (Map.Entry<String, byte[]> f : files.entrySet()) Files.write(staging.resolve(f.getKey()), f.getValue());
            if (!Files.exists(target)) {
                move(staging, target);
            } else {
                for (String name : files.keySet()) move(staging.resolve(name), target.resolve(name));
                for (String stale : possibleFiles(formats)) {
                    if (!files.containsKey(stale)) Files.deleteIfExists(target.resolve(stale));
                }
            }
        } finally {
            FileTrees.delete(staging);
        }
    }

    /** The files' names and bytes, all made in memory before anything touches the disk. */
    static Map<String, byte[]> render(Report report, Set<Format> formats) throws IOException {
        Map<String, byte[]> files = new LinkedHashMap<>();
        List<ReportTable> tables = report.tables();
        if (formats.contains(Format.MD)) {
            files.put("report.md", utf8(markdown(report)));
            files.put(COSTS + ".md", utf8(markdownCosts(report)));
        }
        if (formats.contains(Format.CSV)) {
            for (ReportTable t : tables) files.put(t.id() + ".csv", utf8(TableText.csv(t)));
            files.put(COSTS + ".csv", utf8(TableText.csv(report.costs())));
        }
        if (formats.contains(Format.TEX)) {
            for (ReportTable t : tables) files.put(t.id() + ".tex", utf8(TableText.latex(t)));
            files.put(COSTS + ".tex", utf8(TableText.latex(report.costs())));
        }
        if (formats.contains(Format.JSON)) {
            files.put("report.json", json(reportJson(report)));
            files.put(COSTS + ".json", json(tableJson(report.costs())));
        }
        if (formats.contains(Format.SVG) || formats.contains(Format.PNG)) {
            for (Charts.Chart chart : Charts.all(report)) {
                if (formats.contains(Format.SVG)) files.put(chart.name() + ".svg", utf8(Charts.svg(chart)));
                if (formats.contains(Format.PNG)) files.put(chart.name() + ".png", Charts.png(chart));
            }
        }
        return files;
    }

    /** Every file name the formats can produce for any report. */
    static List<String> possibleFiles(Set<Format> formats) {
        List<String> names = new ArrayList<>();
        for (Format f : formats) {
            switch (f) {
                case MD, JSON -> {
                    names.add("report." + f.extension());
                    names.add(COSTS + "." + f.extension());
                    names.add(OLD_TIMINGS + "." + f.extension());
                }
                case CSV, TEX -> {
                    Report.tableIds().forEach(id -> names.add(id + "." + f.extension()));
                    names.add(OLD_TIMINGS + "." + f.extension());
                    names.add("significance." + f.extension()); // the comparisons table's old name
                }
                case PNG, SVG -> List.of("ex-by-rung", "category-ex").forEach(c -> names.add(c + "." + f.extension()));
            }
        }
        return names;
    }

    private static String markdown(Report report) {
        StringBuilder out = new StringBuilder("# Experiment report\n\n");
        out.append("## Provenance\n\n");
        for (String line : report.provenance()) out.append("- ").append(line).append('\n');
        out.append('\n').append(parametersLine(report)).append("\n\n");
        for (ReportTable t : report.tables()) section(out, t, shortDescription(report, t));
        return out.toString();
    }

    private static String markdownCosts(Report report) {
        StringBuilder out = new StringBuilder("# Costs\n\n");
        section(out, report.costs(), report.costs().description());
        return out.toString();
    }

    private static void section(StringBuilder out, ReportTable t, String description) {
        out.append("## ").append(t.title()).append("\n\n").append(description).append("\n\n")
                .append(TableText.markdown(t)).append('\n');
    }

    /**
     * A table's description without the provenance its caption ends with (report.md states it once, at the top; a
     * table written on its own, as .tex or .json, keeps the whole caption).
     */
    private static String shortDescription(Report report, ReportTable t) {
        String suffix = " " + String.join(" ", report.provenance());
        String d = t.description();
        if (report.provenance().isEmpty() || !d.endsWith(suffix)) return d;
        return d.substring(0, d.length() - suffix.length()) + " (Runs: see Provenance above.)";
    }

    private static String parametersLine(Report report) {
        Report.Options o = report.options();
        return report.rungs().size() + " rungs (bottom first: " + String.join(", ", report.rungs()) + "), "
                + report.items() + " distinct items. Intervals: 95% Wilson score intervals for proportions; 95% "
                + "percentile paired bootstrap for differences, B = " + o.resamples() + " resamples, seed " + o.seed()
                + ". Significance: exact two-sided McNemar test on the discordant pairs"
                + (report.multiSeed() ? " (pooled over seeds: exact sign test on the per-item mean differences)" : "")
                + ", Holm-Bonferroni adjusted within each metric's family of declared comparisons. Proportions have "
                + "three decimals; " + Style.MISSING + " marks a missing value. Costs and timings: costs.md.";
    }

    private static ObjectNode reportJson(Report report) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode root = f.objectNode();
        ObjectNode params = root.putObject("parameters");
        params.put("confidence", Statistics.LEVEL);
        params.put("interval", "Wilson score");
        params.put("difference_interval", "percentile paired bootstrap");
        params.put("resamples", report.options().resamples());
        params.put("seed", report.options().seed());
        params.put("test", report.multiSeed() ? "exact two-sided McNemar per seed; exact sign test pooled over seeds"
                : "exact two-sided McNemar");
        params.put("adjustment", "Holm-Bonferroni within each metric's family");
        ArrayNode provenance = root.putArray("provenance");
        for (int i = 0; i < report.provenance().size(); i++) {
            ObjectNode run = provenance.addObject();
            if (report.runNames().size() > 1) run.put("run", report.runNames().get(i));
            run.put("text", report.provenance().get(i));
        }
        root.put("items", report.items());
        ArrayNode rungs = root.putArray("rungs");
        for (Cell c : report.cells()) {
            ObjectNode r = rungs.addObject();
            r.put("index", c.index());
            r.put("name", c.name());
            r.put("model", c.model());
            r.put("adapter", c.adapter());
            r.put("strategy", c.strategy());
            r.put("seed", c.seed());
        }
        ObjectNode tables = root.putObject("tables");
        for (ReportTable t : report.tables()) tables.set(t.id(), tableJson(t));
        return root;
    }

    private static ObjectNode tableJson(ReportTable t) {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("id", t.id());
        node.put("title", t.title());
        node.put("description", t.description());
        ArrayNode columns = node.putArray("columns");
        t.columns().forEach(columns::add);
        ArrayNode rows = node.putArray("rows");
        for (int r = 0; r < t.rowCount(); r++) {
            ObjectNode row = rows.addObject();
            for (String c : t.columns()) {
                Object v = t.jsonCell(r, c);
                if (v == null) row.putNull(c);
                else if (v instanceof BigDecimal d) row.put(c, d);
                else row.put(c, v.toString());
            }
        }
        return node;
    }

    private static byte[] json(ObjectNode node) throws IOException {
        ObjectMapper mapper = StableJson.mapper().enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);
        // a fixed "\n" indenter: the default one follows the platform's line separator
        DefaultPrettyPrinter printer = new DefaultPrettyPrinter()
                .withObjectIndenter(new DefaultIndenter("  ", "\n"))
                .withArrayIndenter(new DefaultIndenter("  ", "\n"));
        return utf8(mapper.writer(printer).writeValueAsString(node) + "\n");
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Deletes staging directories of {@code name} left by writers that died (killed mid-write): their name carries
     * the writer's pid ({@link FileTrees#deleteOrphans}: a live writer keeps its directory; only this machine's
     * processes are seen).
     */
    static void removeStaleStaging(Path parent, String name) throws IOException {
        FileTrees.deleteOrphans(parent, "." + name + ".tmp-");
    }

    private static Path stagingDirectory(Path parent, String name) throws IOException {
        // a plain directory (not createTempDirectory, which is owner-only) so the moved report keeps normal modes
        for (int attempt = 0; ; attempt++) {
            Path dir = parent.resolve("." + name + ".tmp-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
            try {
                return Files.createDirectory(dir);
            } catch (FileAlreadyExistsException e) {
                if (attempt > 100) throw e;
            }
        }
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
