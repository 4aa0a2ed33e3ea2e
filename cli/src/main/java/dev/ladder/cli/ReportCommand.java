package dev.ladder.cli;

import dev.ladder.eval.report.Report;
import dev.ladder.eval.report.ReportWriter;
import dev.ladder.eval.report.RunLoader;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.sql.db.UserError;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "report", mixinStandardHelpOptions = true,
        description = {"Tables and charts for a paper from one or more run directories (docs/report.md): VA/EX/EM/TS "
                + "with 95%% Wilson intervals, the spread across seeds, breakdowns by category and difficulty, the "
                + "declared comparisons (exact McNemar, Holm-adjusted, with the factors each pair differs in), the "
                + "one-factor attribution, error taxonomy, and costs (calls, tokens, cache share, latency).",
                "  ladder report runs/classicmodels-ladder",
                "  ladder report runs/a runs/b --out paper/tables --format tex,png"})
public final class ReportCommand implements Callable<Integer> {

    static final List<String> ALL_FORMATS = ReportWriter.Format.all().stream().map(ReportWriter.Format::extension).toList();

    @Spec CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "RUN_DIR", description = "Run directories written by 'ladder run'.")
    List<Path> runs;
    @Option(names = "--format", split = ",", paramLabel = "FMT", description = "Formats (default: md,csv,tex,json,png,svg).")
    List<String> formats = ALL_FORMATS;
    @Option(names = "--out", paramLabel = "DIR", description = "Where to write (default: RUN_DIR/report for one run; required for several).")
    Path out;

    @Override
    public Integer call() {
        Set<ReportWriter.Format> fmts = parseFormats(formats);
        if (out == null && runs.size() > 1) throw new UserError("several run directories: say where the merged report goes with --out DIR");
        Path target = out != null ? out : runs.get(0).resolve(RunDirectory.REPORT);
        writeReport(runs, target, fmts);
        spec.commandLine().getOut().println(target.resolve("report.md").toAbsolutePath());
        return 0;
    }

    static Set<ReportWriter.Format> parseFormats(List<String> names) {
        Set<ReportWriter.Format> out = EnumSet.noneOf(ReportWriter.Format.class);
        for (String n : names) {
            if (n.isBlank()) continue;
            try {
                out.add(ReportWriter.Format.parse(n));
            } catch (IllegalArgumentException e) {
                throw new UserError(e.getMessage());
            }
        }
        if (out.isEmpty()) throw new UserError("--format names no format (known: " + String.join(", ", ALL_FORMATS) + ")");
        return out;
    }

    /** Reads each run's results store and writes one report (merged when there are several runs). */
    static void writeReport(List<Path> runDirs, Path target, Set<ReportWriter.Format> formats) {
        // EM of two modes side by side would read as one measure: runs scored in different modes are reported apart
        Map<String, String> emModes = new TreeMap<>();
        for (Path dir : runDirs) emModes.put(dir.toString(), RunLoader.emMode(dir));
        if (new HashSet<>(emModes.values()).size() > 1) {
            throw new UserError("these runs scored EM in different modes (" + emModes + "): report them apart");
        }
        List<Report.Run> runs = new ArrayList<>();
        for (Path dir : runDirs) runs.add(RunLoader.load(dir));
        RunLoader.checkSameSuite(runs);
        Report report = Report.merge(runs, Report.Options.DEFAULT);
        ReportWriter.write(report, target, formats);
    }
}
