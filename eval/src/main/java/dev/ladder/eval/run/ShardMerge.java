package dev.ladder.eval.run;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.common.StableJson;
import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.common.FileTrees;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Joins the run directories of {@code ladder run --shard i/N}, i = 1..N, into the run directory one machine would have
 * written: the same config.yaml, every row at its item position in one results store, the whole run's meta,
 * predictions and traces regenerated from that store, and an environment.json that keeps what the shards share.
 *
 * <p>Everything is checked before anything is written: one experiment (byte-identical config.yaml), the same meta
 * (model fingerprints, selection, scorers, skipped cells), shards 1..N each exactly once, and every cell that is not
 * skipped holding exactly its shard's items at their positions. The merged directory is made beside the target under
 * a hidden name and renamed into place at the end, so a failed merge leaves nothing behind.
 */
public final class ShardMerge {

    /** What a merge wrote: the run directory, how many shards, cells and rows. */
    public record Merged(Path directory, int shards, int cells, int rows) {}

    /** One shard directory as read. */
    private record ShardRun(Path dir, Shard shard, String config, SortedMap<String, String> meta, List<Cell> cells,
                            Map<String, String> environment) {}

    /** environment.json's key: the merged run's first start, the earliest of its shards'. */
    static final String STARTED = "run.started";

    private static final ObjectMapper JSON = StableJson.mapper();

    private ShardMerge() {
    }

    /**
     * Checks and merges the shard directories into {@code out}.
     *
     * @param shardDirs the shards' run directories, in any order
     * @param out       the merged run directory: must not exist, or be an empty directory
     * @param finish    writes what else belongs in the run directory (the report), given the directory before it is
     *                  moved into place; a failure there leaves nothing behind either
     * @throws UserError for anything the user can fix: the shards do not make one whole run, one is unfinished,
     *                   {@code out} is not empty
     */
    public static Merged merge(List<Path> shardDirs, Path out, Consumer<Path> finish) {
        Path target = out.toAbsolutePath().normalize();
        checkTarget(target);
        List<ShardRun> shards = read(shardDirs);
        checkSameExperiment(shards);
        checkNumbering(shards);
        shards = shards.stream().sorted(Comparator.comparingInt(s -> s.shard().index())).toList();
        checkSameMeta(shards);
        ShardRun first = shards.get(0);
        Experiment experiment = experiment(first);
        Benchmark benchmark = Benchmarks.load(experiment.benchmark(), experiment.database());
        List<BenchmarkItem> items = experiment.subset().select(benchmark.split(experiment.split()), experiment.limit()).items();
        checkSelection(first, items);
        List<Cell> cells = experiment.cells();
        for (ShardRun s : shards) checkComplete(s, cells, items);
        int rows = write(target, shards, cells, benchmark, items, finish);
        return new Merged(target, shards.size(), cells.size(), rows);
    }

    // ---- reading and checks --------------------------------------------------------------------------------------

    private static void checkTarget(Path target) {
        if (!Files.exists(target)) return;
        if (!Files.isDirectory(target)) throw new UserError("--out " + target + " is a file: merge into a new directory");
        try (Stream<Path> entries = Files.list(target)) {
            if (entries.findAny().isPresent()) {
                throw new UserError("--out " + target + " exists and is not empty: merge into a new directory");
            }
        } catch (IOException e) {
            throw new UserError("cannot read --out " + target + ": " + e.getMessage(), e);
        }
    }

    private static List<ShardRun> read(List<Path> dirs) {
        List<ShardRun> out = new ArrayList<>();
        Set<Path> seen = new HashSet<>();
        for (Path given : dirs) {
            Path dir = given.toAbsolutePath().normalize();
            if (!seen.add(dir)) throw new UserError(dir + " is named twice: give each shard directory once");
            Path results = dir.resolve(RunDirectory.RESULTS);
            if (!Files.isRegularFile(results)) {
                throw new UserError("not a run directory: " + dir + " (no " + RunDirectory.RESULTS
                        + "; 'ladder run EXPERIMENT --shard i/N' writes one)");
            }
            Path configFile = dir.resolve(RunDirectory.CONFIG);
            String config;
            try {
                config = Files.readString(configFile, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UserError("cannot read " + configFile + ": " + e.getMessage()
                        + " (every run directory has one; was this shard copied whole?)", e);
            }
            SortedMap<String, String> meta;
            List<Cell> cells;
            boolean hasRows;
            try (ResultsStore store = ResultsStore.openReadOnly(results)) {
                meta = store.metaEntries();
                cells = store.cells();
                hasRows = store.hasResults();
            }
            String label = meta.get(Shard.META_KEY);
            if (label == null && !hasRows) {
                throw new UserError(dir + " has no results yet (its run stopped before the first item): resume it with "
                        + "its 'ladder run EXPERIMENT --shard i/N --out " + dir + "' command, then merge again");
            }
            if (label == null) {
                throw new UserError(dir + " is a whole run, not a shard (it ran without --shard): ladder merge joins "
                        + "the directories of 'ladder run EXPERIMENT --shard i/N', i = 1..N");
            }
            Shard shard;
            try {
                shard = Shard.parse(label, "shard");
            } catch (UserError e) {
                throw new UserError(dir + " records shard '" + label + "', which is not i/N: not a shard Ladder wrote", e);
            }
            out.add(new ShardRun(dir, shard, config, meta, cells, environment(dir)));
        }
        return out;
    }

    private static Map<String, String> environment(Path dir) {
        Path file = dir.resolve(RunDirectory.ENVIRONMENT);
        if (!Files.isRegularFile(file)) return Map.of();
        try {
            Map<String, Object> raw = JSON.readValue(file.toFile(), new TypeReference<Map<String, Object>>() {});
            Map<String, String> env = new TreeMap<>();
            raw.forEach((k, v) -> env.put(k, v == null ? "" : v.toString()));
            return env;
        } catch (IOException e) {
            throw new UserError("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** One experiment: config.yaml byte for byte (the runner writes the experiment's, whatever a shard's directory). */
    private static void checkSameExperiment(List<ShardRun> shards) {
        ShardRun a = shards.get(0);
        for (ShardRun b : shards.subList(1, shards.size())) {
            if (b.config().equals(a.config())) continue;
            List<String> x = a.config().lines().toList();
            List<String> y = b.config().lines().toList();
            int line = 0;
            while (line < Math.min(x.size(), y.size()) && x.get(line).equals(y.get(line))) line++;
            throw new UserError(a.dir() + " and " + b.dir() + " are runs of different experiments (config.yaml line "
                    + (line + 1) + ": '" + (line < x.size() ? x.get(line).strip() : "(end)") + "' there, '"
                    + (line < y.size() ? y.get(line).strip() : "(end)") + "' here): merge the shards of one experiment");
        }
    }

    /** Shards 1..N of one N, each exactly once. */
    private static void checkNumbering(List<ShardRun> shards) {
        ShardRun a = shards.get(0);
        int n = a.shard().count();
        for (ShardRun b : shards) {
            if (b.shard().count() != n) {
                throw new UserError(a.dir() + " is shard " + a.shard().label() + " but " + b.dir() + " is shard "
                        + b.shard().label() + ": the shards of one run all split the items into the same N");
            }
        }
        Map<Integer, ShardRun> byIndex = new TreeMap<>();
        for (ShardRun s : shards) {
            ShardRun twice = byIndex.putIfAbsent(s.shard().index(), s);
            if (twice != null) {
                throw new UserError("shard " + s.shard().label() + " is given twice: " + twice.dir() + " and " + s.dir()
                        + " (each shard's directory once)");
            }
        }
        List<String> missing = new ArrayList<>();
        for (int i = 1; i <= n; i++) if (!byIndex.containsKey(i)) missing.add(i + "/" + n);
        if (!missing.isEmpty()) {
            throw new UserError((missing.size() == 1 ? "shard " + missing.get(0) + " is" : "shards "
                    + String.join(", ", missing) + " are") + " missing: pass all " + n + " shard directories, each made by "
                    + "'ladder run EXPERIMENT --shard i/" + n + "'");
        }
    }

    /**
     * The same meta in every shard but the shard number: model and adapter fingerprints (one model's rows), the
     * selection, the scorers' modes, why TS is missing, which cells were skipped.
     */
    private static void checkSameMeta(List<ShardRun> shards) {
        ShardRun a = shards.get(0);
        for (ShardRun b : shards.subList(1, shards.size())) {
            Set<String> keys = new TreeSet<>(a.meta().keySet());
            keys.addAll(b.meta().keySet());
            keys.remove(Shard.META_KEY);
            for (String key : keys) {
                String x = a.meta().get(key);
                String y = b.meta().get(key);
                if (Objects.equals(x, y)) continue;
                if (key.startsWith("fingerprint.")) {
                    throw new UserError(a.dir() + " and " + b.dir() + " ran on different files (" + key + " "
                            + brief(x) + " there, " + brief(y) + " here): their rows are not one model's; rerun one "
                            + "of the shards on the other's files");
                }
                throw new UserError(a.dir() + " and " + b.dir() + " differ in " + key + " ('" + brief(x) + "' there, '"
                        + brief(y) + "' here): they are not shards of one run");
            }
        }
    }

    private static String brief(String value) {
        if (value == null) return "(none)";
        return value.length() <= 80 ? value : value.substring(0, 77) + "...";
    }

    private static Experiment experiment(ShardRun first) {
        try {
            return ExperimentLoader.parse(first.config(), first.dir().resolve(RunDirectory.CONFIG).toString());
        } catch (UserError e) {
            // its benchmark and model paths are checked as 'ladder run' checks them: merge where they exist
            throw new UserError("the shards' experiment does not load here: " + e.getMessage(), e);
        }
    }

    /** The shards' recorded selection is the experiment's selection from the benchmark as it is now. */
    private static void checkSelection(ShardRun first, List<BenchmarkItem> items) {
        String recorded = first.meta().get(ExperimentRunner.ITEM_IDS);
        if (recorded == null) {
            throw new UserError(first.dir() + " does not record its items (" + ExperimentRunner.ITEM_IDS
                    + "): it was made by a Ladder without shards; run the shards again");
        }
        if (!recorded.equals(ExperimentRunner.itemIds(items))) {
            throw new UserError("the items the shards answered are not the experiment's selection from the benchmark "
                    + "now (" + items.size() + " items): the benchmark changed since they ran; run the shards again");
        }
    }

    /**
     * Every cell the experiment runs holds exactly this shard's items, each at its position; a skipped cell (the same
     * in every shard, by the meta check) holds none.
     */
    private static void checkComplete(ShardRun s, List<Cell> cells, List<BenchmarkItem> items) {
        List<Integer> positions = s.shard().positions(items.size());
        try (ResultsStore store = ResultsStore.openReadOnly(s.dir().resolve(RunDirectory.RESULTS))) {
            for (Cell recorded : s.cells()) {
                if (recorded.index() >= cells.size() || !cells.get(recorded.index()).equals(recorded)) {
                    throw new UserError(s.dir() + " has cell '" + recorded.name() + "', which its experiment does not "
                            + "define as such: not a run of its config.yaml; run the shard again into a new directory");
                }
            }
            Set<String> present = new HashSet<>();
            s.cells().forEach(c -> present.add(c.name()));
            for (Cell cell : cells) {
                boolean skipped = s.meta().containsKey("skipped." + cell.name());
                List<String> ids = present.contains(cell.name()) ? new ArrayList<>(store.finishedItems(cell.name()))
                        : List.of();
                List<Integer> orders = present.contains(cell.name()) ? store.itemOrders(cell.name()) : List.of();
                for (int i = 0; i < ids.size(); i++) {
                    int p = orders.get(i);
                    if (p >= items.size() || !s.shard().owns(p) || !items.get(p).id().equals(ids.get(i))) {
                        throw new UserError(s.dir() + ": cell " + cell.name() + " holds item '" + ids.get(i)
                                + "' at position " + p + ", which is not one of shard " + s.shard().label()
                                + "'s items of this selection: not a shard of this run");
                    }
                }
                if (skipped && !ids.isEmpty()) {
                    throw new UserError(s.dir() + ": cell " + cell.name() + " is recorded as skipped but has rows");
                }
                if (!skipped && ids.size() < positions.size()) {
                    throw new UserError("shard " + s.shard().label() + " (" + s.dir() + ") is unfinished: cell "
                            + cell.name() + " has " + ids.size() + " of its " + positions.size() + " items; resume it "
                            + "with the same command ('ladder run EXPERIMENT --shard " + s.shard().label() + " --out "
                            + s.dir() + "'), then merge again");
                }
            }
        }
    }

    // ---- writing -------------------------------------------------------------------------------------------------

    private static int write(Path target, List<ShardRun> shards, List<Cell> cells, Benchmark benchmark,
                             List<BenchmarkItem> items, Consumer<Path> finish) {
        Path parent = target.getParent();
        if (parent == null) throw new UserError("--out " + target + ": the root directory cannot hold a run");
        Path staging;
        try {
            Files.createDirectories(parent);
            removeOrphanedStaging(target);
            // a plain directory (not createTempDirectory, owner-only): the renamed run keeps the usual modes
            staging = Files.createDirectory(parent.resolve(stagingPrefix(target) + ProcessHandle.current().pid() + "-"
                    + System.nanoTime()));
        } catch (IOException e) {
            throw WriteFailures.orElse(parent, e, new UserError("cannot create a directory beside " + target + ": "
                    + e.getMessage(), e));
        }
        try {
            RunDirectory dir = RunDirectory.create(staging);
            ShardRun first = shards.get(0);
            dir.writeConfig(first.config());
            dir.writeEnvironment(environment(shards));
            int[] rows = {0};
            try (ResultsStore store = dir.openResults()) {
                store.inOneTransaction(() -> {
                    first.meta().forEach((k, v) -> {
                        if (!k.equals(Shard.META_KEY)) store.putMeta(k, v);
                    });
                    for (Cell cell : cells) store.putCell(cell);
                    for (Cell cell : cells) {
                        for (ShardRun s : shards) rows[0] += copyRows(s, cell, store);
                    }
                });
                dir.writePredictions(store, RunDirectory.dbIds(benchmark, items));
                dir.writeTraces(store);
            }
            finish.accept(staging);
            publish(staging, target);
            return rows[0];
        } catch (RuntimeException | Error e) {
            FileTrees.deleteQuietly(staging);
            throw e;
        }
    }

    /** {@code .OUT.merge-}: a merge into OUT stages beside it in {@code .OUT.merge-<pid>-<nanos>}. */
    private static String stagingPrefix(Path target) {
        return "." + target.getFileName() + ".merge-";
    }

    /**
     * Deletes what merges into {@code target} that were killed left beside it (their staging folders, whose process
     * is gone); a running merge's folder stays. A merge or a run into the same target calls it; a failure to clean up
     * stops neither.
     */
    public static void removeOrphanedStaging(Path target) {
        Path abs = target.toAbsolutePath().normalize();
        if (abs.getParent() == null) return;
        try {
            FileTrees.deleteOrphans(abs.getParent(), stagingPrefix(abs));
        } catch (IOException e) {
            // left for a later merge; the folders are hidden and hold nothing that anything reads
        }
    }

    /** A cell's rows of one shard, at the positions the shard stored them (those of the whole selection). */
    private static int copyRows(ShardRun s, Cell cell, ResultsStore into) {
        if (s.cells().stream().noneMatch(c -> c.name().equals(cell.name()))) return 0; // skipped, never recorded
        try (ResultsStore from = ResultsStore.openReadOnly(s.dir().resolve(RunDirectory.RESULTS))) {
            List<ItemResult> rows = from.results(cell.name());
            List<Integer> orders = from.itemOrders(cell.name());
            List<String> traces = from.traces(cell.name());
            for (int i = 0; i < rows.size(); i++) into.put(rows.get(i), orders.get(i), traces.get(i));
            return rows.size();
        }
    }

    /**
     * The merged environment.json: a value every shard has alike is kept; {@code run.started} is the earliest shard's
     * start (the whole run's first start, as an unsharded run dates itself); {@code git.dirty} is true when any shard's
     * was; any other value that differs (a load time, a heap size, a device) lists the distinct values in shard order,
     * separated by ", ". {@code run.shard} gives way to {@code merge.shard_count} and {@code merge.shard.<i>} (each
     * shard's directory).
     */
    private static Map<String, String> environment(List<ShardRun> shards) {
        Set<String> keys = new TreeSet<>();
        shards.forEach(s -> keys.addAll(s.environment().keySet()));
        keys.remove("run." + Shard.META_KEY);
        Map<String, String> out = new TreeMap<>();
        for (String key : keys) {
            List<String> values = new ArrayList<>();
            for (ShardRun s : shards) {
                String v = s.environment().get(key);
                if (v != null) values.add(v);
            }
            Set<String> distinct = new LinkedHashSet<>(values);
            String merged;
            if (distinct.size() == 1) merged = values.get(0);
            else if (key.equals(STARTED)) merged = earliest(values);
            else if (key.equals("git.dirty") && distinct.contains("true")) merged = "true";
            else merged = String.join(", ", distinct);
            out.put(key, merged);
        }
        out.put("merge.shard_count", Integer.toString(shards.size()));
        for (ShardRun s : shards) out.put("merge.shard." + s.shard().index(), s.dir().toString());
        return out;
    }

    private static String earliest(List<String> starts) {
        String best = null;
        Instant bestAt = null;
        for (String s : starts) {
            try {
                Instant at = Instant.parse(s);
                if (bestAt == null || at.isBefore(bestAt)) {
                    best = s;
                    bestAt = at;
                }
            } catch (DateTimeParseException e) {
                // not a date this code wrote: listed after the dates rather than guessed at
            }
        }
        return best != null ? best : String.join(", ", new LinkedHashSet<>(starts));
    }

    private static void publish(Path staging, Path target) {
        try {
            // an empty target was allowed (checked first); rename(2) would refuse a directory in its place
            if (Files.isDirectory(target)) Files.delete(target);
            try {
                Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(staging, target);
            }
        } catch (IOException e) {
            throw new UserError("cannot move the merged run to " + target + ": " + e.getMessage(), e);
        }
    }
}
