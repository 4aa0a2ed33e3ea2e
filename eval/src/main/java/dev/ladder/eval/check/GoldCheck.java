package dev.ladder.eval.check;

import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.SqlFeatures;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.guard.GuardVerdict;
import dev.ladder.sql.guard.SqlGuard;
import dev.ladder.sql.read.Query;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What {@code ladder bench check} says of one item: its golds pass the SQL guard and execute (rows, or an empty
 * result flagged), its difficulty follows the rule, its order and LIMIT do not hang on ties (on the database and on
 * the stored test suite's databases), {@code order_matters} agrees with the gold, and it has no template sibling or
 * repeated question in another split or benchmark.
 */
public final class GoldCheck {

    /**
     * One item's line of the check.
     *
     * @param line    the item's line (id, category, difficulty, findings in parentheses, each gold's outcome)
     * @param bad     whether anything is wrong with it
     * @param covered whether its golds are read-only queries, so that coverage counts it
     */
    public record Verdict(String line, boolean bad, boolean covered) {}

    private final Database db;
    private final List<Database> suite;
    private final Set<String> otherSkeletons;
    private final Set<String> otherQuestions;
    private final String other;
    private final SqlGuard guard;

    /**
     * @param suite          the stored test suite's databases besides {@code db} (empty when none)
     * @param otherSkeletons SQL skeletons of the other split or benchmark ({@link Coverage#skeleton})
     * @param otherQuestions its normalised questions ({@link Coverage#normalizeQuestion})
     * @param other          its name, for the findings (null when there is none)
     */
    public GoldCheck(Database db, List<Database> suite, Set<String> otherSkeletons, Set<String> otherQuestions, String other) {
        this.db = db;
        this.suite = List.copyOf(suite);
        this.otherSkeletons = Set.copyOf(otherSkeletons);
        this.otherQuestions = Set.copyOf(otherQuestions);
        this.other = other;
        this.guard = new SqlGuard(db.dialect());
    }

    /** The check of one item; {@code where} says where it was read (file:line, or split and position). */
    public Verdict check(BenchmarkItem item, String where) {
        List<String> refused = new ArrayList<>();
        for (String gold : item.allGold()) {
            GuardVerdict verdict = guard.check(gold);
            if (!verdict.accepted()) refused.add(verdict.reason());
        }
        if (!refused.isEmpty()) {
            // nothing else is checked: the rule, ties and coverage are defined for queries only
            return new Verdict(item.id() + "\t" + where + ": gold refused by the SQL guard (" + String.join("; ", refused)
                    + ")", true, false);
        }
        String computed;
        try {
            computed = SqlFeatures.of(item.sql()).hardness();
        } catch (IllegalArgumentException e) {
            computed = "unparsable";
        }
        StringBuilder line = new StringBuilder(item.id()).append('\t').append(item.category()).append('\t')
                .append(item.difficulty());
        boolean bad = !computed.equals(item.difficulty());
        if (bad) line.append(" (rule says ").append(computed).append(')');
        if (otherSkeletons.contains(Coverage.skeleton(item.sql()))) {
            bad = true;
            line.append(" (template sibling in ").append(other).append(')');
        }
        if (otherQuestions.contains(Coverage.normalizeQuestion(item.question()))) {
            bad = true;
            line.append(" (same question in ").append(other).append(')');
        }
        for (String problem : OrderCheck.problems(db, item.sql(), item.orderMatters())) {
            bad = true;
            line.append(" (").append(problem).append(')');
        }
        for (Database s : suite) {
            for (String problem : OrderCheck.problems(s, item.sql(), item.orderMatters())) {
                bad = true;
                line.append(" (on suite database ").append(s.name()).append(": ").append(problem).append(')');
            }
        }
        if (item.orderMatters() && !Query.read(item.sql()).ordersRows()) {
            bad = true;
            line.append(" (order_matters but no ORDER BY)");
        }
        for (String gold : item.allGold()) {
            Execution ex = db.execute(gold);
            if (ex instanceof Execution.Success ok) {
                line.append("\tOK ").append(ok.result().rowCount()).append(" rows");
                if (ok.result().rowCount() == 0) line.append(" (empty!)");
            } else {
                bad = true;
                line.append("\tFAIL ").append(((Execution.Failure) ex).error());
            }
        }
        return new Verdict(line.toString(), bad, true);
    }
}
