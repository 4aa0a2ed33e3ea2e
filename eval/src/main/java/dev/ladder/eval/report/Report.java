package dev.ladder.eval.report;

import static tech.tablesaw.aggregate.AggregateFunctions.count;
import static tech.tablesaw.aggregate.AggregateFunctions.mean;
import static tech.tablesaw.aggregate.AggregateFunctions.median;
import static tech.tablesaw.aggregate.AggregateFunctions.proportionTrue;

import dev.ladder.eval.run.Cell;
import dev.ladder.eval.run.ItemResult;
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
import java.util.function.Predicate;
import tech.tablesaw.api.BooleanColumn;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.NumericColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * The paper-ready report of one run (or of several merged): accuracy by rung with bootstrap intervals, breakdowns
 * by category and difficulty, paired significance between consecutive rungs, the error taxonomy, and timings.
 *
 * <p>Every table except {@link #timings()} depends only on the scored outcomes, so identical results give identical
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

    /**
     * One run's input to a merged report.
     *
     * @param name    the run's name, its directory's name; prefixes rung names that another run also has
     * @param cells   the rungs, in any order (sorted by {@link Cell#index()})
     * @param results one row per item and cell
     */
    public record Run(String name, List<Cell> cells, List<ItemResult> results) {
        public Run {
            Objects.requireNonNull(name, "name");
            cells = List.copyOf(cells);
            results = List.copyOf(results);
        }

        /** A run named after its directory. */
        public static Run of(Path runDir, List<Cell> cells, List<ItemResult> results) {
            Path file = runDir.toAbsolutePath().normalize().getFileName();
            return new Run(file == null ? "" : file.toString(), cells, results);
        }
    }

    /**
     * The statistics' parameters.
     *
     * @param resamples bootstrap resamples B
     * @param seed      seed of each bootstrap's {@link java.util.SplittableRandom}
     */
    public record Options(int resamples, long seed) {
        /** B = 1000, seed 0. */
        public static final Options DEFAULT = new Options(Statistics.DEFAULT_RESAMPLES, Statistics.DEFAULT_SEED);

        public Options {
            if (resamples < 1) throw new IllegalArgumentException("resamples must be >= 1: " + resamples);
        }
    }

    private static final List<String> METRICS = List.of("VA", "EX", "EM", "TS");
    private static final Set<String> RESERVED = Set.of("category", "difficulty", "items", "error class");

    private final List<Cell> cells;
    private final Options options;
    private final Table results;
    private final Map<String, TreeMap<String, ItemResult>> byRung;
    private final boolean hasTs;
    private final int items;
    private final ReportTable summary;
    private final ReportTable categoryEx;
    private final ReportTable categoryTs;
    private final ReportTable difficultyEx;
    private final ReportTable difficultyTs;
    private final ReportTable significance;
    private final ReportTable errors;
    private final ReportTable timings;

    private Report(List<Cell> cells, Map<String, TreeMap<String, ItemResult>> byRung, Options options) {
        this.cells = List.copyOf(cells);
        this.byRung = byRung;
        this.options = options;
        this.results = longTable();
        this.hasTs = byRung.values().stream().flatMap(m -> m.values().stream()).anyMatch(r -> r.ts() != null);
        this.items = (int) byRung.values().stream().flatMap(m -> m.keySet().stream()).distinct().count();
        this.summary = buildSummary();
        this.categoryEx = breakdown("category", "EX");
        this.categoryTs = hasTs ? breakdown("category", "TS") : null;
        this.difficultyEx = breakdown("difficulty", "EX");
        this.difficultyTs = hasTs ? breakdown("difficulty", "TS") : null;
        this.significance = buildSignificance();
        this.errors = buildErrors();
        this.timings = buildTimings();
    }

    /** The report of one run with {@link Options#DEFAULT}. */
    public static Report of(List<Cell> cells, List<ItemResult> results) {
        return of(cells, results, Options.DEFAULT);
    }

    /** The report of one run. */
    public static Report of(List<Cell> cells, List<ItemResult> results, Options options) {
        return merge(List.of(new Run("", cells, results)), options);
    }

    /**
     * The report of several runs side by side: their rungs in run order, each run's sorted by index. A rung name
     * that more than one run has becomes {@code runName/rungName} in every run that has it; other names stay.
     *
     * @throws IllegalArgumentException when a result names a cell its run lacks, a (cell, item) pair repeats, a
     *                                  run repeats a cell name, prefixing still leaves two rungs with one name (ignoring
     *                                  case), or a rung is named category, difficulty, items or error class
     */
    public static Report merge(List<Run> runs, Options options) {
        Objects.requireNonNull(options, "options");
        if (runs.isEmpty()) throw new IllegalArgumentException("a report needs at least one run");
        Map<String, Integer> runsWithName = new HashMap<>();
        for (Run run : runs) {
            Set<String> names = new HashSet<>();
            for (Cell c : run.cells()) {
                if (!names.add(c.name())) {
                    throw new IllegalArgumentException("run '" + run.name() + "' has two cells named " + c.name());
                }
            }
            names.forEach(n -> runsWithName.merge(n, 1, Integer::sum));
        }
        List<Cell> merged = new ArrayList<>();
        Map<String, TreeMap<String, ItemResult>> byRung = new LinkedHashMap<>();
        for (Run run : runs) {
            Map<String, String> rename = new HashMap<>();
            List<Cell> ordered = new ArrayList<>(run.cells());
            ordered.sort(Comparator.comparingInt(Cell::index));
            for (Cell c : ordered) {
                String name = runsWithName.get(c.name()) > 1 ? run.name() + "/" + c.name() : c.name();
                if (byRung.keySet().stream().anyMatch(name::equalsIgnoreCase)) {
                    throw new IllegalArgumentException("two rungs are named " + name
                            + " (ignoring case) after merging; give the runs distinct directory names");
                }
                if (RESERVED.contains(name.toLowerCase(Locale.ROOT))) {
                    // rungs become columns beside these in the breakdown and error tables
                    throw new IllegalArgumentException("a rung cannot be named '" + name + "'; rename the cell");
                }
                rename.put(c.name(), name);
                byRung.put(name, new TreeMap<>());
                merged.add(new Cell(merged.size(), name, c.model(), c.adapter(), c.strategy(), c.seed()));
            }
            for (ItemResult r : run.results()) {
                String rung = rename.get(r.cell());
                if (rung == null) {
                    throw new IllegalArgumentException("result for item " + r.itemId() + " names cell " + r.cell()
                            + ", which run '" + run.name() + "' does not have");
                }
                if (byRung.get(rung).put(r.itemId(), r) != null) {
                    throw new IllegalArgumentException("cell " + r.cell() + " has two results for item " + r.itemId());
                }
            }
        }
        return new Report(merged, byRung, options);
    }

    /** The rungs, bottom first, with merged names and {@link Cell#index()} renumbered to the report's order. */
    public List<Cell> cells() {
        return cells;
    }

    /** The rung names, bottom first. */
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

    /** Distinct item ids over all rungs. */
    public int items() {
        return items;
    }

    /**
     * One row per item and rung: rung, item, category, difficulty, VA, EX, EM, TS (missing when null),
     * error_class, prompt_tokens, generated_tokens, ms; a copy.
     */
    public Table results() {
        return results.copy();
    }

    /** Rows: rungs; columns: n, then VA, EX, EM, TS with their 95% bootstrap intervals. */
    public ReportTable summary() {
        return summary;
    }

    /** Rows: categories with their item counts; columns: EX per rung. */
    public ReportTable categoryEx() {
        return categoryEx;
    }

    /** As {@link #categoryEx()} for TS; empty when no result has TS. */
    public Optional<ReportTable> categoryTs() {
        return Optional.ofNullable(categoryTs);
    }

    /** Rows: difficulties with their item counts; columns: EX per rung. */
    public ReportTable difficultyEx() {
        return difficultyEx;
    }

    /** As {@link #difficultyEx()} for TS; empty when no result has TS. */
    public Optional<ReportTable> difficultyTs() {
        return Optional.ofNullable(difficultyTs);
    }

    /** Rows: consecutive rung pairs and metric (EX, then TS when present); McNemar and the paired difference. */
    public ReportTable significance() {
        return significance;
    }

    /** Rows: error classes; columns: how many items of each rung fell in the class. */
    public ReportTable errors() {
        return errors;
    }

    /** Rows: rungs; columns: mean and median milliseconds, mean prompt and generated tokens per item. */
    public ReportTable timings() {
        return timings;
    }

    /** Every table that depends only on the scored outcomes, in report order (all but {@link #timings()}). */
    public List<ReportTable> tables() {
        List<ReportTable> all = new ArrayList<>();
        all.add(summary);
        all.add(categoryEx);
        categoryTs().ifPresent(all::add);
        all.add(difficultyEx);
        difficultyTs().ifPresent(all::add);
        all.add(significance);
        all.add(errors);
        return all;
    }

    /** The ids of every table a report can have, whether this one has it or not. */
    public static List<String> tableIds() {
        return List.of("summary", "category-ex", "category-ts", "difficulty-ex", "difficulty-ts", "significance",
                "errors", "timings");
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

    private ReportTable buildSummary() {
        StringColumn rung = StringColumn.create("rung");
        IntColumn n = IntColumn.create("n");
        Table t = Table.create("summary", rung, n);
        Map<String, DoubleColumn[]> columns = new LinkedHashMap<>();
        for (String m : METRICS) {
            DoubleColumn[] triple = {DoubleColumn.create(m), DoubleColumn.create(m + ReportTable.LOWER),
                    DoubleColumn.create(m + ReportTable.UPPER)};
            t.addColumns(triple);
            columns.put(m, triple);
        }
        for (String name : rungs()) {
            Collection<ItemResult> rows = byRung.get(name).values();
            rung.append(name);
            n.append(rows.size());
            append(columns.get("VA"), bootstrap(rows, ItemResult::va));
            append(columns.get("EX"), bootstrap(rows, ItemResult::ex));
            append(columns.get("EM"), bootstrap(rows, ItemResult::em));
            append(columns.get("TS"), bootstrap(rows.stream().filter(r -> r.ts() != null).toList(), ItemResult::ts));
        }
        return new ReportTable("summary", "Accuracy by rung",
                "One row per rung, bottom first. n: items the rung answered. VA: the prediction executes; EX: "
                        + "execution accuracy; EM: exact set match; TS: test-suite accuracy over the items that "
                        + "have a suite (missing when none has). Each value is the proportion of items with its "
                        + "95% percentile bootstrap interval.",
                t, Map.of(), new LinkedHashSet<>(METRICS));
    }

    private Statistics.Estimate bootstrap(Collection<ItemResult> rows, Predicate<ItemResult> outcome) {
        return Statistics.bootstrapProportion(outcomes(rows, outcome), options.resamples(), options.seed());
    }

    private static boolean[] outcomes(Collection<ItemResult> rows, Predicate<ItemResult> outcome) {
        boolean[] values = new boolean[rows.size()];
        int i = 0;
        for (ItemResult r : rows) values[i++] = outcome.test(r);
        return values;
    }

    private static void append(DoubleColumn[] triple, Statistics.Estimate e) {
        triple[0].append(e.value());
        triple[1].append(e.lower());
        triple[2].append(e.upper());
    }

    private ReportTable breakdown(String key, String metric) {
        Table shares = results.summarize(metric, proportionTrue).by(key, "rung");
        Map<String, Map<String, Double>> value = new HashMap<>();
        for (int i = 0; i < shares.rowCount(); i++) {
            NumericColumn<?> share = shares.numberColumn(2);
            double v = share.isMissing(i) ? Double.NaN : share.getDouble(i);
            value.computeIfAbsent(shares.stringColumn(0).get(i), k -> new HashMap<>())
                    .put(shares.stringColumn(1).get(i), v);
        }
        Table counts = results.selectColumns(key, "item").dropDuplicateRows().countBy(key);
        Map<String, Integer> itemCount = new HashMap<>();
        for (int i = 0; i < counts.rowCount(); i++) {
            itemCount.put(counts.stringColumn(0).get(i), (int) counts.numberColumn(1).getDouble(i));
        }
        List<String> keys = ordered(itemCount.keySet(), key.equals("difficulty") ? DIFFICULTIES : List.of());
        StringColumn keyColumn = StringColumn.create(key);
        IntColumn itemColumn = IntColumn.create("items");
        Table t = Table.create(key + "-" + metric, keyColumn, itemColumn);
        for (String k : keys) {
            keyColumn.append(k);
            itemColumn.append(itemCount.get(k));
        }
        for (String rung : rungs()) {
            DoubleColumn column = DoubleColumn.create(rung);
            for (String k : keys) column.append(value.getOrDefault(k, Map.of()).getOrDefault(rung, Double.NaN));
            t.addColumns(column);
        }
        String id = key + "-" + metric.toLowerCase(Locale.ROOT);
        return new ReportTable(id, metric + " by " + key,
                "One row per " + key + " with its number of distinct items; one column per rung, bottom first, "
                        + "holding the proportion of the " + key + "'s items with " + metric
                        + (metric.equals("TS") ? " among those that have a suite" : "")
                        + " (missing when the rung has no such item).",
                t, Map.of(), Set.of());
    }

    private ReportTable buildSignificance() {
        StringColumn from = StringColumn.create("from");
        StringColumn to = StringColumn.create("to");
        StringColumn metric = StringColumn.create("metric");
        IntColumn n = IntColumn.create("n");
        IntColumn b = IntColumn.create("b");
        IntColumn c = IntColumn.create("c");
        DoubleColumn p = DoubleColumn.create("p");
        DoubleColumn[] diff = {DoubleColumn.create("diff"), DoubleColumn.create("diff" + ReportTable.LOWER),
                DoubleColumn.create("diff" + ReportTable.UPPER)};
        List<String> rungs = rungs();
        Map<String, Predicate<ItemResult>> pairedMetrics = new LinkedHashMap<>();
        pairedMetrics.put("EX", ItemResult::ex);
        if (hasTs) pairedMetrics.put("TS", ItemResult::ts);
        for (int i = 0; i + 1 < rungs.size(); i++) {
            TreeMap<String, ItemResult> first = byRung.get(rungs.get(i));
            TreeMap<String, ItemResult> second = byRung.get(rungs.get(i + 1));
            for (Map.Entry<String, Predicate<ItemResult>> m : pairedMetrics.entrySet()) {
                boolean needsTs = m.getKey().equals("TS");
                List<String> ids = new ArrayList<>();
                for (String id : new TreeSet<>(first.keySet())) {
                    ItemResult a = first.get(id);
                    ItemResult z = second.get(id);
                    if (z != null && (!needsTs || (a.ts() != null && z.ts() != null))) ids.add(id);
                }
                boolean[] x = outcomes(ids.stream().map(first::get).toList(), m.getValue());
                boolean[] y = outcomes(ids.stream().map(second::get).toList(), m.getValue());
                Statistics.McNemar test = Statistics.mcnemar(x, y);
                from.append(rungs.get(i));
                to.append(rungs.get(i + 1));
                metric.append(m.getKey());
                n.append(test.n());
                b.append(test.b());
                c.append(test.c());
                p.append(test.p());
                append(diff, Statistics.pairedBootstrapDifference(x, y, options.resamples(), options.seed()));
            }
        }
        Table t = Table.create("significance", from, to, metric, n, b, c, p);
        t.addColumns(diff);
        return new ReportTable("significance", "Paired significance between consecutive rungs",
                "One row per pair of consecutive rungs (from, to) and metric, over the items both answered (for "
                        + "TS: both have a suite). b: items right in from and wrong in to; c: wrong in from and "
                        + "right in to; p: exact two-sided McNemar p-value; diff: to minus from, with its 95% paired "
                        + "bootstrap interval.",
                t, Map.of("p", Style.P_VALUE, "diff", Style.DIFFERENCE, "diff" + ReportTable.LOWER,
                        Style.DIFFERENCE, "diff" + ReportTable.UPPER, Style.DIFFERENCE),
                Set.of("diff"));
    }

    private ReportTable buildErrors() {
        Table counts = results.summarize("item", count).by("error_class", "rung");
        Map<String, Map<String, Integer>> count = new HashMap<>();
        for (int i = 0; i < counts.rowCount(); i++) {
            count.computeIfAbsent(counts.stringColumn(0).get(i), k -> new HashMap<>())
                    .put(counts.stringColumn(1).get(i), (int) counts.numberColumn(2).getDouble(i));
        }
        List<String> classes = ordered(count.keySet(), ERROR_CLASSES);
        StringColumn classColumn = StringColumn.create("error class", classes);
        Table t = Table.create("errors", classColumn);
        for (String rung : rungs()) {
            IntColumn column = IntColumn.create(rung);
            for (String k : classes) column.append(count.get(k).getOrDefault(rung, 0));
            t.addColumns(column);
        }
        return new ReportTable("errors", "Error taxonomy by rung",
                "One row per error class found in the results (canonical classes first: "
                        + String.join(", ", ERROR_CLASSES) + "); one column per rung holding how many of its "
                        + "items fell in the class.",
                t, Map.of(), Set.of());
    }

    private ReportTable buildTimings() {
        Table ms = results.summarize("ms", mean, median).by("rung");
        Table tokens = results.summarize("prompt_tokens", "generated_tokens", mean).by("rung");
        Map<String, Integer> msRow = rowIndex(ms);
        Map<String, Integer> tokenRow = rowIndex(tokens);
        StringColumn rung = StringColumn.create("rung");
        IntColumn n = IntColumn.create("n");
        DoubleColumn meanMs = DoubleColumn.create("mean ms");
        DoubleColumn medianMs = DoubleColumn.create("median ms");
        DoubleColumn meanPrompt = DoubleColumn.create("mean prompt tokens");
        DoubleColumn meanGenerated = DoubleColumn.create("mean generated tokens");
        for (String name : rungs()) {
            rung.append(name);
            n.append(byRung.get(name).size());
            meanMs.append(cell(ms, msRow.get(name), 1));
            medianMs.append(cell(ms, msRow.get(name), 2));
            meanPrompt.append(cell(tokens, tokenRow.get(name), 1));
            meanGenerated.append(cell(tokens, tokenRow.get(name), 2));
        }
        Table t = Table.create("timings", rung, n, meanMs, medianMs, meanPrompt, meanGenerated);
        Map<String, Style> styles = new HashMap<>();
        for (String c : List.of("mean ms", "median ms", "mean prompt tokens", "mean generated tokens")) {
            styles.put(c, Style.DECIMAL);
        }
        return new ReportTable("timings", "Latency and tokens per item",
                "One row per rung: items answered, mean and median wall time per item in milliseconds, mean "
                        + "prompt and generated tokens per item over all the item's model calls. Kept apart from "
                        + "the other tables because timings differ between runs of identical results.",
                t, styles, Set.of());
    }

    private static Map<String, Integer> rowIndex(Table grouped) {
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < grouped.rowCount(); i++) index.put(grouped.stringColumn(0).get(i), i);
        return index;
    }

    private static double cell(Table grouped, Integer row, int column) {
        if (row == null) return Double.NaN;
        NumericColumn<?> c = grouped.numberColumn(column);
        return c.isMissing(row) ? Double.NaN : c.getDouble(row);
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
