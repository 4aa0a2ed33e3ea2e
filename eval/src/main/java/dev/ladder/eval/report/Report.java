package dev.ladder.eval.report;

import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.experiment.Comparisons;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ModelSpec;
import dev.ladder.eval.experiment.RungFactors;
import dev.ladder.eval.experiment.RungSpec;
import dev.ladder.eval.experiment.ScorerSpec;
import dev.ladder.eval.run.ExperimentRunner;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.score.MetricValue;
import dev.ladder.eval.score.Metrics;
import dev.ladder.pipeline.oracle.OracleModel;
import dev.ladder.pipeline.strategy.Pipelines;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Stream;
import tech.tablesaw.api.BooleanColumn;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * The paper-ready report of one run (or of several merged): accuracy by cell with Wilson intervals, the spread
 * across seeds, breakdowns by category and difficulty, the declared comparisons (per seed and pooled, Holm-adjusted
 * within each metric's family, with the factors the two rungs differ in), the single-factor attribution, the error
 * taxonomy, and the costs.
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

    private static final Set<String> RESERVED = Set.of("category", "difficulty", "items", "error class");

    /** A cell of the report: its merged name, the rung it belongs to, its seed and its run. */
    private record CellInfo(Cell cell, String rung, String runRung, long seed, int run, String skipped) {
        String name() {
            return cell.name();
        }
    }

    /** A rung of the report: its cells by seed, in seed order of the experiment. */
    private record RungInfo(String name, String runRung, int run, Map<Long, String> cellsBySeed,
                            Map<String, String> factors) {
    }

    /** A declared comparison between two of the report's rungs. */
    private record Declared(String from, String to, String label, List<String> differs, String change) {
    }

    /** A metric compared between rungs: its column name and the outcome (null when the item has none). */
    private record Metric(String name, Function<ItemResult, Boolean> outcome) {
    }

    /** One comparison row before the Holm adjustment. */
    private record Tested(String metric, Declared comparison, String seed, int n, int b, int c,
                          Statistics.Estimate diff, double p, double fromRate, double toRate) {
    }

    private final List<Cell> cells;
    private final List<CellInfo> cellInfo;
    private final Map<String, RungInfo> rungInfo;
    private final List<Run> runs;
    private final List<String> runNames;
    private final Options options;
    private final Table results;
    private final Map<String, TreeMap<String, ItemResult>> byRung;
    private final boolean hasTs;
    private final boolean hasExAlt;
    private final boolean hasJudge;
    private final boolean multiSeed;
    private final String exAltLabel;
    private final int items;
    private final List<Declared> declared;
    private final List<String> provenance;
    private final ReportTable summary;
    private final ReportTable seeds;
    private final ReportTable categoryEx;
    private final ReportTable categoryTs;
    private final ReportTable difficultyEx;
    private final ReportTable difficultyTs;
    private final ReportTable comparisons;
    private final ReportTable attribution;
    private final ReportTable errors;
    private final ReportTable costs;
    private final ReportTable judgeAgreement;
    private final ReportTable diagnoses;
    private final ReportTable metrics;
    private final Map<String, OracleTrace> oracle;
    private final ReportTable oracleAnalysis;
    private final ReportTable oracleLosses;

    private Report(List<Run> runs, List<CellInfo> cellInfo, Map<String, RungInfo> rungInfo,
                   Map<String, TreeMap<String, ItemResult>> byRung, List<Declared> declared,
                   Map<String, OracleTrace> oracle, Options options) {
        this.runs = List.copyOf(runs);
        this.runNames = runs.stream().map(Run::name).toList();
        this.cellInfo = List.copyOf(cellInfo);
        this.cells = cellInfo.stream().map(CellInfo::cell).toList();
        this.rungInfo = rungInfo;
        this.byRung = byRung;
        this.declared = List.copyOf(declared);
        this.options = options;
        this.results = longTable();
        this.hasTs = allRows().anyMatch(r -> r.ts() != null);
        this.hasExAlt = allRows().anyMatch(r -> r.exAlt() != null);
        this.hasJudge = allRows().anyMatch(r -> r.judge() != null);
        this.multiSeed = rungInfo.values().stream().anyMatch(r -> r.cellsBySeed().size() > 1);
        this.exAltLabel = "EX (" + exModes()[1] + ")";
        this.items = (int) allRows().map(ItemResult::itemId).distinct().count();
        this.provenance = buildProvenance();
        this.summary = buildSummary();
        this.seeds = multiSeed ? buildSeeds() : null;
        this.categoryEx = breakdown("category", "EX", ItemResult::ex);
        this.categoryTs = hasTs ? breakdown("category", "TS", ItemResult::ts) : null;
        this.difficultyEx = breakdown("difficulty", "EX", ItemResult::ex);
        this.difficultyTs = hasTs ? breakdown("difficulty", "TS", ItemResult::ts) : null;
        List<Tested> tested = test();
        double[] holm = holm(tested);
        this.comparisons = buildComparisons(tested, holm);
        this.attribution = buildAttribution(tested, holm);
        this.errors = buildErrors();
        this.costs = buildCosts();
        this.judgeAgreement = hasJudge ? buildJudgeAgreement() : null;
        this.diagnoses = allRows().anyMatch(r -> r.diagnosis() != null) ? buildDiagnoses() : null;
        List<String> otherMetrics = otherMetrics();
        this.metrics = otherMetrics.isEmpty() ? null : buildMetrics(otherMetrics);
        this.oracle = Map.copyOf(oracle);
        this.oracleAnalysis = cellInfo.stream().anyMatch(c -> oracleNoise(c) != null) ? buildOracleAnalysis() : null;
        this.oracleLosses = oracleAnalysis != null ? buildOracleLosses() : null;
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
        Objects.requireNonNull(options, "options");
        if (runs.isEmpty()) throw new IllegalArgumentException("a report needs at least one run");
        Map<String, Integer> runsWithName = new HashMap<>();
        Map<String, Integer> runsWithRung = new HashMap<>();
        for (Run run : runs) {
            Set<String> names = new HashSet<>();
            Set<String> rungs = new HashSet<>();
            for (Cell c : run.cells()) {
                if (!names.add(c.name())) {
                    throw new IllegalArgumentException("run '" + run.name() + "' has two cells named " + c.name());
                }
                rungs.add(rungOf(c));
            }
            names.forEach(n -> runsWithName.merge(n, 1, Integer::sum));
            rungs.forEach(n -> runsWithRung.merge(n, 1, Integer::sum));
        }
        List<CellInfo> merged = new ArrayList<>();
        Map<String, RungInfo> rungInfo = new LinkedHashMap<>();
        Map<String, TreeMap<String, ItemResult>> byRung = new LinkedHashMap<>();
        List<Declared> declared = new ArrayList<>();
        Map<String, OracleTrace> oracle = new HashMap<>();
        for (int runIndex = 0; runIndex < runs.size(); runIndex++) {
            Run run = runs.get(runIndex);
            Map<String, String> rename = new HashMap<>();
            Map<String, String> rungRename = new LinkedHashMap<>();
            List<Cell> ordered = new ArrayList<>(run.cells());
            ordered.sort(Comparator.comparingInt(Cell::index));
            for (Cell c : ordered) {
                String name = runsWithName.get(c.name()) > 1 ? run.name() + "/" + c.name() : c.name();
                if (byRung.keySet().stream().anyMatch(name::equalsIgnoreCase)) {
                    throw new IllegalArgumentException("two rungs are named " + name
                            + " (ignoring case) after merging; give the runs distinct directory names");
                }
                if (RESERVED.contains(name.toLowerCase(Locale.ROOT))) {
                    // cells become columns beside these in the breakdown and error tables
                    throw new IllegalArgumentException("a rung cannot be named '" + name + "'; rename the cell");
                }
                String runRung = rungOf(c);
                String rung = runsWithRung.get(runRung) > 1 ? run.name() + "/" + runRung : runRung;
                rename.put(c.name(), name);
                rungRename.put(runRung, rung);
                byRung.put(name, new TreeMap<>());
                Cell renamed = new Cell(merged.size(), name, c.model(), c.adapter(), c.strategy(), c.seed());
                merged.add(new CellInfo(renamed, rung, runRung, c.seed(), runIndex,
                        run.info().meta("skipped." + c.name())));
                int at = runIndex;
                RungInfo ri = rungInfo.computeIfAbsent(rung, k -> new RungInfo(k, runRung, at, new LinkedHashMap<>(),
                        factors(run, c, runRung)));
                ri.cellsBySeed().put(c.seed(), name);
            }
            for (ItemResult r : run.results()) {
                String cell = rename.get(r.cell());
                if (cell == null) {
                    throw new IllegalArgumentException("result for item " + r.itemId() + " names cell " + r.cell()
                            + ", which run '" + run.name() + "' does not have");
                }
                if (byRung.get(cell).put(r.itemId(), r) != null) {
                    throw new IllegalArgumentException("cell " + r.cell() + " has two results for item " + r.itemId());
                }
                OracleTrace o = run.oracle().get(oracleKey(r.cell(), r.itemId()));
                if (o != null) oracle.put(oracleKey(cell, r.itemId()), o);
            }
            declared.addAll(declared(run, rungRename, rungInfo));
        }
        return new Report(runs, merged, rungInfo, byRung, declared, oracle, options);
    }

    /** The rung a cell belongs to: its name less the {@code @seed} suffix of multi-seed experiments. */
    private static String rungOf(Cell c) {
        String suffix = "@" + c.seed();
        return c.name().endsWith(suffix) && c.name().length() > suffix.length()
                ? c.name().substring(0, c.name().length() - suffix.length()) : c.name();
    }

    private static Map<String, String> factors(Run run, Cell c, String runRung) {
        Experiment e = run.info().experiment();
        Optional<RungSpec> spec = e == null ? Optional.empty() : e.rung(runRung);
        if (spec.isPresent()) return RungFactors.of(e, spec.get());
        // no config: what the cell tells (model, adapter, the strategy's fixed factors)
        return RungFactors.of(c.model(), c.adapter(), null, null, c.strategy(), null);
    }

    /** The run's declared comparisons (its experiment's, or the default family of its cells) as report rungs. */
    private static List<Declared> declared(Run run, Map<String, String> rungRename, Map<String, RungInfo> rungInfo) {
        Experiment e = run.info().experiment();
        List<Comparisons.Pair> pairs;
        Function<Comparisons.Pair, String> label;
        if (e != null) {
            pairs = e.comparisons();
            label = e::labelOf;
        } else {
            Map<String, Cell> firstCell = new LinkedHashMap<>();
            List<Cell> ordered = new ArrayList<>(run.cells());
            ordered.sort(Comparator.comparingInt(Cell::index));
            for (Cell c : ordered) firstCell.putIfAbsent(rungOf(c), c);
            List<Comparisons.Rung> rungs = Comparisons.rungsOfCells(firstCell);
            pairs = Comparisons.defaultFamily(rungs);
            label = p -> Comparisons.label(p, rungs);
        }
        List<Declared> out = new ArrayList<>();
        for (Comparisons.Pair p : pairs) {
            String from = rungRename.get(p.from());
            String to = rungRename.get(p.to());
            if (from == null || to == null) continue; // a rung of the config that has no cell in the store
            Map<String, String> ff = rungInfo.get(from).factors();
            Map<String, String> tf = rungInfo.get(to).factors();
            List<String> differs = RungFactors.differing(ff, tf);
            String change = differs.size() == 1 ? RungFactors.change(differs.get(0), ff, tf) : null;
            out.add(new Declared(from, to, label.apply(p), differs, change));
        }
        return out;
    }

    /** The cells, bottom first, with merged names and {@link Cell#index()} renumbered to the report's order. */
    public List<Cell> cells() {
        return cells;
    }

    /** The cell names, bottom first (the columns of the breakdowns and of the error table). */
    public List<String> rungs() {
        return cells.stream().map(Cell::name).toList();
    }

    public Options options() {
        return options;
    }

    /** Whether any result has a test-suite outcome. */
    public boolean hasTs() {
        return hasTs;
    }

    /** Whether any result has EX in a second mode. */
    public boolean hasExAlt() {
        return hasExAlt;
    }

    /** Whether some rung ran with more than one seed. */
    public boolean multiSeed() {
        return multiSeed;
    }

    /** Distinct item ids over all cells. */
    public int items() {
        return items;
    }

    /** The run names, in order ({@code ""} for a run known only by its rows). */
    public List<String> runNames() {
        return runNames;
    }

    /** One line per run saying what it ran on and how it was scored (the top of report.md, every caption). */
    public List<String> provenance() {
        return provenance;
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
     * of calls, cache-hit items, and wall time per item (p50, p95) over the items the cache did not touch.
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
        all.add(difficultyEx);
        difficultyTs().ifPresent(all::add);
        all.add(comparisons);
        attribution().ifPresent(all::add);
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
        return List.of("summary", "metrics", "seeds", "category-ex", "category-ts", "difficulty-ex", "difficulty-ts",
                "comparisons", "attribution", "errors", "judge-agreement", "diagnoses", "oracle-analysis", "oracle-losses", "costs");
    }

    private Stream<ItemResult> allRows() {
        return byRung.values().stream().flatMap(m -> m.values().stream());
    }

    /** The primary and the second EX mode's names: from the run's meta, else its config, else "?" and "alt". */
    private String[] exModes() {
        for (Run run : runs) {
            String modes = run.info().meta("scorers.ex_modes");
            if (modes != null) {
                String[] parts = modes.split(",");
                return new String[] {parts[0].strip(), parts.length > 1 ? parts[1].strip() : "alt"};
            }
        }
        for (Run run : runs) {
            Experiment e = run.info().experiment();
            if (e != null) {
                String primary = e.scorers().exMode().name().toLowerCase(Locale.ROOT);
                return new String[] {primary, primary.equals("spider") ? "bird" : "spider"};
            }
        }
        return new String[] {"?", "alt"};
    }

    private Table longTable() {
        StringColumn rung = StringColumn.create("rung");
        StringColumn item = StringColumn.create("item");
        StringColumn category = StringColumn.create("category");
        StringColumn difficulty = StringColumn.create("difficulty");
        BooleanColumn va = BooleanColumn.create("VA");
        BooleanColumn ex = BooleanColumn.create("EX");
        BooleanColumn em = BooleanColumn.create("EM");
        BooleanColumn ts = BooleanColumn.create("TS");
        StringColumn errorClass = StringColumn.create("error_class");
        IntColumn prompt = IntColumn.create("prompt_tokens");
        IntColumn generated = IntColumn.create("generated_tokens");
        LongColumn ms = LongColumn.create("ms");
        byRung.forEach((name, rows) -> rows.values().forEach(r -> {
            rung.append(name);
            item.append(r.itemId());
            category.append(label(r.category()));
            difficulty.append(label(r.difficulty()));
            va.append(r.va());
            ex.append(r.ex());
            em.append(r.em());
            if (r.ts() == null) ts.appendMissing();
            else ts.append(r.ts());
            errorClass.append(label(r.errorClass()));
            prompt.append(r.promptTokens());
            generated.append(r.generatedTokens());
            ms.append(r.millis());
        }));
        return Table.create("results", rung, item, category, difficulty, va, ex, em, ts, errorClass, prompt,
                generated, ms);
    }

    // ---- provenance ---------------------------------------------------------------------------------------------

    private List<String> buildProvenance() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) out.add(provenanceOf(i));
        return out;
    }

    private String provenanceOf(int runIndex) {
        Run run = runs.get(runIndex);
        RunInfo info = run.info();
        Experiment e = info.experiment();
        // a lone run is not named: its report stays the same wherever its directory is copied
        String who = runs.size() == 1 || run.name().isEmpty() ? "Run" : "Run " + run.name();
        long n = run.results().stream().map(ItemResult::itemId).distinct().count();
        List<String> parts = new ArrayList<>();
        if (e == null) {
            parts.add("no config.yaml (models, benchmark and scorers not recorded)");
            parts.add("n = " + n + " items");
        } else {
            Set<String> used = new LinkedHashSet<>();
            for (RungSpec r : e.rungs()) used.add(r.model());
            List<String> models = new ArrayList<>();
            for (String id : used) {
                ModelSpec m = e.models().get(id);
                if (m.oracle()) {
                    // an instrument's rows must never pass for a model's: every caption says what they are
                    models.add(id + " = THE ORACLE, noise " + m.oracleNoise() + " ("
                            + OracleModel.DISCLAIMER + ")");
                    continue;
                }
                if (m.served()) {
                    String version = info.env("models." + id + ".server_version");
                    models.add(id + " = " + m.path() + " (engine openai, " + m.server().endpoint() + " endpoint, server "
                            + Objects.requireNonNullElse(info.env("models." + id + ".server"), m.server().baseUrl())
                            + (version == null || version.equals("not reported") ? "" : " version " + version) + ")");
                    continue;
                }
                String adapter = m.hasAdapter() ? " + adapter " + m.adapter()
                        + (m.mergeBase().equals(ModelSpec.DEFAULT_MERGE_BASE) ? "" : " (merged into " + m.mergeBase() + ")") : "";
                String device = Objects.requireNonNullElse(info.env("models." + id + ".device"), m.device());
                String dtype = Objects.requireNonNullElse(info.env("models." + id + ".dtype"), m.dtype());
                models.add(id + " = " + m.path() + adapter + " (engine " + m.engine() + ", device " + device
                        + ", dtype " + dtype + ")");
            }
            parts.add("model " + String.join("; ", models));
            String selection = info.meta("items.selection");
            if (selection == null) {
                selection = e.limit() == null ? "all items of the split" : "the first " + e.limit() + " items of the split";
            }
            String shard = info.meta("shard");
            if (shard != null) {
                // a shard's numbers are not the experiment's: say so wherever its tables go
                selection += "; only shard " + shard + " of them (the items at positions p with p mod "
                        + shard.substring(shard.indexOf('/') + 1) + " = " + shardRemainder(shard) + "), not the whole run:"
                        + " 'ladder merge' joins the shards";
            }
            parts.add("benchmark " + e.benchmark() + ", split " + e.split() + ", items: " + selection + ", n = " + n);
            String exModes = info.meta("scorers.ex_modes");
            String ex = exModes != null ? String.join(" and ", exModes.split(","))
                    : e.scorers().exMode().name().toLowerCase(Locale.ROOT);
            String ts = e.scorers().ts() == ScorerSpec.Ts.NONE ? "none"
                    : e.scorers().suite() != null ? "suite " + e.scorers().suite() : "stored suite";
            String tsMissing = info.meta("ts.missing");
            String tsPrint = info.meta(ExperimentRunner.TS_FINGERPRINT);
            if (tsPrint != null && tsMissing == null) ts += " (fingerprint " + tsPrint.substring(0, Math.min(12, tsPrint.length())) + ")";
            parts.add("scorers: EX " + ex + ", EM " + e.scorers().emMode().label() + ", TS " + ts
                    + (tsMissing != null ? " (missing: " + tsMissing + ")" : ""));
        }
        String started = info.env("run.started");
        parts.add("started " + (started != null ? started : "(not recorded)"));
        String sha = info.env("git.sha");
        parts.add("git " + (sha != null ? sha + ("true".equals(info.env("git.dirty")) ? " (with uncommitted changes)" : "")
                : "(not recorded)"));
        return who + ": " + String.join("; ", parts) + ".";
    }

    /** p mod N of shard "i/N"'s positions: i - 1 (the label as recorded; "?" when it does not read as i/N). */
    private static String shardRemainder(String label) {
        try {
            return Integer.toString(Integer.parseInt(label.substring(0, label.indexOf('/')).strip()) - 1);
        } catch (RuntimeException e) {
            return "?";
        }
    }

    /** A table's description with the provenance of its runs after it. */
    private String caption(String description) {
        return description + " " + String.join(" ", provenance);
    }

    // ---- summary and seeds ----------------------------------------------------------------------------------------

    private List<Metric> summaryMetrics() {
        List<Metric> m = new ArrayList<>();
        m.add(new Metric("VA", ItemResult::va));
        m.add(new Metric("EX", ItemResult::ex));
        if (hasExAlt) m.add(new Metric(exAltLabel, ItemResult::exAlt));
        m.add(new Metric("EM", ItemResult::em));
        m.add(new Metric("TS", ItemResult::ts));
        if (hasJudge) m.add(new Metric("Judge", ItemResult::judge));
        return m;
    }

    private ReportTable buildSummary() {
        StringColumn rung = StringColumn.create("rung");
        IntColumn n = IntColumn.create("n");
        Table t = Table.create("summary", rung, n);
        List<Metric> metrics = summaryMetrics();
        Map<String, DoubleColumn[]> columns = new LinkedHashMap<>();
        for (Metric m : metrics) {
            DoubleColumn[] triple = triple(m.name());
            t.addColumns(triple);
            columns.put(m.name(), triple);
        }
        boolean anySkipped = cellInfo.stream().anyMatch(c -> c.skipped() != null);
        StringColumn note = StringColumn.create("note");
        for (CellInfo c : cellInfo) {
            Collection<ItemResult> rows = byRung.get(c.name()).values();
            rung.append(c.name());
            n.append(rows.size());
            for (Metric m : metrics) append(columns.get(m.name()), Statistics.wilson(outcomes(rows, m.outcome())));
            note.append(c.skipped() == null ? "" : "skipped: " + c.skipped());
        }
        if (anySkipped) t.addColumns(note);
        Set<String> intervals = new LinkedHashSet<>();
        metrics.forEach(m -> intervals.add(m.name()));
        return new ReportTable("summary", "Accuracy by rung",
                caption("One row per rung" + (multiSeed ? " and seed (rung@seed)" : "") + ", bottom first. n: items the "
                        + "rung answered. VA: the prediction executes; EX: execution accuracy (" + exModes()[0]
                        + " mode)" + (hasExAlt ? "; " + exAltLabel + ": execution accuracy in the " + exModes()[1]
                        + " mode" : "") + "; EM: exact set match; TS: test-suite accuracy over the items that have a "
                        + "suite" + tsNote() + ". Each value is the proportion of items with its 95% Wilson score "
                        + "interval." + (anySkipped ? " A rung that did not run says why in note, with n = 0." : "")),
                t, Map.of(), intervals);
    }

    /** Why TS is missing, where it is. */
    private String tsNote() {
        List<String> reasons = new ArrayList<>();
        for (Run run : runs) {
            String r = run.info().meta("ts.missing");
            if (r != null) reasons.add((runs.size() > 1 ? run.name() + ": " : "") + r);
        }
        if (!hasTs) {
            return " (missing for every rung: " + (reasons.isEmpty() ? "no result has a test-suite outcome; the reason "
                    + "was not recorded" : String.join("; ", reasons)) + ")";
        }
        return reasons.isEmpty() ? " (missing where a rung has no item with a suite)"
                : " (missing where a rung has no item with a suite: " + String.join("; ", reasons) + ")";
    }

    private ReportTable buildSeeds() {
        StringColumn rung = StringColumn.create("rung");
        IntColumn seedCount = IntColumn.create("seeds");
        Table t = Table.create("seeds", rung, seedCount);
        List<Metric> metrics = summaryMetrics();
        Map<String, DoubleColumn[]> columns = new LinkedHashMap<>();
        for (Metric m : metrics) {
            DoubleColumn[] pair = {DoubleColumn.create(m.name() + " mean"), DoubleColumn.create(m.name() + " sd")};
            t.addColumns(pair);
            columns.put(m.name(), pair);
        }
        for (RungInfo r : rungInfo.values()) {
            rung.append(r.name());
            int ran = 0;
            for (String cell : r.cellsBySeed().values()) if (!byRung.get(cell).isEmpty()) ran++;
            seedCount.append(ran);
            for (Metric m : metrics) {
                List<Double> perSeed = new ArrayList<>();
                for (String cell : r.cellsBySeed().values()) {
                    boolean[] values = outcomes(byRung.get(cell).values(), m.outcome());
                    if (values.length > 0) perSeed.add(Statistics.proportion(values));
                }
                double[] v = perSeed.stream().mapToDouble(Double::doubleValue).toArray();
                columns.get(m.name())[0].append(Statistics.mean(v));
                columns.get(m.name())[1].append(Statistics.sampleSd(v));
            }
        }
        return new ReportTable("seeds", "Spread across seeds",
                caption("One row per rung: seeds it ran with (cells with results), and for each metric the mean and "
                        + "the sample standard deviation (divisor seeds - 1; missing with one seed) of the per-seed "
                        + "proportions in the summary."),
                t, Map.of(), Set.of());
    }

    private static boolean[] outcomes(Collection<ItemResult> rows, Function<ItemResult, Boolean> outcome) {
        List<Boolean> values = new ArrayList<>();
        for (ItemResult r : rows) {
            Boolean v = outcome.apply(r);
            if (v != null) values.add(v);
        }
        boolean[] out = new boolean[values.size()];
        for (int i = 0; i < out.length; i++) out[i] = values.get(i);
        return out;
    }

    private static DoubleColumn[] triple(String name) {
        return new DoubleColumn[] {DoubleColumn.create(name), DoubleColumn.create(name + ReportTable.LOWER),
                DoubleColumn.create(name + ReportTable.UPPER)};
    }

    private static void append(DoubleColumn[] triple, Statistics.Estimate e) {
        triple[0].append(e.value());
        triple[1].append(e.lower());
        triple[2].append(e.upper());
    }

    // ---- breakdowns ---------------------------------------------------------------------------------------------

    private ReportTable breakdown(String key, String metric, Function<ItemResult, Boolean> outcome) {
        Function<ItemResult, String> keyOf = key.equals("category") ? r -> label(r.category()) : r -> label(r.difficulty());
        Map<String, Set<String>> itemsOf = new HashMap<>();
        allRows().forEach(r -> itemsOf.computeIfAbsent(keyOf.apply(r), k -> new TreeSet<>()).add(r.itemId()));
        List<String> keys = ordered(itemsOf.keySet(), key.equals("difficulty") ? DIFFICULTIES : List.of());
        StringColumn keyColumn = StringColumn.create(key);
        IntColumn itemColumn = IntColumn.create("items");
        Table t = Table.create(key + "-" + metric, keyColumn, itemColumn);
        for (String k : keys) {
            keyColumn.append(k);
            itemColumn.append(itemsOf.get(k).size());
        }
        for (String cell : rungs()) {
            DoubleColumn[] triple = triple(cell);
            for (String k : keys) {
                List<ItemResult> rows = byRung.get(cell).values().stream().filter(r -> keyOf.apply(r).equals(k)).toList();
                append(triple, Statistics.wilson(outcomes(rows, outcome)));
            }
            t.addColumns(triple);
        }
        String id = key + "-" + metric.toLowerCase(Locale.ROOT);
        return new ReportTable(id, metric + " by " + key,
                caption("One row per " + key + " with its number of distinct items; one column per rung, bottom "
                        + "first, holding the proportion of the " + key + "'s items with " + metric
                        + (metric.equals("TS") ? " among those that have a suite" : "")
                        + " and its 95% Wilson score interval (missing when the rung has no such item)."),
                t, Map.of(), new LinkedHashSet<>(rungs()));
    }

    // ---- comparisons --------------------------------------------------------------------------------------------

    private List<Metric> comparedMetrics() {
        List<Metric> m = new ArrayList<>();
        m.add(new Metric("EX", ItemResult::ex));
        if (hasExAlt) m.add(new Metric(exAltLabel, ItemResult::exAlt));
        if (hasTs) m.add(new Metric("TS", ItemResult::ts));
        return m;
    }

    private List<Tested> test() {
        List<Tested> out = new ArrayList<>();
        for (Metric metric : comparedMetrics()) {
            for (Declared d : declared) {
                RungInfo from = rungInfo.get(d.from());
                RungInfo to = rungInfo.get(d.to());
                List<Long> common = new ArrayList<>(from.cellsBySeed().keySet());
                common.retainAll(to.cellsBySeed().keySet());
                for (long seed : common) {
                    out.add(testOneSeed(metric, d, seed, from.cellsBySeed().get(seed), to.cellsBySeed().get(seed)));
                }
                if (multiSeed) out.add(testPooled(metric, d, common, from, to));
            }
        }
        return out;
    }

    private Tested testOneSeed(Metric metric, Declared d, long seed, String fromCell, String toCell) {
        TreeMap<String, ItemResult> first = byRung.get(fromCell);
        TreeMap<String, ItemResult> second = byRung.get(toCell);
        List<Boolean> xs = new ArrayList<>();
        List<Boolean> ys = new ArrayList<>();
        for (Map.Entry<String, ItemResult> e : first.entrySet()) { // sorted by item id
            ItemResult z = second.get(e.getKey());
            if (z == null) continue;
            Boolean x = metric.outcome().apply(e.getValue());
            Boolean y = metric.outcome().apply(z);
            if (x != null && y != null) {
                xs.add(x);
                ys.add(y);
            }
        }
        boolean[] x = toArray(xs);
        boolean[] y = toArray(ys);
        Statistics.McNemar test = Statistics.mcnemar(x, y);
        Statistics.Estimate diff = Statistics.pairedBootstrapDifference(x, y, options.resamples(), options.seed());
        return new Tested(metric.name(), d, Long.toString(seed), test.n(), test.b(), test.c(), diff,
                test.n() == 0 ? Double.NaN : test.p(), Statistics.proportion(x), Statistics.proportion(y));
    }

    /**
     * Pooled over the seeds both rungs have: per item, d = the mean over those seeds of (to - from); b counts items
     * with d < 0, c items with d > 0, p is the exact sign test on them (McNemar's with one seed), and the interval
     * is the bootstrap of mean d over items.
     */
    private Tested testPooled(Metric metric, Declared d, List<Long> common, RungInfo from, RungInfo to) {
        Map<String, double[]> sums = new TreeMap<>(); // item -> {sum of to - from, sum of from, sum of to, seeds}
        for (long seed : common) {
            TreeMap<String, ItemResult> first = byRung.get(from.cellsBySeed().get(seed));
            TreeMap<String, ItemResult> second = byRung.get(to.cellsBySeed().get(seed));
            for (Map.Entry<String, ItemResult> e : first.entrySet()) {
                ItemResult z = second.get(e.getKey());
                if (z == null) continue;
                Boolean x = metric.outcome().apply(e.getValue());
                Boolean y = metric.outcome().apply(z);
                if (x == null || y == null) continue;
                double[] s = sums.computeIfAbsent(e.getKey(), k -> new double[4]);
                s[0] += (y ? 1 : 0) - (x ? 1 : 0);
                s[1] += x ? 1 : 0;
                s[2] += y ? 1 : 0;
                s[3] += 1;
            }
        }
        double[] diffs = new double[sums.size()];
        double[] fromMeans = new double[sums.size()];
        double[] toMeans = new double[sums.size()];
        int i = 0;
        int b = 0;
        int c = 0;
        for (double[] s : sums.values()) {
            diffs[i] = s[0] / s[3];
            fromMeans[i] = s[1] / s[3];
            toMeans[i] = s[2] / s[3];
            if (diffs[i] < 0) b++;
            if (diffs[i] > 0) c++;
            i++;
        }
        Statistics.Estimate diff = Statistics.bootstrapMean(diffs, options.resamples(), options.seed());
        return new Tested(metric.name(), d, POOLED, diffs.length, b, c, diff,
                diffs.length == 0 ? Double.NaN : Statistics.mcnemarExactP(b, c), Statistics.mean(fromMeans),
                Statistics.mean(toMeans));
    }

    /** Holm within each family: the rows of one metric and one seed (or pooled). */
    private static double[] holm(List<Tested> tested) {
        double[] adjusted = new double[tested.size()];
        Map<String, List<Integer>> families = new LinkedHashMap<>();
        for (int i = 0; i < tested.size(); i++) {
            families.computeIfAbsent(tested.get(i).metric() + "\u0000" + tested.get(i).seed(), k -> new ArrayList<>()).add(i);
        }
        for (List<Integer> family : families.values()) {
            double[] p = family.stream().mapToDouble(i -> tested.get(i).p()).toArray();
            double[] h = Statistics.holm(p);
            for (int j = 0; j < family.size(); j++) adjusted[family.get(j)] = h[j];
        }
        return adjusted;
    }

    private ReportTable buildComparisons(List<Tested> tested, double[] holm) {
        StringColumn metric = StringColumn.create("metric");
        StringColumn label = StringColumn.create("label");
        StringColumn from = StringColumn.create("from");
        StringColumn to = StringColumn.create("to");
        StringColumn seed = StringColumn.create("seed");
        IntColumn n = IntColumn.create("n");
        IntColumn b = IntColumn.create("b");
        IntColumn c = IntColumn.create("c");
        DoubleColumn[] diff = triple("diff");
        DoubleColumn p = DoubleColumn.create("p");
        DoubleColumn pHolm = DoubleColumn.create("p_holm");
        StringColumn differs = StringColumn.create("differs in");
        IntColumn factors = IntColumn.create("factors");
        StringColumn confounded = StringColumn.create("confounded");
        for (int i = 0; i < tested.size(); i++) {
            Tested t = tested.get(i);
            metric.append(t.metric());
            label.append(t.comparison().label());
            from.append(t.comparison().from());
            to.append(t.comparison().to());
            seed.append(t.seed());
            n.append(t.n());
            b.append(t.b());
            c.append(t.c());
            append(diff, t.diff());
            p.append(t.p());
            pHolm.append(holm[i]);
            List<String> d = t.comparison().differs();
            differs.append(d.isEmpty() ? "nothing recorded" : String.join(", ", d));
            factors.append(d.size());
            confounded.append(d.size() > 1 ? "yes" : "no");
        }
        Table t = Table.create("comparisons", metric, label, from, to);
        if (multiSeed) t.addColumns(seed);
        t.addColumns(n, b, c);
        t.addColumns(diff);
        t.addColumns(p, pHolm, differs, factors, confounded);
        String family = multiSeed ? "all comparisons of one metric and one seed (pooled rows: of one metric)"
                : "all comparisons of one metric";
        return new ReportTable("comparisons", "Declared comparisons",
                caption("One row per metric and declared comparison (label: H1 exemplars, H2 adapter, H3 agent "
                        + "stages, or declared)" + (multiSeed ? ", per seed both rungs ran with, then pooled over "
                        + "those seeds" : "") + ", over the items both rungs answered (for TS: both have a suite). "
                        + "b: items right in from and wrong in to; c: wrong in from and right in to (the discordant "
                        + "pairs, the effect size); diff: to minus from with its 95% paired bootstrap interval; p: "
                        + "exact two-sided McNemar p-value; p_holm: Holm-Bonferroni adjusted over the family = "
                        + family + "." + (multiSeed ? " Pooled: per item d = mean over the seeds of (to - from); b "
                        + "and c count items with d < 0 and d > 0, p is the exact sign test on them, diff is mean d "
                        + "with its bootstrap interval over items." : "") + " differs in: the factors in which the "
                        + "two rungs differ; confounded = yes when more than one, so the difference cannot be "
                        + "attributed to one of them."),
                t, Map.of("p", Style.P_VALUE, "p_holm", Style.P_VALUE, "diff", Style.DIFFERENCE,
                        "diff" + ReportTable.LOWER, Style.DIFFERENCE, "diff" + ReportTable.UPPER, Style.DIFFERENCE),
                Set.of("diff"));
    }

    private ReportTable buildAttribution(List<Tested> tested, double[] holm) {
        StringColumn label = StringColumn.create("label");
        StringColumn from = StringColumn.create("from");
        StringColumn to = StringColumn.create("to");
        StringColumn factor = StringColumn.create("factor");
        StringColumn change = StringColumn.create("change");
        IntColumn n = IntColumn.create("n");
        DoubleColumn exFrom = DoubleColumn.create("EX from");
        DoubleColumn exTo = DoubleColumn.create("EX to");
        DoubleColumn[] diff = triple("diff");
        DoubleColumn p = DoubleColumn.create("p");
        DoubleColumn pHolm = DoubleColumn.create("p_holm");
        for (int i = 0; i < tested.size(); i++) {
            Tested t = tested.get(i);
            boolean oneRow = multiSeed ? t.seed().equals(POOLED) : true;
            if (!t.metric().equals("EX") || !oneRow || t.comparison().differs().size() != 1) continue;
            label.append(t.comparison().label());
            from.append(t.comparison().from());
            to.append(t.comparison().to());
            factor.append(t.comparison().differs().get(0));
            change.append(t.comparison().change());
            n.append(t.n());
            exFrom.append(t.fromRate());
            exTo.append(t.toRate());
            append(diff, t.diff());
            p.append(t.p());
            pHolm.append(holm[i]);
        }
        if (label.isEmpty()) return null;
        Table t = Table.create("attribution", label, from, to, factor, change, n, exFrom, exTo);
        t.addColumns(diff);
        t.addColumns(p, pHolm);
        return new ReportTable("attribution", "Attribution: comparisons that change one factor",
                caption("One row per declared comparison whose two rungs differ in exactly one factor, so its EX "
                        + "difference is that factor's" + (multiSeed ? " (pooled over seeds)" : "") + ". change: the "
                        + "factor's value in from -> to; EX from, EX to: over the paired items; diff, p and p_holm "
                        + "as in the comparisons table (Holm over all EX comparisons, not only these)."),
                t, Map.of("p", Style.P_VALUE, "p_holm", Style.P_VALUE, "diff", Style.DIFFERENCE,
                        "diff" + ReportTable.LOWER, Style.DIFFERENCE, "diff" + ReportTable.UPPER, Style.DIFFERENCE),
                Set.of("diff"));
    }

    private static boolean[] toArray(List<Boolean> values) {
        boolean[] out = new boolean[values.size()];
        for (int i = 0; i < out.length; i++) out[i] = values.get(i);
        return out;
    }

    // ---- errors and costs ---------------------------------------------------------------------------------------

    private ReportTable buildErrors() {
        Map<String, Map<String, Integer>> count = new HashMap<>();
        byRung.forEach((cell, rows) -> rows.values().forEach(r ->
                count.computeIfAbsent(label(r.errorClass()), k -> new HashMap<>()).merge(cell, 1, Integer::sum)));
        List<String> classes = ordered(count.keySet(), ERROR_CLASSES);
        StringColumn classColumn = StringColumn.create("error class", classes);
        Table t = Table.create("errors", classColumn);
        for (String rung : rungs()) {
            IntColumn column = IntColumn.create(rung);
            for (String k : classes) column.append(count.get(k).getOrDefault(rung, 0));
            t.addColumns(column);
        }
        return new ReportTable("errors", "Error taxonomy by rung",
                caption("One row per error class found in the results (canonical classes first: "
                        + String.join(", ", ERROR_CLASSES) + "); one column per rung holding how many of its "
                        + "items fell in the class."),
                t, Map.of(), Set.of());
    }

    private ReportTable buildJudgeAgreement() {
        StringColumn rung = StringColumn.create("rung");
        IntColumn n = IntColumn.create("judged");
        DoubleColumn judge = DoubleColumn.create("Judge");
        DoubleColumn ex = DoubleColumn.create("EX");
        IntColumn both = IntColumn.create("both correct");
        IntColumn judgeOnly = IntColumn.create("judge only");
        IntColumn exOnly = IntColumn.create("EX only");
        IntColumn neither = IntColumn.create("neither");
        DoubleColumn agreement = DoubleColumn.create("agreement");
        DoubleColumn kappa = DoubleColumn.create("kappa");
        for (CellInfo c : cellInfo) {
            List<ItemResult> rows = byRung.get(c.name()).values().stream().filter(r -> r.judge() != null).toList();
            int a = 0, b = 0, cc = 0, d = 0;
            for (ItemResult r : rows) {
                if (r.judge() && r.ex()) a++;
                else if (r.judge()) b++;
                else if (r.ex()) cc++;
                else d++;
            }
            rung.append(c.name());
            n.append(rows.size());
            judge.append(rows.isEmpty() ? Double.NaN : (double) (a + b) / rows.size());
            ex.append(rows.isEmpty() ? Double.NaN : (double) (a + cc) / rows.size());
            both.append(a);
            judgeOnly.append(b);
            exOnly.append(cc);
            neither.append(d);
            agreement.append(rows.isEmpty() ? Double.NaN : (double) (a + d) / rows.size());
            kappa.append(Statistics.cohenKappa(a, b, cc, d));
        }
        Table t = Table.create("judge-agreement", rung, n, judge, ex, both, judgeOnly, exOnly, neither, agreement, kappa);
        Map<String, Style> styles = new HashMap<>();
        for (String col : List.of("Judge", "EX", "agreement", "kappa")) styles.put(col, Style.PROPORTION);
        return new ReportTable("judge-agreement", "LLM judge against EX",
                caption("One row per rung, over its judged items: the share the LLM judge (scorers.judge) calls "
                        + "correct, EX over the same items, the four cells of judge × EX (both correct, only the judge, "
                        + "only EX, neither), their agreement, and Cohen's kappa (agreement beyond chance: 1 perfect, 0 "
                        + "chance; missing when either side is constant). A prediction that is empty or does not "
                        + "execute is judged NO without asking the judge."),
                t, styles, Set.of());
    }

    /** The metrics the rows hold beyond the standard ones, in the order they first appear. */
    private List<String> otherMetrics() {
        LinkedHashSet<String> names = new LinkedHashSet<>();
        allRows().forEach(r -> names.addAll(r.scores().keySet()));
        names.removeAll(Metrics.standardNames());
        return List.copyOf(names);
    }

    private ReportTable buildMetrics(List<String> names) {
        StringColumn rung = StringColumn.create("rung");
        IntColumn n = IntColumn.create("n");
        List<DoubleColumn> means = new ArrayList<>();
        for (String name : names) means.add(DoubleColumn.create(name));
        for (CellInfo c : cellInfo) {
            Collection<ItemResult> rows = byRung.get(c.name()).values();
            rung.append(c.name());
            n.append(rows.size());
            for (int i = 0; i < names.size(); i++) {
                String name = names.get(i);
                means.get(i).append(rows.stream().map(r -> r.score(name)).filter(MetricValue::present)
                        .mapToDouble(MetricValue::value).average().orElse(Double.NaN));
            }
        }
        Table t = Table.create("metrics", rung, n);
        means.forEach(t::addColumns);
        List<String> described = new ArrayList<>();
        for (String name : names) {
            Metrics.registered().stream().filter(m -> m.name().equals(name)).findFirst()
                    .ifPresent(m -> described.add(name + ": " + m.description()));
        }
        return new ReportTable("metrics", "Other metrics by rung",
                caption("One row per rung; n: items it answered; one column per metric the run scored besides VA, EX, "
                        + "EM and TS, holding its mean over the items it applies to (missing where it applies to none)"
                        + (described.isEmpty() ? "." : ". " + String.join("; ", described) + ".")),
                t, Map.of(), Set.of());
    }

    private ReportTable buildDiagnoses() {
        List<String> categories = new ArrayList<>(Pipelines.registry().diagnosisCategories());
        allRows().map(ItemResult::diagnosis).filter(Objects::nonNull).distinct()
                .filter(x -> !categories.contains(x)).sorted().forEach(categories::add);
        StringColumn category = StringColumn.create("category");
        categories.forEach(category::append);
        Table t = Table.create("diagnoses", category);
        for (CellInfo c : cellInfo) {
            IntColumn column = IntColumn.create(c.name());
            Collection<ItemResult> rows = byRung.get(c.name()).values();
            for (String k : categories) column.append((int) rows.stream().filter(r -> k.equals(r.diagnosis())).count());
            t.addColumns(column);
        }
        return new ReportTable("diagnoses", "Pipeline error analysis by rung",
                caption("One row per error category of a pipeline's own analysis of the answers it did not accept "
                        + "(the progressive pipeline: from the database's error, then the judge's reasoning); one "
                        + "column per rung holding how many of its items fell in the category. Rungs without such an "
                        + "analysis count 0."),
                t, Map.of(), Set.of());
    }

    private ReportTable buildCosts() {
        StringColumn rung = StringColumn.create("rung");
        IntColumn n = IntColumn.create("n");
        DoubleColumn ex = DoubleColumn.create("EX");
        DoubleColumn calls = DoubleColumn.create("calls/item");
        DoubleColumn prompt = DoubleColumn.create("prompt tokens/item");
        DoubleColumn generated = DoubleColumn.create("generated tokens/item");
        DoubleColumn cacheShare = DoubleColumn.create("cached calls");
        IntColumn cacheHits = IntColumn.create("cache-hit items");
        IntColumn timed = IntColumn.create("timed items");
        DoubleColumn p50 = DoubleColumn.create("p50 ms");
        DoubleColumn p95 = DoubleColumn.create("p95 ms");
        StringColumn note = StringColumn.create("note");
        for (CellInfo c : cellInfo) {
            Collection<ItemResult> rows = byRung.get(c.name()).values();
            rung.append(c.name());
            n.append(rows.size());
            ex.append(Statistics.proportion(outcomes(rows, ItemResult::ex)));
            long totalCalls = rows.stream().mapToLong(ItemResult::calls).sum();
            long cachedCalls = rows.stream().mapToLong(ItemResult::cachedCalls).sum();
            // rows written before calls were counted say 0: unknown, not free
            calls.append(totalCalls == 0 ? Double.NaN : (double) totalCalls / rows.size());
            cacheShare.append(totalCalls == 0 ? Double.NaN : (double) cachedCalls / totalCalls);
            prompt.append(rows.isEmpty() ? Double.NaN : rows.stream().mapToDouble(ItemResult::promptTokens).average().orElseThrow());
            generated.append(rows.isEmpty() ? Double.NaN
                    : rows.stream().mapToDouble(ItemResult::generatedTokens).average().orElseThrow());
            List<ItemResult> uncached = rows.stream().filter(r -> r.cachedCalls() == 0).toList();
            cacheHits.append(rows.size() - uncached.size());
            timed.append(uncached.size());
            double[] ms = uncached.stream().mapToDouble(ItemResult::millis).sorted().toArray();
            p50.append(Statistics.percentile(ms, 0.5));
            p95.append(Statistics.percentile(ms, 0.95));
            note.append(c.skipped() == null ? "" : "skipped: " + c.skipped());
        }
        Table t = Table.create("costs", rung, n, ex, calls, prompt, generated, cacheShare, cacheHits, timed, p50, p95);
        if (cellInfo.stream().anyMatch(c -> c.skipped() != null)) t.addColumns(note);
        Map<String, Style> styles = new HashMap<>();
        for (String col : List.of("calls/item", "prompt tokens/item", "generated tokens/item", "p50 ms", "p95 ms")) {
            styles.put(col, Style.DECIMAL);
        }
        return new ReportTable("costs", "Costs by rung",
                caption("One row per rung: items answered, EX, model calls per item, prompt and generated tokens "
                        + "per item over all the item's calls, the share of calls the generation cache answered "
                        + "(missing when the run did not count calls), cache-hit items (at least one cached call) and "
                        + "the wall time per item, median (p50) and 95th percentile (p95), over the timed items: "
                        + "those with no cached call, so a cached answer's milliseconds are not read as model speed. "
                        + "Kept apart from the other tables because timings differ between runs of identical results."),
                t, styles, Set.of());
    }

    // ---- the oracle analysis ---------------------------------------------------------------------------------------

    /** The oracle noise of a cell's model, or null when the cell's model is not the oracle (or the config is unknown). */
    private String oracleNoise(CellInfo c) {
        Experiment e = runs.get(c.run()).info().experiment();
        if (e == null) return null;
        return e.rung(c.runRung()).map(r -> e.models().get(r.model())).filter(ModelSpec::oracle)
                .map(ModelSpec::oracleNoise).orElse(null);
    }

    private ReportTable buildOracleAnalysis() {
        StringColumn rung = StringColumn.create("rung");
        StringColumn noise = StringColumn.create("noise");
        IntColumn n = IntColumn.create("n");
        DoubleColumn ex = DoubleColumn.create("EX");
        IntColumn losses = IntColumn.create("losses");
        IntColumn semantic = IntColumn.create("corrupted");
        IntColumn repaired = IntColumn.create("corrupted, EX");
        IntColumn format = IntColumn.create("format only");
        IntColumn cleaned = IntColumn.create("format only, EX");
        for (CellInfo c : cellInfo) {
            String level = oracleNoise(c);
            if (level == null) continue;
            Collection<ItemResult> rows = byRung.get(c.name()).values();
            rung.append(c.name());
            noise.append(level);
            n.append(rows.size());
            ex.append(rows.isEmpty() ? Double.NaN : rows.stream().filter(ItemResult::ex).count() / (double) rows.size());
            losses.append((int) rows.stream().filter(r -> !r.ex()).count());
            int sem = 0, semEx = 0, fmt = 0, fmtEx = 0;
            for (ItemResult r : rows) {
                OracleTrace o = oracle.get(oracleKey(c.name(), r.itemId()));
                if (o == null) continue;
                if (o.semantic()) {
                    sem++;
                    if (r.ex()) semEx++;
                } else if (o.format()) {
                    fmt++;
                    if (r.ex()) fmtEx++;
                }
            }
            semantic.append(sem);
            repaired.append(semEx);
            format.append(fmt);
            cleaned.append(fmtEx);
        }
        Table t = Table.create("oracle-analysis", rung, noise, n, ex, losses, semantic, repaired, format, cleaned);
        return new ReportTable("oracle-analysis", "Oracle analysis: what each rung does to a perfect answer, and what it recovers",
                caption("One row per rung answered by the oracle engine (answers written from the gold SQL; a measuring "
                        + "instrument, not a model result). noise: the oracle's noise (none: every answer is the gold). At "
                        + "noise none, EX below 1 is what the rung's own mechanisms do to a perfect answer (each loss is "
                        + "listed in the oracle-losses table). corrupted: items where some model call of the answer wrote a "
                        + "corrupted gold (semantic noise), and of them the items the rung still answered right (repaired "
                        + "or avoided); format only: items whose calls carried format noise and no corruption, and of them "
                        + "the items answered right (the noise removed)."),
                t, Map.of("EX", Style.PROPORTION), Set.of());
    }

    private ReportTable buildOracleLosses() {
        StringColumn rung = StringColumn.create("rung");
        StringColumn item = StringColumn.create("item");
        StringColumn errorClass = StringColumn.create("error class");
        StringColumn chosen = StringColumn.create("chosen");
        StringColumn cause = StringColumn.create("cause");
        for (CellInfo c : cellInfo) {
            if (!"none".equals(oracleNoise(c))) continue;
            for (ItemResult r : byRung.get(c.name()).values()) {
                if (r.ex()) continue;
                rung.append(c.name());
                item.append(r.itemId());
                errorClass.append(label(r.errorClass()));
                chosen.append(label(r.chosen()));
                OracleTrace o = oracle.get(oracleKey(c.name(), r.itemId()));
                String why = o == null || o.decision() == null ? "" : o.decision();
                cause.append(((r.error() != null ? "does not execute: " + r.error() + "; " : "") + why).replaceAll("\\s+", " "));
            }
        }
        Table t = Table.create("oracle-losses", rung, item, errorClass, chosen, cause);
        return new ReportTable("oracle-losses", "Oracle analysis: items lost on a perfect answer",
                caption("One row per item a rung answered wrong (EX 0) although the oracle engine gave it the gold "
                        + "without noise: what the rung's mechanisms did to a perfect answer. cause: the execution error "
                        + "of the final SQL if any, then the strategy's own decision as its trace records it."),
                t, Map.of(), Set.of());
    }

    private static String label(String value) {
        return value == null || value.isBlank() ? NONE : value.trim();
    }

    // canonical values present first in canonical order, then the others sorted, NONE last
    static List<String> ordered(Collection<String> present, List<String> canonical) {
        List<String> out = new ArrayList<>();
        for (String c : canonical) if (present.contains(c)) out.add(c);
        present.stream().filter(v -> !canonical.contains(v) && !v.equals(NONE)).sorted().forEach(out::add);
        if (present.contains(NONE)) out.add(NONE);
        return out;
    }
}
