package dev.ladder.pipeline.oracle;

import dev.ladder.inference.CallTag;
import dev.ladder.sql.Dialect;
import dev.ladder.sql.mutate.Corrupted;
import dev.ladder.sql.mutate.Corruption;
import dev.ladder.sql.mutate.SqlCorruptions;
import dev.ladder.sql.schema.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * One answer the oracle writes: the call (its tag and prompt), the item's gold, the database's schema and dialect, and
 * the seeded draws of this answer. A teacher asks {@link #sql()} for each statement it writes, which is the gold or,
 * with the noise's semantic rate, the gold under one corruption (recorded in {@link #notes()}).
 */
public final class OracleCall {

    private final CallTag tag;
    private final String prompt;
    private final String gold;
    private final Schema schema;
    private final Dialect dialect;
    private final OracleKey key;
    private final OracleNoise noise;
    private final Random random;
    private final List<String> notes = new ArrayList<>();

    OracleCall(CallTag tag, String prompt, String gold, Schema schema, Dialect dialect, OracleKey key, OracleNoise noise,
               Random random) {
        this.tag = tag;
        this.prompt = prompt;
        this.gold = gold;
        this.schema = schema;
        this.dialect = dialect;
        this.key = key;
        this.noise = noise;
        this.random = random;
    }

    public CallTag tag() {
        return tag;
    }

    public String prompt() {
        return prompt;
    }

    /** The item's gold, exactly. */
    public String gold() {
        return gold;
    }

    public Schema schema() {
        return schema;
    }

    public Dialect dialect() {
        return dialect;
    }

    /** This answer's seeded draws (a teacher's own choices, e.g. which confidence to state). */
    public Random random() {
        return random;
    }

    public OracleNoise noise() {
        return noise;
    }

    /** Whether {@code sql} returns what the gold returns (the run's EX): the judge's ground truth. */
    public boolean answers(String sql) {
        return key.answers(tag.item(), sql);
    }

    /** Whether this answer draws a semantic defect (each draw is independent); recorded when it does. */
    public boolean semanticDraw(String what) {
        boolean hit = noise.semantic() > 0 && random.nextDouble() < noise.semantic();
        if (hit) notes.add(OracleModel.SEMANTIC + what);
        return hit;
    }

    /**
     * A statement the answer writes: the gold, or with the semantic rate the gold under one corruption among the
     * noise's operators that apply to it (the note says which and where).
     */
    public String sql() {
        if (noise.semantic() == 0 || random.nextDouble() >= noise.semantic()) return gold;
        List<Corruption> ops = new ArrayList<>(SqlCorruptions.applicable(gold, schema, dialect));
        ops.retainAll(noise.operators());
        while (!ops.isEmpty()) {
            Corruption op = ops.remove(random.nextInt(ops.size()));
            var done = SqlCorruptions.apply(op, gold, schema, dialect, random);
            if (done.isPresent()) {
                Corrupted c = done.get();
                notes.add(OracleModel.SEMANTIC + c.operator().label() + " (" + c.where() + ")");
                return c.sql();
            }
        }
        notes.add("semantic: no operator applies; the gold is written unchanged");
        return gold;
    }

    /** What was done to this answer so far. */
    public List<String> notes() {
        return List.copyOf(notes);
    }

    void note(String s) {
        notes.add(s);
    }
}
