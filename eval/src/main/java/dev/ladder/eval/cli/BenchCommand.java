package dev.ladder.eval.cli;

import dev.ladder.eval.bench.BenchmarkItem;
import dev.ladder.eval.bench.Coverage;
import dev.ladder.eval.bench.JsonlBenchmarks;
import dev.ladder.eval.bench.SqlFeatures;
import dev.ladder.pipeline.db.Database;
import dev.ladder.pipeline.db.Execution;
import dev.ladder.pipeline.db.UserError;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "bench", description = "Benchmarks: check, info, export.",
        subcommands = {BenchCommand.Check.class})
final class BenchCommand {

    @Command(name = "check", mixinStandardHelpOptions = true,
            description = "Check a JSONL benchmark file: every gold and alternative executes, difficulty follows the rule; prints coverage.")
    static final class Check implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Parameters(paramLabel = "FILE") Path file;
        @Option(names = "--db", defaultValue = "classicmodels", paramLabel = "DB") String database;
        @Mixin DatabaseOptions options = new DatabaseOptions();
        @Option(names = "--disjoint-from", paramLabel = "FILE",
                description = "Another split: report items whose SQL skeleton or normalised question also occurs there.")
        Path other;

        @Override
        public Integer call() throws IOException {
            if (!Files.isRegularFile(file)) throw new UserError("no such benchmark file: " + file);
            List<BenchmarkItem> items;
            try (InputStream in = Files.newInputStream(file)) {
                items = JsonlBenchmarks.read(in, file.toString());
            }
            PrintWriter out = spec.commandLine().getOut();
            int problems = 0;
            java.util.Set<String> otherSkeletons = new java.util.HashSet<>();
            java.util.Set<String> otherQuestions = new java.util.HashSet<>();
            if (other != null) {
                try (InputStream in = Files.newInputStream(other)) {
                    for (BenchmarkItem o : JsonlBenchmarks.read(in, other.toString())) {
                        otherSkeletons.add(Coverage.skeleton(o.sql()));
                        otherQuestions.add(Coverage.normalizeQuestion(o.question()));
                    }
                }
            }
            try (Database db = options.open(database)) {
                for (BenchmarkItem item : items) {
                    String computed;
                    try {
                        computed = SqlFeatures.of(item.sql()).hardness();
                    } catch (IllegalArgumentException e) {
                        computed = "unparsable";
                    }
                    StringBuilder line = new StringBuilder(item.id()).append('\t').append(item.category()).append('\t')
                            .append(item.difficulty());
                    boolean bad = !computed.equals(item.difficulty());
                    if (bad) line.append(" (rule says ").append(computed).append(')');
                    if (otherSkeletons.contains(Coverage.skeleton(item.sql()))) {
                        bad = true;
                        line.append(" (template sibling in ").append(other).append(')');
                    }
                    if (otherQuestions.contains(Coverage.normalizeQuestion(item.question()))) {
                        bad = true;
                        line.append(" (same question in ").append(other).append(')');
                    }
                    for (String gold : item.allGold()) {
                        Execution ex = db.execute(gold);
                        if (ex instanceof Execution.Success ok) {
                            line.append("\tOK ").append(ok.result().rowCount()).append(" rows");
                            if (ok.result().rowCount() == 0) line.append(" (empty!)");
                        } else {
                            bad = true;
                            line.append("\tFAIL ").append(((Execution.Failure) ex).error());
                        }
                    }
                    if (bad) problems++;
                    out.println((bad ? "! " : "  ") + line);
                }
                Coverage c = Coverage.of(items, db.schema());
                out.println();
                out.println("items " + c.items() + "; by category " + c.byCategory());
                out.println("by difficulty " + c.byDifficulty());
                out.println("tables " + c.byTable());
                out.println("foreign keys " + c.byForeignKey());
                out.println("multi-table " + c.multiTable() + ", having/nested " + c.havingOrNested() + ", date arithmetic "
                        + c.dateArithmetic() + ", null handling " + c.nullHandling() + ", ordered projection "
                        + c.orderedProjection() + ", template siblings " + c.templateSiblings());
            }
            out.println(problems == 0 ? "all items ok" : problems + " item(s) with problems (marked !)");
            return problems == 0 ? 0 : 1;
        }
    }
}
