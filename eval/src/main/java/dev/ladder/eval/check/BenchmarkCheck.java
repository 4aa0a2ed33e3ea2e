package dev.ladder.eval.check;

import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.scorer.bench.JsonlBenchmarks;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.scorer.testsuite.TestSuite;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.DatabaseKind;
import dev.ladder.sql.db.EmbeddedMariaDb;
import dev.ladder.sql.db.SqlMode;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * {@code ladder bench check}: every item of a benchmark read where it stands (file:line for JSONL), grouped by the
 * database it runs on, each gold checked by {@link GoldCheck} on that database and on its stored test suite's
 * databases, the coverage of the items whose golds are read-only queries, and the gold audit ({@link GoldAudit}).
 */
public final class BenchmarkCheck {

    private BenchmarkCheck() {}

    /** An item, where it was read (file:line for JSONL) and the database it runs on. */
    public record Entry(BenchmarkItem item, String where, String database) {}

    /** One database's verdicts, in item order, the coverage of its covered items, and the gold audit's suspicions. */
    public record DatabaseResult(String database, List<GoldCheck.Verdict> verdicts, Coverage coverage,
                                 List<Suspect> suspects) {
        public long problems() {
            return verdicts.stream().filter(GoldCheck.Verdict::bad).count();
        }
    }

    /** A gold the audit suspects ({@link GoldAudit}): the item, where it was read, and why. */
    public record Suspect(String itemId, String where, List<String> reasons) {
        public String line() {
            return itemId + "\t" + where + ": likely wrong gold: " + String.join("; ", reasons);
        }
    }

    /**
     * The predicted SQL of each item in a finished run's results store (every rung's, by item id), for the audit's
     * majority check.
     *
     * @throws UserError when the folder is not a run directory
     */
    public static Map<String, List<String>> predictions(Path run) {
        Path results = run.resolve(RunDirectory.RESULTS);
        if (!Files.isRegularFile(results)) {
            throw new UserError("--run " + run + ": not a run directory (no " + RunDirectory.RESULTS + " there)");
        }
        Map<String, List<String>> out = new LinkedHashMap<>();
        try (ResultsStore store = ResultsStore.openReadOnly(results)) {
            for (ItemResult r : store.results()) out.computeIfAbsent(r.itemId(), k -> new ArrayList<>()).add(r.predicted());
        }
        return out;
    }

    /** The SQL skeletons and normalised questions of another benchmark or split, for the disjointness check. */
    public record Other(String name, Set<String> skeletons, Set<String> questions) {
        public static final Other NONE = new Other(null, Set.of(), Set.of());

        public static Other of(String benchmark, String database) {
            if (benchmark == null) return NONE;
            Set<String> skeletons = new HashSet<>();
            Set<String> questions = new HashSet<>();
            for (List<BenchmarkItem> split : Benchmarks.load(benchmark, database).splits().values()) {
                for (BenchmarkItem o : split) {
                    skeletons.add(Coverage.skeleton(o.sql()));
                    questions.add(Coverage.normalizeQuestion(o.question()));
                }
            }
            return new Other(benchmark, skeletons, questions);
        }
    }

    /**
     * The items of a benchmark by database, databases in the order of their first item. A JSONL file keeps its line
     * numbers; other formats are named by split and position.
     *
     * @param database the database of items without their own, or null for the benchmark's
     */
    public static Map<String, List<Entry>> entries(String benchmark, String database) {
        Map<String, List<Entry>> byDatabase = new LinkedHashMap<>();
        for (Entry e : read(benchmark, database)) byDatabase.computeIfAbsent(e.database(), k -> new ArrayList<>()).add(e);
        return byDatabase;
    }

    private static List<Entry> read(String benchmark, String database) {
        Path file = Path.of(benchmark);
        if (Files.isRegularFile(file) && benchmark.endsWith(".jsonl")) {
            String db = database == null ? "classicmodels" : database;
            try (InputStream in = Files.newInputStream(file)) {
                return JsonlBenchmarks.readNumbered(in, file.toString()).stream()
                        .map(n -> new Entry(n.item(), file + ":" + n.line(), db)).toList();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        Benchmark b = Benchmarks.load(benchmark, database);
        List<Entry> entries = new ArrayList<>();
        for (Map.Entry<String, List<BenchmarkItem>> split : b.splits().entrySet()) {
            int k = 0;
            for (BenchmarkItem item : split.getValue()) {
                String db = item.db().isEmpty() && database != null ? database : b.databaseOf(item);
                entries.add(new Entry(item, b.name() + " " + split.getKey() + " item " + ++k, db));
            }
        }
        return entries;
    }

    /**
     * Checks one database's items. Ties are checked on the stored test suite's databases too: a gold whose order or
     * LIMIT cut depends on the engine there makes TS depend on it.
     *
     * @param open opens a database by its spec (the caller's server and SQL mode)
     */
    public static DatabaseResult check(String database, List<Entry> entries, Other other,
                                       Function<String, Database> open, SqlMode sqlMode) {
        return check(database, entries, other, open, sqlMode, Map.of());
    }

    /**
     * As {@link #check(String, List, Other, Function, SqlMode)}, with the gold audit reading a finished run's
     * predictions ({@link #predictions}; empty: no run).
     */
    public static DatabaseResult check(String database, List<Entry> entries, Other other,
                                       Function<String, Database> open, SqlMode sqlMode,
                                       Map<String, List<String>> runPredictions) {
        List<BenchmarkItem> covered = new ArrayList<>();
        List<GoldCheck.Verdict> verdicts = new ArrayList<>();
        List<Suspect> suspects = new ArrayList<>();
        List<Database> suite = new ArrayList<>();
        try (Database db = open.apply(database)) {
            if (db.kind() == DatabaseKind.EMBEDDED_MARIADB) {
                var stored = TestSuite.load(TestSuite.defaultDir(db.name()));
                if (stored.isPresent()) {
                    List<Database> all = stored.get().open(EmbeddedMariaDb.shared(), sqlMode);
                    suite.addAll(all);
                    all.get(0).close();   // the original again: checked as db
                    suite.remove(0);
                }
            }
            GoldCheck goldCheck = new GoldCheck(db, suite, other.skeletons(), other.questions(), other.name());
            GoldAudit audit = new GoldAudit(db, runPredictions);
            for (Entry entry : entries) {
                BenchmarkItem item = entry.item();
                GoldCheck.Verdict v = goldCheck.check(item, entry.where());
                // coverage describes the items whose golds are read-only queries; the others are findings
                if (v.covered()) {
                    covered.add(item);
                    List<String> reasons = audit.reasons(item, OrderCheck.problems(db, item.sql(), item.orderMatters()));
                    if (!reasons.isEmpty()) suspects.add(new Suspect(item.id(), entry.where(), reasons));
                }
                verdicts.add(v);
            }
            return new DatabaseResult(database, verdicts, Coverage.of(covered, db.schema()), suspects);
        } finally {
            suite.forEach(Database::close);
        }
    }
}
