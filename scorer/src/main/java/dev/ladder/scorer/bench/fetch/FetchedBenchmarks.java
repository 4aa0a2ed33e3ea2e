package dev.ladder.scorer.bench.fetch;

import dev.ladder.sql.db.LadderPaths;
import dev.ladder.sql.db.UserError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where fetched benchmarks and suites live and how their names find them: {@code ladder bench fetch} lays each out
 * in {@code <cache>/benchmarks/<name>} ({@link #home()}); a name is looked up first in the data directory
 * ({@code <data dir>/<name>}, a copy put there by hand), then there.
 */
public final class FetchedBenchmarks {

    /** The file of a laid-out folder that says what was fetched from where (sizes, SHA-256, date). */
    public static final String PROVENANCE = "ladder-fetch.properties";

    private FetchedBenchmarks() {}

    /** Where fetches lay out their folders. */
    public static Path home() {
        return LadderPaths.cacheDir().resolve("benchmarks");
    }

    /** The folders {@code name} may be in, in lookup order. */
    static List<Path> candidates(String name) {
        List<Path> dirs = new ArrayList<>();
        LadderPaths.dataDir().ifPresent(d -> dirs.add(d.resolve(name)));
        dirs.add(home().resolve(name));
        return dirs;
    }

    /** The laid-out folder of {@code recipe}, if there is one. */
    public static Optional<Path> locate(FetchRecipe recipe) {
        for (Path dir : candidates(recipe.name())) {
            boolean there = switch (recipe.layout()) {
                case SPIDER_DEV -> Files.isRegularFile(dir.resolve("tables.json"));
                case BIRD_DEV -> Files.isRegularFile(dir.resolve("dev.json"));
                case SUITE -> Files.isDirectory(dir);
            };
            if (there) return Optional.of(dir);
        }
        return Optional.empty();
    }

    /**
     * What {@code Benchmarks.load} reads for a fetched benchmark's name ({@code spider-dev}: its folder,
     * {@code bird-dev}: its {@code dev.json}); empty when {@code name} is no fetch recipe's benchmark, or is one not
     * fetched while a file or folder of that name exists (then that is what the user means).
     *
     * @throws UserError when it names a benchmark that is not fetched
     */
    public static Optional<Path> benchmark(String name) {
        return find(name, true);
    }

    /**
     * The folder of a fetched test suite named {@code name} ({@code spider-ts}), for {@code scorers.suite}; empty as
     * for {@link #benchmark}.
     */
    public static Optional<Path> suite(String name) {
        return find(name, false);
    }

    private static Optional<Path> find(String name, boolean benchmark) {
        Optional<FetchRecipe> recipe = FetchRecipes.pinned().all().stream()
                .filter(r -> r.name().equals(name) && r.layout().benchmark() == benchmark).findFirst();
        if (recipe.isEmpty()) return Optional.empty();
        Optional<Path> dir = locate(recipe.get());
        if (dir.isPresent()) return Optional.of(entry(recipe.get(), dir.get()));
        if (Files.exists(Path.of(name))) return Optional.empty();
        FetchRecipe r = recipe.get();
        String fetchName = r.aliases().isEmpty() ? r.name() : r.aliases().get(0);
        throw new UserError((benchmark ? "benchmark '" : "test suite '") + name + "' is not fetched: run 'ladder bench fetch "
                + fetchName + "' (it lays it out in " + home().resolve(name) + "; looked in "
                + String.join(", ", candidates(name).stream().map(Path::toString).toList()) + ")");
    }

    /** The path a layout's name stands for inside its folder. */
    static Path entry(FetchRecipe recipe, Path dir) {
        return switch (recipe.layout()) {
            case SPIDER_DEV, SUITE -> dir;
            case BIRD_DEV -> dir.resolve("dev.json");
        };
    }
}
