package dev.ladder.pipeline.oracle.engine;

import dev.ladder.inference.engine.BatchWidth;
import dev.ladder.inference.engine.Engine;
import dev.ladder.inference.engine.EngineContext;
import dev.ladder.inference.engine.EngineLoad;
import dev.ladder.inference.engine.ModelFields;
import dev.ladder.inference.engine.ModelIdentity;
import dev.ladder.pipeline.oracle.OracleModel;
import dev.ladder.pipeline.oracle.OracleNoise;
import dev.ladder.pipeline.oracle.OracleScope;
import dev.ladder.pipeline.strategy.Pipelines;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The oracle as an engine ({@code engine: oracle} in an experiment, {@code --model oracle[:NOISE]} on ask): no files,
 * adapter, dtype or device; its one field is the noise, and its identity is that noise. It answers from one database
 * scope's golds, given as an {@link OracleScope} fact each time it loads. (A package of its own: it asks the pipelines'
 * registry for the oracle's teachers, and that registry reads the oracle package.)
 */
public final class OracleEngine implements Engine {

    public static final String NAME = OracleModel.ENGINE;
    /** What an oracle's fingerprint starts with (its noise follows). */
    public static final String PRINT = "oracle-engine:";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int order() {
        return 50;
    }

    @Override
    public List<String> fields() {
        return List.of("noise", BatchWidth.FIELD);
    }

    /** Answers are written from the gold: there are no weights to adapt, hold in a dtype or place on a device. */
    @Override
    public void check(ModelFields model) {
        for (String own : List.of("adapter", "dtype", "device", "merge_base")) {
            if (model.get(own) != null) throw model.refuse(own, "the oracle engine takes no " + own.replace('_', ' '));
        }
    }

    /** Named by {@code --model oracle[:NOISE]} on ask, never by {@code --engine}. */
    @Override
    public boolean onCommandLine() {
        return false;
    }

    @Override
    public boolean inProcess() {
        return false;
    }

    /** Its answers come from the golds of one scope's items. */
    @Override
    public boolean perScope() {
        return true;
    }

    /** {@code oracle:NOISE}, the noise as {@link OracleNoise#label()} writes it (checked here). */
    @Override
    public String label(ModelFields model) {
        return NAME + ":" + noise(model).label();
    }

    /** No files: the noise is the instrument's identity. */
    @Override
    public ModelIdentity identify(ModelFields model, EngineContext context) {
        return ModelIdentity.of(PRINT + noise(model).label());
    }

    /** Never cached: its answers cost nothing and depend on the item, which a prompt-keyed cache does not see. */
    @Override
    public EngineLoad load(ModelFields model, ModelIdentity identity, EngineContext context) {
        OracleScope scope = context.fact(OracleScope.class).orElseThrow(() -> new IllegalStateException(
                "the oracle engine loads with the database scope's OracleScope as a fact of the context"));
        OracleNoise noise = noise(model);
        OracleModel oracle = new OracleModel(noise, scope.key(), scope.database().schema(), scope.database().dialect(),
                Pipelines.registry().oracleTeachers());
        context.say((context.id() != null ? "model " + context.id() : "model") + ": " + OracleModel.DISCLAIMER
                + " (noise " + noise.label() + ")");
        Map<String, String> env = new LinkedHashMap<>();
        env.put("engine", NAME);
        env.put("oracle_noise", noise.label());
        env.put("oracle", OracleModel.DISCLAIMER);
        return new EngineLoad(oracle, NAME, null, null, env, null);
    }

    private static OracleNoise noise(ModelFields model) {
        try {
            return OracleNoise.parse(model.get("noise", "none"));
        } catch (IllegalArgumentException e) {
            throw model.refuse("noise", e.getMessage());
        }
    }
}
