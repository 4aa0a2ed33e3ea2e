package dev.ladder.eval.check;

import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.pipeline.agent.IntentGate;
import dev.ladder.pipeline.kit.Intent;
import dev.ladder.pipeline.kit.IntentClassifier;
import dev.ladder.pipeline.kit.IntentProfile;
import dev.ladder.sql.schema.Schema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Does each gold pass its own question's intent gate? The agent drops candidates that fail the gate, so a gold that
 * fails it is a right answer the agent would throw away; the share that pass, on questions the rules were not written
 * from (Spider train), measures how general the rules are (docs/agent.md, "Generality and leak check").
 *
 * <p>The gate reads the SQL's structure only ({@link IntentGate#failure}), so nothing is executed; the
 * schema is the one the agent classifies with (its column names make "by &lt;column&gt;" a grouping).
 */
public final class GateCheck {

    /** One gold against its question's profile; {@code failure} is empty when it passes. */
    public record Verdict(BenchmarkItem item, IntentProfile profile, String failure) {
        public boolean passes() {
            return failure.isEmpty();
        }
    }

    /** Golds of one intent (or all, {@code intent} null) and how many pass. */
    public record Tally(Intent intent, int golds, int pass) {
        public double share() {
            return golds == 0 ? 0 : (double) pass / golds;
        }
    }

    private GateCheck() {}

    /** @param schemaOf the schema of an item's database */
    public static List<Verdict> run(List<BenchmarkItem> items, Function<BenchmarkItem, Schema> schemaOf) {
        List<Verdict> out = new ArrayList<>();
        for (BenchmarkItem item : items) {
            IntentProfile p = IntentClassifier.classify(item.question(), schemaOf.apply(item));
            out.add(new Verdict(item, p, IntentGate.failure(p, item.sql()).orElse("")));
        }
        return out;
    }

    /** One tally per intent that occurs, in {@link Intent} order, then the total (intent null). */
    public static List<Tally> tally(List<Verdict> verdicts) {
        Map<Intent, int[]> counts = new LinkedHashMap<>();
        for (Intent i : Intent.values()) counts.put(i, new int[2]);
        for (Verdict v : verdicts) {
            int[] c = counts.get(v.profile().intent());
            c[0]++;
            if (v.passes()) c[1]++;
        }
        List<Tally> out = new ArrayList<>();
        counts.forEach((i, c) -> {
            if (c[0] > 0) out.add(new Tally(i, c[0], c[1]));
        });
        out.add(new Tally(null, verdicts.size(), (int) verdicts.stream().filter(Verdict::passes).count()));
        return out;
    }
}
