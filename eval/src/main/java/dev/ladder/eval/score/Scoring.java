package dev.ladder.eval.score;

import dev.ladder.eval.score.em.EmScore;
import dev.ladder.eval.score.em.ExactMatch;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionError;
import dev.ladder.sql.db.ExecutionLimits;
import dev.ladder.sql.db.QueryResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Scores predictions against gold SQL on one database and, for TS, on its test suite.
 * Gold results are computed once per (database, query) and kept for the life of this object,
 * so scoring many prediction files (or many rungs) runs each gold once per database.
 */
public final class Scoring {

    private final Database original;
    private final Optional<List<Database>> suite;
    private final ExOptions options;
    private final ExactMatch exactMatch;
    private final Map<String, Execution> goldResults = new ConcurrentHashMap<>();
    private final Map<String, Optional<TiedOrder>> tiedOrders = new ConcurrentHashMap<>();

    /**
     * @param suite the generated databases of the test suite (the original is always part of TS);
     *              empty when there is no suite, and TS is then reported as missing
     */
    public Scoring(Database original, Optional<List<Database>> suite, ExOptions options, ExactMatch exactMatch) {
        this.original = original;
        this.suite = suite.map(List::copyOf);
        this.options = options;
        this.exactMatch = exactMatch;
    }

    public ExOptions options() {
        return options;
    }

    /** The name of the original database (a SQLite file's stem, a server database's name). */
    public String databaseName() {
        return original.name();
    }

    /**
     * Why EM cannot read one of {@code golds} (the first that fails, as one line), or empty when it reads them all.
     * Callers use it to name a bad gold before scoring; {@link #score} itself only flags one ({@code gold-unreadable}).
     */
    public Optional<String> unreadableGold(List<String> golds) {
        for (String gold : golds) {
            try {
                exactMatch.analyse(gold);
            } catch (IllegalArgumentException e) {
                return Optional.of(String.valueOf(e.getMessage()).lines().findFirst().orElse("").strip());
            }
        }
        return Optional.empty();
    }

    public boolean hasSuite() {
        return suite.isPresent();
    }

    /**
     * @param golds the gold SQL first, then any alternatives accepted as equivalent
     */
    public ItemScore score(String id, String category, List<String> golds, String predicted) {
        List<String> flags = new ArrayList<>();
        if (predicted == null || predicted.isBlank()) {
            flags.add("no-prediction");
            return new ItemScore(id, category, false, false, false, suite.isPresent() ? false : null,
                    options.label(), "no prediction", flags);
        }
        Execution raw = original.execute(predicted);
        boolean va = raw.ok();
        String error = raw instanceof Execution.Failure f ? f.error().toString() : null;

        boolean em = false;
        for (int g = 0; g < golds.size() && !em; g++) {
            EmScore s;
            try {
                s = exactMatch.score(golds.get(g), predicted);
            } catch (IllegalArgumentException e) {
                // the gold is the benchmark's fault, not the prediction's: EM cannot hold, and the row says why
                addOnce(flags, "gold-unreadable");
                continue;
            }
            em = s.match();
            if (em && g > 0) flags.add("alternative");
        }

        String runPredicted = ExecutionMatch.prepare(predicted, options, original.dialect());
        Execution pred = runPredicted.equals(predicted) ? raw : original.execute(runPredicted);
        boolean ex = false;
        Boolean ts = suite.isPresent() ? false : null;
        for (int g = 0; g < golds.size() && !(ex && (ts == null || ts)); g++) {
            boolean exHere = sameAnswer(original, golds.get(g), pred, flags);
            if (!exHere) continue;
            if (!ex && g > 0 && !flags.contains("alternative")) flags.add("alternative");
            ex = true;
            if (suite.isPresent() && !ts) ts = holdsOnSuite(golds.get(g), runPredicted, flags);
        }
        return new ItemScore(id, category, va, ex, em, ts, options.label(), error, flags);
    }

    /** EX alone (no EM, no test suite): whether {@code predicted} returns what one of the golds returns. */
    public boolean ex(List<String> golds, String predicted) {
        if (predicted == null || predicted.isBlank()) return false;
        Execution pred = original.execute(ExecutionMatch.prepare(predicted, options, original.dialect()));
        List<String> flags = new ArrayList<>();
        for (String gold : golds) if (sameAnswer(original, gold, pred, flags)) return true;
        return false;
    }

    private boolean holdsOnSuite(String gold, String runPredicted, List<String> flags) {
        for (Database db : suite.get()) {
            // a database on which the gold itself fails cannot judge the prediction: skip it, say so
            if (!goldResult(db, gold).ok()) {
                addOnce(flags, "gold-failed:" + db.name());
                continue;
            }
            if (!sameAnswer(db, gold, rerunOnTimeout(db, runPredicted, flags), flags)) return false;
        }
        return true;
    }

    /**
     * A prediction's run on a suite database. A timeout there says how busy the machine was, not what the query
     * returns: it is run once more with {@link #SUITE_RETRY_LIMITS}, and a second timeout is flagged
     * ({@code timeout:<db>}) so that a TS of 0 from it is never silent.
     */
    static Execution rerunOnTimeout(Database db, String sql, List<String> flags) {
        Execution e = db.execute(sql);
        if (!(e instanceof Execution.Failure f) || f.error().kind() != ExecutionError.Kind.TIMEOUT) return e;
        Execution again = db.execute(sql, SUITE_RETRY_LIMITS);
        if (again instanceof Execution.Failure g && g.error().kind() == ExecutionError.Kind.TIMEOUT) {
            addOnce(flags, "timeout:" + db.name());
        }
        return again;
    }

    /** The limits of the second try of a prediction that timed out on a suite database. */
    static final ExecutionLimits SUITE_RETRY_LIMITS = new ExecutionLimits(Duration.ofSeconds(60),
            ExecutionLimits.DEFAULT.rowCap());

    /** EX of an already-run prediction against one gold on one database. */
    private boolean sameAnswer(Database db, String gold, Execution pred, List<String> flags) {
        if (!(pred instanceof Execution.Success p)) return false;
        Execution g = goldResult(db, gold);
        if (!(g instanceof Execution.Success gs)) {
            addOnce(flags, "gold-failed:" + db.name());
            return false;
        }
        QueryResult gr = gs.result();
        if (gr.truncated() || p.result().truncated()) addOnce(flags, "truncated");
        if (options.mode() == ExMode.SPIDER && !gr.truncated() && ExecutionMatch.goldOrdered(gold, db.dialect())) {
            Optional<TiedOrder> tied = tiedOrder(db, gold);
            if (tied.isPresent()) return ResultComparison.equalTied(tied.get(), p.result(), options);
        }
        return ExecutionMatch.equal(gold, gr, p.result(), options, db.dialect());
    }

    /** The runs of equal sort keys of an ordered gold on {@code db}, found once. */
    private Optional<TiedOrder> tiedOrder(Database db, String gold) {
        String run = ExecutionMatch.prepare(gold, options, db.dialect());
        return tiedOrders.computeIfAbsent(db.name() + '\u0000' + run, k -> TiedOrder.of(db, run));
    }

    /** The gold's result on {@code db}, run once. */
    public Execution goldResult(Database db, String gold) {
        String run = ExecutionMatch.prepare(gold, options, db.dialect());
        // a gold that timed out once is run again with more time: a busy machine must not drop a suite database
        return goldResults.computeIfAbsent(db.name() + '\u0000' + run, k -> rerunOnTimeout(db, run, new ArrayList<>()));
    }

    private static void addOnce(List<String> flags, String flag) {
        if (!flags.contains(flag)) flags.add(flag);
    }
}
