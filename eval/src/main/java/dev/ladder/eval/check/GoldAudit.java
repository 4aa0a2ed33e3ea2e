package dev.ladder.eval.check;

import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.score.ExOptions;
import dev.ladder.scorer.score.ExecutionMatch;
import dev.ladder.pipeline.kit.IntentClassifier;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.QueryResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Golds that are likely wrong, for a person to look at (public benchmarks keep turning such golds up): a result that
 * is empty, all NULL, or a single row where the question asks for a list; an ORDER BY whose ties the question's
 * wording does not resolve; a gold that a majority of a finished run's predictions, agreeing with each other,
 * disagree with. A finding is a suspicion with its evidence, never a verdict: no gold is ever changed.
 */
public final class GoldAudit {

    /** Fewest distinct predictions that must agree on another answer before the gold is suspected. */
    static final int MIN_AGREEING = 2;

    /** Words by which a question says how ties are broken ("alphabetically", "then by", "ties"). */
    private static final Pattern TIE_WORDING = Pattern.compile(
            "\\b(ties?|tied|alphabetical(ly)?|then by|break(s|ing)? )", Pattern.CASE_INSENSITIVE);

    private final Database db;
    private final Map<String, List<String>> predictions;

    /**
     * @param predictions each item's predicted SQL from a finished run's rungs (by item id; empty: no run given)
     */
    public GoldAudit(Database db, Map<String, List<String>> predictions) {
        this.db = db;
        this.predictions = Map.copyOf(predictions);
    }

    /**
     * Why {@code item}'s gold is likely wrong, each reason with its evidence; empty when nothing is suspect.
     *
     * @param orderProblems what {@link OrderCheck} found of the gold's ORDER BY and LIMIT on this database
     */
    public List<String> reasons(BenchmarkItem item, List<String> orderProblems) {
        List<String> out = new ArrayList<>();
        Execution run = db.execute(item.sql());
        if (!(run instanceof Execution.Success ok)) return out; // a failing gold is a problem already, not a suspicion
        QueryResult gold = ok.result();
        if (gold.rows().isEmpty()) {
            out.add("empty result: the question would have no answer");
        } else if (gold.rows().stream().allMatch(row -> row.stream().allMatch(v -> v == null))) {
            out.add("every value is NULL (" + gold.rows().size() + (gold.rows().size() == 1 ? " row)" : " rows)"));
        } else if (gold.rows().size() == 1 && IntentClassifier.asksForList(item.question())) {
            out.add("one row, where the question asks for a list");
        }
        for (String problem : orderProblems) {
            // the other findings of the order check (LIMIT without ORDER BY, SQL it cannot read) are not about wording
            if (!problem.startsWith("tie ")) continue;
            out.add(TIE_WORDING.matcher(item.question()).find()
                    ? "the question says how to break ties, the ORDER BY does not (" + problem + ")"
                    : "the question does not say how to break ties (" + problem + ")");
        }
        majority(item, gold).ifPresent(out::add);
        return out;
    }

    /**
     * A majority of the run's distinct executing predictions agree with each other on a result other than the gold's.
     * Distinct texts are counted, not rungs: rungs that reuse one completion are one vote.
     */
    private Optional<String> majority(BenchmarkItem item, QueryResult gold) {
        List<String> preds = predictions.getOrDefault(item.id(), List.of());
        Set<String> distinct = new LinkedHashSet<>();
        for (String p : preds) {
            if (p != null && !p.isBlank()) distinct.add(p.strip().replaceAll("\\s+", " "));
        }
        // groups of predictions returning the same result, keyed by the first one's SQL
        Map<String, QueryResult> representative = new LinkedHashMap<>();
        Map<String, Integer> votes = new LinkedHashMap<>();
        int executing = 0;
        for (String p : distinct) {
            if (!(db.execute(p) instanceof Execution.Success s)) continue;
            executing++;
            String group = null;
            for (Map.Entry<String, QueryResult> g : representative.entrySet()) {
                if (ExecutionMatch.equal(g.getKey(), g.getValue(), s.result(), ExOptions.DEFAULT, db.dialect())) {
                    group = g.getKey();
                    break;
                }
            }
            if (group == null) {
                group = p;
                representative.put(p, s.result());
            }
            votes.merge(group, 1, Integer::sum);
        }
        for (Map.Entry<String, Integer> v : votes.entrySet()) {
            int n = v.getValue();
            if (n < MIN_AGREEING || 2 * n <= executing) continue;
            if (ExecutionMatch.equal(item.sql(), gold, representative.get(v.getKey()), ExOptions.DEFAULT, db.dialect())) {
                continue;
            }
            return Optional.of(n + " of the run's " + executing + " distinct executing predictions agree with each"
                    + " other and not with the gold (e.g. " + shorten(v.getKey()) + ")");
        }
        return Optional.empty();
    }

    private static String shorten(String sql) {
        return sql.length() <= 120 ? sql : sql.substring(0, 117) + "...";
    }
}
