package dev.ladder.eval.report;

import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.experiment.Comparisons;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ModelSpec;
import dev.ladder.eval.experiment.RungFactors;
import dev.ladder.eval.experiment.RungSpec;
import dev.ladder.eval.report.Report.Options;
import dev.ladder.eval.report.Report.OracleTrace;
import dev.ladder.eval.report.Report.Run;
import dev.ladder.eval.run.ItemResult;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;
import tech.tablesaw.api.DoubleColumn;

/**
 * What every table of a report reads: the runs merged into cells and rungs (names made unique, rows by cell and item),
 * the declared comparisons with the factors their rungs differ in, the oracle traces, which metrics are present, and
 * the runs' provenance. Built once; each table is built from it by its own class.
 */
final class ReportModel {

    /** A cell of the report: its merged name, the rung it belongs to, its seed and its run. */
    record CellInfo(Cell cell, String rung, String runRung, long seed, int run, String skipped) {
        String name() {
            return cell.name();
        }
    }

    /** A rung of the report: its cells by seed, in seed order of the experiment. */
    record RungInfo(String name, String runRung, int run, Map<Long, String> cellsBySeed, Map<String, String> factors) {
    }

    /** A declared comparison between two of the report's rungs, with its Holm family. */
    record Declared(String from, String to, String label, String family, List<String> differs, String change) {
    }

    /** A metric as an outcome per row: its column name and the outcome (null when the item has none). */
    record Outcome(String name, Function<ItemResult, Boolean> outcome) {
    }

    final List<Run> runs;
    final List<String> runNames;
    /** The cells in report order, with their rung, seed and run. */
    final List<CellInfo> cellInfo;
    /** The cells, bottom first, with merged names and {@link Cell#index()} renumbered to the report's order. */
    final List<Cell> cells;
    final Map<String, RungInfo> rungInfo;
    /**
     * Each cell's scored rows by item id (sorted, so resampling does not depend on the input's order). Rows whose
     * gold itself timed out or failed are not here: they cannot be scored, and are never the model's error.
     */
    final Map<String, TreeMap<String, ItemResult>> byRung;
    /**
     * Each cell's rows of items whose gold timed out or failed ({@link ItemResult#goldFailed()}) in any row of the
     * cell's run, by item id: every cell of a run scores the same items.
     */
    final Map<String, TreeMap<String, ItemResult>> goldFailed;
    final List<Declared> declared;
    final Map<String, OracleTrace> oracle;
    final Options options;
    final boolean hasTs;
    final boolean hasExAlt;
    final boolean hasJudge;
    final boolean multiSeed;
    final String exAltLabel;
    final int items;
    final List<String> provenance;

    private ReportModel(List<Run> runs, List<CellInfo> cellInfo, Map<String, RungInfo> rungInfo,
                        Map<String, TreeMap<String, ItemResult>> byRung,
                        Map<String, TreeMap<String, ItemResult>> goldFailed, List<Declared> declared,
                        Map<String, OracleTrace> oracle, Options options) {
        this.runs = List.copyOf(runs);
        this.runNames = runs.stream().map(Run::name).toList();
        this.cellInfo = List.copyOf(cellInfo);
        this.cells = cellInfo.stream().map(CellInfo::cell).toList();
        this.rungInfo = rungInfo;
        this.byRung = byRung;
        this.goldFailed = goldFailed;
        this.declared = List.copyOf(declared);
        this.oracle = Map.copyOf(oracle);
        this.options = options;
        this.hasTs = allRows().anyMatch(r -> r.ts() != null);
        this.hasExAlt = allRows().anyMatch(r -> r.exAlt() != null);
        this.hasJudge = allRows().anyMatch(ItemResult::judged);
        this.multiSeed = rungInfo.values().stream().anyMatch(r -> r.cellsBySeed().size() > 1);
        this.exAltLabel = "EX (" + exModes()[1] + ")";
        this.items = (int) allRows().map(ItemResult::itemId).distinct().count();
        this.provenance = Provenance.of(this.runs);
    }

    /** The cell names, bottom first (the columns of the breakdowns and of the error table). */
    List<String> rungs() {
        return cells.stream().map(Cell::name).toList();
    }

    /**
     * Several runs side by side: their cells in run order, each run's sorted by index. A cell name
     * that more than one run has becomes {@code runName/cellName} in every run that has it (and its rung
     * {@code runName/rung}); other names stay. Comparisons are those each run declares, within the run.
     *
     * @throws IllegalArgumentException when a result names a cell its run lacks, a (cell, item) pair repeats, a
     *                                  run repeats a cell name, prefixing still leaves two cells with one name
     *                                  (ignoring case), or a rung is named category, difficulty, items or error class
     */
    static ReportModel merge(List<Run> runs, Options options) {
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
        Map<String, TreeMap<String, ItemResult>> goldFailed = new LinkedHashMap<>();
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
                if (Report.RESERVED.contains(name.toLowerCase(Locale.ROOT))) {
                    // cells become columns beside these in the breakdown and error tables
                    throw new IllegalArgumentException("a rung cannot be named '" + name + "'; rename the cell");
                }
                String runRung = rungOf(c);
                String rung = runsWithRung.get(runRung) > 1 ? run.name() + "/" + runRung : runRung;
                rename.put(c.name(), name);
                rungRename.put(runRung, rung);
                byRung.put(name, new TreeMap<>());
                goldFailed.put(name, new TreeMap<>());
                Cell renamed = new Cell(merged.size(), name, c.model(), c.adapter(), c.strategy(), c.seed());
                merged.add(new CellInfo(renamed, rung, runRung, c.seed(), runIndex,
                        run.info().meta("skipped." + c.name())));
                int at = runIndex;
                RungInfo ri = rungInfo.computeIfAbsent(rung, k -> new RungInfo(k, runRung, at, new LinkedHashMap<>(),
                        factors(run, c, runRung)));
                ri.cellsBySeed().put(c.seed(), name);
            }
            // one item set for every cell of a run: an item whose gold failed for any of its rows is out for all
            Set<String> goldFailedItems = new HashSet<>();
            for (ItemResult r : run.results()) if (r.goldFailed()) goldFailedItems.add(r.itemId());
            for (ItemResult r : run.results()) {
                String cell = rename.get(r.cell());
                if (cell == null) {
                    throw new IllegalArgumentException("result for item " + r.itemId() + " names cell " + r.cell()
                            + ", which run '" + run.name() + "' does not have");
                }
                if (byRung.get(cell).containsKey(r.itemId()) || goldFailed.get(cell).containsKey(r.itemId())
                        || (goldFailedItems.contains(r.itemId()) ? goldFailed : byRung).get(cell).put(r.itemId(), r) != null) {
                    throw new IllegalArgumentException("cell " + r.cell() + " has two results for item " + r.itemId());
                }
                OracleTrace o = run.oracle().get(Report.oracleKey(r.cell(), r.itemId()));
                if (o != null) oracle.put(Report.oracleKey(cell, r.itemId()), o);
            }
            declared.addAll(declared(run, rungRename, rungInfo));
        }
        return new ReportModel(runs, merged, rungInfo, byRung, goldFailed, declared, oracle, options);
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
        Function<Comparisons.Pair, String> family;
        if (e != null) {
            pairs = e.comparisons();
            label = e::labelOf;
            family = e::familyOf;
        } else {
            Map<String, Cell> firstCell = new LinkedHashMap<>();
            List<Cell> ordered = new ArrayList<>(run.cells());
            ordered.sort(Comparator.comparingInt(Cell::index));
            for (Cell c : ordered) firstCell.putIfAbsent(rungOf(c), c);
            List<Comparisons.Rung> rungs = Comparisons.rungsOfCells(firstCell);
            pairs = Comparisons.defaultFamily(rungs);
            label = p -> Comparisons.label(p, rungs);
            family = p -> Comparisons.family(p, rungs);
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
            out.add(new Declared(from, to, label.apply(p), family.apply(p), differs, change));
        }
        return out;
    }

    /** Every row of every cell. */
    Stream<ItemResult> allRows() {
        return byRung.values().stream().flatMap(m -> m.values().stream());
    }

    /** The primary and the second EX mode's names: from the run's meta, else its config, else "?" and "alt". */
    String[] exModes() {
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

    /** A table's description with the provenance of its runs after it. */
    String caption(String description) {
        return description + " " + String.join(" ", provenance);
    }

    /** The summary's metrics: VA, EX, the second EX mode where present, EM, TS, the judge where present. */
    List<Outcome> summaryMetrics() {
        List<Outcome> m = new ArrayList<>();
        m.add(new Outcome("VA", ItemResult::va));
        m.add(new Outcome("EX", ItemResult::ex));
        if (hasExAlt) m.add(new Outcome(exAltLabel, ItemResult::exAlt));
        m.add(new Outcome("EM", ItemResult::em));
        m.add(new Outcome("TS", ItemResult::ts));
        if (hasJudge) m.add(new Outcome("Judge", ItemResult::judge));
        return m;
    }

    /** The oracle noise of a cell's model, or null when the cell's model is not the oracle (or the config is unknown). */
    String oracleNoise(CellInfo c) {
        Experiment e = runs.get(c.run()).info().experiment();
        if (e == null) return null;
        return e.rung(c.runRung()).map(r -> e.models().get(r.model())).filter(ModelSpec::oracle)
                .map(ModelSpec::oracleNoise).orElse(null);
    }

    static boolean[] outcomes(Collection<ItemResult> rows, Function<ItemResult, Boolean> outcome) {
        List<Boolean> values = new ArrayList<>();
        for (ItemResult r : rows) {
            Boolean v = outcome.apply(r);
            if (v != null) values.add(v);
        }
        boolean[] out = new boolean[values.size()];
        for (int i = 0; i < out.length; i++) out[i] = values.get(i);
        return out;
    }

    static DoubleColumn[] triple(String name) {
        return new DoubleColumn[] {DoubleColumn.create(name), DoubleColumn.create(name + ReportTable.LOWER),
                DoubleColumn.create(name + ReportTable.UPPER)};
    }

    static void append(DoubleColumn[] triple, Statistics.Estimate e) {
        triple[0].append(e.value());
        triple[1].append(e.lower());
        triple[2].append(e.upper());
    }

    static boolean[] toArray(List<Boolean> values) {
        boolean[] out = new boolean[values.size()];
        for (int i = 0; i < out.length; i++) out[i] = values.get(i);
        return out;
    }

    static String label(String value) {
        return value == null || value.isBlank() ? Report.NONE : value.trim();
    }

    // canonical values present first in canonical order, then the others sorted, NONE last
    static List<String> ordered(Collection<String> present, List<String> canonical) {
        List<String> out = new ArrayList<>();
        for (String c : canonical) if (present.contains(c)) out.add(c);
        present.stream().filter(v -> !canonical.contains(v) && !v.equals(Report.NONE)).sorted().forEach(out::add);
        if (present.contains(Report.NONE)) out.add(Report.NONE);
        return out;
    }
}
