package dev.ladder.eval.check;

import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.SqlFeatures;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.scorer.score.ErrorTaxonomy;
import dev.ladder.scorer.score.TiedOrder;
import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.scorer.testsuite.NeighbourQueries;
import dev.ladder.pipeline.agent.CandidateScorer;
import dev.ladder.pipeline.agent.Clamps;
import dev.ladder.pipeline.agent.IntentGate;
import dev.ladder.pipeline.agent.ProjectionContract;
import dev.ladder.pipeline.kit.Intent;
import dev.ladder.pipeline.kit.IntentClassifier;
import dev.ladder.pipeline.kit.IntentProfile;
import dev.ladder.sql.Dialect;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionError;
import dev.ladder.sql.db.UserError;
import dev.ladder.sql.guard.SqlGuard;
import dev.ladder.sql.post.SqlPostProcessor;
import dev.ladder.sql.schema.Schema;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What every reader of SQL says about a query, frozen to a file so a refactoring of the readers can be checked
 * against it: "no verdict changes by accident". Each line is {@code source TAB key TAB reader TAB verdict}; the
 * verdict is the reader's public answer (the guard's verdict, the post-processor's cleaned SQL, a clamp's output, the
 * intent gate's failure, a candidate score's parts, EM's components and scores, the error taxonomy's class, SQL
 * features, order checks, test-suite neighbours), rendered as text.
 *
 * <p>Inputs are golds (a benchmark's items, with their question and database) and optionally predictions (a run's
 * rows), each read alone and, for the pair readers (EM, taxonomy), against its gold. A gold is also paired with its
 * first test-suite neighbours, which are realistic near misses.
 *
 * <p>A reader that throws is recorded as {@code !ExceptionClass: message}, so a crash that turns into a verdict (or
 * the reverse) shows as a difference too.
 */
public final class ReaderVerdicts {

    /** Neighbours of a gold paired with it for the pair readers (bounded: each costs two parses per reader). */
    private static final int NEIGHBOUR_PAIRS = 4;

    /** A few fixed intent profiles besides the question's own, so every gate and clamp branch is exercised. */
    static final Map<String, IntentProfile> PROFILES = fixedProfiles();

    private final BufferedWriter out;
    private int lines;

    private ReaderVerdicts(BufferedWriter out) {
        this.out = out;
    }

    /** One query to read: where it came from, its id there, and what readers need around it. */
    public record Input(String source, String key, String question, String sql, String gold, boolean isGold) {}

    /** The queries a freeze reads, and the database spec of each one's key. */
    public record Inputs(List<Input> inputs, Map<String, String> databaseOfKey) {}

    /**
     * Every gold of the splits (splits by name, items in order; keyed split/item), then every prediction of each run
     * directory against its item's gold (keyed run/cell/item; rows of items not in the splits are left out).
     *
     * @param databaseOf the database spec of an item
     */
    public static Inputs collect(Map<String, List<BenchmarkItem>> splits, Function<BenchmarkItem, String> databaseOf,
                                 List<Path> runs) {
        List<Input> inputs = new ArrayList<>();
        Map<String, BenchmarkItem> byId = new HashMap<>();
        Map<String, String> databaseOfKey = new HashMap<>();
        for (Map.Entry<String, List<BenchmarkItem>> e : new TreeMap<>(splits).entrySet()) {
            for (BenchmarkItem item : e.getValue()) {
                String key = e.getKey() + "/" + item.id();
                byId.put(item.id(), item);
                databaseOfKey.put(key, databaseOf.apply(item));
                inputs.add(new Input("gold", key, item.question(), item.sql(), item.sql(), true));
            }
        }
        for (Path run : runs) {
            Path results = run.resolve(RunDirectory.RESULTS);
            if (!Files.isRegularFile(results)) throw new UserError("not a run directory (no results.sqlite): " + run);
            try (ResultsStore store = ResultsStore.openReadOnly(results)) {
                for (ItemResult r : store.results()) {
                    BenchmarkItem item = byId.get(r.itemId());
                    if (item == null) continue;
                    String key = run.getFileName() + "/" + r.cell() + "/" + r.itemId();
                    databaseOfKey.put(key, databaseOf.apply(item));
                    inputs.add(new Input("prediction", key, item.question(), r.predicted(), item.sql(), false));
                }
            }
        }
        return new Inputs(inputs, databaseOfKey);
    }

    /**
     * Writes every reader's verdict on every input to {@code file} (replaced atomically). {@code database} opens the
     * database of an input's source key (null: the readers that execute are left out).
     *
     * @return the number of verdict lines written
     */
    public static int freeze(List<Input> inputs, Function<Input, Schema> schemaOf,
                             Function<Input, Database> databaseOf, Path file) {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (BufferedWriter w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            ReaderVerdicts v = new ReaderVerdicts(w);
            for (Input in : inputs) {
                v.readAll(in, schemaOf.apply(in), databaseOf == null ? null : databaseOf.apply(in));
            }
            w.flush();
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            return v.lines;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void readAll(Input in, Schema schema, Database db) throws IOException {
        String sql = in.sql();
        var dialect = db == null ? Dialect.MYSQL : db.dialect();
        put(in, "guard", () -> new SqlGuard(dialect).check(sql).toString());
        put(in, "post", () -> SqlPostProcessor.clean(sql, schema, dialect).toString());
        put(in, "features", () -> {
            SqlFeatures f = SqlFeatures.of(sql);
            return f + " hardness=" + f.hardness() + " joins=" + f.joins();
        });
        put(in, "plain-columns", () -> String.valueOf(SqlProjection.plainColumns(sql)));
        ExactMatch em = new ExactMatch(schema, true);
        ErrorTaxonomy taxonomy = new ErrorTaxonomy(schema);
        put(in, "em-units", () -> String.valueOf(em.analyse(sql)));

        Execution execution = null;
        if (db != null) {
            execution = db.execute(sql);
            Execution e = execution;
            put(in, "execution", () -> e.ok() ? "ok" : ((Execution.Failure) e).error().kind().toString());
            put(in, "order-check", () -> String.valueOf(OrderCheck.problems(db, sql, true)) + " / "
                    + OrderCheck.problems(db, sql, false));
            put(in, "tied-order", () -> String.valueOf(TiedOrder.of(db, sql).map(t -> t.width() + ":" + t.runs().size()
                    + ":" + t.rowCount()).orElse("none")));
        }
        Map<String, IntentProfile> profiles = new LinkedHashMap<>(PROFILES);
        if (!in.question().isEmpty()) profiles.put("own", IntentClassifier.classify(in.question(), schema));
        Execution exec = execution == null ? Execution.failure(sql, ExecutionError.Kind.SYNTAX,
                "not executed") : execution;
        for (Map.Entry<String, IntentProfile> p : profiles.entrySet()) {
            IntentProfile profile = p.getValue();
            put(in, "gate:" + p.getKey(), () -> IntentGate.failure(profile, sql).orElse("passes"));
            put(in, "clamps:" + p.getKey(), () -> Clamps.apply(sql, profile, dialect).toString());
            put(in, "contract:" + p.getKey(),
                    () -> ProjectionContract.enforce(sql, profile, schema, in.question()).toString());
            put(in, "score:" + p.getKey(),
                    () -> CandidateScorer.score(in.question(), profile, sql, schema, exec).toString());
        }

        List<String> against = new ArrayList<>();
        if (!in.isGold()) {
            against.add(in.gold());
        } else {
            List<NeighbourQueries.Neighbour> neighbours = new ArrayList<>();
            put(in, "neighbours", () -> {
                neighbours.addAll(new NeighbourQueries(schema).generate(sql, 0));
                return neighbours.stream().map(n -> n.edit() + " " + n.sql()).toList().toString();
            });
            neighbours.stream().limit(NEIGHBOUR_PAIRS).forEach(n -> against.add(n.sql()));
        }
        for (int i = 0; i < against.size(); i++) {
            String other = against.get(i);
            // a prediction is scored against its gold; a gold against its neighbours (as if they were predictions)
            String gold = in.isGold() ? sql : other;
            String predicted = in.isGold() ? other : sql;
            String tag = in.isGold() ? "#n" + i : "";
            put(in, "em-score" + tag, () -> em.score(gold, predicted).toString());
            put(in, "taxonomy" + tag, () -> taxonomy.classify(gold, predicted, true, false).label()
                    + " / " + taxonomy.classify(gold, predicted, false, false).label());
        }
    }

    private void put(Input in, String reader, Supplier<String> verdict) throws IOException {
        String v;
        try {
            v = verdict.get();
        } catch (RuntimeException | StackOverflowError e) {
            v = "!" + e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        out.write(escape(in.source()) + "\t" + escape(in.key()) + "\t" + reader + "\t" + escape(v) + "\n");
        lines++;
    }

    private static String escape(String s) {
        return s == null ? "null" : s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r");
    }

    /** What changed between two frozen files, per reader. */
    public record Difference(String reader, String source, String key, String before, String after) {}

    /** The verdicts of a frozen file, keyed by source, key and reader. */
    public static Map<String, String> load(Path file) {
        Map<String, String> out = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String[] f = line.split("\t", 4);
                if (f.length != 4) throw new IllegalArgumentException(file + ": not a frozen verdict line: " + line);
                out.put(f[0] + "\t" + f[1] + "\t" + f[2], f[3]);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** Every verdict that differs, is new or is gone between {@code before} and {@code after}, in key order. */
    public static List<Difference> compare(Map<String, String> before, Map<String, String> after) {
        Map<String, Difference> diffs = new TreeMap<>();
        for (Map.Entry<String, String> e : before.entrySet()) {
            String now = after.get(e.getKey());
            if (!e.getValue().equals(now)) diffs.put(e.getKey(), difference(e.getKey(), e.getValue(), now));
        }
        for (Map.Entry<String, String> e : after.entrySet()) {
            if (!before.containsKey(e.getKey())) diffs.put(e.getKey(), difference(e.getKey(), null, e.getValue()));
        }
        return List.copyOf(diffs.values());
    }

    private static Difference difference(String key, String before, String after) {
        String[] f = key.split("\t", 3);
        return new Difference(f[2], f[0], f[1], before, after);
    }

    private static Map<String, IntentProfile> fixedProfiles() {
        Map<String, IntentProfile> p = new LinkedHashMap<>();
        p.put("lookup", new IntentProfile(Intent.LOOKUP, false, false, null, false, false, List.of()));
        p.put("lookup-distinct-ordered", new IntentProfile(Intent.LOOKUP, true, false, null, true, false, List.of()));
        p.put("aggregate", new IntentProfile(Intent.AGGREGATE, false, false, null, false, false, List.of()));
        p.put("grouped", new IntentProfile(Intent.GROUPED_AGGREGATE, false, false, null, false, true, List.of()));
        p.put("top-1", new IntentProfile(Intent.TOP_K, true, true, 1, false, false, List.of()));
        p.put("top-5", new IntentProfile(Intent.TOP_K, true, true, 5, false, false, List.of()));
        return p;
    }
}
