package dev.ladder.eval.run;

import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.scorer.score.ErrorTaxonomy;
import dev.ladder.scorer.score.ExOptions;
import dev.ladder.scorer.score.Scoring;
import dev.ladder.scorer.testsuite.ScoringSetup;
import dev.ladder.pipeline.oracle.OracleKey;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.LadderPaths;
import dev.ladder.sql.db.UserError;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The databases of a run: the selected items grouped by the database each one names ({@link #specOf}), in the order
 * of their first item. Every item is answered, executed and scored on its own database only: each scope has its own
 * {@link Database}, error taxonomy, scorers (with that database's test suite), oracle key and strategy context. A
 * benchmark of one database is one scope, and runs exactly as a run did before scopes.
 *
 * <p>The databases stay open for the whole run (a SQLite file or a database on one server costs a connection); a
 * scope's scorers, which may hold a suite of hundreds of databases, are opened for the scope's work and closed after
 * it ({@link #scoring}).
 */
final class DatabaseScopes implements AutoCloseable {

    /**
     * One database of the run.
     *
     * @param id        the database's id: the items' {@code db} (Spider's and BIRD's {@code db_id}), or the name of the
     *                  database that items without one run on
     * @param spec      how it opens ({@link Databases#open})
     * @param positions the positions in the selection of the items that run on it, in order
     * @param db        the open database
     * @param taxonomy  the error taxonomy of its schema
     */
    record Scope(String id, String spec, List<Integer> positions, Database db, ErrorTaxonomy taxonomy) {}

    /** A scope's scorers while its work runs: the experiment's EX mode (with TS where it has a suite) and the second. */
    record ScopeScoring(Scope scope, Scoring main, Scoring alsoEx, List<Database> opened) implements AutoCloseable {
        RowScorer rows() {
            return new RowScorer(main, alsoEx, scope.taxonomy(), scope.id());
        }

        @Override
        public void close() {
            for (int i = opened.size() - 1; i >= 0; i--) opened.get(i).close();
        }
    }

    private final Experiment experiment;
    private final List<Scope> scopes;
    private final List<BenchmarkItem> items;

    private DatabaseScopes(Experiment experiment, List<Scope> scopes, List<BenchmarkItem> items) {
        this.experiment = experiment;
        this.scopes = List.copyOf(scopes);
        this.items = items;
    }

    /**
     * The database spec an item runs on: its own {@code db} through the benchmark, else the experiment's database
     * (which defaults to the benchmark's).
     */
    static String specOf(Experiment experiment, Benchmark benchmark, BenchmarkItem item) {
        return item.db().isEmpty() ? experiment.database() : benchmark.databaseOf(item);
    }

    /**
     * Groups {@code items} by database and opens each database; a database that cannot be opened is one line naming
     * it and its first item, and closes what was opened.
     */
    static DatabaseScopes open(Experiment experiment, Benchmark benchmark, List<BenchmarkItem> items,
                               Optional<String> serverUrl) {
        Map<String, List<Integer>> bySpec = new LinkedHashMap<>();
        Map<String, String> idOf = new LinkedHashMap<>();
        for (int i = 0; i < items.size(); i++) {
            BenchmarkItem item = items.get(i);
            String spec = specOf(experiment, benchmark, item);
            bySpec.computeIfAbsent(spec, s -> new ArrayList<>()).add(i);
            idOf.putIfAbsent(spec, item.db());
        }
        if (bySpec.isEmpty()) bySpec.put(experiment.database(), List.of());
        List<Scope> scopes = new ArrayList<>();
        try {
            for (Map.Entry<String, List<Integer>> e : bySpec.entrySet()) {
                Database db = Databases.open(e.getKey(), LadderPaths.dataDir(), serverUrl, experiment.sqlMode());
                ErrorTaxonomy taxonomy;
                try {
                    taxonomy = new ErrorTaxonomy(db.schema());
                } catch (RuntimeException failed) {
                    db.close();
                    throw failed;
                }
                String id = idOf.getOrDefault(e.getKey(), "");
                scopes.add(new Scope(id.isEmpty() ? db.name() : id, e.getKey(), List.copyOf(e.getValue()), db, taxonomy));
            }
        } catch (RuntimeException e) {
            scopes.forEach(s -> s.db().close());
            throw e;
        }
        return new DatabaseScopes(experiment, scopes, items);
    }

    List<Scope> all() {
        return scopes;
    }

    /** Whether the run has more than one database (its report and view then break results down by database). */
    boolean several() {
        return scopes.size() > 1;
    }

    /** The scope of each selected item, by item id. */
    Map<String, Scope> byItemId() {
        Map<String, Scope> out = new LinkedHashMap<>();
        for (Scope s : scopes) s.positions().forEach(p -> out.put(items.get(p).id(), s));
        return out;
    }

    /** The positions of {@code positions} that are the scope's, in the order given. */
    static List<Integer> of(Scope scope, List<Integer> positions) {
        Set<Integer> mine = new HashSet<>(scope.positions());
        return positions.stream().filter(mine::contains).toList();
    }

    /**
     * Opens a scope's scorers: the experiment's EX mode, with the scope's test suite unless {@code withSuite} is false
     * (TS is then missing for the whole run: a mean over the databases that have a suite would be a number about
     * another set of items), and the second EX mode if the experiment has one.
     */
    ScopeScoring scoring(Scope scope, boolean withSuite) {
        List<Database> opened = new ArrayList<>();
        try {
            Scoring main = ScoringSetup.create(scope.db(), experiment.scorers().exOptions(),
                    withSuite ? experiment.scorers().suiteMode() : ScoringSetup.Suite.NONE,
                    withSuite ? experiment.scorers().suite() : null, opened, experiment.sqlMode());
            ExOptions alsoEx = experiment.scorers().alsoExOptions();
            Scoring also = alsoEx == null ? null : ScoringSetup.create(scope.db(), alsoEx, ScoringSetup.Suite.NONE, null,
                    opened, experiment.sqlMode());
            return new ScopeScoring(scope, main, also, opened);
        } catch (RuntimeException e) {
            for (int i = opened.size() - 1; i >= 0; i--) opened.get(i).close();
            throw e;
        }
    }

    /**
     * The oracle's key over a scope's items: each one's gold, and the scope's EX as "does this SQL answer it". An item
     * of another database is unknown to it.
     */
    OracleKey oracleKey(Scope scope, Scoring scoring) {
        List<BenchmarkItem> mine = scope.positions().stream().map(items::get).toList();
        return ExperimentRunner.oracleKey(mine, scoring);
    }

    @Override
    public void close() {
        for (int i = scopes.size() - 1; i >= 0; i--) scopes.get(i).db().close();
    }
}
