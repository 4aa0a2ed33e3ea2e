package dev.ladder.eval.report;

import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.experiment.Comparisons;
import dev.ladder.eval.run.ItemResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import tech.tablesaw.api.Table;

/**
 * The paper-ready report of one run (or of several merged): accuracy by cell with Wilson intervals, the spread
 * across seeds, breakdowns by category and difficulty, the declared comparisons (per seed and pooled, Holm-adjusted
 * within each metric's family, with the factors the two rungs differ in), the single-factor attribution, the error
 * taxonomy, and the costs. Each table is built by its own class from one {@link ReportModel}.
 *
 * <p>A cell is a rung run with one seed ({@code rung} or {@code rung@seed}). Every table except {@link #costs()}
 * depends only on the scored outcomes and the run's recorded provenance, so identical results give identical
 * tables; items are sorted by id before any resampling so the order of the input rows does not matter either.
 */
public final class Report {

    /** Error classes in the order reports list them; classes found in the data but not here follow, sorted. */
    public static final List<String> ERROR_CLASSES = List.of("correct", "not-executable", "wrong-table",
            "wrong-column", "wrong-join", "wrong-filter", "wrong-aggregation", "wrong-projection-or-order", "other");
    /** Difficulties in the order reports list them; others follow, sorted. */
    public static final List<String> DIFFICULTIES = List.of("easy", "medium", "hard", "extra");
    /** Stands for a missing category, difficulty or error class; listed last. */
    public static final String NONE = "(none)";
    /** The seed column's value of a comparison pooled over seeds. */
    public static final String POOLED = "pooled";

    /**
     * One run's input to a merged report.
     *
     * @param name    the run's name, its directory's name; prefixes rung names that another run also has
     * @param cells   the cells, in any order (sorted by {@link Cell#index()})
     * @param results one row per item and cell
     * @param info    the run's experiment, environment and meta values ({@link RunInfo#NONE} when unknown)
     */
    public record Run(String name, List<Cell> cells, List<ItemResult> results, RunInfo info,
                      Map<String, OracleTrace> oracle) {
        public Run {
            Objects.requireNonNull(name, "name");
            cells = List.copyOf(cells);
            results = List.copyOf(results);
            Objects.requireNonNull(info, "info");
            oracle = oracle == null ? Map.of() : Map.copyOf(oracle);
        }

        public Run(String name, List<Cell> cells, List<ItemResult> results, RunInfo info) {
            this(name, cells, results, info, Map.of());
        }

        /** This run with what its oracle traces say, keyed by {@link #oracleKey(String, String)}. */
        public Run withOracle(Map<String, OracleTrace> traces) {
            return new Run(name, cells, results, info, traces);
        }

        /** A run known only by its rows. */
        public Run(String name, List<Cell> cells, List<ItemResult> results) {
            this(name, cells, results, RunInfo.NONE);
        }

        /** A run named after its directory. */
        public static Run of(Path runDir, List<Cell> cells, List<ItemResult> results) {
            return of(runDir, cells, results, RunInfo.NONE);
        }

        /** A run named after its directory, with what else is known of it. */
        public static Run of(Path runDir, List<Cell> cells, List<ItemResult> results, RunInfo info) {
            Path file = runDir.toAbsolutePath().normalize().getFileName();
            return new Run(file == null ? "" : file.toString(), cells, results, info);
        }
    }

    /**
     * What the trace of an answer the oracle engine wrote says: whether any of its model calls carried semantic noise (a
     * corrupted gold) or format noise, and the strategy's decision.
     */
    public record OracleTrace(boolean semantic, boolean format, String decision) {}

    /** The key of a row in {@link Run#oracle()}. */
    public static String oracleKey(String cell, String item) {
        return cell + "\t" + item;
    }

    /**
     * The statistics' parameters.
     *
     * @param resamples bootstrap resamples B (intervals of differences)
     * @param seed      seed of each bootstrap's {@link java.util.SplittableRandom}
     */
    public record Options(int resamples, long seed) {
        /** B = 1000, seed 0. */
        public static final Options DEFAULT = new Options(Statistics.DEFAULT_RESAMPLES, Statistics.DEFAULT_SEED);

        public Options {
            if (resamples < 1) throw new IllegalArgumentException("resamples must be >= 1: " + resamples);
        }
    }

    /** Rung names a cell may not take: they are the other columns of the breakdown and error tables. */
    static final Set<String> RESERVED = Set.of("category", "difficulty", "database", "items", "error class");

    private final ReportModel model;
    private final Table results;
    private final ReportTable summary;
    private final ReportTable seeds;
    private final ReportTable categoryEx;
    private final ReportTable categoryTs;
    private final ReportTable databaseEx;
    private final ReportTable databaseTs;
    private final ReportTable difficultyEx;
    private final ReportTable difficultyTs;
    private final ReportTable comparisons;
    private final ReportTable attribution;
    private final ReportTable errors;
    private final ReportTable outcomes;
    private final ReportTable costs;
    private final ReportTable judgeAgreement;
    private final ReportTable diagnoses;
    private final ReportTable metrics;
    private final ReportTable oracleAnalysis;
    private final ReportTable oracleLosses;

    private Report(ReportModel model) {
        this.model = model;
        this.results = ResultsTable.build(model);
        this.summary = SummaryTable.build(model);
        this.seeds = model.multiSeed ? SeedsTable.build(model) : null;
        this.categoryEx = BreakdownTable.build(model, "category", "EX", ItemResult::ex);
        this.categoryTs = model.hasTs ? BreakdownTable.build(model, "category", "TS", ItemResult::ts) : null;
        // a benchmark of several databases (Spider, BIRD) is also read database by database
        boolean severalDatabases = model.allRows().map(ItemResult::database).filter(d -> !d.isEmpty()).distinct().count() > 1;
        this.databaseEx = severalDatabases ? BreakdownTable.build(model, "database", "EX", ItemResult::ex) : null;
        this.databaseTs = severalDatabases && model.hasTs ? BreakdownTable.build(model, "database", "TS", ItemResult::ts) : null;
        this.difficultyEx = BreakdownTable.build(model, "difficulty", "EX", ItemResult::ex);
        this.difficultyTs = model.hasTs ? BreakdownTable.build(model, "difficulty", "TS", ItemResult::ts) : null;
        ComparisonTables.Tables compared = ComparisonTables.build(model);
        this.comparisons = compared.comparisons();
        this.attribution = compared.attribution();
        this.errors = ErrorsTable.build(model);
        this.outcomes = OutcomesTable.build(model);
        this.costs = CostsTable.build(model);
        this.judgeAgreement = model.hasJudge ? JudgeAgreementTable.build(model) : null;
        this.diagnoses = model.allRows().anyMatch(r -> r.diagnosis() != null) ? DiagnosesTable.build(model) : null;
        List<String> otherMetrics = MetricsTable.otherMetrics(model);
        this.metrics = otherMetrics.isEmpty() ? null : MetricsTable.build(model, otherMetrics);
        this.oracleAnalysis = model.cellInfo.stream().anyMatch(c -> model.oracleNoise(c) != null)
                ? OracleTables.analysis(model) : null;
        this.oracleLosses = oracleAnalysis != null ? OracleTables.losses(model) : null;
        // a table's id names its files and its place in report.json: one the writer does not know would be lost
        List<ReportTable> all = new ArrayList<>(tables());
        all.add(costs);
        for (ReportTable t : all) {
            if (!tableIds().contains(t.id())) throw new IllegalStateException("report table id not in tableIds(): " + t.id());
        }
    }

    /** The report of one run with {@link Options#DEFAULT}. */
    public static Report of(List<Cell> cells, List<ItemResult> results) {
        return of(cells, results, Options.DEFAULT);
    }

    /** The report of one run. */
    public static Report of(List<Cell> cells, List<ItemResult> results, Options options) {
        return merge(List.of(new Run("", cells, results)), options);
    }

    /** The report of one run with what else is known of it. */
    public static Report of(Run run, Options options) {
        return merge(List.of(run), options);
    }

    /**
     * The report of several runs side by side: their cells in run order, each run's sorted by index. A cell name
     * that more than one run has becomes {@code runName/cellName} in every run that has it (and its rung
     * {@code runName/rung}); other names stay. Comparisons are those each run declares, within the run.
     *
     * @throws IllegalArgumentException when a result names a cell its run lacks, a (cell, item) pair repeats, a
     *                                  run repeats a cell name, prefixing still leaves two cells with one name
     *                                  (ignoring case), or a rung is named category, difficulty, items or error class
     */
    public static Report merge(List<Run> runs, Options options) {
        return new Report(ReportModel.merge(runs, options));
    }

    /** The cells, bottom first, with merged names and {@link Cell#index()} renumbered to the report's order. */
    public List<Cell> cells() {
        return model.cells;
    }

    /** The cell names, bottom first (the columns of the breakdowns and of the error table). */
    public List<String> rungs() {
        return model.rungs();
    }

    public Options options() {
        return model.options;
    }

    /** Whether any result has a test-suite outcome. */
    public boolean hasTs() {
        return model.hasTs;
    }

    /** Whether any result has EX in a second mode. */
    public boolean hasExAlt() {
        return model.hasExAlt;
    }

    /** Whether some rung ran with more than one seed. */
    public boolean multiSeed() {
        return model.multiSeed;
    }

    /** Distinct item ids over all cells. */
    public int items() {
        return model.items;
    }

    /** The run names, in order ({@code ""} for a run known only by its rows). */
    public List<String> runNames() {
        return model.runNames;
    }

    /** One line per run saying what it ran on and how it was scored (the top of report.md, every caption). */
    public List<String> provenance() {
        return model.provenance;
    }

    /**
     * One row per item and cell: rung (the cell), item, category, difficulty, VA, EX, EM, TS (missing when null),
     * error_class, prompt_tokens, generated_tokens, ms; a copy.
     */
    public Table results() {
        return results.copy();
    }

    /** Rows: cells; columns: n, then VA, EX, (EX in the second mode), EM, TS with their 95% Wilson intervals. */
    public ReportTable summary() {
        return summary;
    }

    /** Rows: rungs; columns: seeds, mean and sample sd across seeds of each metric; only with several seeds. */
    public Optional<ReportTable> seeds() {
        return Optional.ofNullable(seeds);
    }

    /** Rows: categories with their item counts; columns: EX per cell with its Wilson interval. */
    public ReportTable categoryEx() {
        return categoryEx;
    }

    /** As {@link #categoryEx()} for TS; empty when no result has TS. */
    public Optional<ReportTable> categoryTs() {
        return Optional.ofNullable(categoryTs);
    }

    /** Rows: databases with their item counts; columns: EX per cell; only when the rows span several databases. */
    public Optional<ReportTable> databaseEx() {
        return Optional.ofNullable(databaseEx);
    }

    /** As {@link #databaseEx()} for TS; empty when no result has TS or the rows are of one database. */
    public Optional<ReportTable> databaseTs() {
        return Optional.ofNullable(databaseTs);
    }

    /** Rows: difficulties with their item counts; columns: EX per cell with its Wilson interval. */
    public ReportTable difficultyEx() {
        return difficultyEx;
    }

    /** As {@link #difficultyEx()} for TS; empty when no result has TS. */
    public Optional<ReportTable> difficultyTs() {
        return Optional.ofNullable(difficultyTs);
    }

    /**
     * Rows: metric (EX, EX in the second mode, TS where present), then declared comparison (and seed, then pooled,
     * with several seeds): discordant counts, the paired difference, exact p and Holm-adjusted p, and the factors
     * the two rungs differ in.
     */
    public ReportTable comparisons() {
        return comparisons;
    }

    /** Rows: the EX comparisons whose rungs differ in exactly one factor; empty when there is none. */
    public Optional<ReportTable> attribution() {
        return Optional.ofNullable(attribution);
    }

    /** Rows: error classes; columns: how many items of each cell fell in the class. */
    public ReportTable errors() {
        return errors;
    }

    /**
     * Rows: cells; columns: n, EX, model calls, prompt and generated tokens per item, the generation cache's share
     * of calls cached, items with a cached call, wall time per item (p50, p95) over the items the cache did not touch,
     * and over every item with cached calls at their original cost (marked in the timing column).
     */
    public ReportTable costs() {
        return costs;
    }

    /** Every table that depends only on the scored outcomes, in report order (all but {@link #costs()}). */
    public List<ReportTable> tables() {
        List<ReportTable> all = new ArrayList<>();
        all.add(summary);
        metrics().ifPresent(all::add);
        seeds().ifPresent(all::add);
        all.add(categoryEx);
        categoryTs().ifPresent(all::add);
        databaseEx().ifPresent(all::add);
        databaseTs().ifPresent(all::add);
        all.add(difficultyEx);
        difficultyTs().ifPresent(all::add);
        all.add(comparisons);
        attribution().ifPresent(all::add);
        all.add(outcomes);
        all.add(errors);
        judgeAgreement().ifPresent(all::add);
        diagnoses().ifPresent(all::add);
        oracleAnalysis().ifPresent(all::add);
        oracleLosses().ifPresent(all::add);
        return all;
    }

    /** Rows: cells; the LLM judge against EX (confusion counts, agreement, Cohen's kappa); only when judged. */
    public Optional<ReportTable> judgeAgreement() {
        return Optional.ofNullable(judgeAgreement);
    }

    /**
     * Rows: cells; columns: every metric beyond the standard ones (VA, EX, EM, TS, the second EX mode, the judge),
     * its mean over the items it applies to; only when a run has such a metric.
     */
    public Optional<ReportTable> metrics() {
        return Optional.ofNullable(metrics);
    }

    /** Rows: a pipeline's error categories; columns: items of each cell in the category; only when any. */
    public Optional<ReportTable> diagnoses() {
        return Optional.ofNullable(diagnoses);
    }

    /** Rows: the rungs the oracle engine answered; what each does to a perfect answer and what it recovers. */
    public Optional<ReportTable> oracleAnalysis() {
        return Optional.ofNullable(oracleAnalysis);
    }

    /** Rows: every item a rung lost on the noiseless oracle, with its cause. */
    public Optional<ReportTable> oracleLosses() {
        return Optional.ofNullable(oracleLosses);
    }

    /** The ids of every table a report can have, whether this one has it or not. */
    public static List<String> tableIds() {
        return List.of("summary", "metrics", "seeds", "category-ex", "category-ts", "database-ex", "database-ts",
                "difficulty-ex", "difficulty-ts",
                "comparisons", "attribution", "outcomes", "errors", "judge-agreement", "diagnoses", "oracle-analysis", "oracle-losses", "costs");
    }
}
