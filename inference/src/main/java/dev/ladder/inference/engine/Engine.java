package dev.ladder.inference.engine;

import java.util.List;

/**
 * An inference engine as experiments and commands name it ({@code engine: djl} in a model of an experiment file,
 * {@code --engine djl} on a command): the third extension seam beside pipelines and metrics. An engine says which
 * fields a model of it may carry, refuses what it cannot take (each rule written once, here), resolves and
 * fingerprints a model before any work, loads it, and says what a run records of it in environment.json.
 *
 * <p>Engines are found with {@link java.util.ServiceLoader}: a class implementing this interface, and its name on one
 * line of {@code META-INF/services/dev.ladder.inference.engine.Engine} (docs/extending.md, "How to add an engine").
 */
public interface Engine {

    /** The name experiment files and {@code --engine} use: lower case, unique among the registered engines. */
    String name();

    /** Where the engine stands in lists of engines (messages, help): lower first, then by name. */
    default int order() {
        return 100;
    }

    /** The fields a model of this engine may carry in an experiment file ({@code models.ID}), beside {@code engine}. */
    List<String> fields();

    /**
     * Refuses what this engine cannot take, through {@link ModelFields#refuse}: an adapter, a dtype, a device... Called
     * on an experiment's model when the file is read and on a command's flags before anything loads.
     */
    default void check(ModelFields model) {}

    /**
     * Whether the model runs in this process from a model folder: {@code ladder run}'s {@code --model}, {@code --dtype},
     * {@code --device} and {@code --engine} act on such models, and {@code ladder serve} serves them.
     */
    default boolean inProcess() {
        return true;
    }

    /** Whether a command may name it with {@code --engine} (the oracle is named by {@code --model oracle[:NOISE]}). */
    default boolean onCommandLine() {
        return true;
    }

    /**
     * Whether a loaded model answers for one database scope only (the oracle answers from that scope's golds): a run
     * loads it again for every scope, where other models are loaded once and shared by every scope.
     */
    default boolean perScope() {
        return false;
    }

    /**
     * The name of a model that has no {@code path} field (its name in tables): the oracle's is {@code oracle:NOISE}.
     * Engines whose models have a path never get asked.
     */
    default String label(ModelFields model) {
        return name();
    }

    /** The engine that loads the model: itself, or for {@code auto} the one the model folder and device imply. */
    default Engine concrete(ModelFields model, EngineContext context) {
        return this;
    }

    /**
     * How many items a run answers together on this model, their calls merged round by round into one engine call
     * ({@link BatchWidth}): the model's {@code batch_width} when set, else 1 here (a folder engine decides from its
     * device and memory plan). Asked only of models that run in this process; a served model's requests in flight are
     * its {@code max_concurrent}.
     *
     * @param identity what {@link #identify} gave
     */
    default int batchWidth(ModelFields model, ModelIdentity identity, EngineContext context) {
        int asked = BatchWidth.asked(model);
        return asked > 0 ? asked : 1;
    }

    /** The model resolved to what runs it (a folder pulled if need be, a server reached) and fingerprinted. */
    ModelIdentity identify(ModelFields model, EngineContext context);

    /**
     * Everything that can refuse a load without loading (device, memory plan, weight files): a run checks every model
     * before it makes its directory. Nothing by default.
     */
    default void preflight(ModelFields model, ModelIdentity identity, EngineContext context) {}

    /**
     * Loads the model, saying on {@link EngineContext#log()} what it loads where (when there is a log).
     *
     * @param identity what {@link #identify} gave, or null where the caller needs no fingerprint (a command): the
     *                 engine then finds the model itself
     */
    EngineLoad load(ModelFields model, ModelIdentity identity, EngineContext context);
}
