package dev.ladder.cli;

import dev.ladder.scorer.bench.fetch.BenchmarkFetch;
import dev.ladder.scorer.bench.fetch.FetchRecipe;
import dev.ladder.scorer.bench.fetch.FetchRecipes;
import dev.ladder.scorer.bench.fetch.FetchedBenchmarks;
import dev.ladder.sql.db.UserError;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ladder bench fetch}: Spider dev, BIRD dev and Spider's official test suite as recipes (docs/benchmark.md). */
@Command(name = "fetch", mixinStandardHelpOptions = true,
        description = "Download Spider dev (spider), BIRD dev (bird) or the official test-suite databases (spider-ts) from "
                + "their public addresses, check size and SHA-256, and lay them out in <cache>/benchmarks/ where "
                + "'benchmark: spider-dev' / 'bird-dev' (and --benchmark) and 'scorers.suite: spider-ts' find them. "
                + "An interrupted download resumes; a stop at any instant leaves no folder or the whole one.")
final class BenchFetchCommand implements Callable<Integer> {

    @Spec CommandSpec spec;
    @Parameters(arity = "0..*", paramLabel = "NAME", description = "spider, bird or spider-ts (also spider-dev, bird-dev).")
    List<String> names = new ArrayList<>();
    @Option(names = "--list", description = "List what can be fetched, where it is and how it is checked.")
    boolean list;
    @Option(names = "--again", description = "Fetch again over a folder already laid out (replaced in one rename).")
    boolean again;
    @Option(names = "--mirror", paramLabel = "URL",
            description = "Download every archive from URL/<file> instead of the official address (default: $LADDER_BENCHMARK_MIRROR).")
    String mirror;
    @Option(names = "--manifest", paramLabel = "FILE",
            description = "A JSON file {\"<name>\": {\"size\": N, \"sha256\": \"...\"}} replacing the pinned size and SHA-256.")
    Path manifest;

    @Override
    public Integer call() {
        FetchRecipes recipes = FetchRecipes.pinned();
        if (manifest != null) {
            if (!Files.isRegularFile(manifest)) throw new UserError("no such fetch manifest: " + manifest);
            recipes = recipes.withManifest(manifest);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (list) {
            list(recipes, out);
            return 0;
        }
        if (names.isEmpty()) {
            throw new UserError("bench fetch: name what to fetch: spider, bird or spider-ts (--list shows them)");
        }
        List<FetchRecipe> chosen = new ArrayList<>();
        for (String n : names) {
            FetchRecipe r = recipes.get(n);
            if (!chosen.contains(r)) chosen.add(r);
        }
        BenchmarkFetch fetch = new BenchmarkFetch(FetchedBenchmarks.home(),
                mirror != null ? mirror : BenchmarkFetch.environmentMirror().orElse(null));
        for (FetchRecipe r : chosen) {
            BenchmarkFetch.Result res = fetch.fetch(r, again);
            String use = r.layout().benchmark() ? "'benchmark: " + r.name() + "' or --benchmark " + r.name()
                    : "'scorers.suite: " + r.name() + "' (or the path)";
            if (res.alreadyThere()) {
                out.println(r.name() + ": already in " + res.dir() + " (--again fetches it again); use it as " + use);
            } else {
                out.println(r.name() + ": laid out in " + res.dir() + " from " + fetch.source(r) + " (" + res.size()
                        + " bytes, SHA-256 " + res.sha256() + ", " + res.check() + (res.resumed() ? ", resumed" : "")
                        + "); use it as " + use);
            }
            out.flush();
        }
        return 0;
    }

    private static void list(FetchRecipes recipes, PrintWriter out) {
        TextTable t = new TextTable(List.of("name", "fetch as", "what", "checked by", "where"));
        for (FetchRecipe r : recipes.all()) {
            String where = FetchedBenchmarks.locate(r).map(Path::toString).orElse("not fetched");
            String check = r.sha256() != null ? "SHA-256" + (r.size() != null ? " and size" : "")
                    : "SHA-256 recorded on the first download";
            t.add(List.of(r.name(), r.aliases().isEmpty() ? r.name() : String.join(", ", r.aliases()), r.what(), check, where));
        }
        t.print(out);
        out.println("archives come from their official addresses (or $LADDER_BENCHMARK_MIRROR); fetched folders live in "
                + FetchedBenchmarks.home());
    }
}
