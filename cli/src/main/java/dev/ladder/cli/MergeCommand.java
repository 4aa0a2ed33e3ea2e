package dev.ladder.cli;

import dev.ladder.eval.report.ReportWriter;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.eval.run.ShardMerge;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "merge", mixinStandardHelpOptions = true,
        description = {"Join the run directories of 'ladder run EXPERIMENT --shard i/N' (i = 1..N) into the run one machine "
                + "would have written: config, results store, predictions, traces and report (docs/scale.md). Checks "
                + "first that they are the N shards of one experiment on the same model files and that each is finished; "
                + "writes nothing otherwise.",
                "  ladder merge runs/ladder-shard-1-of-3 runs/ladder-shard-2-of-3 runs/ladder-shard-3-of-3 --out runs/ladder"})
final class MergeCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "RUN_DIR", description = "The shards' run directories, in any order.")
    List<Path> shards;
    @Option(names = "--out", required = true, paramLabel = "DIR",
            description = "The merged run directory: a new one (or an empty one).")
    Path out;
    @Option(names = "--format", split = ",", paramLabel = "FMT", description = "Report formats (default: md,csv,tex,json,png,svg).")
    List<String> formats = ReportCommand.ALL_FORMATS;

    @Override
    public Integer call() {
        Set<ReportWriter.Format> reportFormats = ReportCommand.parseFormats(formats);
        ShardMerge.Merged merged = ShardMerge.merge(shards, out, dir ->
                ReportCommand.writeReport(List.of(dir), dir.resolve(RunDirectory.REPORT), reportFormats));
        var stdout = spec.commandLine().getOut();
        stdout.printf(Locale.ROOT, "%d shards merged: %d cells, %d rows%n", merged.shards(), merged.cells(), merged.rows());
        stdout.println("report: " + merged.directory().resolve(RunDirectory.REPORT).resolve("report.md"));
        stdout.println(merged.directory());
        return 0;
    }
}
