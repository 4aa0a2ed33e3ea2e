package dev.ladder.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.common.StableJson;
import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.scorer.bench.SpiderFormat;
import dev.ladder.scorer.bench.fetch.FetchedBenchmarks;
import dev.ladder.scorer.score.ExMode;
import dev.ladder.scorer.score.ExOptions;
import dev.ladder.scorer.score.ItemOutcome;
import dev.ladder.scorer.score.ItemScore;
import dev.ladder.scorer.score.Metric;
import dev.ladder.scorer.score.MetricItem;
import dev.ladder.scorer.score.MetricValue;
import dev.ladder.scorer.score.Metrics;
import dev.ladder.scorer.score.Prediction;
import dev.ladder.scorer.score.Predictions;
import dev.ladder.scorer.score.ScoreSummary;
import dev.ladder.scorer.score.Scoring;
import dev.ladder.scorer.score.em.EmMode;
import dev.ladder.scorer.testsuite.ScoringSetup;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.UserError;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "eval", mixinStandardHelpOptions = true,
        description = {"Score predictions with VA / EX / EM / TS (see docs/scoring.md).",
                "  ladder eval --benchmark classicmodels --split test --pred PRED.jsonl   (lines {\"id\":..., \"sql\":...})",
                "  ladder eval --db classicmodels --gold GOLD.txt --pred PRED.txt         (Spider files: SQL<TAB>db_id / SQL)",
                "  ladder eval --db-dir spider/database --gold GOLD.txt --pred PRED.txt   (db_id: DIR/<db_id>/<db_id>.sqlite)"})
final class EvalCommand implements Callable<Integer> {

    @Spec CommandSpec spec;
    @Mixin DatabaseOptions database;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Source source;

    static final class Source {
        @Option(names = "--benchmark", paramLabel = "NAME|PATH", description = "Benchmark whose gold SQL the predictions answer.")
        String benchmark;
        @Option(names = "--gold", paramLabel = "GOLD.txt", description = "Spider gold file: SQL<TAB>db_id per line.")
        Path gold;
    }

    @Option(names = "--split", defaultValue = "test", paramLabel = "SPLIT", description = "Benchmark split (default: ${DEFAULT-VALUE}).")
    String split;
    @Option(names = "--db", paramLabel = "DB", description = "Database for --gold files (default: the gold file's db_id); every line's db_id must name it.")
    String db;
    @Option(names = "--db-dir", paramLabel = "DIR",
            description = "For --gold files: the Spider database folder, where db_id names DIR/<db_id>/<db_id>.sqlite.")
    Path dbDir;
    @Option(names = "--pred", required = true, paramLabel = "FILE", description = "Predictions: JSONL with --benchmark, one SQL per line with --gold.")
    Path pred;
    @Option(names = "--all-items", description = "With --benchmark: score every item of the split, an item without a "
            + "prediction as wrong (default: when the predictions cover only some items, as a --limit run's do, score those).")
    boolean allItems;

    /** With --benchmark, when the predictions cover a subset: how many items the split has (null: all are scored). */
    private Integer splitItems;

    @Option(names = "--json", description = "Print JSON: {\"VA\":..,\"EX\":..,\"EM\":..,\"TS\":..,\"items\":[...],\"gold_errors\":[...]}.")
    boolean json;
    @Option(names = "--ex-mode", defaultValue = "spider", paramLabel = "spider|bird",
            description = "EX semantics: spider (test-suite exec_eval, default) or bird (set equality, column order counts).")
    String exMode;
    @Option(names = "--em-mode", defaultValue = "semantic", paramLabel = "semantic|spider-strict",
            description = "EM: semantic (Ladder's parser, default) or spider-strict (0 where the official Spider parser cannot read gold or prediction).")
    String emMode;
    @Option(names = "--keep-distinct", description = "Keep DISTINCT: EX runs both queries with it (the reference drops it unless --keep_distinct), EM compares it (the reference always ignores it, even with --keep_distinct).")
    boolean keepDistinct;
    @Option(names = "--tolerance", defaultValue = "0", paramLabel = "REL",
            description = "Relative tolerance for numbers, e.g. 1e-6 (default: exact).")
    double tolerance;
    @Option(names = "--suite", paramLabel = "DIR",
            description = "Test suite for TS (default: the stored suite of the database, built by 'ladder testsuite build'); for SQLite "
                    + "databases a folder of the official suites, DIR/<db_id>/*.sqlite, or 'spider-ts' once fetched.")
    Path suite;
    @Option(names = "--no-suite", description = "Skip TS (reported as missing) even when a stored test suite exists.")
    boolean noSuite;

    @Override
    public Integer call() {
        ExOptions options = options();
        if (!Files.isRegularFile(pred)) throw new UserError("no such prediction file: " + pred);
        List<Scored> rows = new ArrayList<>();
        List<GoldError> goldErrors = new ArrayList<>();
        Map<String, Scoring> scorers = new HashMap<>();
        List<Database> opened = new ArrayList<>();
        String title;
        try {
            Function<String, Scoring> scoringFor = spec -> scorers.computeIfAbsent(spec, s -> newScoring(s, options, opened));
            if (source.benchmark != null) {
                if (dbDir != null) throw new UserError("--db-dir is for --gold files (a benchmark knows its databases)");
                Benchmark b = Benchmarks.load(source.benchmark, db);
                List<BenchmarkItem> items = b.split(split);
                Map<String, String> predictions = Predictions.readJsonl(pred);
                Map<String, BenchmarkItem> byId = new LinkedHashMap<>();
                for (BenchmarkItem item : items) byId.put(item.id(), item);
                for (String id : predictions.keySet()) {
                    if (!byId.containsKey(id)) throw new UserError(pred + ": id '" + id + "' is not in " + b.name() + " " + split);
                }
                title = b.name() + " " + split;
                // a --limit run predicts a subset: scoring the rest as wrong would report 0.05 where the run says 1.0
                if (!allItems && predictions.size() < items.size()) {
                    splitItems = items.size();
                    items = items.stream().filter(i -> predictions.containsKey(i.id())).toList();
                }
                for (BenchmarkItem item : items) {
                    Scoring scoring = scoringFor.apply(b.databaseOf(item));
                    String where = b.name() + " " + split + " item " + item.id();
                    if (excluded(scoring, item.id(), where, item.allGold(), goldErrors)) continue;
                    rows.add(scored(scoring, new MetricItem(item.id(), item.category(), item.allGold()),
                            predictions.get(item.id()), item.difficulty()));
                }
            } else {
                if (dbDir != null && db != null) throw new UserError("--db and --db-dir cannot be used together");
                if (dbDir != null && !Files.isDirectory(dbDir)) throw new UserError("--db-dir: no such folder: " + dbDir);
                List<Predictions.GoldLine> golds = Predictions.readGold(source.gold);
                List<String> predictions = Predictions.readSqlLines(pred);
                if (predictions.size() != golds.size()) {
                    throw new UserError(pred + " has " + predictions.size() + " predictions but " + source.gold + " has " + golds.size() + " gold queries");
                }
                title = source.gold.getFileName().toString();
                if (db != null) checkDbIds(golds, scoringFor.apply(db));
                for (int i = 0; i < golds.size(); i++) {
                    Predictions.GoldLine g = golds.get(i);
                    String dbSpec = db != null ? db : dbDir != null ? SpiderFormat.databaseIn(dbDir, g.db()) : g.db();
                    Scoring scoring = scoringFor.apply(dbSpec);
                    String id = Integer.toString(i + 1);
                    if (excluded(scoring, id, source.gold + ":" + g.line(), List.of(g.sql()), goldErrors)) continue;
                    rows.add(scored(scoring, new MetricItem(id, g.db(), List.of(g.sql())), predictions.get(i), ""));
                }
            }
            if (rows.isEmpty()) {
                // nothing left to score is not a score of 0
                GoldError first = goldErrors.get(0);
                throw new UserError(first.where() + ": " + (first.outcome().equals("gold-unreadable") ? "gold cannot be read: " : "")
                        + first.error() + (goldErrors.size() > 1 ? " (nor can any of the other " + (goldErrors.size() - 1)
                        + " golds be read or run)" : ""));
            }
            String tsMissing = tsMissing(scorers.values());
            if (json) printJson(rows, goldErrors, options, tsMissing);
            else printTables(title, rows, goldErrors, options, tsMissing);
            return 0;
        } finally {
            opened.forEach(Database::close);
        }
    }

    /** Why TS is missing (the first reason a scorer gives), or null when every database has a suite. */
    private String tsMissing(Collection<Scoring> scorers) {
        if (scorers.stream().allMatch(Scoring::hasSuite)) return null;
        if (noSuite) return "--no-suite";
        return scorers.stream().filter(s -> !s.hasSuite()).map(Scoring::whyNoSuite).flatMap(Optional::stream).findFirst()
                .orElse("no test suite: run 'ladder testsuite build DB'");
    }

    /**
     * --db scores every gold line on one database: a line whose db_id names another was written for another
     * database, and scoring it here would give a number about the wrong data.
     */
    private void checkDbIds(List<Predictions.GoldLine> golds, Scoring scoring) {
        String name = scoring.databaseName();
        for (Predictions.GoldLine g : golds) {
            if (!g.db().equalsIgnoreCase(name)) {
                throw new UserError(source.gold + ":" + g.line() + ": db_id '" + g.db()
                        + "' is not the database given with --db (" + name + ")");
            }
        }
    }

    /** One item's built-in scores and every registered metric's value (docs/extending.md), on one prediction. */
    private record Scored(ItemScore score, String difficulty, Map<String, MetricValue> metrics, String outcome) {}

    /** Scores one prediction with the built-in metrics and every registered one: each execution runs once. */
    private static Scored scored(Scoring scoring, MetricItem item, String predicted, String difficulty) {
        Prediction prediction = new Prediction(predicted);
        ItemScore score = scoring.score(item, prediction);
        return new Scored(score, difficulty, Metrics.scoreRegistered(item, prediction, scoring),
                scoring.outcome(item, prediction, score.ex()));
    }

    /** The mean of a registered metric over the rows it applies to, or null when it applies to none. */
    private static Double mean(List<Scored> rows, String metric) {
        var values = rows.stream().map(r -> r.metrics().get(metric)).filter(v -> v != null && v.present())
                .mapToDouble(MetricValue::value).toArray();
        return values.length == 0 ? null : Arrays.stream(values).average().orElseThrow();
    }

    /**
     * An item left out of every score because EM cannot read its gold, or the gold timed out or failed on the database;
     * {@code where} is GOLD:LINE or the item; {@code outcome} is gold-unreadable, gold-timeout or gold-error.
     */
    private record GoldError(String id, String where, String error, String outcome) {}

    /**
     * A gold that cannot be read is a fault of the gold file, not of the prediction: the item is left out of every
     * score (so VA, EX, EM and TS count the same items) and named in the output, and the rest is still scored.
     */
    private static boolean excluded(Scoring scoring, String id, String where, List<String> golds, List<GoldError> errors) {
        var why = scoring.unreadableGold(golds);
        if (why.isPresent()) {
            errors.add(new GoldError(id, where, why.get(), "gold-unreadable"));
            return true;
        }
        // an item none of whose golds runs on the database cannot judge a prediction: never the model's error
        List<Execution> runs = scoring.goldRuns(golds);
        String failure = ItemOutcome.goldFailure(runs);
        if (failure == null) return false;
        String first = runs.stream().filter(r -> r instanceof Execution.Failure).findFirst()
                .map(r -> ((Execution.Failure) r).error().toString()).orElse("no gold");
        errors.add(new GoldError(id, where, "the gold could not run: " + first, failure));
        return true;
    }

    private ExOptions options() {
        ExMode mode = switch (exMode.toLowerCase(Locale.ROOT)) {
            case "spider" -> ExMode.SPIDER;
            case "bird" -> ExMode.BIRD;
            default -> throw new UserError("unknown --ex-mode '" + exMode + "' (use spider or bird)");
        };
        EmMode em = EmMode.parse(emMode.toLowerCase(Locale.ROOT))
                .orElseThrow(() -> new UserError("unknown --em-mode '" + emMode + "' (use semantic or spider-strict)"));
        return new ExOptions(mode, keepDistinct, tolerance, em);
    }

    private Scoring newScoring(String dbSpec, ExOptions options, List<Database> opened) {
        Database original = database.open(dbSpec);
        opened.add(original);
        // a fetched suite by name (spider-ts), else a path
        Path named = suite == null ? null : FetchedBenchmarks.suite(suite.toString()).orElse(suite);
        return ScoringSetup.create(original, options, noSuite ? ScoringSetup.Suite.NONE : ScoringSetup.Suite.STORED,
                named, opened, database.sqlMode());
    }

    private void printJson(List<Scored> rows, List<GoldError> goldErrors, ExOptions options, String tsMissing) {
        List<ItemScore> scores = rows.stream().map(Scored::score).toList();
        ObjectMapper mapper = StableJson.mapper().enable(SerializationFeature.INDENT_OUTPUT);
        ScoreSummary all = ScoreSummary.of(scores);
        ObjectNode root = mapper.createObjectNode();
        root.put("VA", all.va());
        root.put("EX", all.ex());
        root.put("EM", all.em());
        if (all.ts() == null) root.putNull("TS");
        else root.put("TS", all.ts());
        if (tsMissing != null) root.put("ts_missing", tsMissing);
        root.put("n", all.items());
        if (splitItems != null) {
            root.put("split_items", splitItems);
            root.put("scored", "the items the predictions cover (--all-items scores the split)");
        }
        root.put("ex_mode", options.label());
        root.put("em_mode", options.emMode().label());
        List<Metric> registered = Metrics.registered();
        if (!registered.isEmpty()) {
            // registered metrics: the mean over the items each applies to (null: none), and each item's value
            ObjectNode means = root.putObject("metrics");
            for (Metric m : registered) {
                Double v = mean(rows, m.name());
                if (v == null) means.putNull(m.name());
                else means.put(m.name(), v);
            }
        }
        ArrayNode items = root.putArray("items");
        for (Scored r : rows) {
            ObjectNode item = mapper.valueToTree(r.score());
            item.put("outcome", r.outcome());
            if (!registered.isEmpty()) {
                ObjectNode values = item.putObject("metrics");
                r.metrics().forEach((name, v) -> {
                    if (v.present()) values.put(name, v.value());
                    else values.putNull(name);
                });
            }
            items.add(item);
        }
        ArrayNode excluded = root.putArray("gold_errors");
        for (GoldError e : goldErrors) excluded.addObject().put("id", e.id()).put("where", e.where()).put("error", e.error())
                .put("outcome", e.outcome());
        PrintWriter out = spec.commandLine().getOut();
        try {
            out.println(mapper.writeValueAsString(root));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private void printTables(String title, List<Scored> rows, List<GoldError> goldErrors, ExOptions options, String tsMissing) {
        PrintWriter out = spec.commandLine().getOut();
        List<ItemScore> scores = rows.stream().map(Scored::score).toList();
        long missing = scores.stream().filter(s -> s.flags().contains("no-prediction")).count();
        out.println(title + ": " + scores.size() + " items, EX mode " + options.label() + ", EM mode " + options.emMode().label()
                + (tsMissing == null ? "" : "; TS missing (" + tsMissing + ")")
                + (missing > 0 ? "; " + missing + " items without a prediction" : "")
                + (splitItems == null ? "" : "; the items the predictions cover, of " + splitItems
                        + " in the split (--all-items scores them all, the others as wrong)")
                + excludedNote(goldErrors));
        out.println();
        String em = "EM (" + options.emMode().label() + ")";
        table(out, "", Map.of("all", rows), em);
        out.println();
        out.println("outcomes: " + outcomes(rows));
        if (rows.stream().anyMatch(r -> !r.score().category().isEmpty())) {
            out.println();
            Map<String, List<Scored>> byCategory = new LinkedHashMap<>();
            for (Scored r : rows) byCategory.computeIfAbsent(r.score().category(), k -> new ArrayList<>()).add(r);
            table(out, "category", byCategory, em);
        }
        if (rows.stream().anyMatch(r -> !r.difficulty().isEmpty())) {
            out.println();
            Map<String, List<Scored>> byDifficulty = new LinkedHashMap<>();
            for (String d : BenchmarkItem.DIFFICULTIES) byDifficulty.put(d, new ArrayList<>());
            for (Scored r : rows) byDifficulty.computeIfAbsent(r.difficulty(), k -> new ArrayList<>()).add(r);
            byDifficulty.values().removeIf(List::isEmpty);
            table(out, "difficulty", byDifficulty, em);
        }
    }

    /** How many scored items had each outcome, in {@link ItemOutcome#ORDER}: the model's failures apart. */
    private static String outcomes(List<Scored> rows) {
        Map<String, Integer> count = new HashMap<>();
        rows.forEach(r -> count.merge(r.outcome(), 1, Integer::sum));
        List<String> order = new ArrayList<>(ItemOutcome.ORDER);
        count.keySet().stream().filter(o -> !order.contains(o)).sorted().forEach(order::add);
        return String.join(", ", order.stream().filter(count::containsKey).map(o -> o + " " + count.get(o)).toList());
    }

    /** The header's note on items left out for their gold: how many, and where (the first five). */
    private static String excludedNote(List<GoldError> errors) {
        if (errors.isEmpty()) return "";
        List<String> where = errors.stream().limit(5).map(GoldError::where).toList();
        return "; " + errors.size() + (errors.size() == 1 ? " item excluded, its gold cannot be read or run: "
                : " items excluded, their gold cannot be read or run: ") + String.join(", ", where)
                + (errors.size() > 5 ? ", ..." : "");
    }

    /**
     * One row per group: items, VA, EX, EM, TS, then the mean of each registered metric ("missing" where it applies
     * to no item of the group).
     *
     * @param em the EM column's header, naming the EM mode
     */
    private static void table(PrintWriter out, String label, Map<String, List<Scored>> groups, String em) {
        List<String> extra = Metrics.registered().stream().map(Metric::name).toList();
        List<String> header = new ArrayList<>(List.of(label, "items", "VA", "EX", em, "TS"));
        header.addAll(extra);
        TextTable t = new TextTable(header);
        for (int i = 1; i < header.size(); i++) t.alignRight(i);
        groups.forEach((k, rows) -> {
            ScoreSummary s = ScoreSummary.of(rows.stream().map(Scored::score).toList());
            List<String> row = new ArrayList<>(List.of(k, Integer.toString(s.items()), f(s.va()), f(s.ex()), f(s.em()),
                    s.ts() == null ? "missing" : f(s.ts())));
            for (String m : extra) {
                Double v = mean(rows, m);
                row.add(v == null ? "missing" : f(v));
            }
            t.add(row);
        });
        t.print(out);
    }

    private static String f(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
